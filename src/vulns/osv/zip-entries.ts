/**
 * The entries of a zip archive, read through its central directory. An entry up to a size limit is decompressed
 * whole with zlib; a larger one is handed over as a stream of pieces, read from the archive and inflated a bounded
 * piece at a time, so a single-entry archive of gigabytes never sits in memory: the reader holds the directory,
 * one read window and one entry or piece. (A streaming local-header reader was 10x slower on feed archives of
 * 100k+ entries, hence the central directory and the window.) The archive is given as bytes or a file path. A
 * damaged archive — no end record, a directory or entry outside the file, a streamed entry that fails to inflate
 * or its CRC — throws InvalidError rather than ending early, since a feed cut short must not pass for a complete
 * one; a whole entry that cannot be decompressed or fails its CRC is reported in place so the caller can count it
 * and go on. ZIP64 archives (more than 65535 entries, or past 4 GiB) are supported.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline, Readable } from 'node:stream';
import { crc32, createInflateRaw, inflateRawSync } from 'node:zlib';
import { InvalidError } from '../../errors.js';

export type ZipEntry =
  /** An entry of at most `wholeEntryBytes`, decompressed. */
  | { name: string; bytes: Uint8Array }
  /**
   * A larger entry, decompressed piece by piece as it is iterated; it must be consumed (or abandoned) before the
   * next entry is asked for. Iterating it throws InvalidError if the entry turns out damaged.
   */
  | { name: string; stream: AsyncIterable<Uint8Array> }
  | { name: string; error: string };

export interface ZipReadOptions {
  /** Entries up to this size (uncompressed) come whole, larger ones as streams. Default 1 MiB. */
  wholeEntryBytes?: number;
  /** Told the size of every buffer the reader holds of the archive (for callers that bound or measure memory). */
  onBuffer?: (bytes: number) => void;
}

/** The end-of-central-directory record is 22 bytes plus a comment of at most 65535. */
const EOCD_MAX_DISTANCE = 22 + 0xffff;
const WINDOW_BYTES = 8 << 20;
const DEFAULT_WHOLE_ENTRY_BYTES = 1 << 20;
/** Compressed bytes read at a time from a streamed entry, and the most an inflater hands over at a time. */
const STREAM_READ_BYTES = 1 << 20;
const INFLATE_CHUNK_BYTES = 64 << 10;
/** A local header: 30 bytes, then a name and an extra field of up to 65535 bytes each. */
const LOCAL_HEADER_MAX = 30 + 0xffff * 2;
const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;

interface CentralEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** Random access to the archive's bytes, from memory or a file. */
interface ByteSource {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

function memorySource(bytes: Uint8Array): ByteSource {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { size: buf.length, read: async (offset, length) => buf.subarray(offset, offset + length), close: async () => undefined };
}

async function fileSource(path: string): Promise<ByteSource> {
  const handle: FileHandle = await open(path, 'r');
  const size = (await handle.stat()).size;
  return {
    size,
    async read(offset, length) {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      let done = 0;
      while (done < buf.length) {
        const { bytesRead } = await handle.read(buf, done, buf.length - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buf.subarray(0, done);
    },
    close: () => handle.close(),
  };
}

function damaged(source: string, reason: string): InvalidError {
  return new InvalidError(`${source}: damaged zip archive: ${reason}`, { source });
}

/** Entries whose name `wanted` accepts (directories never), in the order of their data in the archive. */
export async function* zipEntries(zip: Uint8Array | string, wanted: (name: string) => boolean, options: ZipReadOptions = {}): AsyncGenerator<ZipEntry> {
  const source = typeof zip === 'string' ? zip : 'zip archive';
  const whole = options.wholeEntryBytes ?? DEFAULT_WHOLE_ENTRY_BYTES;
  const bytes = byteSourceReporting(typeof zip === 'string' ? await fileSource(zip) : memorySource(zip), options.onBuffer);
  try {
    const head = await bytes.read(0, 4);
    const isZip = head.length >= 4 && (head.readUInt32LE(0) === SIG_LOCAL || head.readUInt32LE(0) === SIG_EOCD);
    if (!isZip) throw new InvalidError(`${source}: not a zip archive`, { source });
    const entries = await centralDirectory(bytes, source);
    let window: { start: number; data: Buffer } = { start: 0, data: Buffer.alloc(0) };
    for (const entry of entries) {
      if (entry.name.endsWith('/') || !wanted(entry.name)) continue;
      if (entry.method !== 0 && entry.method !== 8) {
        yield { name: entry.name, error: `cannot decompress: unsupported compression method ${entry.method}` };
        continue;
      }
      // Deflate can grow incompressible data a little; a few bytes per 16 KiB block and a few more overall.
      if (entry.size > whole || entry.compressedSize > whole + (whole >> 10) + 64) {
        yield { name: entry.name, stream: streamEntry(entry, bytes, source) };
        continue;
      }
      const needed = LOCAL_HEADER_MAX + entry.compressedSize;
      const end = Math.min(entry.localOffset + needed, bytes.size);
      if (entry.localOffset < window.start || end > window.start + window.data.length) {
        window = { start: entry.localOffset, data: await bytes.read(entry.localOffset, Math.max(WINDOW_BYTES, needed)) };
      }
      yield extract(entry, window.data, entry.localOffset - window.start, source, options.onBuffer);
    }
  } finally {
    await bytes.close();
  }
}

function byteSourceReporting(bytes: ByteSource, onBuffer: ((n: number) => void) | undefined): ByteSource {
  if (!onBuffer) return bytes;
  return {
    ...bytes,
    async read(offset, length) {
      const buf = await bytes.read(offset, length);
      onBuffer(buf.length);
      return buf;
    },
  };
}

/** Where an entry's data starts: after its local header, whose name and extra lengths may differ from the directory's. */
function dataStart(entry: CentralEntry, header: Buffer, at: number, source: string): number {
  if (at + 30 > header.length || header.readUInt32LE(at) !== SIG_LOCAL) throw damaged(source, `no local header for ${entry.name}`);
  return at + 30 + header.readUInt16LE(at + 26) + header.readUInt16LE(at + 28);
}

function extract(entry: CentralEntry, data: Buffer, at: number, source: string, onBuffer?: (n: number) => void): ZipEntry {
  const start = dataStart(entry, data, at, source);
  if (start + entry.compressedSize > data.length) throw damaged(source, `${entry.name} extends past the end of the archive`);
  const raw = data.subarray(start, start + entry.compressedSize);
  let bytes: Buffer;
  try {
    // The limit stops an entry whose header understates its size (a zip bomb) at that size, not at its real one.
    bytes = entry.method === 0 ? Buffer.from(raw) : inflateRawSync(raw, { maxOutputLength: entry.size + 1 });
  } catch (err) {
    return { name: entry.name, error: `cannot decompress: ${(err as Error).message}` };
  }
  onBuffer?.(bytes.length);
  if (bytes.length !== entry.size || crc32(bytes) !== entry.crc) return { name: entry.name, error: 'cannot decompress: size or CRC mismatch' };
  return { name: entry.name, bytes };
}

/** A large entry's data, decompressed piece by piece; its size and CRC are checked as the pieces pass. */
async function* streamEntry(entry: CentralEntry, bytes: ByteSource, source: string): AsyncGenerator<Uint8Array> {
  const header = await bytes.read(entry.localOffset, LOCAL_HEADER_MAX);
  const start = entry.localOffset + dataStart(entry, header, 0, source);
  if (start + entry.compressedSize > bytes.size) throw damaged(source, `${entry.name} extends past the end of the archive`);
  async function* compressed(): AsyncGenerator<Buffer> {
    for (let at = start, end = start + entry.compressedSize; at < end; at += STREAM_READ_BYTES) yield bytes.read(at, Math.min(STREAM_READ_BYTES, end - at));
  }
  let pieces: AsyncIterable<Buffer> = compressed();
  if (entry.method === 8) {
    const inflater = createInflateRaw({ chunkSize: INFLATE_CHUNK_BYTES });
    // pipeline destroys both streams on an error or an early stop; the error surfaces through the iteration.
    pieces = pipeline(Readable.from(pieces), inflater, () => undefined);
  }
  let size = 0;
  let crc = 0;
  try {
    for await (const piece of pieces) {
      size += piece.length;
      if (size > entry.size) throw damaged(source, `${entry.name} inflates to more than its stated ${entry.size} bytes`);
      crc = crc32(piece, crc);
      yield piece;
    }
  } catch (err) {
    if (err instanceof InvalidError) throw err;
    throw damaged(source, `${entry.name} cannot be decompressed: ${(err as Error).message}`);
  }
  if (size !== entry.size || crc !== entry.crc) throw damaged(source, `${entry.name}: size or CRC mismatch`);
}

async function centralDirectory(bytes: ByteSource, source: string): Promise<CentralEntry[]> {
  const tailStart = Math.max(0, bytes.size - EOCD_MAX_DISTANCE);
  const tail = await bytes.read(tailStart, bytes.size - tailStart);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === SIG_EOCD) {
    eocd = i;
    break;
  }
  if (eocd < 0) throw damaged(source, 'no end of central directory');
  let count = tail.readUInt16LE(eocd + 10);
  let size = tail.readUInt32LE(eocd + 12);
  let offset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || tail.readUInt32LE(locator) !== SIG_ZIP64_LOCATOR) throw damaged(source, 'no ZIP64 end record locator');
    const record = await bytes.read(Number(tail.readBigUInt64LE(locator + 8)), 56);
    if (record.length < 56 || record.readUInt32LE(0) !== SIG_ZIP64_EOCD) throw damaged(source, 'no ZIP64 end record');
    count = Number(record.readBigUInt64LE(32));
    size = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (offset + size > bytes.size) throw damaged(source, 'the central directory lies past the end of the archive');
  const dir = await bytes.read(offset, size);
  const entries: CentralEntry[] = [];
  let p = 0;
  // The directory's size, not the entry count, bounds the walk: writers without ZIP64 (fflate among them) store
  // the count modulo 65536 when an archive holds more entries.
  for (let i = 0; p < dir.length; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== SIG_CENTRAL) throw damaged(source, `central directory entry ${i} is malformed`);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    const entry: CentralEntry = {
      name: dir.toString('utf8', p + 46, p + 46 + nameLength),
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localOffset: dir.readUInt32LE(p + 42),
    };
    applyZip64Extra(entry, dir.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength));
    if (entry.localOffset + entry.compressedSize > bytes.size) throw damaged(source, `${entry.name} lies past the end of the archive`);
    entries.push(entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  if (entries.length % 0x10000 !== count % 0x10000) throw damaged(source, `the central directory holds ${entries.length} entries, its end record says ${count}`);
  return entries.sort((a, b) => a.localOffset - b.localOffset);
}

/** ZIP64 extra field (0x0001): 64-bit values for the fields saturated at 0xffffffff, in this order. */
function applyZip64Extra(entry: CentralEntry, extra: Buffer): void {
  for (let q = 0; q + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(q);
    const length = extra.readUInt16LE(q + 2);
    if (id === 0x0001) {
      let r = q + 4;
      const next = () => {
        const v = Number(extra.readBigUInt64LE(r));
        r += 8;
        return v;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
    }
    q += 4 + length;
  }
}
