/**
 * Metrics over real data: images analyzed from archives and matched against a fixture feed, evaluated with
 * policies, seen running in the runtime inventory, copied into the read model by the refresh, then collected
 * into metric samples and read back through the `metrics` and `metricData` GraphQL queries. Values are checked
 * exactly, against the REST API's own answers where it has one (vulnerability listings, policy checks).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectMetrics } from '../../src/reports/metrics/collector.js';
import { metricsSlot } from '../../src/reports/metrics/slots.js';
import { nowIso } from '../../src/util/time.js';
import { waitForAnalysis } from '../support/analysis.js';
import { createUserWithRole, type TestUser } from '../support/auth-fixtures.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { gql, refreshReports, type GqlResponse } from '../support/graphql.js';
import { json, raw, type Auth } from '../support/http.js';
import { buildImage, dockerArchiveTar, type FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CRITICAL_V3, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

// A schedule that does not fire while the suite runs (the collections here are on demand); yearly slots.
const SCHEDULE = '0 0 1 1 *';
const S1 = '2024-01-01T00:00:00';
const S2 = '2025-01-01T00:00:00';

const APP = 'registry.example.com/team/app:1.0';
const APP_STABLE = 'registry.example.com/team/app:stable';
const WEB = 'registry.example.com/team/web:3';
const BASE = 'registry.example.com/team/base:12';
const BROKEN = 'registry.example.com/team/broken:1';
const THEIRS = 'registry.example.com/other/app:1';

const dpkg = (name: string, source: string, version: string) =>
  `Package: ${name}\nStatus: install ok installed\nArchitecture: amd64\nSource: ${source}\nVersion: ${version}\nDescription: ${name}\n`;
const CURL_VULNERABLE = dpkg('curl', 'curl', '7.88.1-10+deb12u5');
const CURL_FIXED = dpkg('curl', 'curl', '7.88.1-10+deb12u6');
const SSL = dpkg('libssl3', 'openssl', '3.0.11-1~deb12u2');
const ZLIB = dpkg('zlib1g', 'zlib', '1:1.2.13.dfsg-1');

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'negligible', 'unknown'];

let server: TestServer;
let work: string;
let other: TestUser;
let otherAuth: Auth;
/** old: APP once (historic now); app: APP and APP_STABLE; web: WEB; base: BASE; broken: BROKEN (analysis failed). */
const digests = { old: '', app: '', web: '', base: '', broken: '', theirs: '' };

/** One record affecting several Debian source packages (a vulnerability two packages of one image carry). */
function multiPackageRecord(id: string, packages: string[], severity: string) {
  const record = osvRecord(id, 'Debian:12', packages[0], [{ introduced: '0' }], { databaseSpecific: { severity } });
  record.affected = packages.map((name) => ({ package: { ecosystem: 'Debian:12', name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] }));
  return record;
}

async function addArchive(files: FileSpec[], tags: string[], auth?: Auth): Promise<string> {
  const image = await buildImage({ layers: [files] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { auth, headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: tags }) });
  expect(res.status, res.text).toBe(200);
  return res.json.image_digest;
}

const debian = (...packages: string[]): FileSpec[] => [
  { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
  { path: 'var/lib/dpkg/status', content: packages.join('\n') },
];

/** The REST policy check of a tag (stored as its latest evaluation): pass or fail. */
async function checkStatus(digest: string, tag: string, policy?: string, auth?: Auth): Promise<string> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(tag)}${policy ? `&policy_id=${policy}` : ''}`, { auth });
  expect(res.status, res.text).toBe(200);
  return res.json.evaluations[0].status;
}

/** Runtime inventory items as the inventory reports store them (source table of report_inventory). */
async function recordRunning(items: { type: string; context: string; tag: string; digest: string }[]): Promise<void> {
  const at = nowIso();
  await server.running.services.db('inventory_items').insert(
    items.map((i) => ({
      account_name: 'admin',
      inventory_type: i.type,
      cluster: i.context.split('/')[0],
      context: i.context,
      image_tag: i.tag,
      image_digest: i.digest,
      created_at: at,
      last_updated: at,
      last_seen: at,
    })),
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-metrics-'));
  writeRecords(join(work, 'osv'), {
    'DSA-7001-1': osvRecord('DSA-7001-1', 'Debian:12', 'curl', [{ introduced: '0' }, { fixed: '7.88.1-10+deb12u6' }], { severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }] }),
    'DSA-7002-1': osvRecord('DSA-7002-1', 'Debian:12', 'curl', [{ introduced: '0' }], { databaseSpecific: { severity: 'high' } }),
    'DEBIAN-CVE-2099-7003': osvRecord('DEBIAN-CVE-2099-7003', 'Debian:12', 'openssl', [{ introduced: '0' }, { fixed: '3.0.13-1~deb12u1' }], { databaseSpecific: { severity: 'medium' } }),
    'DEBIAN-CVE-2099-7004': osvRecord('DEBIAN-CVE-2099-7004', 'Debian:12', 'zlib', [{ introduced: '0' }], {
      databaseSpecific: { severity: 'unimportant' },
      ecosystemSpecific: { fix_state: 'wont-fix' },
    }),
    'DEBIAN-CVE-2099-7005': osvRecord('DEBIAN-CVE-2099-7005', 'Debian:12', 'zlib', [{ introduced: '0' }]),
    'DSA-7006-1': multiPackageRecord('DSA-7006-1', ['curl', 'openssl'], 'low'),
  });
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}`, VIGIL_REPORTS_REFRESH_SECONDS: '3600', VIGIL_METRICS_SCHEDULE: SCHEDULE });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  other = await createUserWithRole(server.url, { role: 'read-write' });
  otherAuth = { basic: [other.username, other.password] };

  digests.old = await addArchive(debian(CURL_VULNERABLE, SSL, ZLIB), [APP]);
  expect(await waitForAnalysis(server, 'admin', digests.old)).toBe('analyzed');
  expect(await checkStatus(digests.old, APP)).toBe('fail');
  // APP moves to a newer image: the old mapping stays as history.
  digests.app = await addArchive(debian(CURL_FIXED, SSL, ZLIB), [APP, APP_STABLE]);
  digests.web = await addArchive(debian(CURL_VULNERABLE), [WEB]);
  digests.base = await addArchive(debian(ZLIB), [BASE]);
  digests.broken = await addArchive([{ path: '../../escape', content: 'x' }], [BROKEN]);
  for (const d of [digests.app, digests.web, digests.base]) expect(await waitForAnalysis(server, 'admin', d)).toBe('analyzed');
  expect(await waitForAnalysis(server, 'admin', digests.broken)).toBe('analysis_failed');

  // An evaluation under a policy that is not the active one must not count.
  const lenient = { id: 'lenient', name: 'lenient', version: '2', rule_sets: [], allowlists: [], mappings: [] };
  expect((await json(server.url, 'POST', '/v2/policies', lenient)).status).toBe(200);
  expect(await checkStatus(digests.web, WEB, 'lenient')).toBe('pass');

  await recordRunning([
    { type: 'kubernetes', context: 'prod/web', tag: WEB, digest: digests.web },
    // Reported without a digest: the refresh resolves it through the current tag mapping (the app image).
    { type: 'kubernetes', context: 'prod/api', tag: APP, digest: '' },
    { type: 'kubernetes', context: 'staging/api', tag: APP_STABLE, digest: digests.app },
    { type: 'kubernetes', context: 'prod/broken', tag: BROKEN, digest: digests.broken },
    { type: 'ecs', context: 'arn:aws:ecs:eu-west-1:123456789012:cluster/edge', tag: 'docker.io/library/nginx:1.25', digest: '' },
  ]);
  await refreshReports(server);
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------- helpers

const METRICS = `query($limit: Int, $nextToken: String) { metrics(limit: $limit, nextToken: $nextToken) { pageInfo { nextToken count } results { id name description metricType } } }`;
const DATA = `query($filter: MetricDataFilter, $limit: Int, $nextToken: String) {
  metricData(filter: $filter, limit: $limit, nextToken: $nextToken) { pageInfo { nextToken count } results { metricId collectedAt value } }
}`;

interface Point {
  metricId: string;
  collectedAt: string;
  value: number;
}

interface Scope {
  auth?: Auth;
  path?: string;
  headers?: Record<string, string>;
}

/** Every page of metricData, following nextToken; checks each page's count and size. */
async function allData(filter: Record<string, unknown> = {}, limit = 1000, scope: Scope = {}): Promise<Point[]> {
  const out: Point[] = [];
  let nextToken: string | null = null;
  do {
    const res: GqlResponse = await gql(server, DATA, { variables: { filter, limit, nextToken }, ...scope });
    expect(res.errors).toBeUndefined();
    const page: { pageInfo: { nextToken: string | null; count: number }; results: Point[] } = res.data.metricData;
    expect(page.pageInfo.count).toBe(page.results.length);
    expect(page.results.length).toBeLessThanOrEqual(limit);
    if (page.pageInfo.nextToken) expect(page.results.length).toBe(limit);
    out.push(...page.results);
    nextToken = page.pageInfo.nextToken;
  } while (nextToken);
  return out;
}

/** The values collected at one slot: metric id -> value. */
async function valuesAt(slot: string, scope: Scope = {}): Promise<Record<string, number>> {
  const end = new Date(new Date(`${slot}Z`).getTime() + 1000).toISOString().slice(0, 19);
  const points = await allData({ start: slot, end }, 1000, scope);
  expect(points.every((p) => p.collectedAt === slot)).toBe(true);
  return Object.fromEntries(points.map((p) => [p.metricId, p.value]));
}

async function catalogIds(): Promise<string[]> {
  const res = await gql(server, METRICS, { variables: { limit: 1000 } });
  expect(res.errors).toBeUndefined();
  return res.data.metrics.results.map((m: { id: string }) => m.id);
}

/** Distinct vulnerabilities per lower-case severity in the REST listing of an image (won't-fix included). */
async function restSeverityCounts(digest: string, auth?: Auth): Promise<Record<string, number>> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all?vendor_only=false`, { auth });
  expect(res.status, res.text).toBe(200);
  const order = ['unknown', 'negligible', 'low', 'medium', 'high', 'critical'];
  const worst = new Map<string, string>();
  for (const v of res.json.vulnerabilities as { vuln: string; severity: string }[]) {
    const severity = v.severity.toLowerCase();
    const seen = worst.get(v.vuln);
    if (!seen || order.indexOf(severity) > order.indexOf(seen)) worst.set(v.vuln, severity);
  }
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
  for (const s of worst.values()) counts[s]++;
  return counts;
}

function expectArgumentError(res: { errors?: { message: string; extensions?: Record<string, unknown> }[] }, argument: string, message?: RegExp): void {
  expect(res.errors, JSON.stringify(res.errors)).toHaveLength(1);
  expect(res.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
  if (message) expect(res.errors![0].message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------------- tests

describe('metrics catalog', () => {
  it('lists every metric once, ordered by id, as gauges with descriptions', async () => {
    const res = await gql(server, METRICS);
    expect(res.errors).toBeUndefined();
    const metrics = res.data.metrics.results as { id: string; name: string; description: string; metricType: string }[];
    const ids = metrics.map((m) => m.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        ...SEVERITIES.flatMap((s) => [`vulnerabilities.tags.current.${s}`, `vulnerabilities.tags.all.${s}`]),
        'images.analyzed',
        'images.total',
        'tags.current',
        'policy.evaluations.tags.fail',
        'policy.evaluations.tags.pass',
        'inventory.images.running',
        'inventory.images.unanalyzed',
      ]),
    );
    for (const m of metrics) {
      expect(m.metricType).toBe('gauge');
      expect(m.name.length).toBeGreaterThan(0);
      expect(m.description.length).toBeGreaterThan(20);
    }
    expect(metrics.find((m) => m.id === 'vulnerabilities.tags.current.critical')!.description).toMatch(/current tag mapping.*distinct vulnerabilities of Critical severity.*summed/);
    expect(res.data.metrics.pageInfo).toEqual({ nextToken: null, count: metrics.length });
  });

  it('pages through the catalog with nextToken, every metric exactly once', async () => {
    const all = await catalogIds();
    const seen: string[] = [];
    let nextToken: string | null = null;
    let pages = 0;
    do {
      const res: GqlResponse = await gql(server, METRICS, { variables: { limit: 4, nextToken } });
      expect(res.errors).toBeUndefined();
      seen.push(...res.data.metrics.results.map((m: { id: string }) => m.id));
      nextToken = res.data.metrics.pageInfo.nextToken;
      pages++;
    } while (nextToken);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 4));
  });
});

describe('collection', () => {
  it('stamps every sample with the schedule slot and emits an event when done', async () => {
    const collected = once(server.running.services.reports.metrics, 'collected');
    const outcome = await server.running.services.reports.metrics.collectNow(new Date('2024-03-15T10:20:30Z'));
    expect((await collected)[0]).toEqual(outcome);
    const catalog = await catalogIds();
    // Two accounts: admin and the other one (which has nothing yet).
    expect(outcome).toEqual({ slot: `${S1}.000Z`, collected: true, accounts: 2, points: 2 * catalog.length, failedAccounts: [], expired: 0 });
    expect(Object.keys(await valuesAt(S1)).sort()).toEqual([...catalog].sort());
  });

  it('collects a slot once: a later call in the same slot stores nothing', async () => {
    const again = await server.running.services.reports.metrics.collectNow(new Date('2024-12-31T23:59:59Z'));
    expect(again).toMatchObject({ slot: `${S1}.000Z`, collected: false, points: 0 });
    const earlier = await server.running.services.reports.metrics.collectNow(new Date('2023-06-01T00:00:00Z'));
    expect(earlier).toMatchObject({ slot: '2023-01-01T00:00:00.000Z', collected: false });
    expect((await allData()).length).toBe((await catalogIds()).length);
  });

  it('aligns slots on the schedule, in UTC', () => {
    expect(metricsSlot('*/15 * * * *', new Date('2026-03-01T10:07:31.250Z')).toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(metricsSlot('*/15 * * * *', new Date('2026-03-01T10:15:00.000Z')).toISOString()).toBe('2026-03-01T10:15:00.000Z');
    expect(metricsSlot('*/15 * * * *', new Date('2026-03-01T10:14:59.999Z')).toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(metricsSlot('0 3 * * *', new Date('2026-03-01T02:00:00Z')).toISOString()).toBe('2026-02-28T03:00:00.000Z');
    expect(metricsSlot('*/10 * * * * *', new Date('2026-03-01T10:00:09.900Z')).toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(metricsSlot(SCHEDULE, new Date('2025-07-01T00:00:00Z')).toISOString()).toBe(`${S2}.000Z`);
    expect(metricsSlot(null, new Date('2026-03-01T10:07:31.250Z')).toISOString()).toBe('2026-03-01T10:07:31.000Z');
  });
});

describe('metric values', () => {
  it('counts vulnerabilities per severity over current and all tag mappings, as the REST listings do', async () => {
    const values = await valuesAt(S1);
    const current: [string, string][] = [
      [APP, digests.app],
      [APP_STABLE, digests.app],
      [WEB, digests.web],
      [BASE, digests.base],
    ];
    const historic: [string, string][] = [[APP, digests.old]];
    const sum = async (mappings: [string, string][]) => {
      const total = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
      for (const [, digest] of mappings) for (const [s, n] of Object.entries(await restSeverityCounts(digest))) total[s] += n;
      return total;
    };
    const restCurrent = await sum(current);
    const restAll = await sum([...current, ...historic]);
    for (const s of SEVERITIES) {
      expect(values[`vulnerabilities.tags.current.${s}`], s).toBe(restCurrent[s]);
      expect(values[`vulnerabilities.tags.all.${s}`], s).toBe(restAll[s]);
    }
    // The same, spelled out: app (twice, two tags) has high, medium, low, negligible, unknown; web critical, high,
    // low; base negligible, unknown; the historic mapping of old adds all six. DSA-7006-1 hits two packages of
    // app but counts once per image.
    expect(SEVERITIES.map((s) => values[`vulnerabilities.tags.current.${s}`])).toEqual([1, 3, 2, 3, 3, 3]);
    expect(SEVERITIES.map((s) => values[`vulnerabilities.tags.all.${s}`])).toEqual([2, 4, 3, 4, 4, 4]);
  });

  it('counts images, current tags and the policy results of current tags under the active policy', async () => {
    const values = await valuesAt(S1);
    expect(values['images.total']).toBe(5);
    expect(values['images.analyzed']).toBe(4);
    expect(values['tags.current']).toBe(5);
    // Latest evaluations under the active (default) policy, by REST: vulnerabilities above medium stop.
    const results = [
      await checkStatus(digests.app, APP),
      await checkStatus(digests.app, APP_STABLE),
      await checkStatus(digests.web, WEB),
      await checkStatus(digests.base, BASE),
    ];
    expect(values['policy.evaluations.tags.fail']).toBe(results.filter((r) => r === 'fail').length);
    expect(values['policy.evaluations.tags.pass']).toBe(results.filter((r) => r === 'pass').length);
    expect([values['policy.evaluations.tags.fail'], values['policy.evaluations.tags.pass']]).toEqual([3, 1]);
  });

  it('counts running images by digest (or tag) and those without an analyzed image', async () => {
    const values = await valuesAt(S1);
    // web; app (by digest, and by its tag resolved to the same digest); broken; nginx (tag only).
    expect(values['inventory.images.running']).toBe(4);
    // broken (analysis failed) and nginx (never added).
    expect(values['inventory.images.unanalyzed']).toBe(2);
  });
});

describe('metric data', () => {
  beforeAll(async () => {
    // The other account gets an image between the two collections.
    digests.theirs = await addArchive(debian(CURL_VULNERABLE), [THEIRS], otherAuth);
    expect(await waitForAnalysis(server, other.account, digests.theirs)).toBe('analyzed');
    expect(await checkStatus(digests.theirs, THEIRS, undefined, otherAuth)).toBe('fail');
    await refreshReports(server);
    expect(await server.running.services.reports.metrics.collectNow(new Date('2025-07-01T00:00:00Z'))).toMatchObject({ slot: `${S2}.000Z`, collected: true });
  });

  it('lists points newest first, then by metric id, and pages through them with nextToken exactly once', async () => {
    const catalog = await catalogIds();
    const all = await allData();
    expect(all.length).toBe(2 * catalog.length);
    expect(all.map((p) => `${p.collectedAt} ${p.metricId}`)).toEqual([...catalog.map((id) => `${S2} ${id}`), ...catalog.map((id) => `${S1} ${id}`)]);
    for (const limit of [1, 5, catalog.length, 2 * catalog.length - 1])
      expect(await allData({}, limit), `limit ${limit}`).toEqual(all);
    const paged = await allData({ metricId: 'images.total' }, 1);
    expect(paged).toEqual([
      { metricId: 'images.total', collectedAt: S2, value: 5 },
      { metricId: 'images.total', collectedAt: S1, value: 5 },
    ]);
  });

  it('filters by a time window: start inclusive, end exclusive', async () => {
    const at = async (filter: Record<string, unknown>) => [...new Set((await allData(filter)).map((p) => p.collectedAt))];
    expect(await at({ start: S2 })).toEqual([S2]);
    expect(await at({ end: S2 })).toEqual([S1]);
    expect(await at({ start: S1, end: S2 })).toEqual([S1]);
    expect(await at({ start: S1, end: '2025-01-01T00:00:01' })).toEqual([S2, S1]);
    expect(await at({ start: '2025-01-01T00:00:01' })).toEqual([]);
    expect(await at({ start: S2, end: S2 })).toEqual([]);
    expect(await allData({ metricId: 'tags.current', start: S2 })).toEqual([{ metricId: 'tags.current', collectedAt: S2, value: 5 }]);
    // Literal arguments work like variables.
    const literal = await gql(server, `{ metricData(filter: {metricId: "images.analyzed", start: "${S1}", end: "${S2}"}) { results { metricId collectedAt value } } }`);
    expect(literal.data.metricData.results).toEqual([{ metricId: 'images.analyzed', collectedAt: S1, value: 4 }]);
  });

  it('shows an account only its own data', async () => {
    const own = { auth: otherAuth };
    expect((await allData({}, 1000, own)).length).toBe(2 * (await catalogIds()).length);
    const before = await valuesAt(S1, own);
    expect(Object.values(before).every((v) => v === 0)).toBe(true);
    const after = await valuesAt(S2, own);
    const rest = await restSeverityCounts(digests.theirs, otherAuth);
    for (const s of SEVERITIES) expect(after[`vulnerabilities.tags.current.${s}`], s).toBe(rest[s]);
    expect(after).toMatchObject({
      'vulnerabilities.tags.current.critical': 1,
      'images.total': 1,
      'images.analyzed': 1,
      'tags.current': 1,
      'policy.evaluations.tags.fail': 1,
      'policy.evaluations.tags.pass': 0,
      'inventory.images.running': 0,
    });
    // An administrator choosing the account with x-service-account sees the same.
    expect(await valuesAt(S2, { headers: { 'x-service-account': other.account } })).toEqual(after);
    // The admin account's values did not change between the collections.
    expect(await valuesAt(S2)).toEqual(await valuesAt(S1));
  });

  it('sums the accounts per metric and time on the global endpoint (administrators only)', async () => {
    const global = { path: '/v2/reports/global/graphql' };
    const accounts = (await raw(server.url, 'GET', '/v2/accounts')).json.map((a: { name: string }) => a.name) as string[];
    expect(accounts.sort()).toEqual(['admin', other.account].sort());
    for (const slot of [S1, S2]) {
      const perAccount = await Promise.all(accounts.map((a) => valuesAt(slot, { headers: { 'x-service-account': a } })));
      const expected = Object.fromEntries(Object.keys(perAccount[0]).map((id) => [id, perAccount.reduce((n, v) => n + v[id], 0)]));
      expect(await valuesAt(slot, global)).toEqual(expected);
    }
    expect((await valuesAt(S2, global))['images.total']).toBe(6);
    const all = await allData({}, 7, global);
    expect(all.length).toBe(2 * (await catalogIds()).length);
    const denied = await gql(server, DATA, { auth: otherAuth, path: '/v2/reports/global/graphql' });
    expect(denied.status).toBe(403);
  });
});

describe('bad input', () => {
  it('names filter.metricId for an unknown metric and lists the valid ids briefly', async () => {
    const res = await gql(server, DATA, { variables: { filter: { metricId: 'vulnerabilities.tags.current.severe' } } });
    expectArgumentError(res, 'filter.metricId', /unknown metric id "vulnerabilities\.tags\.current\.severe"/);
    expect(res.errors![0].message).toContain('vulnerabilities.tags.current.{critical,high,medium,low,negligible,unknown}');
    expect(res.errors![0].message).toContain('inventory.images.{running,unanalyzed}');
    expect(res.data).toBeNull();
    expectArgumentError(await gql(server, DATA, { variables: { filter: { metricId: '' } } }), 'filter.metricId');
  });

  it('names the timestamp argument at fault: malformed, or start after end', async () => {
    expectArgumentError(await gql(server, `{ metricData(filter: {start: "2024-01-01"}) { results { value } } }`), 'filter.start', /not a UTC timestamp/);
    expectArgumentError(await gql(server, `{ metricData(filter: {end: "2024-01-01T00:00:00Z"}) { results { value } } }`), 'filter.end', /not a UTC timestamp/);
    const viaVariable = await gql(server, DATA, { variables: { filter: { start: '2024-13-01T00:00:00' } } });
    expect(viaVariable.errors).toHaveLength(1);
    expect(viaVariable.errors![0].message).toMatch(/start.*not a UTC timestamp/);
    expectArgumentError(await gql(server, DATA, { variables: { filter: { start: S2, end: S1 } } }), 'filter.start', /after filter\.end/);
  });

  it('refuses page sizes outside 1..1000', async () => {
    for (const limit of [0, -1, 5000]) {
      expectArgumentError(await gql(server, DATA, { variables: { limit } }), 'limit', /between 1 and 1000/);
      expectArgumentError(await gql(server, METRICS, { variables: { limit } }), 'limit', /between 1 and 1000/);
    }
  });

  it('refuses altered, forged and foreign page tokens', async () => {
    const first = await gql(server, DATA, { variables: { limit: 2 } });
    const token: string = first.data.metricData.pageInfo.nextToken;
    expect(token).toEqual(expect.any(String));
    expectArgumentError(await gql(server, DATA, { variables: { nextToken: 'abc.def' } }), 'nextToken', /not a token this service issued/);
    expectArgumentError(await gql(server, DATA, { variables: { nextToken: token.slice(0, -2) } }), 'nextToken');
    // Same signature, another sort key: the signature no longer matches.
    const [body, mac] = token.split('.');
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const forged = `${Buffer.from(JSON.stringify({ ...decoded, k: ['2099-01-01T00:00:00.000Z', 'a'] })).toString('base64url')}.${mac}`;
    expectArgumentError(await gql(server, DATA, { variables: { nextToken: forged } }), 'nextToken', /not a token this service issued/);
    // Genuine tokens of other queries: another filter, the catalog, another account.
    expectArgumentError(await gql(server, DATA, { variables: { nextToken: token, filter: { metricId: 'images.total' } } }), 'nextToken', /different query/);
    const catalogToken = (await gql(server, METRICS, { variables: { limit: 1 } })).data.metrics.pageInfo.nextToken;
    expectArgumentError(await gql(server, DATA, { variables: { nextToken: catalogToken } }), 'nextToken', /different query/);
    expectArgumentError(await gql(server, METRICS, { variables: { nextToken: token } }), 'nextToken', /different query/);
    expectArgumentError(await gql(server, DATA, { variables: { nextToken: token }, auth: otherAuth }), 'nextToken', /different query/);
    // The genuine token continues where the first page ended.
    const second = await gql(server, DATA, { variables: { limit: 2, nextToken: token } });
    expect(second.errors).toBeUndefined();
    expect([...first.data.metricData.results, ...second.data.metricData.results]).toEqual((await allData()).slice(0, 4));
  });
});

describe('slot claims and retention', () => {
  it('lets one of several nodes collect a slot, and drops samples past the retention', async () => {
    const { db } = server.running.services;
    const catalog = await catalogIds();
    // This node and a second one sharing the database, both collecting the 2026 slot.
    const [here, there] = await Promise.all([
      server.running.services.reports.metrics.collectNow(new Date('2026-02-01T00:00:00Z')),
      collectMetrics(db, new Date('2026-03-01T00:00:00Z'), { schedule: SCHEDULE, retentionDays: 400 }),
    ]);
    expect([here.collected, there.collected].sort()).toEqual([false, true]);
    const winner = here.collected ? here : there;
    // 400 days before 2026-01-01 is 2024-11-27: the 2024 samples go, the 2025 ones stay.
    expect(winner).toMatchObject({ slot: '2026-01-01T00:00:00.000Z', accounts: 2, points: 2 * catalog.length, expired: 2 * catalog.length });
    const slots = [...new Set((await allData({}, 1000, { path: '/v2/reports/global/graphql' })).map((p) => p.collectedAt))];
    expect(slots).toEqual(['2026-01-01T00:00:00', S2]);
    expect(await valuesAt('2026-01-01T00:00:00')).toEqual(await valuesAt(S2));
  });
});
