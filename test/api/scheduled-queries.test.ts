/**
 * Scheduled queries: managing them through GraphQL (scopes, paging, every bad input, RBAC), running them
 * (synchronously, through the job queue, and on their cron) over real data — an image analyzed with a package
 * that 1001 advisories affect — and fetching the stored results over REST in their documented format, page by
 * page. Also: two schedulers on one database run a due query exactly once, and global queries stay global.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getExecution, pruneExecutions, type ExecutionRecord } from '../../src/reports/scheduled/executions.js';
import { executeStoredQuery } from '../../src/reports/scheduled/execute.js';
import { ScheduledQueryScheduler } from '../../src/reports/scheduled/scheduler.js';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { gql, refreshReports, type GqlOptions } from '../support/graphql.js';
import { adminAuth, raw, type Auth } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { createAccount, createUser, expectError, type TestUser } from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CRITICAL_V3, MEDIUM_V3, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const TAG = 'registry.example.com/team/fetcher:2.0';
const CURL_STATUS = 'Package: curl\nStatus: install ok installed\nArchitecture: amd64\nSource: curl\nVersion: 7.88.1-10+deb12u5\nDescription: command line tool\n';
/** More advisories than fit one stored result page (1000), so results span pages. */
const ADVISORIES = 1001;
/** A schedule that will not come due during the test (midnight on January 1st). */
const YEARLY = '0 0 1 1 *';
const GLOBAL = '/v2/reports/global/graphql';

/** Every field the REST result format documents for tagsByVulnerability. */
const TAGS_RESULTS = `{
  vulnerabilityId cve
  registries { registryName repositories { repositoryName tags { tagName detectedAt current
    image { digest link artifacts { artifactName artifactVersion artifactType artifactLocation namespace severity fixedIn fixObservedAt } } } } }
}`;
const TAGS_QUERY = `query { tagsByVulnerability { results ${TAGS_RESULTS} } }`;

const QUERY_FIELDS = 'uuid name description createdAt updatedAt cronSchedule enabled query variables nextRunAt';
const EXECUTION_FIELDS = 'uuid queryUuid createdAt startedAt finishedAt status trigger reportKind resultCount error resultPath';

let server: TestServer;
let work: string;
let imageDigest: string;
/** A second account with a report administrator and a read-only user. */
let other: { account: string; manager: TestUser; reader: TestUser };

/** Every third advisory has no fix; even ones are critical. */
function advisories(): Record<string, unknown> {
  const records: Record<string, unknown> = {};
  for (let i = 0; i < ADVISORIES; i++) {
    const id = `DSA-${String(10000 + i)}-1`;
    const events: Record<string, string>[] = i % 3 === 0 ? [{ introduced: '0' }] : [{ introduced: '0' }, { fixed: '7.88.1-10+deb12u6' }];
    records[id] = osvRecord(id, 'Debian:12', 'curl', events, {
      aliases: [`CVE-2098-${String(10000 + i)}`],
      severity: [{ type: 'CVSS_V3', score: i % 2 === 0 ? CRITICAL_V3 : MEDIUM_V3 }],
    });
  }
  return records;
}

/** A GraphQL request that must succeed; answers its data. */
async function ok<T = any>(query: string, options: GqlOptions = {}): Promise<T> {
  const res = await gql<T>(server, query, options);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.data;
}

/** A GraphQL request that must fail; answers its single error. */
async function fails(query: string, options: GqlOptions = {}) {
  const res = await gql(server, query, options);
  expect(res.errors, JSON.stringify(res.body)).toHaveLength(1);
  return res.errors![0];
}

interface CreateArgs {
  name?: string;
  cronSchedule?: string;
  query?: string;
  variables?: unknown;
  enabled?: boolean;
  description?: string;
}

const CREATE = `mutation($name: String!, $description: String, $cronSchedule: String!, $query: String!, $variables: JSON, $enabled: Boolean) {
  createScheduledQuery(name: $name, description: $description, cronSchedule: $cronSchedule, query: $query, variables: $variables, enabled: $enabled) {
    ok scheduledQuery { ${QUERY_FIELDS} }
  }
}`;

function createVariables(args: CreateArgs) {
  return { name: 'report', cronSchedule: YEARLY, query: TAGS_QUERY, ...args };
}

async function create(args: CreateArgs = {}, options: GqlOptions = {}) {
  const data = await ok(CREATE, { ...options, variables: createVariables(args) });
  expect(data.createScheduledQuery.ok).toBe(true);
  return data.createScheduledQuery.scheduledQuery as { uuid: string; [k: string]: any };
}

async function executeNow(uuid: string, options: GqlOptions = {}): Promise<any> {
  const data = await ok(`mutation($uuid: ID!) { executeScheduledQuery(uuid: $uuid) { ${EXECUTION_FIELDS} } }`, { ...options, variables: { uuid } });
  return data.executeScheduledQuery;
}

const mutate = (field: string, uuid: string, options: GqlOptions = {}) =>
  gql(server, `mutation($uuid: ID!) { ${field}(uuid: $uuid) { ok scheduledQuery { ${QUERY_FIELDS} } } }`, { ...options, variables: { uuid } });

/**
 * Executions this process finishes, as the scheduler reports them (its 'finished' event). Listening starts
 * before the action that causes a run, so a run that finishes quickly is not missed.
 */
function watchExecutions() {
  const scheduler = server.running.services.reports.scheduler;
  const seen: ExecutionRecord[] = [];
  const waiters: { match: (e: ExecutionRecord) => boolean; resolve: (e: ExecutionRecord) => void }[] = [];
  const onFinished = (e: ExecutionRecord) => {
    seen.push(e);
    for (const w of waiters.filter((w) => w.match(e))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(e);
    }
  };
  scheduler.on('finished', onFinished);
  return {
    next(match: (e: ExecutionRecord) => boolean): Promise<ExecutionRecord> {
      const already = seen.find(match);
      return already ? Promise.resolve(already) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    stop: () => scheduler.off('finished', onFinished),
  };
}

const result = (path: string, page?: number, auth: Auth = adminAuth) => raw(server.url, 'GET', page === undefined ? path : `${path}?page=${page}`, { auth });

/** tagsByVulnerability's results paged through by hand over GraphQL, as a client would. */
async function pagedByHand(results: string, args = ''): Promise<any[]> {
  const all: unknown[] = [];
  let nextToken: string | null = null;
  do {
    const data: any = await ok(`query($t: String) { tagsByVulnerability(limit: 1000, nextToken: $t${args}) { pageInfo { nextToken } results ${results} } }`, { variables: { t: nextToken } });
    all.push(...data.tagsByVulnerability.results);
    nextToken = data.tagsByVulnerability.pageInfo.nextToken;
  } while (nextToken);
  return all;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-scheduled-'));
  writeRecords(join(work, 'osv'), advisories());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}`, VIGIL_REPORTS_REFRESH_SECONDS: '3600' });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: CURL_STATUS }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [TAG] }) });
  imageDigest = res.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', imageDigest)).toBe('analyzed');
  await refreshReports(server);
  const account = await createAccount(server.url, 'sq');
  other = {
    account,
    manager: await createUser(server.url, account, { roles: ['report-admin'], prefix: 'sqm' }),
    reader: await createUser(server.url, account, { roles: ['read-only'], prefix: 'sqr' }),
  };
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('managing scheduled queries', () => {
  it('creates, reads, updates, enables, disables and deletes a query', async () => {
    const before = Date.now();
    const created = await create({ name: '  critical tags ', description: 'weekly', cronSchedule: ' 0  6 * * 1 ', variables: { unused: 1 } });
    expect(created).toMatchObject({ name: 'critical tags', description: 'weekly', cronSchedule: '0 6 * * 1', enabled: true, query: TAGS_QUERY, variables: { unused: 1 } });
    // Next Monday 06:00 UTC, within a week.
    const next = Date.parse(`${created.nextRunAt}Z`);
    expect(new Date(next).getUTCDay()).toBe(1);
    expect(new Date(next).getUTCHours()).toBe(6);
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(before + 7 * 86_400_000);

    const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { ${QUERY_FIELDS} executions { uuid } } }`, { variables: { uuid: created.uuid } });
    expect(read.scheduledQuery).toEqual({ ...created, executions: [] });

    const updated = await ok(
      `mutation($uuid: ID!) { updateScheduledQuery(uuid: $uuid, name: "renamed", cronSchedule: "30 * * * * *", description: null) { ok scheduledQuery { ${QUERY_FIELDS} } } }`,
      { variables: { uuid: created.uuid } },
    );
    expect(updated.updateScheduledQuery.scheduledQuery).toMatchObject({ uuid: created.uuid, name: 'renamed', description: null, cronSchedule: '30 * * * * *', enabled: true, query: TAGS_QUERY });
    expect(updated.updateScheduledQuery.scheduledQuery.nextRunAt).toMatch(/:30$/);
    // Renaming alone keeps the next run.
    const renamed = await ok(`mutation($uuid: ID!) { updateScheduledQuery(uuid: $uuid, name: "again") { scheduledQuery { nextRunAt cronSchedule } } }`, { variables: { uuid: created.uuid } });
    expect(renamed.updateScheduledQuery.scheduledQuery).toEqual({ nextRunAt: updated.updateScheduledQuery.scheduledQuery.nextRunAt, cronSchedule: '30 * * * * *' });

    const disabled = await mutate('disableScheduledQuery', created.uuid);
    expect(disabled.data.disableScheduledQuery).toMatchObject({ ok: true, scheduledQuery: { enabled: false, nextRunAt: null } });
    const enabled = await mutate('enableScheduledQuery', created.uuid);
    expect(enabled.data.enableScheduledQuery.scheduledQuery.enabled).toBe(true);
    expect(enabled.data.enableScheduledQuery.scheduledQuery.nextRunAt).toMatch(/:30$/);
    await mutate('disableScheduledQuery', created.uuid);

    const deleted = await ok(`mutation($uuid: ID!) { deleteScheduledQuery(uuid: $uuid) { ok uuid } }`, { variables: { uuid: created.uuid } });
    expect(deleted.deleteScheduledQuery).toEqual({ ok: true, uuid: created.uuid });
    expect((await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { uuid } }`, { variables: { uuid: created.uuid } })).scheduledQuery).toBeNull();
    expect((await fails(`mutation($uuid: ID!) { deleteScheduledQuery(uuid: $uuid) { ok } }`, { variables: { uuid: created.uuid } })).extensions?.code).toBe('not_found');
  });

  it('creates a disabled query without a next run', async () => {
    const q = await create({ enabled: false });
    expect(q).toMatchObject({ enabled: false, nextRunAt: null, description: null, variables: {} });
  });

  it('lists the account\'s queries oldest first, page by page, and only its own', async () => {
    const auth = other.manager.auth;
    const names = ['q1', 'q2', 'q3', 'q4', 'q5'];
    const uuids: string[] = [];
    for (const name of names) uuids.push((await create({ name }, { auth })).uuid);
    const seen: { uuid: string; name: string }[] = [];
    let nextToken: string | null = null;
    let pages = 0;
    do {
      const data: any = await ok(`query($t: String) { scheduledQueries(limit: 2, nextToken: $t) { pageInfo { nextToken count } results { uuid name } } }`, { auth, variables: { t: nextToken } });
      const page = data.scheduledQueries;
      expect(page.pageInfo.count).toBe(page.results.length);
      seen.push(...page.results);
      nextToken = page.pageInfo.nextToken;
      pages += 1;
    } while (nextToken);
    expect(pages).toBe(3);
    expect(seen).toEqual(names.map((name, i) => ({ uuid: uuids[i], name })));
    // The read-only user of the same account sees them too; the administrator's own account does not.
    const asReader = await ok(`{ scheduledQueries(limit: 100) { results { uuid } } }`, { auth: other.reader.auth });
    expect(asReader.scheduledQueries.results.map((r: any) => r.uuid)).toEqual(uuids);
    const asAdmin = await ok(`{ scheduledQueries(limit: 1000) { results { uuid } } }`);
    expect(asAdmin.scheduledQueries.results.map((r: any) => r.uuid)).not.toContain(uuids[0]);
    // ... unless acting on the account.
    const onBehalf = await ok(`{ scheduledQueries(limit: 100) { results { uuid } } }`, { headers: { 'x-service-account': other.account } });
    expect(onBehalf.scheduledQueries.results.map((r: any) => r.uuid)).toEqual(uuids);
    // A token from another scope is refused.
    const first: any = await ok(`{ scheduledQueries(limit: 2) { pageInfo { nextToken } } }`, { auth });
    const foreign = await fails(`query($t: String) { scheduledQueries(limit: 2, nextToken: $t) { results { uuid } } }`, { variables: { t: first.scheduledQueries.pageInfo.nextToken } });
    expect(foreign.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'nextToken' });
  });

  it.each([
    ['an empty name', { name: '   ' }, 'name'],
    ['a cron expression with a bad value', { cronSchedule: '61 * * * *' }, 'cronSchedule'],
    ['a cron expression with too few fields', { cronSchedule: '* * *' }, 'cronSchedule'],
    ['a cron preset', { cronSchedule: '@daily' }, 'cronSchedule'],
    ['a schedule that never fires', { cronSchedule: '0 0 30 2 *' }, 'cronSchedule'],
    ['a cron step of zero', { cronSchedule: '*/0 * * * *' }, 'cronSchedule'],
    ['words for a schedule', { cronSchedule: 'every day at noon' }, 'cronSchedule'],
    ['a query that does not parse', { query: '{ tagsByVulnerability { results { vulnerabilityId }' }, 'query'],
    ['a mutation', { query: 'mutation { deleteScheduledQuery(uuid: "x") { ok } }' }, 'query'],
    ['two report fields', { query: '{ tagsByVulnerability { results { vulnerabilityId } } imagesByVulnerability { results { vulnerabilityId } } }' }, 'query'],
    ['a field that is not a report', { query: '{ reportingStatus { refreshedAt } }' }, 'query'],
    ['a report without its results', { query: '{ tagsByVulnerability { pageInfo { count } } }' }, 'query'],
    ['an unknown field', { query: '{ tagsByVulnerability { results { nope } } }' }, 'query'],
    ['a malformed timestamp', { query: '{ tagsByVulnerability(filter: {vulnerability: {after: "yesterday"}}) { results { vulnerabilityId } } }' }, 'query'],
    ['the reserved paging variable', { query: 'query($__nextToken: String) { tagsByVulnerability(nextToken: $__nextToken) { results { vulnerabilityId } } }' }, 'query'],
    ['two operations', { query: 'query A { metrics { results { id } } } query B { metrics { results { id } } }' }, 'query'],
    ['variables that are not an object', { variables: [1, 2] }, 'variables'],
    ['a missing required variable', { query: 'query($s: Severity!) { tagsByVulnerability(filter: {vulnerability: {severity: $s}}) { results { vulnerabilityId } } }' }, 'variables'],
    ['a variable of the wrong type', { query: 'query($s: Severity) { tagsByVulnerability(filter: {vulnerability: {severity: $s}}) { results { vulnerabilityId } } }', variables: { s: 'Dreadful' } }, 'variables'],
  ])('refuses %s, naming the argument', async (_what, args, argument) => {
    const error = await fails(CREATE, { variables: createVariables(args as CreateArgs) });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('checks changes too, against the stored query or variables', async () => {
    const q = await create({ query: 'query($s: Severity) { tagsByVulnerability(filter: {vulnerability: {severity: $s}}) { results { vulnerabilityId } } }', variables: { s: 'Critical' } });
    const badCron = await fails(`mutation($uuid: ID!) { updateScheduledQuery(uuid: $uuid, cronSchedule: "* * * * * * *") { ok } }`, { variables: { uuid: q.uuid } });
    expect(badCron.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'cronSchedule' });
    const badVariables = await fails(`mutation($uuid: ID!) { updateScheduledQuery(uuid: $uuid, variables: {s: "Dreadful"}) { ok } }`, { variables: { uuid: q.uuid } });
    expect(badVariables.extensions).toMatchObject({ argument: 'variables' });
    // A new query must accept the stored variables' shape: here it needs a variable they lack.
    const badQuery = await fails(`mutation($uuid: ID!, $q: String) { updateScheduledQuery(uuid: $uuid, query: $q) { ok } }`, {
      variables: { uuid: q.uuid, q: 'query($id: String!) { tagsByVulnerability(filter: {vulnerability: {id: $id}}) { results { vulnerabilityId } } }' },
    });
    expect(badQuery.extensions).toMatchObject({ argument: 'variables' });
    const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { cronSchedule variables } }`, { variables: { uuid: q.uuid } });
    expect(read.scheduledQuery).toEqual({ cronSchedule: YEARLY, variables: { s: 'Critical' } });
  });

  it('treats unknown uuids and other accounts\' queries alike: not found', async () => {
    const mine = await create();
    for (const uuid of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', mine.uuid]) {
      const auth = other.manager.auth;
      const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { uuid } }`, { auth, variables: { uuid } });
      expect(read.scheduledQuery).toBeNull();
      for (const field of ['enableScheduledQuery', 'disableScheduledQuery', 'deleteScheduledQuery', 'updateScheduledQuery', 'executeScheduledQuery', 'executeScheduledQueryAsync']) {
        const selection = field.startsWith('execute') ? 'uuid' : 'ok';
        const res = await gql(server, `mutation($uuid: ID!) { ${field}(uuid: $uuid) { ${selection} } }`, { auth, variables: { uuid } });
        expect(res.errors?.[0].extensions?.code, `${field} ${uuid}`).toBe('not_found');
        expect(res.errors?.[0].message).not.toContain('admin');
      }
    }
    // Still there, unchanged, for its owner.
    const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { ${QUERY_FIELDS} } }`, { variables: { uuid: mine.uuid } });
    expect(read.scheduledQuery).toEqual(mine);
  });

  it('requires manageScheduledQueries for every mutation; reading needs only viewReports', async () => {
    const auth = other.reader.auth;
    const q = await create({ name: 'managed' }, { auth: other.manager.auth });
    const denied = await fails(CREATE, { auth, variables: createVariables({}) });
    expect(denied.extensions?.code).toBe('forbidden');
    expect(denied.message).toContain('manageScheduledQueries');
    for (const field of ['enableScheduledQuery', 'disableScheduledQuery', 'deleteScheduledQuery', 'updateScheduledQuery', 'executeScheduledQuery', 'executeScheduledQueryAsync']) {
      const selection = field.startsWith('execute') ? 'uuid' : 'ok';
      const res = await gql(server, `mutation($uuid: ID!) { ${field}(uuid: $uuid) { ${selection} } }`, { auth, variables: { uuid: q.uuid } });
      expect(res.errors?.[0].extensions?.code, field).toBe('forbidden');
    }
    const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { name enabled executions { uuid } } }`, { auth, variables: { uuid: q.uuid } });
    expect(read.scheduledQuery).toEqual({ name: 'managed', enabled: true, executions: [] });
  });
});

describe('running scheduled queries', () => {
  it('stores a tagsByVulnerability result in full and serves it over REST, page by page', async () => {
    const q = await create({ name: 'all tags' });
    const execution = await executeNow(q.uuid);
    expect(execution).toMatchObject({
      queryUuid: q.uuid,
      status: 'complete',
      trigger: 'manual',
      reportKind: 'tagsByVulnerability',
      resultCount: ADVISORIES,
      error: null,
      resultPath: `/v2/reporting/scheduled-query-results/${execution.uuid}`,
    });
    expect(execution.startedAt <= execution.finishedAt).toBe(true);

    const first = await result(execution.resultPath);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ page: 1, next_page: true, returned_count: 1000, total_count: ADVISORIES });
    expect(first.json.execution).toEqual({ uuid: execution.uuid, query_uuid: q.uuid, created_at: expect.any(String), finished_at: expect.any(String), status: 'complete' });
    expect(Object.keys(first.json).sort()).toEqual(['execution', 'next_page', 'page', 'returned_count', 'tagsByVulnerability', 'total_count']);
    const second = await result(execution.resultPath, 2);
    expect(second.json).toMatchObject({ page: 2, next_page: false, returned_count: ADVISORIES - 1000, total_count: ADVISORIES });
    const beyond = await result(execution.resultPath, 3);
    expect(beyond.json).toMatchObject({ page: 3, next_page: false, returned_count: 0, total_count: ADVISORIES, tagsByVulnerability: { results: [] } });

    // The stored result is exactly what paging through the report by hand returns.
    const stored = [...first.json.tagsByVulnerability.results, ...second.json.tagsByVulnerability.results];
    expect(stored).toEqual(await pagedByHand(TAGS_RESULTS));

    // Every documented field, at every level.
    const fixed = stored.find((r: any) => r.vulnerabilityId === 'DSA-10001-1');
    expect(fixed).toEqual({
      vulnerabilityId: 'DSA-10001-1',
      cve: 'CVE-2098-10001',
      registries: [
        {
          registryName: 'registry.example.com',
          repositories: [
            {
              repositoryName: 'team/fetcher',
              tags: [
                {
                  tagName: '2.0',
                  detectedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
                  current: true,
                  image: {
                    digest: imageDigest,
                    link: `/v2/images/${imageDigest}`,
                    artifacts: [
                      {
                        artifactName: 'curl',
                        artifactVersion: '7.88.1-10+deb12u5',
                        artifactType: expect.any(String),
                        artifactLocation: '/var/lib/dpkg/status',
                        namespace: 'debian:12',
                        severity: 'Medium',
                        fixedIn: '7.88.1-10+deb12u6',
                        fixObservedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const unfixed: any = stored.find((r: any) => r.vulnerabilityId === 'DSA-10000-1');
    expect(unfixed.registries[0].repositories[0].tags[0].image.artifacts[0]).toMatchObject({ severity: 'Critical', fixedIn: null, fixObservedAt: null });

    // Listed on the query, newest first.
    const listed = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { executions { ${EXECUTION_FIELDS} } } }`, { variables: { uuid: q.uuid } });
    expect(listed.scheduledQuery.executions).toEqual([execution]);
  });

  it('pages with the query\'s own limit and variables, replacing a nextToken it gives', async () => {
    const query = `query($s: Severity) { tagsByVulnerability(limit: 300, nextToken: "ignored", filter: {vulnerability: {severity: $s}}) { pageInfo { count } results { vulnerabilityId } } }`;
    const q = await create({ query, variables: { s: 'Critical' } });
    const execution = await executeNow(q.uuid);
    expect(execution).toMatchObject({ status: 'complete', resultCount: Math.ceil(ADVISORIES / 2) });
    const page = await result(execution.resultPath);
    const ids = page.json.tagsByVulnerability.results.map((r: any) => r.vulnerabilityId);
    const expected = await pagedByHand('{ vulnerabilityId }', ', filter: {vulnerability: {severity: Critical}}');
    expect(ids).toEqual(expected.map((r) => r.vulnerabilityId));
    expect(page.json.tagsByVulnerability.results[0]).toEqual({ vulnerabilityId: 'DSA-10000-1' });
  });

  it('records a failed run with its reason and no result (REST answers 409)', async () => {
    const q = await create({ query: '{ tagsByVulnerability(limit: 5000) { results { vulnerabilityId } } }' });
    const execution = await executeNow(q.uuid);
    expect(execution).toMatchObject({ status: 'failed', resultCount: 0, reportKind: 'tagsByVulnerability' });
    expect(execution.error).toContain('limit');
    expectError(await result(execution.resultPath), 409, 'conflict');
  });

  it('queues a run through the job queue (executeScheduledQueryAsync)', async () => {
    const q = await create({ query: '{ imagesByVulnerability(filter: {vulnerability: {id: "DSA-10002-1"}}) { results { vulnerabilityId images { digest } } } }' });
    const watcher = watchExecutions();
    try {
      const data = await ok(`mutation($uuid: ID!) { executeScheduledQueryAsync(uuid: $uuid) { ${EXECUTION_FIELDS} } }`, { variables: { uuid: q.uuid } });
      const queued = data.executeScheduledQueryAsync;
      expect(queued).toMatchObject({ queryUuid: q.uuid, status: 'queued', trigger: 'manual', resultCount: 0, startedAt: null, finishedAt: null });
      const finished = await watcher.next((e) => e.uuid === queued.uuid);
      expect(finished).toMatchObject({ status: 'complete', resultCount: 1, reportKind: 'imagesByVulnerability' });
      const page = await result(queued.resultPath);
      expect(page.json.imagesByVulnerability).toEqual({ results: [{ vulnerabilityId: 'DSA-10002-1', images: [{ digest: imageDigest }] }] });
    } finally {
      watcher.stop();
    }
  });

  it('runs a query on its cron schedule', async () => {
    const watcher = watchExecutions();
    let uuid = '';
    try {
      const q = await create({ name: 'every second', cronSchedule: '* * * * * *', query: '{ tagsByVulnerability(filter: {vulnerability: {id: "DSA-10003-1"}}) { results { vulnerabilityId cve } } }' });
      uuid = q.uuid;
      const ran = await watcher.next((e) => e.queryUuid === uuid);
      expect(ran).toMatchObject({ trigger: 'schedule', status: 'complete', resultCount: 1 });
      const page = await result(`/v2/reporting/scheduled-query-results/${ran.uuid}`);
      expect(page.json).toMatchObject({ page: 1, next_page: false, total_count: 1, tagsByVulnerability: { results: [{ vulnerabilityId: 'DSA-10003-1', cve: 'CVE-2098-10003' }] } });
    } finally {
      watcher.stop();
      if (uuid) await ok(`mutation($uuid: ID!) { deleteScheduledQuery(uuid: $uuid) { ok } }`, { variables: { uuid } });
    }
  });

  it('runs a due query exactly once with two schedulers on the same database', async () => {
    const { services } = server.running;
    // Two more schedulers contend for the run with this process's own periodic look at the schedule.
    const watcher = watchExecutions();
    try {
      const q = await create({ name: 'contended', query: '{ tagsByVulnerability(filter: {vulnerability: {id: "DSA-10004-1"}}) { results { vulnerabilityId } } }' });
      const due = new Date(Date.now() - 1000).toISOString();
      await services.db('scheduled_queries').where({ uuid: q.uuid }).update({ next_run_at: due });
      const contender = () =>
        new ScheduledQueryScheduler({ db: services.db, log: services.log, jobs: services.jobs, worker: services.worker, run: (query, execution) => executeStoredQuery(services, query, execution), scheduling: true });
      const [a, b] = [contender(), contender()];
      const claims = await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
      // The process's own look may have won the run; either way it ran once (the executions below).
      expect(claims.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(1);
      const ran = await watcher.next((e) => e.queryUuid === q.uuid);
      expect(ran).toMatchObject({ trigger: 'schedule', status: 'complete', resultCount: 1 });
      expect(await Promise.all([a.runDue(), b.runDue()])).toEqual([0, 0]);
      const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { nextRunAt executions { uuid trigger } } }`, { variables: { uuid: q.uuid } });
      expect(read.scheduledQuery.executions).toEqual([{ uuid: ran.uuid, trigger: 'schedule' }]);
      // Moved on to the following run: midnight on the next January 1st.
      expect(read.scheduledQuery.nextRunAt).toBe(`${new Date().getUTCFullYear() + 1}-01-01T00:00:00`);
    } finally {
      watcher.stop();
    }
  });

  it('keeps a bounded number of executions per query', async () => {
    const q = await create({ query: '{ tagsByVulnerability(filter: {vulnerability: {id: "DSA-10005-1"}}) { results { vulnerabilityId } } }' });
    const runs = [await executeNow(q.uuid), await executeNow(q.uuid), await executeNow(q.uuid)];
    expect(await pruneExecutions(server.running.services.db, q.uuid, 2)).toBe(1);
    const read = await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { executions { uuid } } }`, { variables: { uuid: q.uuid } });
    expect(read.scheduledQuery.executions.map((e: any) => e.uuid)).toEqual([runs[2].uuid, runs[1].uuid]);
    expect(await getExecution(server.running.services.db, runs[0].uuid)).toBeUndefined();
    expectError(await result(runs[0].resultPath), 404, 'not_found');
    const tooMany = await fails(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { executions(limit: 101) { uuid } } }`, { variables: { uuid: q.uuid } });
    expect(tooMany.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'limit' });
  });
});

describe('stored results over REST', () => {
  it('answers 404 for unknown executions and for other accounts\' executions', async () => {
    const q = await create({ query: '{ tagsByVulnerability(filter: {vulnerability: {id: "DSA-10006-1"}}) { results { vulnerabilityId } } }' });
    const execution = await executeNow(q.uuid);
    expectError(await result('/v2/reporting/scheduled-query-results/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
    expectError(await result(execution.resultPath, undefined, other.manager.auth), 404, 'not_found');
    expectError(await result(`/v2/reporting/reports/global/scheduled-query-results/${execution.uuid}`), 404, 'not_found');
    // The account's own users can read it; so can an administrator acting on the account.
    const theirs = await create({ query: '{ tagsByVulnerability { results { vulnerabilityId } } }' }, { auth: other.manager.auth });
    const theirRun = await executeNow(theirs.uuid, { auth: other.manager.auth });
    expect(theirRun).toMatchObject({ status: 'complete', resultCount: 0 });
    expect((await result(theirRun.resultPath, 1, other.reader.auth)).json).toMatchObject({ total_count: 0, next_page: false, tagsByVulnerability: { results: [] } });
    const onBehalf = await raw(server.url, 'GET', theirRun.resultPath, { headers: { 'x-service-account': other.account } });
    expect(onBehalf.status).toBe(200);
    expectError(await result(theirRun.resultPath), 404, 'not_found');
  });

  it('validates the page and the uuid', async () => {
    const bad = await raw(server.url, 'GET', '/v2/reporting/scheduled-query-results/NOT_A_UUID?page=0');
    expectError(bad, 400, 'validation_error');
  });
});

describe('global scheduled queries', () => {
  it('are created, seen, run and fetched only through the global endpoints, by administrators', async () => {
    const q = await create({ name: 'global tags', query: '{ tagsByVulnerability(filter: {vulnerability: {id: "DSA-10007-1"}}) { results { vulnerabilityId registries { repositories { tags { image { digest } } } } } } }' }, { path: GLOBAL });
    const globalList = await ok(`{ scheduledQueries(limit: 1000) { results { uuid } } }`, { path: GLOBAL });
    expect(globalList.scheduledQueries.results.map((r: any) => r.uuid)).toEqual([q.uuid]);
    const accountList = await ok(`{ scheduledQueries(limit: 1000) { results { uuid } } }`);
    expect(accountList.scheduledQueries.results.map((r: any) => r.uuid)).not.toContain(q.uuid);
    expect((await ok(`query($uuid: ID!) { scheduledQuery(uuid: $uuid) { uuid } }`, { variables: { uuid: q.uuid } })).scheduledQuery).toBeNull();

    const execution = await executeNow(q.uuid, { path: GLOBAL });
    expect(execution).toMatchObject({ status: 'complete', resultCount: 1, resultPath: `/v2/reporting/reports/global/scheduled-query-results/${execution.uuid}` });
    const page = await result(execution.resultPath);
    expect(page.json).toMatchObject({ total_count: 1, tagsByVulnerability: { results: [{ vulnerabilityId: 'DSA-10007-1', registries: [{ repositories: [{ tags: [{ image: { digest: imageDigest } }] }] }] }] } });
    expectError(await result(`/v2/reporting/scheduled-query-results/${execution.uuid}`), 404, 'not_found');

    // Not for other users, even report administrators.
    const endpoint = await gql(server, `{ scheduledQueries { results { uuid } } }`, { path: GLOBAL, auth: other.manager.auth });
    expect(endpoint.status).toBe(403);
    expectError(await result(execution.resultPath, 1, other.manager.auth), 403, 'forbidden');
  });
});
