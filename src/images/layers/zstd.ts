/**
 * Streaming zstd decompression on top of fzstd, with the two guards fzstd does not have:
 * - fzstd allocates the frame's whole window up front (up to 2 GiB, as the frame header asks), so we read each
 *   frame header first and refuse windows above a limit, as the zstd CLI does (128 MiB by default);
 * - fzstd decodes everything it is given in one go, and one 64 KiB chunk of RLE blocks can expand to gigabytes,
 *   so we feed it one block at a time and stop feeding while the reader is behind (backpressure).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { Decompress } from 'fzstd';

/** zstd's own default limit for decoders (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27). */
export const DEFAULT_MAX_ZSTD_WINDOW_BYTES = 128 * 1024 * 1024;

const FRAME_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_BLOCK_BYTES = 128 * 1024;
const DICT_ID_BYTES = [0, 1, 2, 4];
const CONTENT_SIZE_BYTES = [0, 2, 4, 8];

export type ZstdProblem = 'truncated' | 'corrupt' | 'window-too-large';

export class ZstdStreamError extends Error {
  constructor(
    readonly problem: ZstdProblem,
    message: string,
    /** For 'window-too-large': the window the frame asks for. */
    readonly windowBytes?: number,
  ) {
    super(message);
    this.name = 'ZstdStreamError';
  }
}

type ScanState = 'magic' | 'skippableSize' | 'skippableBody' | 'frameDescriptor' | 'frameHeader' | 'blockHeader' | 'blockBody' | 'checksum';

/**
 * Follows the frame/block structure of a zstd stream (RFC 8878 §3.1) without decoding it, to know where blocks end
 * and how large each frame's window is.
 */
export class ZstdFrameScanner {
  private state: ScanState = 'magic';
  /** Bytes of the fixed-size field being collected (magic, descriptor, header, block header). */
  private field: number[] = [];
  private fieldSize = 4;
  /** Bytes left in a variable-size part (block body, skippable frame, checksum). */
  private remaining = 0;
  private descriptor = 0;
  private blockLimit = MAX_BLOCK_BYTES;
  private lastBlock = false;
  private hasChecksum = false;

  constructor(private readonly maxWindowBytes: number) {}

  /** True between frames, i.e. where a stream may legitimately end. */
  get atFrameBoundary(): boolean {
    return this.state === 'magic' && this.field.length === 0;
  }

  /**
   * Consumes `chunk` from `start` and returns the offset just past the first block (or skippable frame) that
   * completes in it, or chunk.length. Throws ZstdStreamError on structure fzstd must not see.
   */
  advance(chunk: Uint8Array, start: number): number {
    let i = start;
    while (i < chunk.length) {
      if (this.state === 'skippableBody' || this.state === 'blockBody' || this.state === 'checksum') {
        const take = Math.min(this.remaining, chunk.length - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0 && this.finishVariablePart()) return i;
        continue;
      }
      while (this.field.length < this.fieldSize && i < chunk.length) this.field.push(chunk[i++]!);
      if (this.field.length < this.fieldSize) return i;
      const bytes = this.field;
      this.field = [];
      if (this.onField(bytes)) return i;
    }
    return i;
  }

  private expectField(state: ScanState, size: number): void {
    this.state = state;
    this.fieldSize = size;
  }

  /** Handles a complete fixed-size field; true when that completed a block or frame. */
  private onField(b: number[]): boolean {
    switch (this.state) {
      case 'magic': {
        const magic = readLE(b, 0, 4);
        if (magic === FRAME_MAGIC) this.expectField('frameDescriptor', 1);
        else if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) this.expectField('skippableSize', 4);
        else throw new ZstdStreamError('corrupt', 'data after a zstd frame is not another zstd frame');
        return false;
      }
      case 'skippableSize':
        return this.startVariablePart('skippableBody', readLE(b, 0, 4));
      case 'frameDescriptor': {
        const d = b[0]!;
        if (d & 0x08) throw new ZstdStreamError('corrupt', 'zstd frame header has its reserved bit set');
        const singleSegment = (d >> 5) & 1;
        const contentSizeBytes = CONTENT_SIZE_BYTES[d >> 6]! || (singleSegment ? 1 : 0);
        this.descriptor = d;
        this.expectField('frameHeader', (singleSegment ? 0 : 1) + DICT_ID_BYTES[d & 3]! + contentSizeBytes);
        return false;
      }
      case 'frameHeader':
        this.readFrameHeader(b);
        this.expectField('blockHeader', 3);
        return false;
      case 'blockHeader': {
        const header = readLE(b, 0, 3);
        const type = (header >> 1) & 3;
        const size = header >>> 3;
        if (type === 3) throw new ZstdStreamError('corrupt', 'zstd block has the reserved block type');
        // Raw and RLE sizes are decoded sizes and may not exceed the window; no block exceeds 128 KiB.
        if (size > MAX_BLOCK_BYTES || (type !== 2 && size > this.blockLimit)) {
          throw new ZstdStreamError('corrupt', `zstd block of ${size} bytes exceeds the block size limit`);
        }
        this.lastBlock = (header & 1) === 1;
        return this.startVariablePart('blockBody', type === 1 ? 1 : size);
      }
      default:
        throw new Error(`unexpected zstd scanner state ${this.state}`);
    }
  }

  private readFrameHeader(b: number[]): void {
    const d = this.descriptor;
    const singleSegment = (d >> 5) & 1;
    let at = 0;
    let windowBytes = 0;
    if (!singleSegment) {
      const exponent = b[0]! >> 3;
      const mantissa = b[0]! & 7;
      const base = 2 ** (10 + exponent);
      windowBytes = base + (base / 8) * mantissa;
      at = 1;
    }
    const dictBytes = DICT_ID_BYTES[d & 3]!;
    if (dictBytes && readLE(b, at, dictBytes) !== 0) {
      throw new ZstdStreamError('corrupt', 'zstd frame needs a dictionary, which layers cannot use');
    }
    at += dictBytes;
    if (singleSegment) {
      // The window is the whole content; a 2-byte content size is stored minus 256.
      const sizeBytes = b.length - at;
      windowBytes = readLE(b, at, sizeBytes) + (sizeBytes === 2 ? 256 : 0);
    }
    if (windowBytes > this.maxWindowBytes) {
      throw new ZstdStreamError(
        'window-too-large',
        `zstd frame needs a ${windowBytes}-byte window, above the ${this.maxWindowBytes}-byte limit`,
        windowBytes,
      );
    }
    this.hasChecksum = ((d >> 2) & 1) === 1;
    this.blockLimit = Math.min(windowBytes, MAX_BLOCK_BYTES);
  }

  private startVariablePart(state: ScanState, size: number): boolean {
    this.state = state;
    this.remaining = size;
    return size === 0 ? this.finishVariablePart() : false;
  }

  /** A block, checksum or skippable frame is complete: move on. Always a place to cut the input. */
  private finishVariablePart(): boolean {
    if (this.state === 'blockBody' && !this.lastBlock) {
      this.expectField('blockHeader', 3);
    } else if (this.state === 'blockBody' && this.hasChecksum) {
      this.state = 'checksum';
      this.remaining = 4;
    } else {
      this.expectField('magic', 4);
    }
    return true;
  }
}

/** Little-endian unsigned integer of up to 8 bytes (as a Number: exact below 2^53, which is all we compare). */
function readLE(b: number[], at: number, length: number): number {
  let value = 0;
  for (let k = length - 1; k >= 0; k--) value = value * 256 + b[at + k]!;
  return value;
}

/** fzstd's error codes (ZstdErrorCode), to say truncated rather than corrupt where that is what happened. */
const FZSTD_UNEXPECTED_EOF = 5;

function asZstdError(err: unknown): ZstdStreamError {
  if (err instanceof ZstdStreamError) return err;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return code === FZSTD_UNEXPECTED_EOF
    ? new ZstdStreamError('truncated', 'unexpected end of zstd stream')
    : new ZstdStreamError('corrupt', `invalid zstd data (${message})`);
}

/**
 * zstd-compressed bytes in, decompressed bytes out. At most one block (128 KiB) is decoded beyond what the
 * reader has asked for.
 */
export class ZstdDecompressStream extends Transform {
  private readonly scanner: ZstdFrameScanner;
  private readonly decoder: Decompress;
  /** Whether the readable side still had room after the last push. */
  private readerHasRoom = true;
  /** Set while a chunk is half-decoded, waiting for the reader to catch up. */
  private continueDecoding: (() => void) | undefined;

  constructor(options: { maxWindowBytes?: number } = {}) {
    super();
    this.scanner = new ZstdFrameScanner(options.maxWindowBytes ?? DEFAULT_MAX_ZSTD_WINDOW_BYTES);
    this.decoder = new Decompress((data) => {
      if (data.length > 0) this.readerHasRoom = this.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.decodeFrom(chunk, 0, callback);
  }

  private decodeFrom(chunk: Buffer, offset: number, callback: TransformCallback): void {
    try {
      while (offset < chunk.length) {
        const end = this.scanner.advance(chunk, offset);
        this.decoder.push(chunk.subarray(offset, end));
        offset = end;
        if (!this.readerHasRoom && offset < chunk.length) {
          const resumeAt = offset;
          this.continueDecoding = () => this.decodeFrom(chunk, resumeAt, callback);
          return;
        }
      }
    } catch (err) {
      callback(asZstdError(err));
      return;
    }
    callback();
  }

  override _read(size: number): void {
    const resume = this.continueDecoding;
    this.continueDecoding = undefined;
    this.readerHasRoom = true;
    resume?.();
    // Transform's own _read releases a write callback it held back because the reader was full.
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.scanner.atFrameBoundary) {
      callback(new ZstdStreamError('truncated', 'unexpected end of zstd stream'));
      return;
    }
    try {
      this.decoder.push(new Uint8Array(0), true);
    } catch (err) {
      callback(asZstdError(err));
      return;
    }
    callback();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.continueDecoding = undefined;
    callback(err);
  }
}
