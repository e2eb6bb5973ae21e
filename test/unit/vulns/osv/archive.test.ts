import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Zip, ZipDeflate, ZipPassThrough, strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidError } from '../../../../src/errors.js';
import {
  readOsvArchive,
  readOsvDirectory,
  readOsvFile,
  readOsvPath,
  type OsvReadResult,
} from '../../../../src/vulns/osv/archive.js';
import type { OsvRecord } from '../../../../src/vulns/osv/types.js';

function record(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    modified: '2099-01-01T00:00:00Z',
    affected: [{ package: { ecosystem: 'PyPI', name: `pkg-${id.toLowerCase()}` }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.0' }] }] }],
    ...extra,
  };
}
const json = (value: unknown) => strToU8(JSON.stringify(value));

/** An all.zip-like archive: good records, broken JSON, a broken record, and entries that are not records at all. */
function feedZip(): Uint8Array {
  return zipSync({
    'PYSEC-2099-1.json': json(record('PYSEC-2099-1')),
    'PYSEC-2099-2.json': json(record('PYSEC-2099-2', { withdrawn: '2099-02-01T00:00:00Z' })),
    'PYSEC-2099-3.json': strToU8('{"id": "PYSEC-2099-3", "modified": '),
    'PYSEC-2099-4.json': json({ ...record('PYSEC-2099-4'), affected: [{ package: { ecosystem: 'PyPI', name: 'x' }, ranges: [{ type: 'ECOSYSTEM', events: 'none' }] }] }),
    'PYSEC-2099-5.json': new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    'README.md': strToU8('# not a record\n'),
    'nested/': new Uint8Array(0),
    'nested/PYSEC-2099-6.json': json(record('PYSEC-2099-6')),
  });
}

/** The same kind of archive written as a stream (data descriptors after each entry, no sizes up front). */
function streamedZip(count: number, padding = 0): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, data, final) => {
      if (err) return reject(err);
      parts.push(data);
      if (final) resolve(Buffer.concat(parts));
    });
    for (let i = 0; i < count; i++) {
      const entry = i % 2 === 0 ? new ZipDeflate(`GO-2099-${i}.json`, { level: 6 }) : new ZipPassThrough(`GO-2099-${i}.json`);
      zip.add(entry);
      entry.push(json(record(`GO-2099-${i}`, { details: 'x'.repeat(padding) })), true);
    }
    zip.end();
  });
}

async function collect(result: OsvReadResult): Promise<OsvRecord[]> {
  const out: OsvRecord[] = [];
  for await (const r of result.records) out.push(r);
  return out;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-osv-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readOsvArchive', () => {
  it('yields the good records and counts the malformed entries by name', async () => {
    const result = readOsvArchive(feedZip());
    const records = await collect(result);
    expect(records.map((r) => r.id)).toEqual(['PYSEC-2099-1', 'PYSEC-2099-2', 'PYSEC-2099-6']);
    expect(records[1]!.withdrawn).toBe('2099-02-01T00:00:00Z');
    expect(result.stats.read).toBe(3);
    expect(result.stats.skipped).toBe(3);
    expect(result.stats.errors).toEqual([
      { source: 'PYSEC-2099-3.json', message: expect.stringMatching(/^invalid JSON: /) },
      {
        source: 'PYSEC-2099-4.json',
        message: 'PYSEC-2099-4: affected[0].ranges[0].events: expected an array, got a string',
        field: 'affected[0].ranges[0].events',
      },
      { source: 'PYSEC-2099-5.json', message: 'not valid UTF-8' },
    ]);
  });

  it('reads the same archive from a file path', async () => {
    const path = join(dir, 'all.zip');
    await writeFile(path, feedZip());
    const result = readOsvArchive(path);
    expect((await collect(result)).map((r) => r.id)).toEqual(['PYSEC-2099-1', 'PYSEC-2099-2', 'PYSEC-2099-6']);
    expect(result.stats).toMatchObject({ read: 3, skipped: 3 });
  });

  it('reads streamed archives (data descriptors, stored and deflated entries) across many chunks', async () => {
    const zip = await streamedZip(40, 10_000);
    expect(zip.length).toBeGreaterThan(3 * 65536);
    const path = join(dir, 'streamed.zip');
    await writeFile(path, zip);
    for (const source of [zip, path]) {
      const result = readOsvArchive(source);
      const ids = (await collect(result)).map((r) => r.id);
      expect(ids).toHaveLength(40);
      expect(ids[39]).toBe('GO-2099-39');
      expect(result.stats).toEqual({ read: 40, skipped: 0, errors: [], largestBuffer: expect.any(Number) });
    }
  });

  it('parses one record per pull, not the whole archive up front', async () => {
    const result = readOsvArchive(await streamedZip(30));
    const iterator = result.records[Symbol.asyncIterator]();
    expect(result.stats.read).toBe(0);
    expect((await iterator.next()).value?.id).toBe('GO-2099-0');
    expect(result.stats.read).toBe(1);
    await iterator.next();
    expect(result.stats.read).toBe(2);
    await iterator.return?.(undefined);
  });

  it('stops cleanly when the consumer breaks early', async () => {
    const path = join(dir, 'early.zip');
    await writeFile(path, await streamedZip(20, 10_000));
    const result = readOsvArchive(path);
    for await (const r of result.records) {
      expect(r.id).toBe('GO-2099-0');
      break;
    }
    expect(result.stats.read).toBe(1);
  });

  it('keeps only the first maxErrors reasons but counts every skip', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 5; i++) files[`BAD-${i}.json`] = strToU8('not json');
    const result = readOsvArchive(zipSync(files), { maxErrors: 2 });
    expect(await collect(result)).toEqual([]);
    expect(result.stats.skipped).toBe(5);
    expect(result.stats.errors.map((e) => e.source)).toEqual(['BAD-0.json', 'BAD-1.json']);
  });

  it('reads an empty archive as no records', async () => {
    const result = readOsvArchive(zipSync({}));
    expect(await collect(result)).toEqual([]);
    expect(result.stats).toEqual({ read: 0, skipped: 0, errors: [], largestBuffer: expect.any(Number) });
  });

  it('throws for something that is not a zip', async () => {
    await expect(collect(readOsvArchive(strToU8('{"id": "x"}')))).rejects.toThrow(InvalidError);
    await expect(collect(readOsvArchive(new Uint8Array(0)))).rejects.toThrow(/not a zip archive/);
  });

  it('throws for a truncated archive instead of passing it off as complete', async () => {
    const zip = await streamedZip(10, 2000);
    await expect(collect(readOsvArchive(zip.subarray(0, Math.floor(zip.length / 2))))).rejects.toThrow(/damaged zip archive/);
  });

  it('throws for an archive cut between entries (central directory lost)', async () => {
    const whole = zipSync({ 'A-1.json': json(record('A-1')), 'A-2.json': json(record('A-2')) });
    // The second local header starts right after the first entry; cut there.
    const second = whole.findIndex((b, i) => i > 0 && b === 0x50 && whole[i + 1] === 0x4b && whole[i + 2] === 0x03 && whole[i + 3] === 0x04);
    expect(second).toBeGreaterThan(0);
    const result = readOsvArchive(whole.subarray(0, second));
    await expect(collect(result)).rejects.toThrow(/no end of central directory/);
    // The directory is read first, so nothing of a cut archive is yielded.
    expect(result.stats.read).toBe(0);
  });

  it('reads archives of more than 65 535 entries written without ZIP64 (the end record counts modulo 65 536)', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 65_540; i++) files[`R-${i}.json`] = json(record(`R-${i}`));
    const result = readOsvArchive(zipSync(files, { level: 0 }));
    let n = 0;
    for await (const _ of result.records) n++;
    expect(n).toBe(65_540);
    expect(result.stats).toMatchObject({ read: 65_540, skipped: 0 });
  });

  it('skips an entry whose data fails its CRC, reading the others', async () => {
    const zip = zipSync({ 'A-1.json': json(record('A-1')), 'A-2.json': json(record('A-2')) }, { level: 0 });
    const at = Buffer.from(zip).indexOf('"A-1"');
    zip[at + 1] = 'B'.charCodeAt(0);
    const result = readOsvArchive(zip);
    expect((await collect(result)).map((r) => r.id)).toEqual(['A-2']);
    expect(result.stats.errors).toEqual([expect.objectContaining({ source: 'A-1.json', message: expect.stringMatching(/CRC/) })]);
  });

  it('throws for a missing file', async () => {
    await expect(collect(readOsvArchive(join(dir, 'absent.zip')))).rejects.toThrow(/ENOENT/);
  });
});

describe('readOsvDirectory', () => {
  it('reads every *.json below the directory in name order, counting broken files', async () => {
    const root = join(dir, 'db');
    await mkdir(join(root, 'vulns', 'b-pkg'), { recursive: true });
    await mkdir(join(root, 'vulns', 'a-pkg', 'deep'), { recursive: true });
    await writeFile(join(root, 'vulns', 'b-pkg', 'PYSEC-2099-20.json'), JSON.stringify(record('PYSEC-2099-20')));
    await writeFile(join(root, 'vulns', 'a-pkg', 'PYSEC-2099-10.json'), JSON.stringify(record('PYSEC-2099-10')));
    await writeFile(join(root, 'vulns', 'a-pkg', 'deep', 'PYSEC-2099-11.JSON'), JSON.stringify(record('PYSEC-2099-11')));
    await writeFile(join(root, 'vulns', 'a-pkg', 'PYSEC-2099-12.json'), JSON.stringify({ modified: '2099-01-01T00:00:00Z' }));
    await writeFile(join(root, 'vulns', 'a-pkg', 'notes.yaml'), 'id: PYSEC-2099-13\n');
    await writeFile(join(root, 'README.md'), '# db\n');
    // A symlinked directory is not followed, so a cycle cannot trap the walk.
    await symlink(root, join(root, 'vulns', 'loop'));

    const result = readOsvDirectory(root);
    expect((await collect(result)).map((r) => r.id)).toEqual(['PYSEC-2099-10', 'PYSEC-2099-11', 'PYSEC-2099-20']);
    expect(result.stats.read).toBe(3);
    expect(result.stats.skipped).toBe(1);
    expect(result.stats.errors).toEqual([
      { source: join(root, 'vulns', 'a-pkg', 'PYSEC-2099-12.json'), message: 'id: is required', field: 'id' },
    ]);
  });
});

describe('readOsvFile and readOsvPath', () => {
  it('reads a single record file', async () => {
    const path = join(dir, 'GHSA-aaaa-bbbb-cccc.json');
    await writeFile(path, JSON.stringify(record('GHSA-aaaa-bbbb-cccc')));
    const result = readOsvFile(path);
    expect((await collect(result)).map((r) => r.id)).toEqual(['GHSA-aaaa-bbbb-cccc']);
    expect(result.stats).toEqual({ read: 1, skipped: 0, errors: [], largestBuffer: expect.any(Number) });
  });

  it('reads a file holding an array of records, naming bad elements by index', async () => {
    const path = join(dir, 'batch.json');
    await writeFile(path, JSON.stringify([record('A-1'), { id: 'A-2' }, record('A-3')]));
    const result = readOsvFile(path);
    expect((await collect(result)).map((r) => r.id)).toEqual(['A-1', 'A-3']);
    expect(result.stats.errors).toEqual([{ source: `${path}[1]`, message: 'A-2: modified: is required', field: 'modified' }]);
  });

  it('counts an unparseable file', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{');
    const result = readOsvFile(path);
    expect(await collect(result)).toEqual([]);
    expect(result.stats.skipped).toBe(1);
  });

  it('dispatches on what the path is', async () => {
    const zipPath = join(dir, 'dispatch.zip');
    await writeFile(zipPath, feedZip());
    expect((await collect(readOsvPath(zipPath))).length).toBe(3);
    const sub = join(dir, 'dispatch-dir');
    await mkdir(sub);
    await writeFile(join(sub, 'X-1.json'), JSON.stringify(record('X-1')));
    expect((await collect(readOsvPath(sub))).map((r) => r.id)).toEqual(['X-1']);
    expect((await collect(readOsvPath(join(sub, 'X-1.json')))).map((r) => r.id)).toEqual(['X-1']);
  });
});
