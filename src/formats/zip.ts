/**
 * The zip reader: one parser of the format's records (end of central directory, ZIP64, central directory, local
 * headers) and two ways of reading, for the two kinds of archive Vigil meets.
 *
 * - `zipEntries`: an archive that must be whole, such as a vulnerability feed (OSV's all.zip). Given as bytes or a
 *   file path, read through its central directory. An entry up to a size limit is decompressed whole; a larger one
 *   is handed over as a stream of bounded pieces read from the file, so a gigabyte entry never sits in memory (the
 *   reader holds the directory, one read window and one entry or piece; a streaming local-header reader was 10x
 *   slower on feeds of 100k+ entries). Damage (no end record, a directory or entry outside the file, a streamed
 *   entry that fails to inflate or its CRC) throws InvalidError: a feed cut short must not pass for a complete one.
 *   A whole entry that cannot be decompressed or fails its CRC is reported in place, for the caller to count.
 * - `salvageZipEntries` + `readZipEntry`: an archive found inside an image (jar, war, ...), which nobody vouches
 *   for. In memory, never throws, reads what can be read: data prepended to the archive (Spring Boot's launch
 *   script) is allowed for, and when the central directory is missing or broken the local headers are scanned, so
 *   a truncated archive still yields its leading entries. Every offset is bounds-checked and every inflation capped.
 *
 * Neither trusts the entry count of the end record (a garbage ZIP64 count must not drive a loop): the directory's
 * byte size bounds every walk. ZIP64 archives (more than 65535 entries, or past 4 GiB) are read by both.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline, Readable } from 'node:stream';
import { constants as zlibConstants, crc32, createInflateRaw, inflateRawSync } from 'node:zlib';
import { InvalidError } from '../errors.js';

// --- Records of the format ---------------------------------------------------------------------------------------

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_DATA_DESCRIPTOR = 0x08074b50;
const EOCD_BYTES = 22;
const ZIP64_EOCD_BYTES = 56;
const ZIP64_LOCATOR_BYTES = 20;
const CENTRAL_HEADER_BYTES = 46;
const LOCAL_HEADER_BYTES = 30;
/** The end record is 22 bytes plus a comment of at most 65535. */
const EOCD_MAX_DISTANCE = EOCD_BYTES + 0xffff;
/** A local header: 30 bytes, then a name and an extra field of up to 65535 bytes each. */
const LOCAL_HEADER_MAX = LOCAL_HEADER_BYTES + 0xffff * 2;
const U32_MAX = 0xffffffff;

interface CentralEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** What the end records say about the central directory. */
interface EndRecord {
  /** Offset of the classic end record (or of the ZIP64 record when there is one) in the archive. */
  recordStart: number;
  count: number;
  size: number;
  offset: number;
}

/** Offset of the last end-record signature in `tail`, or -1. */
function lastEndRecord(tail: Buffer): number {
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) if (tail.readUInt32LE(i) === SIG_EOCD) return i;
  return -1;
}

/** The classic end record at `at` of `tail`; whether its fields are saturated, so the ZIP64 record must be read. */
function classicEndRecord(tail: Buffer, at: number, tailStart: number): EndRecord & { saturated: boolean } {
  const count = tail.readUInt16LE(at + 10);
  const size = tail.readUInt32LE(at + 12);
  const offset = tail.readUInt32LE(at + 16);
  return { recordStart: tailStart + at, count, size, offset, saturated: count === 0xffff || size === U32_MAX || offset === U32_MAX };
}

/** The ZIP64 locator before the classic end record at `at` of `tail`: where it says the ZIP64 record is. */
function zip64RecordOffset(tail: Buffer, at: number): number | undefined {
  const locator = at - ZIP64_LOCATOR_BYTES;
  if (locator < 0 || tail.readUInt32LE(locator) !== SIG_ZIP64_LOCATOR) return undefined;
  return Number(tail.readBigUInt64LE(locator + 8));
}

/** The ZIP64 end record's directory fields, or undefined when `record` is not one. */
function zip64EndRecord(record: Buffer, recordStart: number): EndRecord | undefined {
  if (record.length < ZIP64_EOCD_BYTES || record.readUInt32LE(0) !== SIG_ZIP64_EOCD) return undefined;
  return { recordStart, count: Number(record.readBigUInt64LE(32)), size: Number(record.readBigUInt64LE(40)), offset: Number(record.readBigUInt64LE(48)) };
}

/** ZIP64 extended information (0x0001): 64-bit values for the fields saturated at 0xffffffff, in this order. */
function applyZip64Extra(entry: CentralEntry, extra: Buffer): void {
  for (let q = 0; q + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(q);
    const length = extra.readUInt16LE(q + 2);
    if (id === 0x0001) {
      let r = q + 4;
      const end = Math.min(r + length, extra.length);
      const next = (): number | undefined => {
        if (r + 8 > end) return undefined;
        const v = Number(extra.readBigUInt64LE(r));
        r += 8;
        return v;
      };
      if (entry.size === U32_MAX) entry.size = next() ?? entry.size;
      if (entry.compressedSize === U32_MAX) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localOffset === U32_MAX) entry.localOffset = next() ?? entry.localOffset;
    }
    q += 4 + length;
  }
}

/**
 * The entries of a central directory, in directory order, up to the first malformed one (`complete` says whether
 * there was none). The directory's byte size, not the entry count, bounds the walk: writers without ZIP64
 * (fflate among them) store the count modulo 65536 when an archive holds more entries.
 */
function centralEntries(dir: Buffer): { entries: CentralEntry[]; complete: boolean } {
  const entries: CentralEntry[] = [];
  let p = 0;
  while (p < dir.length) {
    if (p + CENTRAL_HEADER_BYTES > dir.length || dir.readUInt32LE(p) !== SIG_CENTRAL) return { entries, complete: false };
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    const next = p + CENTRAL_HEADER_BYTES + nameLength + extraLength + commentLength;
    if (next > dir.length) return { entries, complete: false };
    const entry: CentralEntry = {
      name: dir.toString('utf8', p + CENTRAL_HEADER_BYTES, p + CENTRAL_HEADER_BYTES + nameLength),
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localOffset: dir.readUInt32LE(p + 42),
    };
    const extraStart = p + CENTRAL_HEADER_BYTES + nameLength;
    applyZip64Extra(entry, dir.subarray(extraStart, extraStart + extraLength));
    entries.push(entry);
    p = next;
  }
  return { entries, complete: true };
}

/** Where an entry's data starts: after its local header, whose name and extra lengths may differ from the directory's. */
function localDataStart(buf: Buffer, at: number): number | undefined {
  if (at < 0 || at + LOCAL_HEADER_BYTES > buf.length || buf.readUInt32LE(at) !== SIG_LOCAL) return undefined;
  return at + LOCAL_HEADER_BYTES + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

// --- Whole archives (feeds) ----------------------------------------------------------------------------------------

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

const WINDOW_BYTES = 8 << 20;
const DEFAULT_WHOLE_ENTRY_BYTES = 1 << 20;
/** Compressed bytes read at a time from a streamed entry, and the most an inflater hands over at a time. */
const STREAM_READ_BYTES = 1 << 20;
const INFLATE_CHUNK_BYTES = 64 << 10;

/** Random access to the archive's bytes, from memory or a file. */
interface ByteSource {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

function memorySource(bytes: Uint8Array): ByteSource {
  const buf = asBuffer(bytes);
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

function reporting(bytes: ByteSource, onBuffer: ((n: number) => void) | undefined): ByteSource {
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

function damaged(source: string, reason: string): InvalidError {
  return new InvalidError(`${source}: damaged zip archive: ${reason}`, { source });
}

/** Entries whose name `wanted` accepts (directories never), in the order of their data in the archive. */
export async function* zipEntries(zip: Uint8Array | string, wanted: (name: string) => boolean, options: ZipReadOptions = {}): AsyncGenerator<ZipEntry> {
  const source = typeof zip === 'string' ? zip : 'zip archive';
  const whole = options.wholeEntryBytes ?? DEFAULT_WHOLE_ENTRY_BYTES;
  const bytes = reporting(typeof zip === 'string' ? await fileSource(zip) : memorySource(zip), options.onBuffer);
  try {
    const head = await bytes.read(0, 4);
    const isZip = head.length >= 4 && (head.readUInt32LE(0) === SIG_LOCAL || head.readUInt32LE(0) === SIG_EOCD);
    if (!isZip) throw new InvalidError(`${source}: not a zip archive`, { source });
    const entries = await wholeDirectory(bytes, source);
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

function extract(entry: CentralEntry, data: Buffer, at: number, source: string, onBuffer?: (n: number) => void): ZipEntry {
  const start = localDataStart(data, at);
  if (start === undefined) throw damaged(source, `no local header for ${entry.name}`);
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
  const headerEnd = localDataStart(header, 0);
  if (headerEnd === undefined) throw damaged(source, `no local header for ${entry.name}`);
  const start = entry.localOffset + headerEnd;
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

/** The central directory of an archive that must be whole, in the order of the entries' data. */
async function wholeDirectory(bytes: ByteSource, source: string): Promise<CentralEntry[]> {
  const tailStart = Math.max(0, bytes.size - EOCD_MAX_DISTANCE);
  const tail = await bytes.read(tailStart, bytes.size - tailStart);
  const at = lastEndRecord(tail);
  if (at < 0) throw damaged(source, 'no end of central directory');
  let end: EndRecord = classicEndRecord(tail, at, tailStart);
  if ((end as ReturnType<typeof classicEndRecord>).saturated) {
    const recordAt = zip64RecordOffset(tail, at);
    if (recordAt === undefined) throw damaged(source, 'no ZIP64 end record locator');
    const zip64 = zip64EndRecord(await bytes.read(recordAt, ZIP64_EOCD_BYTES), recordAt);
    if (!zip64) throw damaged(source, 'no ZIP64 end record');
    end = zip64;
  }
  if (end.offset + end.size > bytes.size) throw damaged(source, 'the central directory lies past the end of the archive');
  const { entries, complete } = centralEntries(await bytes.read(end.offset, end.size));
  if (!complete) throw damaged(source, `central directory entry ${entries.length} is malformed`);
  for (const entry of entries) {
    if (entry.localOffset + entry.compressedSize > bytes.size) throw damaged(source, `${entry.name} lies past the end of the archive`);
  }
  if (entries.length % 0x10000 !== end.count % 0x10000) throw damaged(source, `the central directory holds ${entries.length} entries, its end record says ${end.count}`);
  return entries.sort((a, b) => a.localOffset - b.localOffset);
}

// --- Archives nobody vouches for (inside images) -------------------------------------------------------------------

/** An entry found by `salvageZipEntries`, to be read with `readZipEntry`. */
export interface SalvagedEntry {
  /** Entry name as stored (UTF-8 decoded), e.g. `META-INF/MANIFEST.MF`. */
  name: string;
  /** 0 = stored, 8 = deflated; anything else cannot be read. */
  method: number;
  /** Offset of the local file header in the buffer handed to `salvageZipEntries`. */
  headerOffset: number;
  /** Compressed size, or -1 when unknown (entry found by a local-header scan and written with a data descriptor). */
  compressedSize: number;
  /** Declared uncompressed size, or -1 when unknown. Never trusted beyond being an output cap. */
  size: number;
}

/**
 * Every entry of an in-memory archive: in central directory order when the directory is readable, otherwise the
 * local headers in file order. Never throws; yields nothing for data that is not a zip.
 */
export function* salvageZipEntries(data: Uint8Array): Generator<SalvagedEntry> {
  const buf = asBuffer(data);
  const central = salvageCentralDirectory(buf);
  if (central) {
    yield* central;
    return;
  }
  yield* scanLocalHeaders(buf);
}

/**
 * Where the central directory is in a buffer that may have bytes prepended (self-extracting archives, launch
 * scripts): `shift` is what to add to the offsets the archive records.
 */
function locateDirectory(buf: Buffer): { start: number; end: number; shift: number } | undefined {
  const lowest = Math.max(0, buf.length - EOCD_MAX_DISTANCE);
  const tail = buf.subarray(lowest);
  for (let at = lastEndRecord(tail); at >= 0; at = lastEndRecord(tail.subarray(0, at + EOCD_BYTES - 1))) {
    const classic = classicEndRecord(tail, at, lowest);
    let end: EndRecord = classic;
    const declared = zip64RecordOffset(tail, at);
    if (declared !== undefined) {
      // The ZIP64 record sits right before its locator; with bytes prepended the declared offset is off by as many.
      const actual = classic.recordStart - ZIP64_LOCATOR_BYTES - ZIP64_EOCD_BYTES;
      for (const candidate of [actual, declared]) {
        const zip64 = candidate >= 0 && candidate < buf.length ? zip64EndRecord(buf.subarray(candidate, candidate + ZIP64_EOCD_BYTES), candidate) : undefined;
        if (zip64) {
          end = zip64;
          break;
        }
      }
    }
    if (end.size === 0) return { start: end.recordStart, end: end.recordStart, shift: 0 };
    // Where the directory must be if nothing was prepended: right before the end records.
    const start = end.recordStart - end.size;
    if (start >= 0 && buf.readUInt32LE(start) === SIG_CENTRAL) return { start, end: end.recordStart, shift: start - end.offset };
    // Some writers leave a gap; then trust the recorded offset.
    if (end.offset + end.size <= end.recordStart && end.offset + 4 <= buf.length && buf.readUInt32LE(end.offset) === SIG_CENTRAL) {
      return { start: end.offset, end: end.offset + end.size, shift: 0 };
    }
  }
  return undefined;
}

function salvageCentralDirectory(buf: Buffer): SalvagedEntry[] | undefined {
  const dir = locateDirectory(buf);
  if (!dir) return undefined;
  const { entries } = centralEntries(buf.subarray(dir.start, dir.end));
  // A directory that yields nothing although it claims content is as good as missing: try the local headers.
  if (entries.length === 0 && dir.end > dir.start) return undefined;
  return entries.map((e) => ({ name: e.name, method: e.method, headerOffset: e.localOffset + dir.shift, compressedSize: e.compressedSize, size: e.size }));
}

function* scanLocalHeaders(buf: Buffer): Generator<SalvagedEntry> {
  const signature = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
  let o = 0;
  while (o + LOCAL_HEADER_BYTES <= buf.length) {
    if (buf.readUInt32LE(o) !== SIG_LOCAL) {
      // Buffer.indexOf: native speed on big jars.
      o = buf.indexOf(signature, o + 1);
      if (o < 0) return;
      continue;
    }
    const flags = buf.readUInt16LE(o + 6);
    const method = buf.readUInt16LE(o + 8);
    let compressedSize = buf.readUInt32LE(o + 18);
    let size = buf.readUInt32LE(o + 22);
    const nameLength = buf.readUInt16LE(o + 26);
    const extraLength = buf.readUInt16LE(o + 28);
    if (o + LOCAL_HEADER_BYTES + nameLength > buf.length) return;
    const name = buf.toString('utf8', o + LOCAL_HEADER_BYTES, o + LOCAL_HEADER_BYTES + nameLength);
    // Bit 3: sizes are in a data descriptor after the data, the header's are zero.
    if (flags & 0x8 || compressedSize === U32_MAX) (compressedSize = -1), (size = -1);
    yield { name, method, headerOffset: o, compressedSize, size };
    const dataStart = o + LOCAL_HEADER_BYTES + nameLength + extraLength;
    o = compressedSize >= 0 ? dataStart + compressedSize : dataStart;
  }
}

/** Where compressed data of unknown length stops at the latest: the next record signature, or the end of the buffer. */
function endOfUnknownData(buf: Buffer, from: number): number {
  const pk = Buffer.from([0x50, 0x4b]);
  for (let i = buf.indexOf(pk, from); i >= 0 && i + 4 <= buf.length; i = buf.indexOf(pk, i + 1)) {
    const sig = buf.readUInt32LE(i);
    if (sig === SIG_LOCAL || sig === SIG_CENTRAL || sig === SIG_DATA_DESCRIPTOR) return i;
  }
  return buf.length;
}

/**
 * The entry's content, at most `maxBytes` long, or undefined when it is unreadable, uses an unsupported method or
 * would be larger than `maxBytes`. Stored entries are returned as a view into `data` (no copy). A deflated entry
 * cut short (truncated archive) gives what it decodes to. Never throws.
 */
export function readZipEntry(data: Uint8Array, entry: SalvagedEntry, maxBytes: number): Uint8Array | undefined {
  const buf = asBuffer(data);
  const start = localDataStart(buf, entry.headerOffset);
  if (start === undefined || start > buf.length || entry.size > maxBytes) return undefined;
  const end = entry.compressedSize >= 0 ? Math.min(buf.length, start + entry.compressedSize) : endOfUnknownData(buf, start);
  const raw = buf.subarray(start, end);
  if (entry.method === 0) return entry.compressedSize >= 0 && raw.length <= maxBytes ? raw : undefined;
  if (entry.method !== 8) return undefined;
  // The declared size, when known, caps the output too: a lying header cannot make this allocate more.
  const cap = entry.size >= 0 ? entry.size : maxBytes;
  try {
    // A sync flush at the end returns what a truncated stream decodes to instead of failing; past the cap zlib
    // stops and throws, so a zip bomb costs at most `cap` bytes.
    return inflateRawSync(raw, { maxOutputLength: Math.max(1, cap), finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return undefined;
  }
}
