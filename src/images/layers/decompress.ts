/**
 * Layer blob -> tar stream. Registries and manifests label layers with media types, but those are only hints
 * (docker save writes plain tars under "tar.gzip" names, some registries serve zstd under gzip types), so the
 * compression is read from the blob's first bytes.
 */
import { Readable, type Transform, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DEFAULT_MAX_ZSTD_WINDOW_BYTES, ZstdDecompressStream, ZstdStreamError } from './zstd.js';

export type LayerCompression = 'gzip' | 'zstd' | 'none';

const GZIP_MAGIC = [0x1f, 0x8b];
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/** Enough bytes to tell the formats apart. */
export const SNIFF_BYTES = 4;

export function detectCompression(head: Uint8Array): LayerCompression {
  const startsWith = (magic: number[]) => magic.every((byte, i) => head[i] === byte);
  if (startsWith(GZIP_MAGIC)) return 'gzip';
  if (startsWith(ZSTD_MAGIC)) return 'zstd';
  return 'none';
}

export interface DecompressOptions {
  /** Largest zstd window accepted (bytes); fzstd allocates it whole. */
  maxZstdWindowBytes?: number;
}

/** The decoding stage for a compression, or undefined when the blob is already a tar. */
export function createDecompressor(compression: LayerCompression, options: DecompressOptions = {}): Transform | undefined {
  switch (compression) {
    case 'gzip':
      // 128 KiB output chunks instead of zlib's 16 KiB: an eighth of the thread-pool round trips, which made
      // up most of the gap to `gzip -dc | tar -t` (docs/benchmarks.md, image analysis).
      return createGunzip({ chunkSize: 128 * 1024 });
    case 'zstd':
      return new ZstdDecompressStream({ maxWindowBytes: options.maxZstdWindowBytes ?? DEFAULT_MAX_ZSTD_WINDOW_BYTES });
    case 'none':
      return undefined;
  }
}

/**
 * Reads the first `count` bytes of `stream` and returns them with a stream of the whole blob (those bytes
 * included) to read afterwards. The original stream must not be used any more; destroying the returned one
 * destroys it.
 */
export async function peekBytes(stream: Readable, count: number): Promise<{ head: Buffer; stream: Readable }> {
  const source: AsyncIterator<Buffer> = stream[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < count) {
    const next = await source.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  // (Putting the bytes back with unshift() loses them when the blob has already ended.)
  async function* whole(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      if (ended) return;
      for (;;) {
        const next = await source.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await source.return?.();
    }
  }
  return { head, stream: Readable.from(whole(), { objectMode: false }) };
}

/**
 * The tar stream of a layer blob, whatever its compression. Errors of the blob or of decoding are emitted by the
 * returned `tar` stream (use describeDecompressionFailure to explain them).
 */
export async function decompressLayer(
  blob: Readable,
  options: DecompressOptions = {},
): Promise<{ compression: LayerCompression; tar: Readable }> {
  const { head, stream } = await peekBytes(blob, SNIFF_BYTES);
  const compression = detectCompression(head);
  const decoder = createDecompressor(compression, options);
  if (!decoder) return { compression, tar: stream };
  // pipeline destroys every stage with the first error, so the error reaches whoever reads `decoder`.
  return { compression, tar: pipeline(stream, decoder, () => {}) };
}

export interface DecompressionFailure {
  /** Human-readable, completes "layer X ...", e.g. 'is truncated (unexpected end of gzip stream)'. */
  problem: string;
  truncated: boolean;
}

/** Explains an error raised by a decoder from createDecompressor. */
export function describeDecompressionFailure(compression: LayerCompression, err: unknown): DecompressionFailure {
  if (err instanceof ZstdStreamError) {
    return err.problem === 'truncated'
      ? { problem: `is truncated (${err.message})`, truncated: true }
      : { problem: `is corrupt (${err.message})`, truncated: false };
  }
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (compression === 'gzip' && code === 'Z_BUF_ERROR') {
    return { problem: 'is truncated (unexpected end of gzip stream)', truncated: true };
  }
  return { problem: `is corrupt (${compression} data: ${message})`, truncated: false };
}
