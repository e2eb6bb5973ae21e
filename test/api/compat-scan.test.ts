/**
 * Drop-in compatibility (issue 15) of the feed-backed read paths: the vulnerability query's one-of-required
 * parameters and its bounded answer whatever the number of matches.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidationError } from '../support/fixtures.js';
import { raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { EPSS_CSV, KEV_CATALOG, initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

/** Advisories for one PyPI package, more than one chunk of the query's work: even ones affect 1.0, odd ones not. */
const BULK = 450;
const bulkId = (i: number) => `PYSEC-2099-B${String(i).padStart(4, '0')}`;

let server: TestServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-compat-scan-'));
  const records = initialRecords();
  for (let i = 1; i <= BULK; i += 1)
    records[bulkId(i)] = osvRecord(bulkId(i), 'PyPI', 'bulk-pkg', i % 2 === 0 ? [{ introduced: '0' }, { fixed: '2.0' }] : [{ introduced: '3.0' }, { fixed: '4.0' }]);
  writeRecords(join(work, 'osv'), records);
  writeFileSync(join(work, 'kev.json'), JSON.stringify(KEV_CATALOG));
  writeFileSync(join(work, 'epss.csv'), EPSS_CSV);
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')},kev=${join(work, 'kev.json')},epss=${join(work, 'epss.csv')}` });
  const sync = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(sync.json.status).toBe('done');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('GET /query/vulnerabilities', () => {
  it('declares its one-of-required parameters in the served spec', async () => {
    const spec = await raw(server.url, 'GET', '/v2/openapi.json', { auth: null });
    const op = spec.json.paths['/query/vulnerabilities'].get;
    expect(op['x-one-of-required']).toEqual(['id', 'affected_package']);
    expect(op.description).toMatch(/One of `id` and `affected_package` is required/);
  });

  it('answers 400 naming both parameters when neither is given', async () => {
    for (const query of ['', '?namespace=pypi', '?limit=5', '?affected_package_version=1.0']) {
      const res = await raw(server.url, 'GET', `/v2/query/vulnerabilities${query}`);
      expectValidationError(res, ['query']);
      expect(res.json.message).toContain('needs at least one of id, affected_package');
    }
  });

  it('returns every match with limit 0, written as it is read', async () => {
    const res = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=bulk-pkg');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.json).toMatchObject({ page: '1', next_page: '', returned_count: BULK });
    expect(res.json.vulnerabilities.map((v: { id: string }) => v.id)).toEqual(Array.from({ length: BULK }, (_, i) => bulkId(i + 1)));
    const affected = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=Bulk_Pkg&affected_package_version=1.0&limit=0');
    expect(affected.json.returned_count).toBe(BULK / 2);
    expect(affected.json.vulnerabilities.every((v: { id: string }) => Number(v.id.slice(-4)) % 2 === 0)).toBe(true);
  });

  it('pages across chunks, with next_page only while more matches follow', async () => {
    const page = async (n: number, extra = '') => (await raw(server.url, 'GET', `/v2/query/vulnerabilities?affected_package=bulk-pkg&limit=200&page=${n}${extra}`)).json;
    const second = await page(2);
    expect(second).toMatchObject({ page: '2', next_page: '3', returned_count: 200 });
    expect(second.vulnerabilities[0].id).toBe(bulkId(201));
    expect(second.vulnerabilities.at(-1).id).toBe(bulkId(400));
    expect(await page(3)).toMatchObject({ page: '3', next_page: '', returned_count: 50 });
    expect(await page(4)).toMatchObject({ page: '4', next_page: '', returned_count: 0, vulnerabilities: [] });
    // 225 affect 1.0: a page of exactly the remainder has no next page.
    const filtered = await page(2, '&affected_package_version=1.0');
    expect(filtered).toMatchObject({ next_page: '', returned_count: 25 });
    expect(filtered.vulnerabilities[0].id).toBe(bulkId(402));
  });
});
