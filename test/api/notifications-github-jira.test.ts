/**
 * The GitHub and Jira notification endpoints: configurations (tokens and passwords never shown), selectors, bad
 * inputs, the test routes and real deliveries through the outbox, against fake GitHub and Jira APIs on loopback
 * that check each request as the real ones would (method, path, credentials, body) and answer as they do; a
 * failing fake gives failed receipts, a replay delivers once it recovers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/events.js';
import { createUserWithRole } from '../support/auth-fixtures.js';
import { expectBodyRejections, expectError, expectValidationError } from '../support/fixtures.js';
import { json, raw, type RawResponse } from '../support/http.js';
import { nextSettled } from '../support/notifications.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../support/receivers.js';
import { startTestServer, type TestServer } from '../support/server.js';

const EP = '/v2/notifications/endpoints';
const NO_SUCH = '00000000-0000-4000-8000-000000000000';
const SELECTOR = { scope: 'account', event: { level: '*', resource_type: 'feed', type: 'system.feeds.sync.feed_failed' } };

const GITHUB_TOKEN = 'ghp_fakeTOKEN0123456789';
const JIRA_USER = 'vigil@example.com';
const JIRA_TOKEN = 'jira-API-token-0123';

let server: TestServer;
let github: HttpReceiver;
let jira: HttpReceiver;
/** Repositories and projects the fakes answer 503 for while this holds. */
const down = new Set<string>();
/** Requests the fakes hold unanswered until released (a timeout). */
const held: (() => void)[] = [];

const answer = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

/** Checks a request as GitHub's "create an issue" does, and answers as it does. */
function fakeGitHub(r: ReceivedRequest) {
  const route = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(r.path);
  if (r.method !== 'POST' || !route) return answer(404, { message: 'Not Found' });
  if (r.headers.authorization !== `Bearer ${GITHUB_TOKEN}`) return answer(401, { message: 'Bad credentials' });
  const [, owner, repo] = route;
  if (repo === 'slow') return new Promise<{ status: number }>((resolve) => held.push(() => resolve({ status: 504 })));
  if (down.has(repo!)) return answer(503, { message: 'Service Unavailable' });
  if (repo === 'rate-limited') return answer(403, { message: 'API rate limit exceeded for user ID 1.' });
  if (owner !== 'acme') return answer(404, { message: 'Not Found' });
  if (typeof r.json?.title !== 'string' || typeof r.json?.body !== 'string') return answer(422, { message: 'Validation Failed' });
  const number = github.requests.length + 1;
  return answer(201, { url: `${github.url}${r.path}/${number}`, html_url: `https://github.example/acme/${repo}/issues/${number}`, number, title: r.json.title });
}

/** Checks a request as Jira's "create issue" (REST API v2) does, and answers as it does. */
function fakeJira(r: ReceivedRequest) {
  if (r.method !== 'POST' || r.path !== '/jira/rest/api/2/issue') return answer(404, { errorMessages: ['Not found'] });
  if (r.headers.authorization !== `Basic ${Buffer.from(`${JIRA_USER}:${JIRA_TOKEN}`).toString('base64')}`) return { status: 401, body: 'Unauthorized' };
  const fields = r.json?.fields;
  if (down.has(fields?.project?.key)) return answer(503, { errorMessages: ['Service Unavailable'] });
  if (fields?.project?.key !== 'VIG') return answer(400, { errorMessages: [], errors: { project: 'valid project is required' } });
  if (typeof fields.summary !== 'string' || typeof fields.description !== 'string' || !fields.issuetype?.name) return answer(400, { errors: { summary: 'required' } });
  const id = 10000 + jira.requests.length;
  return answer(201, { id: String(id), key: `VIG-${jira.requests.length + 1}`, self: `${jira.url}/jira/rest/api/2/issue/${id}` });
}

beforeAll(async () => {
  github = await startHttpReceiver({ responder: fakeGitHub });
  jira = await startHttpReceiver({ responder: fakeJira });
  server = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20', VIGIL_NOTIFY_MAX_TRIES: '2', VIGIL_NOTIFY_BACKOFF_BASE_MS: '10' });
});
afterAll(async () => {
  for (const release of held) release();
  await server?.close();
  await github?.close();
  await jira?.close();
});

const githubConfiguration = (repository = 'alerts', extra: Record<string, unknown> = {}) => ({
  url: github.url,
  username: 'vigil-bot',
  access_token: GITHUB_TOKEN,
  owner: 'acme',
  repository,
  labels: ['security', 'vigil'],
  assignees: ['octocat'],
  milestone: 3,
  ...extra,
});

const jiraConfiguration = (projectKey = 'VIG', extra: Record<string, unknown> = {}) => ({
  url: `${jira.url}/jira`,
  username: JIRA_USER,
  password: JIRA_TOKEN,
  project_key: projectKey,
  issue_type: 'Bug',
  priority: 'High',
  assignee: 'jdoe',
  labels: ['vigil', 'container-security'],
  ...extra,
});

async function create(kind: 'github' | 'jira', body: unknown) {
  const res = await json(server.url, 'POST', `${EP}/${kind}/configurations`, body);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

async function withSelector(kind: 'github' | 'jira', body: unknown) {
  const c = await create(kind, body);
  expect((await json(server.url, 'POST', `${EP}/${kind}/configurations/${c.uuid}/selectors`, SELECTOR)).status).toBe(200);
  return c;
}

async function feedFailed(feed: string): Promise<void> {
  await recordEvent(server.running.services.db, { accountName: 'admin', type: 'system.feeds.sync.feed_failed', resourceType: 'feed', resourceId: feed, details: { error: 'unreachable' } });
}

function expectNoSecrets(res: RawResponse): void {
  expect(res.text).not.toContain(GITHUB_TOKEN);
  expect(res.text).not.toContain(JIRA_TOKEN);
}

describe('configurations', () => {
  it('creates, reads, lists, updates and deletes a GitHub configuration without ever showing its token', async () => {
    const created = await create('github', { ...githubConfiguration(), description: 'security issues' });
    const { access_token: _, ...shown } = githubConfiguration();
    expect(created).toMatchObject({ ...shown, description: 'security issues', verify_tls: true, timeout_seconds: 10 });
    expect(created.access_token).toBeUndefined();
    const got = await raw(server.url, 'GET', `${EP}/github/configurations/${created.uuid}`);
    expect(got.json).toEqual(created);
    expectNoSecrets(got);
    const list = await raw(server.url, 'GET', `${EP}/github/configurations`);
    expect(list.json.map((c: { uuid: string }) => c.uuid)).toContain(created.uuid);
    expectNoSecrets(list);

    // An update without the token keeps the stored one: the stored test still signs in.
    const updated = await json(server.url, 'PUT', `${EP}/github/configurations/${created.uuid}`, { ...got.json, labels: ['triage'], milestone: undefined });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ labels: ['triage'], repository: 'alerts' });
    expect(updated.json.milestone).toBeUndefined();
    expect((await raw(server.url, 'GET', `${EP}/github/configurations/${created.uuid}/test`)).json).toMatchObject({ status: 'success' });

    expect((await json(server.url, 'DELETE', `${EP}/github/configurations/${created.uuid}`, undefined)).status).toBe(200);
    expectError(await raw(server.url, 'GET', `${EP}/github/configurations/${created.uuid}`), 404, 'not_found');
  });

  it('defaults the GitHub API URL to api.github.com', async () => {
    const { url: _, ...withoutUrl } = githubConfiguration();
    const created = await create('github', withoutUrl);
    expect(created.url).toBe('https://api.github.com');
  });

  it('creates, reads, updates and deletes a Jira configuration without ever showing its password', async () => {
    const created = await create('jira', jiraConfiguration());
    const { password: _, ...shown } = jiraConfiguration();
    expect(created).toMatchObject(shown);
    expect(created.password).toBeUndefined();
    const got = await raw(server.url, 'GET', `${EP}/jira/configurations/${created.uuid}`);
    expect(got.json).toEqual(created);
    expectNoSecrets(got);
    const updated = await json(server.url, 'PUT', `${EP}/jira/configurations/${created.uuid}`, { ...got.json, issue_type: 'Task', priority: undefined });
    expect(updated.json).toMatchObject({ issue_type: 'Task', project_key: 'VIG' });
    expect(updated.json.priority).toBeUndefined();
    expect((await raw(server.url, 'GET', `${EP}/jira/configurations`)).json.map((c: { uuid: string }) => c.uuid)).toContain(created.uuid);
    expect((await json(server.url, 'DELETE', `${EP}/jira/configurations/${created.uuid}`, undefined)).status).toBe(200);
    expectError(await raw(server.url, 'GET', `${EP}/jira/configurations/${created.uuid}`), 404, 'not_found');
  });

  it('refuses bad GitHub and Jira configurations with the field named, and changes nothing', async () => {
    const gh = (body: unknown) => json(server.url, 'POST', `${EP}/github/configurations`, body);
    expectValidationError(await gh({}), ['body.username', 'body.access_token', 'body.owner', 'body.repository']);
    expectValidationError(await gh(githubConfiguration('alerts', { access_token: undefined })), ['body.access_token']);
    expectValidationError(await gh(githubConfiguration('alerts', { owner: 'acme/evil' })), ['body.owner']);
    expectValidationError(await gh(githubConfiguration('..')), ['body.repository']);
    expectValidationError(await gh(githubConfiguration('alerts', { milestone: 0 })), ['body.milestone']);
    expectValidationError(await gh(githubConfiguration('alerts', { labels: 'security' })), ['body.labels']);
    expectValidationError(await gh(githubConfiguration('alerts', { assignees: Array.from({ length: 11 }, (_, i) => `user${i}`) })), ['body.assignees']);
    expectValidationError(await gh(githubConfiguration('alerts', { url: 'ftp://github.example' })), ['body.url']);
    await expectBodyRejections(server.url, 'POST', `${EP}/github/configurations`, githubConfiguration());

    const ji = (body: unknown) => json(server.url, 'POST', `${EP}/jira/configurations`, body);
    expectValidationError(await ji({ url: 'https://jira.example' }), ['body.username', 'body.password', 'body.project_key', 'body.issue_type']);
    expectValidationError(await ji(jiraConfiguration('1VIG')), ['body.project_key']);
    expectValidationError(await ji(jiraConfiguration('VIG', { url: 'not a url' })), ['body.url']);
    expectValidationError(await ji(jiraConfiguration('VIG', { issue_type: '' })), ['body.issue_type']);
    expect((await ji(jiraConfiguration('VIG', { labels: ['has space'] }))).status).toBe(400);

    const stored = await create('jira', jiraConfiguration());
    const put = (body: unknown) => json(server.url, 'PUT', `${EP}/jira/configurations/${stored.uuid}`, body);
    expectValidationError(await put({ ...jiraConfiguration(), project_key: undefined }), ['body.project_key']);
    expectValidationError(await put({ ...jiraConfiguration(), password: '' }), ['body.password']);
    expect((await raw(server.url, 'GET', `${EP}/jira/configurations/${stored.uuid}`)).json).toEqual(stored);

    for (const kind of ['github', 'jira']) {
      expectError(await raw(server.url, 'GET', `${EP}/${kind}/configurations/not-a-uuid`), 400, 'validation_error');
      expectError(await raw(server.url, 'GET', `${EP}/${kind}/configurations/${NO_SUCH}`), 404, 'not_found');
      expectError(await json(server.url, 'DELETE', `${EP}/${kind}/configurations/${NO_SUCH}`, undefined), 404, 'not_found');
      expectError(await raw(server.url, 'GET', `${EP}/${kind}/configurations/${NO_SUCH}/status`), 404, 'not_found');
      expectError(await raw(server.url, 'GET', `${EP}/${kind}/configurations/${NO_SUCH}/test`), 404, 'not_found');
    }
    expectError(await json(server.url, 'PUT', `${EP}/github/configurations/${NO_SUCH}`, githubConfiguration()), 404, 'not_found');
    // A Jira configuration is not found under the GitHub routes.
    expectError(await raw(server.url, 'GET', `${EP}/github/configurations/${stored.uuid}`), 404, 'not_found');
  });

  it('lets read-only users read but not change', async () => {
    const reader = await createUserWithRole(server.url, { role: 'read-only' });
    const auth = { basic: [reader.username, reader.password] as [string, string] };
    expect((await raw(server.url, 'GET', `${EP}/github/configurations`, { auth })).status).toBe(200);
    expectError(await json(server.url, 'POST', `${EP}/github/configurations`, githubConfiguration(), auth), 403, 'forbidden');
    expectError(await json(server.url, 'POST', `${EP}/jira/test`, jiraConfiguration(), auth), 403, 'forbidden');
  });
});

describe('selectors', () => {
  it('adds, reads, lists, updates and deletes the selectors of a Jira and a GitHub configuration', async () => {
    for (const [kind, body] of [['jira', jiraConfiguration()], ['github', githubConfiguration()]] as const) {
      const c = await create(kind, body);
      const base = `${EP}/${kind}/configurations/${c.uuid}/selectors`;
      const added = await json(server.url, 'POST', base, SELECTOR);
      expect(added.json).toMatchObject({ ...SELECTOR, configuration_uuid: c.uuid });
      const one = `${base}/${added.json.uuid}`;
      expect((await raw(server.url, 'GET', one)).json).toEqual(added.json);
      expect((await raw(server.url, 'GET', base)).json).toEqual([added.json]);
      const changed = await json(server.url, 'PUT', one, { scope: 'account', event: { level: 'error', resource_type: '*', type: 'user.checks.*' } });
      expect(changed.json.event).toEqual({ level: 'error', resource_type: '*', type: 'user.checks.*' });
      expect((await raw(server.url, 'GET', '/v2/notifications/selectors')).json.map((s: { uuid: string }) => s.uuid)).toContain(added.json.uuid);
      expectValidationError(await json(server.url, 'POST', base, { scope: 'account', event: { ...SELECTOR.event, level: 'warn' } }), ['body.event.level']);
      expectError(await json(server.url, 'POST', `${EP}/${kind}/configurations/${NO_SUCH}/selectors`, SELECTOR), 404, 'not_found');
      expectError(await raw(server.url, 'GET', `${base}/${NO_SUCH}`), 404, 'not_found');
      expect((await json(server.url, 'DELETE', one, undefined)).status).toBe(200);
      expectError(await raw(server.url, 'GET', one), 404, 'not_found');
    }
  });
});

describe('tests of a configuration', () => {
  it('opens a GitHub issue for a stored configuration: token, path, title, Markdown body, labels, assignees, milestone', async () => {
    const c = await create('github', githubConfiguration());
    const before = github.requests.length;
    const test = await raw(server.url, 'GET', `${EP}/github/configurations/${c.uuid}/test?notification_type=vuln_update`);
    expect(test.json).toEqual({ status: 'success', response: expect.stringMatching(/^HTTP 201: created issue #\d+ https:\/\/github\.example\/acme\/alerts\/issues\/\d+$/) });
    const r = github.requests[before]!;
    expect(r).toMatchObject({ method: 'POST', path: '/repos/acme/alerts/issues' });
    expect(r.headers.accept).toBe('application/vnd.github+json');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({ labels: ['security', 'vigil'], assignees: ['octocat'], milestone: 3 });
    expect(r.json.title).toBe('[Vigil] Vulnerabilities changed in docker.io/library/alpine:latest');
    expect(r.json.body).toContain('| Fact | Value |');
    expect(r.json.body).toContain('CVE\\-0000\\-0000');
    expect((await raw(server.url, 'GET', `${EP}/github/configurations/${c.uuid}/status`)).json).toMatchObject({ status: 'healthy', last_error: null });
  });

  it('creates a Jira issue for an unsaved configuration: basic auth, context path, project, type, priority, assignee, labels', async () => {
    const before = jira.requests.length;
    const test = await json(server.url, 'POST', `${EP}/jira/test?notification_type=policy_eval`, jiraConfiguration());
    expect(test.json).toEqual({ status: 'success', response: expect.stringMatching(/^HTTP 201: created issue VIG-\d+$/) });
    const r = jira.requests[before]!;
    expect(r).toMatchObject({ method: 'POST', path: '/jira/rest/api/2/issue' });
    expect(r.json.fields).toMatchObject({
      project: { key: 'VIG' },
      issuetype: { name: 'Bug' },
      priority: { name: 'High' },
      assignee: { name: 'jdoe' },
      labels: ['vigil', 'container-security'],
      summary: '[Vigil] Policy evaluation failed for docker.io/library/alpine:latest',
    });
    expect(r.json.fields.description).toContain('||Fact||Value||');
  });

  it('reports refusals and timeouts as failures in the tracker terms, marks stored ones unhealthy, and shows no secret', async () => {
    const badToken = await create('github', githubConfiguration('alerts', { access_token: 'ghp_wrong_token_value' }));
    const refused = await raw(server.url, 'GET', `${EP}/github/configurations/${badToken.uuid}/test`);
    expect(refused.json).toEqual({ status: 'failure', response: expect.stringMatching(/^GitHub refused the access token \(HTTP 401\): HTTP 401: .*Bad credentials/) });
    expect(refused.text).not.toContain('ghp_wrong_token_value');
    expect((await raw(server.url, 'GET', `${EP}/github/configurations/${badToken.uuid}/status`)).json).toMatchObject({ status: 'unhealthy', last_error: 'GitHub refused the access token (HTTP 401)' });

    const otherOwner = await json(server.url, 'POST', `${EP}/github/test`, githubConfiguration('alerts', { owner: 'someone-else' }));
    expect(otherOwner.json.response).toMatch(/^GitHub found no such repository, or the token cannot see it \(HTTP 404\)/);
    const throttled = await json(server.url, 'POST', `${EP}/github/test`, githubConfiguration('rate-limited'));
    expect(throttled.json.response).toMatch(/^GitHub throttled the request \(HTTP 403\)/);

    const wrongPassword = await json(server.url, 'POST', `${EP}/jira/test`, jiraConfiguration('VIG', { password: 'not-the-token' }));
    expect(wrongPassword.json).toEqual({ status: 'failure', response: 'Jira refused the user name or API token (HTTP 401): HTTP 401: Unauthorized' });
    const badProject = await json(server.url, 'POST', `${EP}/jira/test`, jiraConfiguration('NOPE'));
    expect(badProject.json.response).toMatch(/^Jira refused the issue: check the project key.*\(HTTP 400\): HTTP 400: .*valid project is required/);
    expectNoSecrets(badProject);

    // A timeout is told like any receiver that does not answer (the outbound layer does not say which).
    const slow = await json(server.url, 'POST', `${EP}/github/test`, githubConfiguration('slow', { timeout_seconds: 1 }));
    expect(slow.json).toEqual({ status: 'failure', response: expect.stringMatching(/^unreachable: cannot reach 127\.0\.0\.1:\d+: /) });
  });
});

describe('delivery of events through the outbox', () => {
  it('opens a GitHub issue and a Jira issue for a selected event, with a successful receipt naming each issue', async () => {
    const gh = await withSelector('github', githubConfiguration('deliveries'));
    const ji = await withSelector('jira', jiraConfiguration());
    const settled = Promise.all([gh.uuid, ji.uuid].map((uuid) => nextSettled(server, (s) => s.configurationUuid === uuid)));
    await feedFailed('tracked-feed');
    expect((await settled).map((s) => s.state)).toEqual(['delivered', 'delivered']);

    const issue = await github.waitFor((r) => r.path === '/repos/acme/deliveries/issues');
    expect(issue.headers.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    expect(issue.json.title).toBe('[Vigil] Error: system.feeds.sync.feed_failed');
    expect(issue.json.body).toContain('tracked\\-feed');
    const created = await jira.waitFor((r) => r.json?.fields?.description?.includes('tracked\\-feed'));
    expect(created.json.fields.summary).toBe('[Vigil] Error: system.feeds.sync.feed_failed');

    for (const [kind, c, response] of [['github', gh, /^HTTP 201: created issue #\d+ /], ['jira', ji, /^HTTP 201: created issue VIG-\d+$/]] as const) {
      const [delivery] = (await raw(server.url, 'GET', `${EP}/${kind}/configurations/${c.uuid}/deliveries`)).json.items;
      expect(delivery).toMatchObject({ endpoint: kind, state: 'delivered', tries: 1, event_type: 'system.feeds.sync.feed_failed' });
      const receipts = (await raw(server.url, 'GET', `${EP}/${kind}/configurations/${c.uuid}/deliveries/${delivery.notification_id}/receipts`)).json.items;
      expect(receipts).toEqual([expect.objectContaining({ attempt: 1, success: true, http_status: 201, error: null, response: expect.stringMatching(response) })]);
    }
  });

  it('a failing tracker gives failed receipts; a replay delivers once it is back', async () => {
    down.add('flaky');
    down.add('DOWN');
    try {
      const gh = await withSelector('github', githubConfiguration('flaky'));
      const ji = await withSelector('jira', jiraConfiguration('DOWN'));
      const failed = Promise.all([gh.uuid, ji.uuid].map((uuid) => nextSettled(server, (s) => s.configurationUuid === uuid)));
      await feedFailed('flaky-feed');
      expect((await failed).map((s) => [s.state, s.tries])).toEqual([
        ['failed', 2],
        ['failed', 2],
      ]);
      const [delivery] = (await raw(server.url, 'GET', `${EP}/github/configurations/${gh.uuid}/deliveries?state=failed`)).json.items;
      expect(delivery.last_error).toBe('receiver answered HTTP 503');
      const receipts = (await raw(server.url, 'GET', `${EP}/github/configurations/${gh.uuid}/deliveries/${delivery.notification_id}/receipts`)).json.items;
      expect(receipts.map((r: { success: boolean; http_status: number }) => [r.success, r.http_status])).toEqual([
        [false, 503],
        [false, 503],
      ]);
      expect((await raw(server.url, 'GET', `${EP}/jira/configurations/${ji.uuid}/status`)).json.status).toBe('unhealthy');

      down.delete('flaky');
      const delivered = nextSettled(server, (s) => s.id === delivery.notification_id);
      const replay = await raw(server.url, 'POST', `${EP}/github/configurations/${gh.uuid}/deliveries/${delivery.notification_id}/replay`);
      expect(replay.json).toMatchObject({ notification_id: delivery.notification_id, state: 'pending', tries: 0, replays: 1 });
      expect(await delivered).toMatchObject({ state: 'delivered', tries: 1 });
      const after = (await raw(server.url, 'GET', `${EP}/github/configurations/${gh.uuid}/deliveries/${delivery.notification_id}/receipts`)).json.items;
      expect(after.map((r: { success: boolean }) => r.success)).toEqual([false, false, true]);
      expect((await raw(server.url, 'GET', `${EP}/github/configurations/${gh.uuid}/status`)).json.status).toBe('healthy');
    } finally {
      down.clear();
    }
  });

  it('does not retry a refusal; after the configuration is fixed, a replay delivers', async () => {
    const ji = await withSelector('jira', jiraConfiguration('WRONG'));
    const failed = nextSettled(server, (s) => s.configurationUuid === ji.uuid);
    await feedFailed('wrong-project');
    expect(await failed).toMatchObject({ state: 'failed', tries: 1 });
    const [delivery] = (await raw(server.url, 'GET', `${EP}/jira/configurations/${ji.uuid}/deliveries`)).json.items;
    expect(delivery.last_error).toBe('Jira refused the issue: check the project key, issue type, priority, assignee and labels (HTTP 400)');

    expect((await json(server.url, 'PUT', `${EP}/jira/configurations/${ji.uuid}`, { ...jiraConfiguration(), password: undefined })).status).toBe(200);
    const delivered = nextSettled(server, (s) => s.id === delivery.notification_id);
    expect((await raw(server.url, 'POST', `${EP}/jira/configurations/${ji.uuid}/deliveries/${delivery.notification_id}/replay`)).status).toBe(200);
    expect(await delivered).toMatchObject({ state: 'delivered' });
  });
});
