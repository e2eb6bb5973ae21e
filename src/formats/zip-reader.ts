/**
 * A defensive, read-only ZIP reader for catalogers that look inside archives they did not build (jars, wars, ...).
 *
 * Why not fflate's `unzipSync`: it trusts the end-of-central-directory record (a garbage zip64 entry count makes it
 * loop billions of times), cannot cope with data prepended to the archive (Spring Boot "fully executable" jars start
 * with a shell script) and cannot read anything from a truncated archive. Here the central directory is walked with
 * every offset bounds-checked; when it is missing or broken, local file headers are scanned instead so a truncated
 * archive still yields its leading entries. Decompression itself is fflate's, always with an output cap.
 */
import { Inflate, inflateSync } from 'fflate';

export interface ZipEntry {
  /** Entry name as stored (UTF-8 decoded), e.g. `META-INF/MANIFEST.MF`. */
  name: string;
  /** 0 = stored, 8 = deflated; anything else cannot be read. */
  method: number;
  /** Offset of the local file header in the buffer handed to `zipEntries`. */
  headerOffset: number;
  /** Compressed size, or -1 when unknown (entry found by a local-header scan and written with a data descriptor). */
  compressedSize: number;
  /** Declared uncompressed size, or -1 when unknown. Never trusted beyond being an output cap. */
  size: number;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_EOCD64_LOCATOR = 0x07064b50;
const SIG_DATA_DESCRIPTOR = 0x08074b50;
const MAX_COMMENT = 0xffff;
const EOCD_SIZE = 22;
const CENTRAL_HEADER_SIZE = 46;
const LOCAL_HEADER_SIZE = 30;
const U32_MAX = 0xffffffff;

const utf8 = new TextDecoder('utf-8', { fatal: false });

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}

function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

/** Little-endian u64 as a number; values beyond 2^53 are not meaningful for in-memory buffers anyway. */
function u64(b: Uint8Array, o: number): number {
  return u32(b, o) + u32(b, o + 4) * 0x1_0000_0000;
}

function has(b: Uint8Array, o: number, n: number): boolean {
  return o >= 0 && n >= 0 && o + n <= b.length;
}

/**
 * Every entry of the archive, lazily: central directory order when it is readable, otherwise local headers in
 * file order. Never throws; yields nothing for data that is not a zip.
 */
export function* zipEntries(data: Uint8Array): Generator<ZipEntry> {
  const central = readCentralDirectory(data);
  if (central) {
    yield* central;
    return;
  }
  yield* scanLocalHeaders(data);
}

interface CentralDirectory {
  /** Offset of the first central header in `data`. */
  start: number;
  end: number;
  /** What to add to offsets recorded in the archive: non-zero when bytes were prepended (self-extracting, launch script). */
  shift: number;
}

function findEndOfCentralDirectory(data: Uint8Array): CentralDirectory | undefined {
  const lowest = Math.max(0, data.length - EOCD_SIZE - MAX_COMMENT);
  for (let e = data.length - EOCD_SIZE; e >= lowest; e--) {
    if (u32(data, e) !== SIG_EOCD) continue;
    let cdSize = u32(data, e + 12);
    let cdOffset = u32(data, e + 16);
    let recordStart = e;
    // zip64: the locator sits right before the classic record and points at the zip64 record.
    if (has(data, e - 20, 20) && u32(data, e - 20) === SIG_EOCD64_LOCATOR) {
      const declared64 = u64(data, e - 12);
      // The zip64 record is 56 bytes (plus extensible data) and sits right before the locator.
      const actual64 = e - 20 - 56;
      for (const at of [actual64, declared64]) {
        if (has(data, at, 56) && u32(data, at) === SIG_EOCD64) {
          cdSize = u64(data, at + 40);
          cdOffset = u64(data, at + 48);
          recordStart = at;
          break;
        }
      }
    }
    if (cdSize === 0) return { start: recordStart, end: recordStart, shift: 0 };
    // Where the directory must be if nothing was prepended: right before the end records.
    const start = recordStart - cdSize;
    if (start >= 0 && u32(data, start) === SIG_CENTRAL) return { start, end: recordStart, shift: start - cdOffset };
    // Some writers leave a gap; then trust the recorded offset.
    if (cdOffset + cdSize <= recordStart && u32(data, cdOffset) === SIG_CENTRAL) {
      return { start: cdOffset, end: cdOffset + cdSize, shift: 0 };
    }
  }
  return undefined;
}

function readCentralDirectory(data: Uint8Array): ZipEntry[] | undefined {
  const cd = findEndOfCentralDirectory(data);
  if (!cd) return undefined;
  const entries: ZipEntry[] = [];
  let o = cd.start;
  // Bounded by the directory's byte size, not by the (attacker-controlled) entry count.
  while (o + CENTRAL_HEADER_SIZE <= cd.end && u32(data, o) === SIG_CENTRAL) {
    const method = u16(data, o + 10);
    let compressedSize = u32(data, o + 20);
    let size = u32(data, o + 24);
    const nameLen = u16(data, o + 28);
    const extraLen = u16(data, o + 30);
    const commentLen = u16(data, o + 32);
    let localOffset = u32(data, o + 42);
    const next = o + CENTRAL_HEADER_SIZE + nameLen + extraLen + commentLen;
    if (next > cd.end) break;
    const name = utf8.decode(data.subarray(o + CENTRAL_HEADER_SIZE, o + CENTRAL_HEADER_SIZE + nameLen));
    // zip64 extended information: present fields appear in this order, only for values saturated at 0xffffffff.
    let x = o + CENTRAL_HEADER_SIZE + nameLen;
    const extraEnd = x + extraLen;
    while (x + 4 <= extraEnd) {
      const id = u16(data, x);
      const len = u16(data, x + 2);
      if (id === 0x0001) {
        let f = x + 4;
        const fEnd = Math.min(f + len, extraEnd);
        if (size === U32_MAX && f + 8 <= fEnd) (size = u64(data, f)), (f += 8);
        if (compressedSize === U32_MAX && f + 8 <= fEnd) (compressedSize = u64(data, f)), (f += 8);
        if (localOffset === U32_MAX && f + 8 <= fEnd) localOffset = u64(data, f);
      }
      x += 4 + len;
    }
    entries.push({ name, method, headerOffset: localOffset + cd.shift, compressedSize, size });
    o = next;
  }
  // A directory that yields nothing although it claims content is as good as missing: try the local headers.
  return entries.length > 0 || cd.end === cd.start ? entries : undefined;
}

function* scanLocalHeaders(data: Uint8Array): Generator<ZipEntry> {
  let o = 0;
  while (o + LOCAL_HEADER_SIZE <= data.length) {
    if (u32(data, o) !== SIG_LOCAL) {
      o = nextSignature(data, o + 1);
      if (o < 0) return;
      continue;
    }
    const flags = u16(data, o + 6);
    const method = u16(data, o + 8);
    let compressedSize = u32(data, o + 18);
    let size = u32(data, o + 22);
    const nameLen = u16(data, o + 26);
    const extraLen = u16(data, o + 28);
    if (!has(data, o + LOCAL_HEADER_SIZE, nameLen)) return;
    const name = utf8.decode(data.subarray(o + LOCAL_HEADER_SIZE, o + LOCAL_HEADER_SIZE + nameLen));
    // Bit 3: sizes are in a data descriptor after the data, the header's are zero.
    if (flags & 0x8 || compressedSize === U32_MAX) (compressedSize = -1), (size = -1);
    yield { name, method, headerOffset: o, compressedSize, size };
    const dataStart = o + LOCAL_HEADER_SIZE + nameLen + extraLen;
    o = compressedSize >= 0 ? dataStart + compressedSize : dataStart;
  }
}

const LOCAL_SIG_BYTES = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const PK = Buffer.from([0x50, 0x4b]);

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Offset of the next local header signature at or after `from`, or -1. (Buffer.indexOf: native speed on big jars.) */
function nextSignature(data: Uint8Array, from: number): number {
  return asBuffer(data).indexOf(LOCAL_SIG_BYTES, from);
}

/** Where compressed data of unknown length stops at the latest: the next record signature, or the end of the buffer. */
function endOfUnknownData(data: Uint8Array, from: number): number {
  const buf = asBuffer(data);
  for (let i = buf.indexOf(PK, from); i >= 0 && i + 4 <= buf.length; i = buf.indexOf(PK, i + 1)) {
    const sig = u32(buf, i);
    if (sig === SIG_LOCAL || sig === SIG_CENTRAL || sig === SIG_DATA_DESCRIPTOR) return i;
  }
  return buf.length;
}

/**
 * The entry's content, at most `maxBytes` long, or undefined when it is unreadable, uses an unsupported method or
 * would be larger than `maxBytes`. Stored entries are returned as a view into `data` (no copy). Never throws.
 */
export function readZipEntry(data: Uint8Array, entry: ZipEntry, maxBytes: number): Uint8Array | undefined {
  try {
    const h = entry.headerOffset;
    if (!has(data, h, LOCAL_HEADER_SIZE) || u32(data, h) !== SIG_LOCAL) return undefined;
    // The local header's own name/extra lengths decide where data starts (they may differ from the central copy).
    const dataStart = h + LOCAL_HEADER_SIZE + u16(data, h + 26) + u16(data, h + 28);
    if (dataStart > data.length) return undefined;
    if (entry.size > maxBytes) return undefined;
    if (entry.compressedSize >= 0) {
      // Truncated archives: read what is there.
      const end = Math.min(data.length, dataStart + entry.compressedSize);
      const raw = data.subarray(dataStart, end);
      if (entry.method === 0) return raw.length > maxBytes ? undefined : raw;
      if (entry.method !== 8) return undefined;
      if (entry.size >= 0 && end === dataStart + entry.compressedSize) {
        // The declared size caps the output: a lying header cannot make this allocate or write more.
        return inflateSync(raw, { out: new Uint8Array(entry.size) });
      }
      return inflateCapped(raw, maxBytes);
    }
    if (entry.method !== 8) return undefined;
    return inflateCapped(data.subarray(dataStart, endOfUnknownData(data, dataStart)), maxBytes);
  } catch {
    return undefined;
  }
}

/**
 * Streams `raw` through an inflater in small slices so a zip bomb is noticed after at most one slice's worth of
 * expansion. A stream that simply ends early (truncated archive) yields what was decoded.
 */
function inflateCapped(raw: Uint8Array, maxBytes: number): Uint8Array | undefined {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let tooBig = false;
  const inflater = new Inflate((chunk) => {
    if (tooBig) return;
    total += chunk.length;
    if (total > maxBytes) tooBig = true;
    else chunks.push(chunk);
  });
  const SLICE = 4096;
  for (let i = 0; i < raw.length && !tooBig; i += SLICE) inflater.push(raw.subarray(i, i + SLICE));
  if (tooBig) return undefined;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) out.set(c, at), (at += c.length);
  return out;
}
