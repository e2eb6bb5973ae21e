/**
 * Image layers -> final filesystem view + catalog results, in one streaming pass per layer: blob -> decompress ->
 * byte counter -> tar parser -> entries applied in order. Nothing is written to disk; memory holds the file view,
 * one decompression window and the catalog buffers (bounded by the limits), whatever the image size.
 */
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import type { ContentScanner, FileRecord } from '../model.js';
import type { Cataloger, CatalogedPackage } from '../../ecosystems/model.js';
import { CaptureBudget } from './capture.js';
import { type LayerCompression, SNIFF_BYTES, createDecompressor, describeDecompressionFailure, detectCompression, peekBytes } from './decompress.js';
import { EntryApplier, EntryStreamFailed, type LayerPosition, type TarHeader } from './entries.js';
import { CorruptLayerError, LayerError, LayerLimitError, LayerSourceError, UnsafePathError } from './errors.js';
import { FsTree } from './tree.js';
import { DEFAULT_MAX_ZSTD_WINDOW_BYTES, ZstdStreamError } from './zstd.js';

export interface LayerBlob {
  /** e.g. sha256:…; used in messages. */
  digest: string;
  /** The blob as stored (compressed or not); called once, when the layer's turn comes. */
  open(): Promise<Readable>;
}

export interface LayerLimits {
  /** Sum of all tar entry sizes across layers. Also bounds the decompressed tar data (plus tar's own overhead). */
  maxExpandedBytes: number;
  /** Tar entries across all layers (whiteouts and directories included). */
  maxEntries: number;
  /** Largest file buffered for catalogers (each cataloger's own maxFileBytes applies too). */
  maxFileBytesForCatalogers: number;
  /** Catalog buffers held at once: the file being parsed plus content kept for hardlinks. */
  maxTotalBufferedBytes: number;
  /** Largest zstd window accepted; fzstd allocates it whole. */
  maxZstdWindowBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DEFAULT_LAYER_LIMITS: LayerLimits = {
  maxExpandedBytes: 32 * GiB,
  maxEntries: 2_000_000,
  maxFileBytesForCatalogers: 64 * MiB,
  maxTotalBufferedBytes: 256 * MiB,
  maxZstdWindowBytes: DEFAULT_MAX_ZSTD_WINDOW_BYTES,
};

export interface WalkOptions {
  catalogers: readonly Cataloger[];
  /** Read the files they want, whatever the catalogers' limits (they bound the sizes they want themselves). */
  scanners?: readonly ContentScanner[];
  limits?: Partial<LayerLimits>;
  /** Compute sha256 of every regular file (costs CPU, not memory). */
  hashFiles: boolean;
  signal?: AbortSignal;
  /** Called as layers are read (for every chunk of a blob: throttle what it does). */
  onProgress?: (progress: WalkProgress) => void;
}

export interface WalkProgress {
  /** The layer being read, from 1. */
  layer: number;
  /** Blob bytes (as stored: compressed or not) read so far, over all layers. */
  blobBytes: number;
}

export interface WalkResult {
  /** The final filesystem view, parents before children, in code-unit order of names. */
  files: Map<string, FileRecord>;
  /** Per cataloger name (every cataloger has an entry), packages found in files that survive in the final view. */
  packagesByCataloger: Map<string, CatalogedPackage[]>;
  /** Per scanner name (every scanner has an entry), its results by path of the files that survive. */
  scans: Map<string, Map<string, unknown>>;
  layerCount: number;
  /** Sum of tar entry sizes over all layers. */
  expandedBytes: number;
  entryCount: number;
  /** Things skipped or odd but not fatal (oversized files, parse failures, dangling hardlinks, ...). */
  warnings: string[];
}

/**
 * Applies the layers in order and catalogs the surviving files. Catalogers' `finalize` is not called: the caller
 * does that once it knows the distro.
 * Fails with LayerLimitError, CorruptLayerError, UnsafePathError or LayerSourceError (all LayerError), or with the
 * signal's reason when aborted.
 */
export async function walkLayers(layers: AsyncIterable<LayerBlob> | Iterable<LayerBlob>, options: WalkOptions): Promise<WalkResult> {
  const walk = new ImageWalk(options);
  for await (const layer of layers) await walk.applyLayer(layer);
  return walk.result();
}

/** Bytes of tar headers and padding allowed per entry (a header block, PAX records, padding to 512). */
const TAR_OVERHEAD_PER_ENTRY = 4096;
/** Trailing zero blocks and read-ahead not yet parsed into entries. */
const TAR_OVERHEAD_SLACK = 16 * MiB;
const TAR_OVERHEAD_PER_LAYER = 64 * 1024;
/** Warnings beyond this many are counted, not kept: a hostile image must not grow memory through them. */
const MAX_WARNINGS = 1000;

type Stage = 'blob' | 'decompress' | 'count' | 'tar';

class ImageWalk {
  private readonly limits: LayerLimits;
  private readonly tree: FsTree;
  private readonly entries: EntryApplier;
  private readonly capture: CaptureBudget;
  private readonly warnings: string[] = [];
  private droppedWarnings = 0;
  private layerCount = 0;
  /** Decompressed tar bytes (entries plus tar overhead), to stop archives that are mostly padding. */
  private tarBytes = 0;
  private blobBytes = 0;

  constructor(private readonly options: WalkOptions) {
    this.limits = { ...DEFAULT_LAYER_LIMITS, ...options.limits };
    const names = new Set<string>();
    for (const cataloger of options.catalogers) {
      if (names.has(cataloger.name)) throw new Error(`two catalogers are named '${cataloger.name}'`);
      names.add(cataloger.name);
    }
    const scannerNames = new Set<string>();
    for (const scanner of options.scanners ?? []) {
      if (scannerNames.has(scanner.name)) throw new Error(`two content scanners are named '${scanner.name}'`);
      scannerNames.add(scanner.name);
    }
    const warn = (message: string) => this.warn(message);
    this.tree = new FsTree(warn);
    this.capture = new CaptureBudget(this.limits.maxFileBytesForCatalogers, this.limits.maxTotalBufferedBytes, warn);
    this.entries = new EntryApplier({
      tree: this.tree,
      capture: this.capture,
      catalogers: options.catalogers,
      scanners: options.scanners ?? [],
      hashFiles: options.hashFiles,
      maxEntries: this.limits.maxEntries,
      maxExpandedBytes: this.limits.maxExpandedBytes,
      warn,
    });
  }

  async applyLayer(blob: LayerBlob): Promise<void> {
    const { signal } = this.options;
    signal?.throwIfAborted();
    const position = { digest: blob.digest, index: this.layerCount };
    this.layerCount += 1;
    this.options.onProgress?.({ layer: this.layerCount, blobBytes: this.blobBytes });

    let raw: Readable;
    try {
      raw = await blob.open();
    } catch (err) {
      throw new LayerSourceError(blob.digest, err);
    }
    // A stalled blob must not outlive an abort, even before the pipeline (which watches the signal) is set up.
    const abort = () => raw.destroy();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await this.readLayer(position, raw);
    } finally {
      signal?.removeEventListener('abort', abort);
      raw.destroy();
      // Hardlinks in a layer refer to entries of the same archive; nothing kept is needed past it.
      this.capture.clear();
    }
  }

  private async readLayer(position: LayerPosition, raw: Readable): Promise<void> {
    const { signal } = this.options;
    const { digest } = position;
    let peeked: Awaited<ReturnType<typeof peekBytes>>;
    try {
      peeked = await peekBytes(raw, SNIFF_BYTES);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new LayerSourceError(digest, err);
    }
    const compression = detectCompression(peeked.head);
    const decoder = createDecompressor(compression, { maxZstdWindowBytes: this.limits.maxZstdWindowBytes });
    const counter = new ByteCounter((bytes) => this.countTarBytes(bytes, digest));
    // Pre-POSIX (v7) headers are accepted: every header's checksum is still verified.
    const extract = tar.extract({ allowUnknownFormat: true } as Parameters<typeof tar.extract>[0]);

    // Which stage failed first decides how the failure is explained (the others fail with its error after it).
    let firstFailure: { stage: Stage; error: unknown } | undefined;
    const watch = (stream: NodeJS.EventEmitter, stage: Stage) =>
      stream.on('error', (error: unknown) => {
        firstFailure ??= { stage, error };
      });
    watch(peeked.stream, 'blob');
    if (decoder) watch(decoder, 'decompress');
    watch(counter, 'count');
    watch(extract, 'tar');

    // Entries are applied one at a time: tar-stream waits for `next` before parsing the next header.
    let inFlight: Promise<void> = Promise.resolve();
    let internalFailure: unknown;
    extract.on('entry', (header, body, next) => {
      // A body left unread when the walk fails is destroyed with the walk's error; that error is reported through
      // the pipeline, and must not also surface as an unhandled 'error' event.
      body.on('error', () => {});
      // tar-stream's header type is narrower than what it delivers (see TarHeader), and streamx readables are
      // async iterable though their typings do not say so.
      inFlight = this.entries.apply(header as TarHeader, body as unknown as AsyncIterable<Uint8Array>, position);
      inFlight.then(
        () => next(),
        (err: unknown) => {
          if (!(err instanceof LayerError) && !(err instanceof EntryStreamFailed)) internalFailure ??= err;
          next(err as Error);
        },
      );
    });

    const { onProgress } = this.options;
    const blobCounter = onProgress
      ? new ByteCounter((bytes) => {
          this.blobBytes += bytes;
          onProgress({ layer: position.index + 1, blobBytes: this.blobBytes });
        })
      : undefined;
    if (blobCounter) watch(blobCounter, 'blob');
    const stages = [peeked.stream, ...(blobCounter ? [blobCounter] : []), ...(decoder ? [decoder] : []), counter, extract];
    try {
      await pipeline(stages, { signal });
      // Without end-of-archive blocks, the tar stream can finish while its last entry is still being applied.
      await inFlight;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (internalFailure !== undefined) throw internalFailure;
      throw explainLayerFailure(digest, compression, firstFailure ?? { stage: 'blob', error: err }, this.limits);
    }
  }

  result(): WalkResult {
    const files = new Map<string, FileRecord>();
    const packagesByCataloger = new Map<string, CatalogedPackage[]>(this.options.catalogers.map((c) => [c.name, []]));
    const scans = new Map<string, Map<string, unknown>>((this.options.scanners ?? []).map((s) => [s.name, new Map()]));
    for (const node of this.tree.entries()) {
      files.set(node.record.path, node.record);
      for (const [name, result] of node.scans ?? []) scans.get(name)!.set(node.record.path, result);
      for (const [name, packages] of node.results ?? []) {
        const found = packagesByCataloger.get(name)!;
        for (const pkg of packages) found.push(pkg);
      }
    }
    const warnings = [...this.warnings];
    if (this.droppedWarnings > 0) warnings.push(`${this.droppedWarnings} more warnings were not recorded`);
    return {
      files,
      packagesByCataloger,
      scans,
      layerCount: this.layerCount,
      expandedBytes: this.entries.expandedBytes,
      entryCount: this.entries.entryCount,
      warnings,
    };
  }

  private warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.droppedWarnings += 1;
  }

  /**
   * Entry sizes are checked from tar headers, but an archive can also expand into endless padding or huge PAX
   * headers that no entry accounts for: bound the decompressed bytes too, allowing tar's normal overhead.
   */
  private countTarBytes(bytes: number, digest: string): void {
    this.tarBytes += bytes;
    const allowed =
      this.limits.maxExpandedBytes +
      TAR_OVERHEAD_PER_ENTRY * this.entries.entryCount +
      TAR_OVERHEAD_PER_LAYER * this.layerCount +
      TAR_OVERHEAD_SLACK;
    if (this.tarBytes > allowed) {
      throw new LayerLimitError(
        'maxExpandedBytes',
        this.limits.maxExpandedBytes,
        digest,
        `its tar data decompresses to more than ${allowed} bytes, far more than its ${this.entries.expandedBytes} bytes of entries account for`,
      );
    }
  }
}

function explainLayerFailure(
  digest: string,
  compression: LayerCompression,
  failure: { stage: Stage; error: unknown },
  limits: LayerLimits,
): Error {
  const { stage } = failure;
  const error = failure.error instanceof EntryStreamFailed ? failure.error.cause : failure.error;
  if (error instanceof UnsafePathError) return error.inLayer(digest);
  if (error instanceof LayerError) return error;
  if (error instanceof ZstdStreamError && error.problem === 'window-too-large') {
    return new LayerLimitError('maxZstdWindowBytes', limits.maxZstdWindowBytes, digest, `a zstd frame needs a ${error.windowBytes}-byte window`);
  }
  switch (stage) {
    case 'decompress':
      return new CorruptLayerError(digest, describeDecompressionFailure(compression, error).problem, error);
    case 'tar':
      return new CorruptLayerError(digest, describeTarFailure(compression, error), error);
    default:
      return new LayerSourceError(digest, error);
  }
}

/** tar-stream's messages, said in terms of the layer. */
function describeTarFailure(compression: LayerCompression, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (message === 'Unexpected end of data') return 'is truncated (the tar archive ends in the middle of an entry)';
  if (message.startsWith('Invalid tar header')) {
    return compression === 'none'
      ? 'is not a tar archive, nor gzip- or zstd-compressed (invalid tar header)'
      : `is corrupt (invalid tar header after ${compression} decompression)`;
  }
  return `is corrupt (tar: ${message})`;
}

/** Passes bytes through, reporting their count; `onBytes` throws to stop the stream. */
class ByteCounter extends Transform {
  constructor(private readonly onBytes: (bytes: number) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.onBytes(chunk.length);
    } catch (err) {
      callback(err as Error);
      return;
    }
    callback(null, chunk);
  }
}
