/**
 * Writes OSV feed archives of any size without holding them: fflate's streaming Zip, each entry deflated by
 * node's zlib (fflate's own deflate is about ten times slower for hundreds of thousands of small entries).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';

/** The smallest valid OSV record affecting one npm package below `fixed`. */
export function minimalOsvRecord(id: string, packageName: string, fixed = '1.0.1', modified = '2026-01-01T00:00:00Z'): Record<string, unknown> {
  return {
    id,
    modified,
    affected: [{ package: { ecosystem: 'npm', name: packageName }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed }] }] }],
  };
}

/** One deflated entry, handed to the zip whole. */
function deflatedEntry(filename: string, data: Uint8Array): { file: ZipInputFile; push(): void } {
  const file: ZipInputFile = { filename, size: data.length, crc: crc32(data), compression: 8 };
  return { file, push: () => file.ondata!(null, deflateRawSync(data, { level: 1 }), true) };
}

/** The archive file a Zip writes to, and a promise of its size once closed. */
function zipFile(path: string): { zip: Zip; out: ReturnType<typeof createWriteStream>; closed: Promise<number> } {
  const out = createWriteStream(path);
  let bytes = 0;
  let failure: Error | null = null;
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else {
      bytes += chunk.length;
      out.write(chunk);
    }
    if (final) out.end();
  });
  const closed = once(out, 'close').then(() => {
    if (failure) throw failure;
    return bytes;
  });
  return { zip, out, closed };
}

/**
 * Writes a zip of one entry whose content is produced piece by piece (of any size: it is deflated as it streams,
 * and its size and CRC go into the data descriptor and central directory); answers the entry's and the archive's size.
 */
export async function writeSingleEntryZip(path: string, name: string, content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<{ entryBytes: number; zipBytes: number }> {
  const { zip, out, closed } = zipFile(path);
  const file: ZipInputFile = { filename: name, size: 0, crc: 0, compression: 8 };
  zip.add(file);
  const deflater = createDeflateRaw({ level: 1 });
  let pending: Buffer<ArrayBuffer> | null = null;
  const forward = (chunk: Buffer<ArrayBuffer>) => {
    // The last piece must go with final = true, so each is handed over once the next one exists.
    if (pending) file.ondata!(null, pending, false);
    pending = chunk;
  };
  deflater.on('data', forward);
  const ended = once(deflater, 'end');
  for await (const piece of content) {
    file.size += piece.length;
    file.crc = crc32(piece, file.crc);
    if (!deflater.write(piece)) await once(deflater, 'drain');
    if (out.writableNeedDrain) await once(out, 'drain');
  }
  deflater.end();
  await ended;
  file.ondata!(null, pending ?? new Uint8Array(0), true);
  zip.end();
  return { entryBytes: file.size, zipBytes: await closed };
}

/**
 * Writes a zip with the given entries (name and content, produced lazily) to `path`; answers its size in bytes.
 * The writer waits for the file to drain, so memory holds one entry at a time.
 */
export async function writeZip(path: string, entries: Iterable<[string, Uint8Array]>): Promise<number> {
  const { zip, out, closed } = zipFile(path);
  for (const [name, data] of entries) {
    const entry = deflatedEntry(name, data);
    zip.add(entry.file);
    entry.push();
    if (out.writableNeedDrain) await once(out, 'drain');
  }
  zip.end();
  return closed;
}

/** Entries `<id>.json`, one record each, for an all.zip-shaped archive. */
export function* recordEntries(records: Iterable<Record<string, unknown>>): Generator<[string, Uint8Array]> {
  for (const r of records) yield [`${String(r.id)}.json`, Buffer.from(JSON.stringify(r))];
}
