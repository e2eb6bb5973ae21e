/**
 * The Notifications API: endpoint kinds, configurations of each kind (secrets sealed, never shown), selectors,
 * operational status, stored and unsaved tests, and the bad inputs of every route. Slack and Teams payloads are
 * received on a loopback HTTP server in their documented formats; e-mail on a loopback SMTP server.
 */
import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/events.js';
import { verifySignature } from '../../src/notifications/channels/webhook.js';
import { createUserWithRole, type TestUser } from '../support/auth-fixtures.js';
import { expectBodyRejections, expectError, expectValidationError } from '../support/fixtures.js';
import { json, raw, type Auth } from '../support/http.js';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../support/receivers.js';
import { nextSettled } from '../support/notifications.js';
import { startTestServer, type TestServer } from '../support/server.js';

const EP = '/v2/notifications/endpoints';
const NO_SUCH = '00000000-0000-4000-8000-000000000000';
const SELECTOR = { scope: 'account', event: { level: '*', resource_type: 'feed', type: 'system.feeds.sync.feed_failed' } };

let server: TestServer;
let http: HttpReceiver;
let smtp: SmtpReceiver;

beforeAll(async () => {
  http = await startHttpReceiver();
  smtp = await startSmtpReceiver({ user: { username: 'mailer', password: 'smtp-pass-word' } });
  server = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20' });
});
afterAll(async () => {
  await server?.close();
  await http?.close();
  await smtp?.close();
});

const authOf = (u: TestUser): Auth => ({ basic: [u.username, u.password] });

async function create(kind: string, body: unknown, auth?: Auth) {
  const res = await json(server.url, 'POST', `${EP}/${kind}/configurations`, body, auth);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

async function feedFailed(feed: string): Promise<void> {
  await recordEvent(server.running.services.db, { accountName: 'admin', type: 'system.feeds.sync.feed_failed', resourceType: 'feed', resourceId: feed, details: { error: 'unreachable' } });
}

describe('endpoint kinds', () => {
  it('lists github, jira, slack, smtp, teams and webhook, all enabled', async () => {
    const res = await raw(server.url, 'GET', EP);
    expect(res.status).toBe(200);
    expect(res.json.map((e: { name: string; enabled: boolean }) => [e.name, e.enabled])).toEqual([
      ['github', true],
      ['jira', true],
      ['slack', true],
      ['smtp', true],
      ['teams', true],
      ['webhook', true],
    ]);
  });

  it('an administrator disables a kind: nothing is queued for it until it is enabled again', async () => {
    const c = await create('teams', { url: `${http.url}/teams/disabled` });
    await json(server.url, 'POST', `${EP}/teams/configurations/${c.uuid}/selectors`, SELECTOR);
    expect((await json(server.url, 'PUT', `${EP}/teams`, { enabled: false })).json).toEqual({ enabled: false });
    await feedFailed('while-disabled');
    expect((await raw(server.url, 'GET', `${EP}/teams/configurations/${c.uuid}/deliveries`)).json.items).toEqual([]);
    expect((await json(server.url, 'PUT', `${EP}/teams`, { enabled: true })).json).toEqual({ enabled: true });
    await json(server.url, 'DELETE', `${EP}/teams/configurations/${c.uuid}`, undefined);
  });

  it('refuses bad kind names and bodies, and non-administrators', async () => {
    expectError(await json(server.url, 'PUT', `${EP}/pagerduty`, { enabled: true }), 400, 'validation_error');
    expectValidationError(await json(server.url, 'PUT', `${EP}/slack`, { enabled: 'yes' }), ['body.enabled']);
    expectValidationError(await json(server.url, 'PUT', `${EP}/slack`, {}), ['body.enabled']);
    const user = await createUserWithRole(server.url, { role: 'full-control' });
    expectError(await json(server.url, 'PUT', `${EP}/slack`, { enabled: false }, authOf(user)), 403, 'forbidden');
    expect((await raw(server.url, 'GET', EP, { auth: authOf(user) })).status).toBe(200);
  });
});

describe('configurations', () => {
  it('creates, reads, lists, updates and deletes a webhook configuration without ever showing its secrets', async () => {
    const created = await create('webhook', { url: `${http.url}/hooks/T123/SECRETPATH?token=QUERYSECRET`, username: 'hook-user', password: 'hook-password', description: 'ops' });
    expect(created).toMatchObject({ url: `${http.url}/***`, username: 'hook-user', description: 'ops', verify_tls: true, timeout_seconds: 10 });
    expect(created.signing_secret).toMatch(/^[A-Za-z0-9_-]{43}$/); // generated, shown this once
    expect(created.password).toBeUndefined();
    const got = await raw(server.url, 'GET', `${EP}/webhook/configurations/${created.uuid}`);
    expect(got.json).toEqual({ ...created, signing_secret: undefined });
    expect(got.text).not.toMatch(/SECRETPATH|QUERYSECRET|hook-password/);
    expect(got.text).not.toContain(created.signing_secret);
    const list = await raw(server.url, 'GET', `${EP}/webhook/configurations`);
    expect(list.json.map((c: { uuid: string }) => c.uuid)).toContain(created.uuid);

    // Sending back what a GET showed keeps the stored URL and password.
    const updated = await json(server.url, 'PUT', `${EP}/webhook/configurations/${created.uuid}`, { ...got.json, description: 'renamed' });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ description: 'renamed', url: `${http.url}/***` });
    const test = await raw(server.url, 'GET', `${EP}/webhook/configurations/${created.uuid}/test`);
    expect(test.json).toMatchObject({ status: 'success' });
    const arrived = await http.waitFor((r) => r.path === '/hooks/T123/SECRETPATH?token=QUERYSECRET');
    expect(arrived.headers.authorization).toBe(`Basic ${Buffer.from('hook-user:hook-password').toString('base64')}`);

    expect((await json(server.url, 'DELETE', `${EP}/webhook/configurations/${created.uuid}`, undefined)).status).toBe(200);
    expectError(await raw(server.url, 'GET', `${EP}/webhook/configurations/${created.uuid}`), 404, 'not_found');
  });

  it('keeps each account to its own configurations', async () => {
    const c = await create('slack', { url: `${http.url}/slack/private` });
    const other = await createUserWithRole(server.url, { role: 'full-control' });
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${c.uuid}`, { auth: authOf(other) }), 404, 'not_found');
    expect((await raw(server.url, 'GET', `${EP}/slack/configurations`, { auth: authOf(other) })).json).toEqual([]);
    // And a uuid of one kind is not found under another.
    expectError(await raw(server.url, 'GET', `${EP}/teams/configurations/${c.uuid}`), 404, 'not_found');
  });

  it('refuses bad configurations with the field named', async () => {
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/configurations`, {}), ['body.url']);
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/configurations`, { url: 'ftp://example.com/x' }), ['body.url']);
    expectValidationError(await json(server.url, 'POST', `${EP}/slack/configurations`, { url: 'not a url' }), ['body.url']);
    // An undeclared property is ignored (upstream's schema accepts it): only the real violation is named.
    expectValidationError(await json(server.url, 'POST', `${EP}/teams/configurations`, { url: 'not a url', colour: 'red' }), ['body.url']);
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/configurations`, { url: 'https://example.com/x', signing_secret: 'short' }), ['body.signing_secret']);
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/configurations`, { url: 'https://example.com/x', timeout_seconds: 0 }), ['body.timeout_seconds']);
    expectValidationError(await json(server.url, 'POST', `${EP}/smtp/configurations`, { host: 'mail.example.com', port: 25, from: 'vigil@example.com' }), ['body.to']);
    expectValidationError(await json(server.url, 'POST', `${EP}/smtp/configurations`, { host: 'mail.example.com', port: 70000, from: 'a@example.com', to: 'b@example.com' }), ['body.port']);
    expectValidationError(await json(server.url, 'POST', `${EP}/smtp/configurations`, { host: 'mail.example.com', port: 25, from: 'nobody', to: 'b@example.com' }), ['body.from']);
    expectValidationError(await json(server.url, 'POST', `${EP}/smtp/configurations`, { host: 'mail example', port: 25, from: 'a@example.com', to: 'b@example.com' }), ['body.host']);
    await expectBodyRejections(server.url, 'POST', `${EP}/slack/configurations`, { url: 'https://hooks.slack.example/services/x' });
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/not-a-uuid`), 400, 'validation_error');
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${NO_SUCH}`), 404, 'not_found');
    expectError(await json(server.url, 'PUT', `${EP}/slack/configurations/${NO_SUCH}`, { url: 'https://example.com/x' }), 404, 'not_found');
    expectError(await json(server.url, 'DELETE', `${EP}/slack/configurations/${NO_SUCH}`, undefined), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${NO_SUCH}/status`), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${NO_SUCH}/test`), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${NO_SUCH}/deliveries`), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${NO_SUCH}/selectors`), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${EP}/slack/configurations/${NO_SUCH}/deliveries/${NO_SUCH}/receipts`), 404, 'not_found');
    // An update is checked like a create, and a refused one changes nothing.
    const stored = await create('slack', { url: 'https://hooks.slack.example/services/T/B/keep' });
    expectValidationError(await json(server.url, 'PUT', `${EP}/slack/configurations/${stored.uuid}`, { url: 'gopher://x' }), ['body.url']);
    expectValidationError(await json(server.url, 'PUT', `${EP}/slack/configurations/${stored.uuid}`, { description: 'no url' }), ['body.url']);
    await expectBodyRejections(server.url, 'PUT', `${EP}/slack/configurations/${stored.uuid}`, { url: 'https://hooks.slack.example/services/T/B/new' });
    expect((await raw(server.url, 'GET', `${EP}/slack/configurations/${stored.uuid}`)).json).toEqual(stored);
  });

  it('needs the notification actions: read-only users read but do not change', async () => {
    const reader = await createUserWithRole(server.url, { role: 'read-only' });
    expect((await raw(server.url, 'GET', `${EP}/webhook/configurations`, { auth: authOf(reader) })).status).toBe(200);
    expectError(await json(server.url, 'POST', `${EP}/webhook/configurations`, { url: 'https://example.com/x' }, authOf(reader)), 403, 'forbidden');
    expectError(await json(server.url, 'POST', `${EP}/webhook/test`, { url: 'https://example.com/x' }, authOf(reader)), 403, 'forbidden');
  });
});

describe('selectors', () => {
  it('adds, reads, lists, updates and deletes selectors; the account-wide list shows them all', async () => {
    const c = await create('webhook', { url: `${http.url}/selectors` });
    const base = `${EP}/webhook/configurations/${c.uuid}/selectors`;
    const added = await json(server.url, 'POST', base, SELECTOR);
    expect(added.json).toMatchObject({ ...SELECTOR, configuration_uuid: c.uuid });
    const one = `${EP}/webhook/configurations/${c.uuid}/selectors/${added.json.uuid}`;
    expect((await raw(server.url, 'GET', one)).json).toEqual(added.json);
    expect((await raw(server.url, 'GET', base)).json).toEqual([added.json]);
    const changed = await json(server.url, 'PUT', one, { scope: 'global', event: { level: 'error', resource_type: '*', type: 'user.image.*' } });
    expect(changed.json).toMatchObject({ scope: 'global', event: { level: 'error', resource_type: '*', type: 'user.image.*' } });
    expect((await raw(server.url, 'GET', '/v2/notifications/selectors')).json.map((s: { uuid: string }) => s.uuid)).toContain(added.json.uuid);
    expect((await json(server.url, 'DELETE', one, undefined)).status).toBe(200);
    expectError(await raw(server.url, 'GET', one), 404, 'not_found');
  });

  it('refuses bad selectors, global scope outside the admin account, and unknown ids', async () => {
    const c = await create('webhook', { url: `${http.url}/bad-selectors` });
    const base = `${EP}/webhook/configurations/${c.uuid}/selectors`;
    expectValidationError(await json(server.url, 'POST', base, { scope: 'everywhere', event: SELECTOR.event }), ['body.scope']);
    expectValidationError(await json(server.url, 'POST', base, { scope: 'account' }), ['body.event']);
    expectValidationError(await json(server.url, 'POST', base, { scope: 'account', event: { ...SELECTOR.event, level: 'warn' } }), ['body.event.level']);
    expectValidationError(await json(server.url, 'POST', base, { scope: 'account', event: { ...SELECTOR.event, type: 'User Events!' } }), ['body.event.type']);
    await expectBodyRejections(server.url, 'POST', base, SELECTOR);
    expectError(await json(server.url, 'POST', `${EP}/webhook/configurations/${NO_SUCH}/selectors`, SELECTOR), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${base}/${NO_SUCH}`), 404, 'not_found');
    expectError(await json(server.url, 'PUT', `${base}/${NO_SUCH}`, SELECTOR), 404, 'not_found');
    expectError(await json(server.url, 'DELETE', `${base}/${NO_SUCH}`, undefined), 404, 'not_found');

    const user = await createUserWithRole(server.url, { role: 'full-control' });
    const theirs = await create('webhook', { url: `${http.url}/theirs` }, authOf(user));
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/configurations/${theirs.uuid}/selectors`, { ...SELECTOR, scope: 'global' }, authOf(user)), ['body.scope']);
  });
});

describe('delivery in each kind format', () => {
  it('posts Slack Block Kit messages to a Slack configuration', async () => {
    const c = await create('slack', { url: `${http.url}/services/T1/B1/slacktoken` });
    await json(server.url, 'POST', `${EP}/slack/configurations/${c.uuid}/selectors`, SELECTOR);
    await feedFailed('slack-feed');
    const r = await http.waitFor((q) => q.path === '/services/T1/B1/slacktoken');
    expect(typeof r.json.text).toBe('string');
    expect(r.json.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    expect(r.json.blocks.some((b: { type: string }) => b.type === 'section')).toBe(true);
    expect(r.body).toContain('slack-feed');
  });

  it('posts an Adaptive Card message to a Teams configuration', async () => {
    const c = await create('teams', { url: `${http.url}/workflows/teams?sig=teamssig` });
    await json(server.url, 'POST', `${EP}/teams/configurations/${c.uuid}/selectors`, SELECTOR);
    await feedFailed('teams-feed');
    const r = await http.waitFor((q) => q.path === '/workflows/teams?sig=teamssig');
    expect(r.json).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard' } }] });
    expect(r.json.attachments[0].content.body.some((b: { type: string }) => b.type === 'FactSet')).toBe(true);
    expect(r.body).toContain('teams-feed');
  });

  it('sends e-mail through the SMTP server, authenticated', async () => {
    const c = await create('smtp', { host: '127.0.0.1', port: smtp.port, use_tls: false, username: 'mailer', password: 'smtp-pass-word', from: 'Vigil <vigil@example.com>', to: 'ops@example.com, sec@example.com' });
    expect(c.password).toBeUndefined();
    await json(server.url, 'POST', `${EP}/smtp/configurations/${c.uuid}/selectors`, SELECTOR);
    const settled = nextSettled(server, (s) => s.configurationUuid === c.uuid);
    await feedFailed('mail-feed');
    const mail = await smtp.waitFor((m) => m.raw.includes('mail-feed'));
    expect(mail.user).toBe('mailer');
    expect(mail.from).toBe('vigil@example.com');
    expect(mail.to.sort()).toEqual(['ops@example.com', 'sec@example.com']);
    const parsed = await PostalMime.parse(mail.raw);
    expect(parsed.subject).toMatch(/^\[Vigil\]/);
    expect(parsed.text).toContain('mail-feed');
    expect(parsed.html).toContain('mail-feed');
    expect(await settled).toMatchObject({ state: 'delivered' });
    const [delivery] = (await raw(server.url, 'GET', `${EP}/smtp/configurations/${c.uuid}/deliveries`)).json.items;
    expect(delivery.state).toBe('delivered');
    const [receipt] = (await raw(server.url, 'GET', `${EP}/smtp/configurations/${c.uuid}/deliveries/${delivery.notification_id}/receipts`)).json.items;
    expect(receipt).toMatchObject({ success: true, http_status: null, smtp_response: expect.stringMatching(/^250/) });
  });
});

describe('tests of a configuration', () => {
  it('tests an unsaved configuration of each kind and says what the receiver answered', async () => {
    expect((await json(server.url, 'POST', `${EP}/webhook/test?notification_type=vuln_update`, { url: `${http.url}/unsaved`, signing_secret: 'unsaved-signing-secret' })).json).toMatchObject({ status: 'success' });
    const r = await http.waitFor((q) => q.path === '/unsaved');
    expect(r.json.data.notification_type).toBe('vuln_update');
    expect(verifySignature(r.body, 'unsaved-signing-secret', r.headers['x-vigil-signature'] as string)).toBe(true);
    expect((await json(server.url, 'POST', `${EP}/webhook/test`, { url: `${http.url}/unsigned` })).json.status).toBe('success');
    expect((await http.waitFor((q) => q.path === '/unsigned')).headers['x-vigil-signature']).toBeUndefined();
    expect((await json(server.url, 'POST', `${EP}/slack/test`, { url: `${http.url}/unsaved-slack` })).json.status).toBe('success');
    expect((await json(server.url, 'POST', `${EP}/teams/test?notification_type=policy_eval`, { url: `${http.url}/unsaved-teams` })).json.status).toBe('success');
    const mail = await json(server.url, 'POST', `${EP}/smtp/test`, { host: '127.0.0.1', port: smtp.port, use_tls: false, username: 'mailer', password: 'smtp-pass-word', from: 'vigil@example.com', to: 'test@example.com' });
    expect(mail.json).toMatchObject({ status: 'success', response: expect.stringMatching(/^250/) });
  });

  it('reports a failing receiver as failure and marks a stored configuration unhealthy', async () => {
    http.respondWith((q) => (q.path.startsWith('/failing') ? { status: 503, body: `down for maintenance at ${q.path}` } : { status: 200, body: 'ok' }));
    try {
      const c = await create('webhook', { url: `${http.url}/failing/hook-secret-path` });
      expect((await raw(server.url, 'GET', `${EP}/webhook/configurations/${c.uuid}/status`)).json.status).toBe('unknown');
      const test = await raw(server.url, 'GET', `${EP}/webhook/configurations/${c.uuid}/test`);
      expect(test.json.status).toBe('failure');
      expect(test.json.response).toMatch(/503/);
      expect(test.text).not.toContain('hook-secret-path');
      expect((await raw(server.url, 'GET', `${EP}/webhook/configurations/${c.uuid}/status`)).json).toMatchObject({ status: 'unhealthy', last_error: expect.stringMatching(/503/) });
    } finally {
      http.respondWith(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('refuses bad test bodies and sample types', async () => {
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/test`, {}), ['body.url']);
    expectValidationError(await json(server.url, 'POST', `${EP}/webhook/test?notification_type=everything`, { url: 'https://example.com/x' }), ['query.notification_type']);
    expectValidationError(await json(server.url, 'POST', `${EP}/smtp/test`, { host: 'h', port: 25, from: 'x', to: 'y@example.com' }), ['body.from']);
    await expectBodyRejections(server.url, 'POST', `${EP}/teams/test`, { url: 'https://example.com/x' });
  });
});
