import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEpssCsv, type EpssEntry, type EpssReadResult } from '../../../../src/vulns/sources/epss.js';
import { FeedFormatError } from '../../../../src/vulns/sources/errors.js';

const COMMENT = '#model_version:v2025.03.14,score_date:2025-11-20T12:55:00Z';
const SAMPLE = [COMMENT, 'cve,epss,percentile', 'CVE-2024-1234,0.00043,0.11', 'CVE-1999-0001,0.01234,0.8', 'CVE-2024-99999,1,1', ''].join('\n');

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-epss-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(content: string | Uint8Array, name = `scores-${counter++}.csv`): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function collect(result: EpssReadResult): Promise<EpssEntry[]> {
  const out: EpssEntry[] = [];
  for await (const entry of result.entries) out.push(entry);
  return out;
}

describe('readEpssCsv', () => {
  it('reads the model comment, the header and the rows', async () => {
    const result = readEpssCsv(await file(SAMPLE));
    expect(result.meta).toEqual({});
    const entries = await collect(result);
    expect(result.meta).toEqual({ modelVersion: 'v2025.03.14', scoreDate: '2025-11-20T12:55:00Z' });
    expect(entries).toEqual([
      { cveId: 'CVE-2024-1234', epss: 0.00043, percentile: 0.11 },
      { cveId: 'CVE-1999-0001', epss: 0.01234, percentile: 0.8 },
      { cveId: 'CVE-2024-99999', epss: 1, percentile: 1 },
    ]);
    expect(result.stats).toEqual({ read: 3, skipped: 0, errors: [] });
  });

  it('fills meta once the header was read, before the rows are consumed', async () => {
    const result = readEpssCsv(await file(SAMPLE));
    const iterator = result.entries[Symbol.asyncIterator]();
    await iterator.next();
    expect(result.meta.modelVersion).toBe('v2025.03.14');
    await iterator.return?.();
  });

  it('reads a file without the comment line, with CRLF endings and no final newline', async () => {
    const result = readEpssCsv(await file('cve,epss,percentile\r\nCVE-2024-1234,0.5,0.9\r\nCVE-2024-1235,0.25,0.5'));
    expect(await collect(result)).toEqual([
      { cveId: 'CVE-2024-1234', epss: 0.5, percentile: 0.9 },
      { cveId: 'CVE-2024-1235', epss: 0.25, percentile: 0.5 },
    ]);
    expect(result.meta).toEqual({});
  });

  it('takes the columns from the header, in any order and case, with extra columns', async () => {
    const csv = '\uFEFFPercentile, EPSS ,extra,CVE\n0.7,0.02,x,CVE-2024-0001\n';
    expect(await collect(readEpssCsv(await file(csv)))).toEqual([{ cveId: 'CVE-2024-0001', epss: 0.02, percentile: 0.7 }]);
  });

  it('reads gzip data recognised by its magic bytes, whatever the file is called', async () => {
    const gz = readEpssCsv(await file(gzipSync(SAMPLE), 'epss_scores-current.csv.gz'));
    expect((await collect(gz)).map((e) => e.cveId)).toEqual(['CVE-2024-1234', 'CVE-1999-0001', 'CVE-2024-99999']);
    expect(gz.meta.scoreDate).toBe('2025-11-20T12:55:00Z');
    const renamed = readEpssCsv(await file(gzipSync(SAMPLE), 'download'));
    expect(await collect(renamed)).toHaveLength(3);
    // And a plain file with a .gz name (a server that decompressed it on the way) is read as plain text.
    const plainGz = readEpssCsv(await file(SAMPLE, 'plain.csv.gz'));
    expect(await collect(plainGz)).toHaveLength(3);
  });

  it('skips and counts bad rows, naming file and line', async () => {
    const csv = [
      COMMENT,
      'cve,epss,percentile',
      'CVE-2024-0001,0.1,0.2',
      'CVE-24-1,0.1,0.2',
      'CVE-2024-0002,1.5,0.2',
      'CVE-2024-0003,0.1,-0.2',
      'CVE-2024-0004,,0.2',
      'CVE-2024-0005,abc,0.2',
      'CVE-2024-0006,0.1',
      'CVE-2024-0007,Infinity,0.2',
      'CVE-2024-0008,0x1,0.2',
      '',
      'CVE-2024-0009,1e-5,0.2',
    ].join('\n');
    const path = await file(csv);
    const result = readEpssCsv(path);
    expect((await collect(result)).map((e) => [e.cveId, e.epss])).toEqual([
      ['CVE-2024-0001', 0.1],
      ['CVE-2024-0009', 0.00001],
    ]);
    expect(result.stats.read).toBe(2);
    expect(result.stats.skipped).toBe(8);
    expect(result.stats.errors.map((e) => e.source)).toEqual([4, 5, 6, 7, 8, 9, 10, 11].map((n) => `${path}:${n}`));
    expect(result.stats.errors[0]!.message).toContain('not a CVE id');
    expect(result.stats.errors[1]!.message).toMatch(/^CVE-2024-0002: epss is not a number in \[0, 1\]/);
    expect(result.stats.errors[2]!.message).toMatch(/^CVE-2024-0003: percentile/);
  });

  it('numbers lines from 1 when there is no comment line', async () => {
    const path = await file('cve,epss,percentile\nbad,0,0\n');
    const result = readEpssCsv(path);
    await collect(result);
    expect(result.stats.errors).toEqual([{ source: `${path}:2`, message: 'not a CVE id: "BAD"' }]);
  });

  it('keeps at most 100 skip reasons but counts every skipped row', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => `CVE-2024-${10000 + i},2,0.5`);
    const result = readEpssCsv(await file(['cve,epss,percentile', ...rows].join('\n')));
    expect(await collect(result)).toEqual([]);
    expect(result.stats.skipped).toBe(250);
    expect(result.stats.errors).toHaveLength(100);
  });

  it('streams a large file across many read chunks', async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `CVE-2024-${100000 + i},0.${String(i).padStart(5, '0')},0.5`);
    const csv = [COMMENT, 'cve,epss,percentile', ...rows, ''].join('\n');
    for (const content of [csv, gzipSync(csv)]) {
      const result = readEpssCsv(await file(content));
      let count = 0;
      let last: EpssEntry | undefined;
      for await (const entry of result.entries) {
        count += 1;
        last = entry;
      }
      expect(count).toBe(50_000);
      expect(last).toEqual({ cveId: 'CVE-2024-149999', epss: 0.49999, percentile: 0.5 });
      expect(result.stats).toEqual({ read: 50_000, skipped: 0, errors: [] });
    }
  });

  it.each([
    ['a missing column', 'cve,epss\nCVE-2024-0001,0.1\n', /lacks column\(s\) percentile/],
    ['a header that is a data row', 'CVE-2024-0001,0.1,0.2\n', /lacks column\(s\) cve, epss, percentile/],
    ['only the comment line', `${COMMENT}\n`, /no header line/],
    ['an empty file', '', /no header line/],
  ])('throws FeedFormatError for %s', async (_name, content, message) => {
    const path = await file(content);
    const err = await collect(readEpssCsv(path)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedFormatError);
    expect((err as FeedFormatError).format).toBe('epss');
    expect((err as FeedFormatError).source).toBe(path);
    expect((err as FeedFormatError).message).toMatch(message);
  });

  it('throws FeedFormatError for truncated gzip data, after the rows it could read', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `CVE-2024-${100000 + i},0.5,0.5`);
    const gz = gzipSync([COMMENT, 'cve,epss,percentile', ...rows].join('\n'));
    const result = readEpssCsv(await file(gz.subarray(0, Math.floor(gz.length * 0.6))));
    const seen: EpssEntry[] = [];
    const err = await (async () => {
      for await (const entry of result.entries) seen.push(entry);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedFormatError);
    expect((err as FeedFormatError).message).toMatch(/corrupt or truncated gzip data/);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(20_000);
  });

  it('throws FeedFormatError for gzip magic followed by garbage', async () => {
    const err = await collect(readEpssCsv(await file(Buffer.from([0x1f, 0x8b, 0x00, 0x01, 0x02, 0x03])))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedFormatError);
  });

  it('throws FeedFormatError for a file that is not line-oriented text', async () => {
    const err = await collect(readEpssCsv(await file('x'.repeat(200_000)))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedFormatError);
    expect((err as FeedFormatError).message).toMatch(/longer than/);
  });

  it('lets a missing file fail as a file-system error when iterated', async () => {
    const result = readEpssCsv(join(dir, 'missing.csv'));
    await expect(collect(result)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
