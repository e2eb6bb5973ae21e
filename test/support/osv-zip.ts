/**
 * Writes OSV feed archives of any size without holding them: fflate's streaming Zip, each entry deflated by
 * node's zlib (fflate's own deflate is about ten times slower for hundreds of thousands of small entries).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { crc32, deflateRawSync } from 'node:zlib';
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

/**
 * Writes a zip with the given entries (name and content, produced lazily) to `path`; answers its size in bytes.
 * The writer waits for the file to drain, so memory holds one entry at a time.
 */
export async function writeZip(path: string, entries: Iterable<[string, Uint8Array]>): Promise<number> {
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
  for (const [name, data] of entries) {
    const entry = deflatedEntry(name, data);
    zip.add(entry.file);
    entry.push();
    if (out.writableNeedDrain) await once(out, 'drain');
    if (failure) throw failure;
  }
  zip.end();
  await once(out, 'close');
  if (failure) throw failure;
  return bytes;
}

/** Entries `<id>.json`, one record each, for an all.zip-shaped archive. */
export function* recordEntries(records: Iterable<Record<string, unknown>>): Generator<[string, Uint8Array]> {
  for (const r of records) yield [`${String(r.id)}.json`, Buffer.from(JSON.stringify(r))];
}
