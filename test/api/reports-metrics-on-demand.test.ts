/**
 * Metric data on demand: on a fresh install (no collection yet, the schedule's next slot far away) an
 * administrator's `collectMetricData` mutation brings the read model up to date and collects every account at
 * once, so `metricData` answers right after it; anyone else is refused and nothing is collected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { createUserWithRole, type TestUser } from '../support/auth-fixtures.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer } from '../support/server.js';

const COLLECT = 'mutation { collectMetricData { ok collectedAt collected accounts points } }';
const ANALYZED = '{ metricData(filter: {metricId: "images.analyzed"}) { results { metricId collectedAt value } } }';

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  // Nothing collects or refreshes by itself while the test runs: only the mutation can make data appear.
  server = await startTestServer({ VIGIL_METRICS_SCHEDULE: '0 0 1 1 *', VIGIL_REPORTS_REFRESH_SECONDS: '3600' });
  user = await createUserWithRole(server.url, { role: 'full-control' });
  await analyzeArchiveImage(server, [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\n' }]], 'registry.example.com/team/app:1');
});
afterAll(async () => {
  await server?.close();
});

const stored = () => server.running.services.db('report_metric_data').count<{ n: number | string }[]>({ n: '*' });

describe('collectMetricData', () => {
  it('is refused to a user who is not an administrator, and collects nothing', async () => {
    const res = await gql(server, COLLECT, { auth: { basic: [user.username, user.password] } });
    expect(res.data).toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['collectMetricData'], extensions: { code: 'forbidden', status: 403 } });
    expect(res.errors![0].message).toMatch(/administrators/);
    expect(Number((await stored())[0]!.n)).toBe(0);
    expect((await gql(server, ANALYZED)).data.metricData.results).toEqual([]);
  });

  it("gives an administrator every account's metric data at once, counting what was analyzed until now", async () => {
    const before = Date.now();
    const res = await gql(server, COLLECT);
    expect(res.errors).toBeUndefined();
    const payload = res.data.collectMetricData;
    expect(payload).toMatchObject({ ok: true, collected: true, accounts: 2 });
    expect(payload.points).toBeGreaterThan(0);
    expect(Date.parse(`${payload.collectedAt}Z`)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Number((await stored())[0]!.n)).toBe(payload.points);

    const data = await gql(server, ANALYZED);
    expect(data.data.metricData.results).toEqual([{ metricId: 'images.analyzed', collectedAt: payload.collectedAt, value: 1 }]);
    const theirs = await gql(server, ANALYZED, { auth: { basic: [user.username, user.password] } });
    expect(theirs.data.metricData.results).toEqual([{ metricId: 'images.analyzed', collectedAt: payload.collectedAt, value: 0 }]);
  });
});
