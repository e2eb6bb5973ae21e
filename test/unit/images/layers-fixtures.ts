/**
 * Layer fixtures built from bytes in the test: tar archives via tar-stream's pack, gzip via node:zlib, zstd via the
 * `zstd` CLI (tests using it declare `missingTools('zstd')`), and hand-made zstd frames.
 */
import { spawnSync } from 'node:child_process';
import { requireTool } from '../../support/tools.js';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import type { Cataloger, CatalogedPackage } from '../../../src/ecosystems/model.js';
import type { LayerBlob } from '../../../src/images/layers/walker.js';

export interface FixtureEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo' | 'character-device';
  content?: string | Buffer;
  mode?: number;
  uid?: number;
  gid?: number;
  linkname?: string;
  /** Forces a PAX header (tar-stream then stores the name there, NUL bytes included). */
  pax?: Record<string, string>;
}

export async function tarBytes(entries: FixtureEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries) {
    const type = e.type ?? 'file';
    const content = type === 'file' ? Buffer.from(e.content ?? '') : undefined;
    const header = {
      name: e.name,
      type,
      mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644),
      uid: e.uid ?? 0,
      gid: e.gid ?? 0,
      linkname: e.linkname,
      pax: e.pax,
      size: content?.length ?? 0,
    };
    if (content) pack.entry(header, content);
    else pack.entry(header);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Only the 512-byte tar header of a file of `size` bytes (its content is for the caller to provide). */
export async function tarHeaderOnly(name: string, size: number): Promise<Buffer> {
  const pack = tar.pack();
  pack.on('error', () => {});
  // The entry never gets its content; destroying the pack below makes it report that, which is expected.
  pack.entry({ name, size, type: 'file', mode: 0o644 }).on('error', () => {});
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  await new Promise((resolve) => setTimeout(resolve, 10));
  pack.destroy();
  return Buffer.concat(chunks).subarray(0, 512);
}

export const gzip = (bytes: Buffer): Buffer => gzipSync(bytes);


/** A real zstd frame from the reference implementation, with a content checksum. */
export function zstd(bytes: Buffer): Buffer {
  const run = spawnSync(requireTool('zstd'), ['-c', '-q', '--check', '-3'], { input: bytes, maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`zstd failed: ${run.stderr.toString()}`);
  return run.stdout;
}

export const sha256 = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

export function fakeDigest(label: string): string {
  return `sha256:${sha256(label)}`;
}

/** A blob served in small chunks, so that every stage really streams. */
export function blob(label: string, bytes: Buffer, chunkSize = 1000): LayerBlob {
  return {
    digest: fakeDigest(label),
    open: async () =>
      Readable.from(
        (function* () {
          for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, at + chunkSize);
        })(),
      ),
  };
}

export function streamBlob(label: string, open: () => Readable): LayerBlob {
  return { digest: fakeDigest(label), open: async () => open() };
}

/** `size` zero bytes, produced as they are read. */
export function zeros(size: number, chunkSize = 64 * 1024): Readable {
  const chunk = Buffer.alloc(chunkSize);
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, chunkSize);
      left -= n;
      this.push(n === chunkSize ? chunk : chunk.subarray(0, n));
    },
  });
}

/**
 * A gzipped tar holding one file of `size` zeros, generated lazily: only what the reader pulls is ever produced.
 * `trailingZeros` appends zero bytes after the archive (padding no entry accounts for).
 */
export function lazyGzipTar(options: { fileSize: number; trailingZeros?: number }): Readable {
  const pack = tar.pack();
  const entry = pack.entry({ name: 'bomb', size: options.fileSize, mode: 0o644, type: 'file' }, (err) => {
    if (!err) pack.finalize();
  });
  // Tearing the generator down mid-entry makes tar-stream report a premature close: expected here.
  entry.on('error', () => {});
  pack.on('error', () => {});
  const body = zeros(options.fileSize);
  body.pipe(entry as unknown as NodeJS.WritableStream);
  const trailing = options.trailingZeros ?? 0;
  const tarThenPadding = Readable.from(
    (async function* () {
      yield* pack as unknown as AsyncIterable<Buffer>;
      if (trailing > 0) yield* zeros(trailing);
    })(),
    { objectMode: false },
  );
  const gz = createGzip({ level: 1 });
  tarThenPadding.pipe(gz);
  // When the reader gives up, stop producing.
  gz.on('close', () => {
    body.destroy();
    tarThenPadding.destroy();
  });
  return gz;
}

/** A hand-made zstd frame: a raw block with `head`, then RLE blocks of zeros totalling `zeroBytes`. */
export function zstdRleFrame(head: Buffer, zeroBytes: number, windowDescriptor = 0x38 /* 2^17 window */): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.from([0x00, windowDescriptor])];
  const blockHeader = (last: boolean, type: number, size: number) => {
    const v = (size << 3) | (type << 1) | (last ? 1 : 0);
    return Buffer.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff]);
  };
  const blockMax = 128 * 1024;
  const noZeros = zeroBytes === 0;
  parts.push(blockHeader(noZeros, 0, head.length), head);
  for (let left = zeroBytes; left > 0; left -= blockMax) {
    const n = Math.min(left, blockMax);
    parts.push(blockHeader(left - n === 0, 1, n), Buffer.from([0]));
  }
  return Buffer.concat(parts);
}

/**
 * A cataloger for tests: matches `*.pkg` files, whose content is `name version` lines; 'THROW' in the content makes
 * parse throw. Records every call.
 */
export class FakeCataloger implements Cataloger {
  readonly calls: { path: string; content: string }[] = [];

  constructor(
    readonly name = 'fake',
    readonly maxFileBytes = 1024 * 1024,
    private readonly suffix = '.pkg',
  ) {}

  matches(path: string): boolean {
    return path.endsWith(this.suffix);
  }

  async parse(path: string, content: Buffer): Promise<CatalogedPackage[]> {
    const text = content.toString('utf8');
    this.calls.push({ path, content: text });
    if (text.includes('THROW')) throw new Error('malformed package database');
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [name = '', version = ''] = line.split(' ');
        return {
          name,
          version,
          type: 'npm',
          locations: [path],
          licenses: [],
          purl: `pkg:npm/${name}@${version}`,
          cpes: [],
          metadata: {},
        };
      });
  }
}

export const packageNames = (packages: CatalogedPackage[] | undefined): string[] =>
  (packages ?? []).map((p) => `${p.name}@${p.version} ${p.locations.join(',')}`).sort();
