/**
 * GET /v2/summaries/image-tags with Vigil's optional filters and sort orders (what the web interface's image list
 * pages with): policy result, known-exploited findings, minimum severity, and sorting either way. Real report
 * data (report-fixtures.ts): fetcher has curl (Critical) and openssl (Medium), api:1.0 now has curl only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshReports } from '../support/graphql.js';
import { client } from '../support/http.js';
import { API, FETCHER, FETCHER_LATEST, startReportServer, type ReportFixture } from '../support/report-fixtures.js';

let fixture: ReportFixture;
beforeAll(async () => {
  fixture = await startReportServer();
  await refreshReports(fixture.server);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

async function rows(query: Record<string, unknown>): Promise<{ full_tag: string; image_digest: string }[]> {
  const res = await client(fixture.server.url).GET('/summaries/image-tags', { params: { query: query as never } });
  expect(res.response.status).toBe(200);
  return res.data!.items;
}

const tags = async (query: Record<string, unknown>) => (await rows(query)).map((i) => i.full_tag);

describe('image tag summaries: filters and sorting', () => {
  it('filters by minimum severity', async () => {
    expect((await tags({ severity: 'Critical' })).sort()).toEqual([API, FETCHER, FETCHER_LATEST].sort());
    expect((await tags({ severity: 'Medium' })).sort()).toEqual([API, FETCHER, FETCHER_LATEST].sort());
    expect(await tags({ severity: 'Critical', filter: 'fetcher:2' })).toEqual([FETCHER]);
  });

  it('filters by known-exploited findings, through the record\'s CVE', async () => {
    expect(await tags({ has_kev: true })).toEqual([]);
    expect((await tags({ has_kev: false })).sort()).toEqual([API, FETCHER, FETCHER_LATEST].sort());
    // curl's DSA record aliases CVE-2099-9100; openssl's (CVE-2099-9200) is not in the catalog.
    const db = fixture.server.running.services.db;
    await db('vuln_kev').insert({ cve_id: 'CVE-2099-9100', feed: 'osv', vulnerability_name: 'curl test' });
    try {
      expect((await tags({ has_kev: true })).sort()).toEqual([API, FETCHER, FETCHER_LATEST].sort());
      expect(await tags({ has_kev: false })).toEqual([]);
    } finally {
      await db('vuln_kev').where({ cve_id: 'CVE-2099-9100' }).delete();
    }
  });

  it('filters by the latest result under the active policy', async () => {
    const db = fixture.server.running.services.db;
    const active = await db('policies').where({ account_name: 'admin', active: true }).first();
    const latest: { tag: string; image_digest: string; status: string }[] = await db('policy_evaluations')
      .where({ account_name: 'admin', latest: true, policy_id: active.policy_id })
      .select('tag', 'image_digest', 'status');
    const current = await rows({});
    const expected = (status: string) =>
      current
        .filter((r) => latest.some((e) => e.tag === r.full_tag && e.image_digest === r.image_digest && e.status === status))
        .map((r) => r.full_tag)
        .sort();
    expect(expected('pass').length + expected('fail').length).toBe(current.length);
    expect((await tags({ policy_status: 'pass' })).sort()).toEqual(expected('pass'));
    expect((await tags({ policy_status: 'fail' })).sort()).toEqual(expected('fail'));
  });

  it('sorts by tag either way, and pages through the sorted rows', async () => {
    const ascending = [API, FETCHER, FETCHER_LATEST].sort();
    expect(await tags({ sort: 'full_tag', order: 'asc' })).toEqual(ascending);
    expect(await tags({ sort: 'full_tag', order: 'desc' })).toEqual([...ascending].reverse());
    expect(await tags({ sort: 'full_tag', order: 'asc', limit: 2, page: 2 })).toEqual([ascending[2]]);
    for (const sort of ['analyzed_at', 'analysis_status', 'tag_detected_at']) expect((await tags({ sort, order: 'asc' })).length).toBe(3);
  });

  it('refuses values outside the enumerations', async () => {
    for (const query of ['severity=Severe', 'sort=digest', 'order=up', 'policy_status=warn', 'has_kev=maybe']) {
      const res = await fetch(`${fixture.server.url}/v2/summaries/image-tags?${query}`, { headers: { authorization: `Basic ${Buffer.from('admin:admin-test-password').toString('base64')}` } });
      expect(res.status, query).toBe(400);
    }
  });
});
