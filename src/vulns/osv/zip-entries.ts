/**
 * The entries of a zip archive, decompressed one at a time from a stream of chunks, so that memory holds one read
 * chunk plus the entries it completed, whether the archive is given as bytes or as a file path. A damaged archive
 * throws (InvalidError) rather than ending early, since a feed cut short must not pass for a complete one; an entry
 * that cannot be decompressed is reported in place so the caller can count it and go on.
 */
import { createReadStream } from 'node:fs';
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { InvalidError } from '../../errors.js';

export type ZipEntry = { name: string; bytes: Uint8Array } | { name: string; error: string };

const READ_CHUNK_BYTES = 1 << 16;
/** The end-of-central-directory record is 22 bytes plus a comment of at most 65535. */
const EOCD_MAX_DISTANCE = 22 + 0xffff;

/** Entries whose name `wanted` accepts (directories never), in archive order. */
export async function* zipEntries(zip: Uint8Array | string, wanted: (name: string) => boolean): AsyncGenerator<ZipEntry> {
  const source = typeof zip === 'string' ? zip : 'zip archive';
  const completed: ZipEntry[] = [];
  const unzip = new Unzip((file) => collectEntry(file, !file.name.endsWith('/') && wanted(file.name), completed));
  unzip.register(UnzipInflate);

  let first = true;
  let tail: Uint8Array = new Uint8Array(0);
  for await (const chunk of chunksOf(zip)) {
    if (first) assertZipSignature(chunk, source);
    first = false;
    tail = keepTail(tail, chunk);
    pushChunk(unzip, chunk, false, source);
    while (completed.length > 0) yield completed.shift()!;
  }
  if (first) assertZipSignature(new Uint8Array(0), source);
  pushChunk(unzip, new Uint8Array(0), true, source);
  while (completed.length > 0) yield completed.shift()!;
  // fflate notices a cut inside an entry but not one between entries, which loses the central directory.
  if (!hasEndOfCentralDirectory(tail)) throw damaged(source, 'no end of central directory');
}

function collectEntry(file: UnzipFile, wanted: boolean, completed: ZipEntry[]): void {
  const parts: Uint8Array[] = [];
  // Every entry is started, wanted or not: fflate keeps the compressed bytes of an entry never started.
  file.ondata = (err, data, final) => {
    if (!wanted) return;
    if (err) completed.push({ name: file.name, error: `cannot decompress: ${err.message}` });
    else {
      parts.push(data);
      if (final) completed.push({ name: file.name, bytes: concat(parts) });
    }
  };
  try {
    file.start();
  } catch (err) {
    // An unsupported compression method throws here.
    if (wanted) completed.push({ name: file.name, error: `cannot decompress: ${(err as Error).message}` });
  }
}

async function* chunksOf(zip: Uint8Array | string): AsyncGenerator<Uint8Array> {
  if (typeof zip !== 'string') {
    for (let offset = 0; offset < zip.length; offset += READ_CHUNK_BYTES) yield zip.subarray(offset, offset + READ_CHUNK_BYTES);
    return;
  }
  for await (const chunk of createReadStream(zip, { highWaterMark: READ_CHUNK_BYTES })) yield chunk as Buffer;
}

/** A zip starts with a local file header, or is an empty archive's end record; anything else is not a zip. */
function assertZipSignature(chunk: Uint8Array, source: string): void {
  const isZip = chunk.length >= 4 && chunk[0] === 0x50 && chunk[1] === 0x4b
    && ((chunk[2] === 0x03 && chunk[3] === 0x04) || (chunk[2] === 0x05 && chunk[3] === 0x06));
  if (!isZip) throw new InvalidError(`${source}: not a zip archive`, { source });
}

function pushChunk(unzip: Unzip, chunk: Uint8Array, final: boolean, source: string): void {
  try {
    unzip.push(chunk, final);
  } catch (err) {
    // fflate throws when the stream ends inside an entry.
    throw damaged(source, (err as Error).message);
  }
}

function damaged(source: string, reason: string): InvalidError {
  return new InvalidError(`${source}: damaged zip archive: ${reason}`, { source });
}

/** The last EOCD_MAX_DISTANCE bytes seen, where the end-of-central-directory record must be. */
function keepTail(tail: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= EOCD_MAX_DISTANCE) return chunk.slice(chunk.length - EOCD_MAX_DISTANCE);
  const keep = Math.min(tail.length, EOCD_MAX_DISTANCE - chunk.length);
  const out = new Uint8Array(keep + chunk.length);
  out.set(tail.subarray(tail.length - keep), 0);
  out.set(chunk, keep);
  return out;
}

function hasEndOfCentralDirectory(tail: Uint8Array): boolean {
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) return true;
  }
  return false;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
