/**
 * Applies one tar entry of a layer to the filesystem view: limits, path checks, whiteouts, file records, hashes
 * and cataloging. Every entry's content stream is read to its end (or the walk fails), which is what lets
 * tar-stream move on to the next entry.
 */
import { createHash } from 'node:crypto';
import type { Header } from 'tar-stream';
import type { ContentScanner, FileRecord, FileType } from '../model.js';
import type { Cataloger } from '../../ecosystems/model.js';
import type { CaptureBudget } from './capture.js';
import { LayerLimitError, UnsafePathError } from './errors.js';
import { ROOT, baseName, checkSymlinkTarget, joinPath, normaliseEntryPath, parentPath } from './paths.js';
import type { FsNode, FsTree } from './tree.js';

const WHITEOUT_PREFIX = '.wh.';
const OPAQUE_MARKER = '.wh..wh..opq';
/** AUFS bookkeeping (.wh..wh.plnk, .wh..wh.aufs): neither files nor whiteouts; Docker skips them too. */
const AUFS_META_PREFIX = '.wh..wh.';

const TYPES: Partial<Record<string, FileType>> = {
  file: 'file',
  'contiguous-file': 'file',
  link: 'hardlink',
  symlink: 'symlink',
  directory: 'dir',
  'character-device': 'char',
  'block-device': 'block',
  fifo: 'fifo',
};

/** Reading an entry's content failed because the archive stream failed; the walker explains the stream's error. */
export class EntryStreamFailed extends Error {
  constructor(cause: unknown) {
    super('tar entry stream failed', { cause });
    this.name = 'EntryStreamFailed';
  }
}

export interface EntryApplierOptions {
  tree: FsTree;
  capture: CaptureBudget;
  catalogers: readonly Cataloger[];
  scanners: readonly ContentScanner[];
  hashFiles: boolean;
  maxEntries: number;
  maxExpandedBytes: number;
  warn: (message: string) => void;
}

export interface LayerPosition {
  digest: string;
  index: number;
}

/**
 * A tar header as tar-stream gives it. Its type is null for typeflags it does not know, and PAX records are
 * passed through (uid/gid too large for the ustar fields live there).
 */
export type TarHeader = Omit<Header, 'type' | 'pax'> & { type: Header['type'] | null; pax?: Record<string, string> | null };

/** An entry's content as tar-stream gives it (a streamx Readable). */
type EntryBody = AsyncIterable<Uint8Array>;

export class EntryApplier {
  entryCount = 0;
  /** Sum of the sizes of all tar entries read so far. */
  expandedBytes = 0;

  constructor(private readonly o: EntryApplierOptions) {}

  async apply(header: TarHeader, body: EntryBody, layer: LayerPosition): Promise<void> {
    this.count(header, layer);
    const path = normaliseEntryPath(header.name);
    const name = baseName(path);
    if (path === ROOT) return readBody(body); // the archive's './': the root itself is not part of the view
    if (name.startsWith(WHITEOUT_PREFIX)) {
      this.applyWhiteout(header.name, path, name, layer.index);
      return readBody(body);
    }

    const type = header.type ? TYPES[header.type] : undefined;
    if (!type) {
      this.o.warn(`${path}: tar entry of unsupported type '${header.type ?? 'unknown'}' was ignored`);
      return readBody(body);
    }
    const record: FileRecord = {
      path,
      type,
      mode: (header.mode ?? 0) & 0o7777,
      uid: numericPax(header.pax?.uid) ?? header.uid ?? 0,
      gid: numericPax(header.pax?.gid) ?? header.gid ?? 0,
      size: 0,
    };
    switch (type) {
      case 'file':
        return this.addRegularFile(record, header.size ?? 0, body, layer);
      case 'hardlink':
        return this.addHardlink(record, header, body, layer);
      case 'symlink':
        record.linkTarget = checkSymlinkTarget(header.name, header.linkname ?? '');
        break;
    }
    await readBody(body);
    this.o.tree.set(record, layer.index);
  }

  /** Limits are checked on the header, before any content is read: a bomb is refused without expanding it. */
  private count(header: TarHeader, layer: LayerPosition): void {
    this.entryCount += 1;
    if (this.entryCount > this.o.maxEntries) {
      throw new LayerLimitError('maxEntries', this.o.maxEntries, layer.digest, `the image has more than ${this.o.maxEntries} tar entries`);
    }
    // tar-stream does not read content for directory entries, whatever size they declare.
    const size = header.type === 'directory' ? 0 : (header.size ?? 0);
    this.expandedBytes += size;
    if (this.expandedBytes > this.o.maxExpandedBytes) {
      throw new LayerLimitError(
        'maxExpandedBytes',
        this.o.maxExpandedBytes,
        layer.digest,
        `its files expand to more than ${this.o.maxExpandedBytes} bytes (entry ${JSON.stringify(header.name)} alone is ${size} bytes)`,
      );
    }
  }

  private applyWhiteout(entryName: string, path: string, name: string, layer: number): void {
    const dir = parentPath(path);
    if (name === OPAQUE_MARKER) return this.o.tree.makeOpaque(dir, layer);
    if (name.startsWith(AUFS_META_PREFIX)) return;
    const hidden = name.slice(WHITEOUT_PREFIX.length);
    if (hidden === '' || hidden === '.' || hidden === '..') throw new UnsafePathError(entryName, 'is a whiteout that names no file');
    this.o.tree.whiteout(joinPath(dir, hidden), layer);
  }

  private async addRegularFile(record: FileRecord, size: number, body: EntryBody, layer: LayerPosition): Promise<void> {
    record.size = size;
    // Into the view first: a path through a symlink is refused before its content is read.
    const node = this.o.tree.set(record, layer.index);
    let catalogers = this.o.capture.eligible(record.path, size, this.matching(record.path));
    if (catalogers.length > 0 && !this.o.capture.reserve(record.path, size, catalogers)) catalogers = [];
    const scanners = this.scannersFor(record.path, size);

    const hash = this.o.hashFiles ? createHash('sha256') : undefined;
    const chunks: Uint8Array[] | undefined = catalogers.length > 0 || scanners.length > 0 ? [] : undefined;
    await readBody(body, (chunk) => {
      hash?.update(chunk);
      chunks?.push(chunk);
    });
    if (hash) record.sha256 = hash.digest('hex');
    if (!chunks) return;

    const content = Buffer.concat(chunks, size);
    chunks.length = 0;
    this.scan(node, record.path, content, scanners);
    if (catalogers.length === 0) return;
    await this.catalog(node, record.path, content, catalogers);
    this.o.capture.keep(record.path, node, content);
  }

  /** A hardlink shares an earlier entry's content: its record takes the target's size and hash. */
  private async addHardlink(record: FileRecord, header: TarHeader, body: EntryBody, layer: LayerPosition): Promise<void> {
    const linkName = header.linkname ?? '';
    let targetPath: string;
    try {
      targetPath = normaliseEntryPath(linkName);
    } catch (err) {
      if (err instanceof UnsafePathError) throw new UnsafePathError(header.name, `is a hardlink to ${JSON.stringify(linkName)}, which ${err.reason}`);
      throw err;
    }
    await readBody(body);

    const target = this.o.tree.get(targetPath);
    const targetRecord = target?.record;
    if (!targetRecord) {
      this.o.warn(`hardlink ${record.path} -> ${targetPath}: the target is not an earlier entry of the image`);
    } else if (targetRecord.type !== 'file' && targetRecord.type !== 'hardlink') {
      this.o.warn(`hardlink ${record.path} -> ${targetPath}: the target is a ${targetRecord.type}, not a file`);
    }
    record.linkTarget = targetPath;
    record.size = targetRecord?.size ?? 0;
    if (targetRecord?.sha256) record.sha256 = targetRecord.sha256;
    const node = this.o.tree.set(record, layer.index);

    const matching = this.matching(record.path);
    const scanners = this.scannersFor(record.path, record.size);
    if (matching.length === 0 && scanners.length === 0) return;
    const content = target && this.o.capture.contentOf(targetPath, target);
    if (!content) {
      if (matching.length > 0) this.o.warn(`hardlink ${record.path} -> ${targetPath} was not cataloged: the target's content was not kept`);
      // The same bytes were scanned under the target's path: reuse what the scanners that want this path found.
      const found = [...(target?.scans ?? [])].filter(([name]) => scanners.some((s) => s.name === name));
      if (found.length > 0) node.scans = new Map(found);
      return;
    }
    this.scan(node, record.path, content, scanners);
    if (matching.length > 0) await this.catalog(node, record.path, content, this.o.capture.eligible(record.path, content.length, matching));
  }

  private scannersFor(path: string, size: number): ContentScanner[] {
    return this.o.scanners.filter((scanner) => {
      try {
        return scanner.wants(path, size);
      } catch (err) {
        this.o.warn(`content scanner '${scanner.name}' failed to select ${path}: ${messageOf(err)}`);
        return false;
      }
    });
  }

  /** Like catalog results, scan results live on the node and vanish with it. */
  private scan(node: FsNode, path: string, content: Buffer, scanners: readonly ContentScanner[]): void {
    for (const scanner of scanners) {
      try {
        const result = scanner.scan(path, content);
        if (result !== undefined) (node.scans ??= new Map()).set(scanner.name, result);
      } catch (err) {
        this.o.warn(`content scanner '${scanner.name}' could not read ${path}: ${messageOf(err)}`);
      }
    }
  }

  private matching(path: string): Cataloger[] {
    return this.o.catalogers.filter((cataloger) => {
      try {
        return cataloger.matches(path);
      } catch (err) {
        this.o.warn(`cataloger '${cataloger.name}' failed to match ${path}: ${messageOf(err)}`);
        return false;
      }
    });
  }

  /** Results live on the node, so they disappear when a later layer replaces or deletes the path. */
  private async catalog(node: FsNode, path: string, content: Buffer, catalogers: readonly Cataloger[]): Promise<void> {
    for (const cataloger of catalogers) {
      try {
        const packages = await cataloger.parse(path, content);
        if (packages.length > 0) (node.results ??= new Map()).set(cataloger.name, packages);
      } catch (err) {
        this.o.warn(`cataloger '${cataloger.name}' could not parse ${path}: ${messageOf(err)}`);
      }
    }
  }
}

/** Reads an entry's content to its end, handing each chunk to `onChunk`. */
async function readBody(body: EntryBody, onChunk?: (chunk: Uint8Array) => void): Promise<void> {
  try {
    for await (const chunk of body) onChunk?.(chunk);
  } catch (err) {
    throw new EntryStreamFailed(err);
  }
}

function numericPax(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
