import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFeedKind } from '../../../../src/vulns/sources/detect.js';
import { FeedFormatError } from '../../../../src/vulns/sources/errors.js';
import { readNvdFeed, type NvdEntry, type NvdReadResult } from '../../../../src/vulns/sources/nvd.js';
import { CRITICAL_31, HIGH_31, HIGH_V2, LOW_V2, MEDIUM_30, nvdCve, nvdFeed, nvdFeedGz, sampleCves, v31 } from '../../../vulns/fixture-nvd.js';

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-nvd-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(content: string | Uint8Array, name = `nvdcve-2.0-${counter++}.json`): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function collect(result: NvdReadResult): Promise<NvdEntry[]> {
  const out: NvdEntry[] = [];
  for await (const entry of result.entries) out.push(entry);
  return out;
}

const read = (path: string, maxRecordBytes = 1 << 20) => readNvdFeed(path, { maxRecordBytes });

async function failure(path: string): Promise<FeedFormatError> {
  const err = await collect(read(path)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FeedFormatError);
  return err as FeedFormatError;
}

const EXPECTED: NvdEntry[] = [
  {
    cveId: 'CVE-2099-1001',
    v3: { type: 'Primary', source: 'nvd@nist.gov', version: '3.1', vector: CRITICAL_31, baseScore: 9.8, exploitabilityScore: 3.9, impactScore: 5.9 },
    v2: { type: 'Primary', source: 'nvd@nist.gov', version: '2.0', vector: HIGH_V2, baseScore: 7.5, exploitabilityScore: 10, impactScore: 6.4 },
    severity: 'Critical',
  },
  { cveId: 'CVE-2099-1002', v2: { type: 'Primary', source: 'nvd@nist.gov', version: '2.0', vector: LOW_V2, baseScore: 2.1, exploitabilityScore: 10, impactScore: 6.4 }, severity: 'Low' },
  {
    cveId: 'CVE-2099-1003',
    v3: { type: 'Secondary', source: 'security-advisories@github.com', version: '3.1', vector: HIGH_31, baseScore: 7.5, exploitabilityScore: 3.9, impactScore: 5.9 },
    severity: 'High',
  },
  // NVD's own v3.0 wins over a CNA's v3.1.
  { cveId: 'CVE-2099-1004', v3: { type: 'Primary', source: 'nvd@nist.gov', version: '3.0', vector: MEDIUM_30, baseScore: 5.4, exploitabilityScore: 2.8, impactScore: 3.6 }, severity: 'Medium' },
];

describe('readNvdFeed', () => {
  it('streams the preferred v3 and v2 metric of each CVE, Primary before Secondary, v3.1 before v3.0', async () => {
    const result = read(await file(nvdFeed(sampleCves())));
    expect(await collect(result)).toEqual(EXPECTED);
    expect(result.meta).toEqual({ format: 'NVD_CVE', version: '2.0', timestamp: '2099-03-01T03:00:00.123' });
    expect(result.stats).toEqual({ read: 5, skipped: 0, unscored: 1, errors: [] });
  });

  it('reads gzip by its magic bytes, whatever the name, in small chunks', async () => {
    expect(await collect(read(await file(nvdFeedGz(sampleCves()), 'download')))).toEqual(EXPECTED);
    // A compact document (no spaces) and a byte order mark are the same feed.
    const compact = `\uFEFF${JSON.stringify(JSON.parse(nvdFeed(sampleCves())))}`;
    expect(await collect(read(await file(compact)))).toEqual(EXPECTED);
  });

  it('reads a file of many read chunks, with a head longer than one chunk, plain and gzip', async () => {
    const cves = Array.from({ length: 3000 }, (_, i) => ({ id: `CVE-2099-${10000 + i}`, v31: [v31('Primary', CRITICAL_31, 9.8, 'CRITICAL')] }));
    // A long member before the array (and nested values) makes the head span several 64 KiB reads.
    const text = nvdFeed(cves).replace('"resultsPerPage"', `"padding" : {"a": ["${'x'.repeat(150_000)}", {"b": "]}\\\\"}], "n": 1}, "resultsPerPage"`);
    expect(text.length).toBeGreaterThan(4_000_000);
    for (const content of [text, gzipSync(text)]) {
      const result = read(await file(content));
      const entries = await collect(result);
      expect(entries).toHaveLength(3000);
      expect(entries[2999]).toMatchObject({ cveId: 'CVE-2099-12999', severity: 'Critical' });
      expect(result.meta.timestamp).toBe('2099-03-01T03:00:00.123');
    }
  });

  it('skips and counts elements that are not CVEs, metrics that do not parse and elements over the limit', async () => {
    const good = nvdCve({ id: 'CVE-2099-2001', v31: [v31('Primary', CRITICAL_31, 9.8, 'CRITICAL')] });
    const badVector = nvdCve({ id: 'CVE-2099-2002', v31: [v31('Primary', 'CVSS:3.1/AV:X', 9.8, 'CRITICAL')] });
    const wrongVersion = nvdCve({ id: 'CVE-2099-2003', v31: [v31('Primary', HIGH_V2, 7.5, 'HIGH')] });
    const big = nvdCve({ id: 'CVE-2099-2004', v31: [v31('Primary', CRITICAL_31, 9.8, 'CRITICAL')] });
    (big.cve.descriptions[0] as { value: string }).value = 'x'.repeat(5000);
    const doc = { format: 'NVD_CVE', version: '2.0', vulnerabilities: [good, { cve: { id: 'not-a-cve' } }, 42, badVector, wrongVersion, big] };
    const result = read(await file(JSON.stringify(doc)), 4000);
    expect((await collect(result)).map((e) => e.cveId)).toEqual(['CVE-2099-2001']);
    expect(result.stats).toMatchObject({ read: 3, skipped: 3, unscored: 2 });
    expect(result.stats.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/cve.id: expected a CVE id.*not-a-cve/),
      expect.stringMatching(/expected an object with a "cve" object/),
      expect.stringMatching(/more than the limit of 4000/),
    ]);
  });

  it('refuses what is not an NVD 2.0 feed, or is cut short, with a FeedFormatError naming the file', async () => {
    const whole = nvdFeed(sampleCves());
    const cases: [string | Uint8Array, RegExp][] = [
      ['', /empty/],
      ['[{"id": "GHSA-1"}]', /expected a JSON object/],
      ['{"catalogVersion": "1", "count": 2}', /no "vulnerabilities" array/],
      ['{"format": "NVD_CPE", "vulnerabilities": []}', /format is "NVD_CPE"/],
      ['{"vulnerabilities": {"cve": 1}}', /"vulnerabilities" is not an array/],
      [whole.slice(0, whole.length / 2), /ends inside element|closing "}"/],
      [whole.slice(0, whole.lastIndexOf('}')), /closing "}"/],
      [whole.replace(/\}\s*$/, ', "extra": 1 }'), /text after the end/],
      [nvdFeedGz(sampleCves()).subarray(0, 300), /corrupt or truncated gzip/],
    ];
    for (const [content, message] of cases) {
      const path = await file(content);
      const err = await failure(path);
      expect(err.message).toMatch(message);
      expect(err.message).toContain(path);
      expect(err.status).toBe(422);
    }
  });

  it('is detected as NVD, plain or gzip, and told apart from KEV, OSV and EPSS', async () => {
    expect(await detectFeedKind(await file(nvdFeed(sampleCves())))).toBe('nvd');
    expect(await detectFeedKind(await file(nvdFeedGz(sampleCves()), 'nvdcve-2.0-2099.json.gz'))).toBe('nvd');
    expect(await detectFeedKind(await file(nvdFeedGz(sampleCves()), 'feed.gz'))).toBe('nvd');
    // A saved API answer without the format member.
    expect(await detectFeedKind(await file(JSON.stringify({ vulnerabilities: [nvdCve({ id: 'CVE-2099-1' })] })))).toBe('nvd');
  });
});
