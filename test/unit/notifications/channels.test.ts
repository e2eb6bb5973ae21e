/**
 * The four channels against real receivers on loopback: an HTTP server standing in for webhook receivers,
 * Slack and Teams, and smtp-server standing in for a mail relay.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import PostalMime from 'postal-mime';
import { OutboundPolicy } from '../../../src/outbound/policy.js';
import type { DeliveryOptions, DeliveryOutcome, SmtpTarget } from '../../../src/notifications/types.js';
import { verifySignature, webhookChannel } from '../../../src/notifications/channels/webhook.js';
import { slackChannel } from '../../../src/notifications/channels/slack.js';
import { teamsChannel } from '../../../src/notifications/channels/teams.js';
import { smtpChannel } from '../../../src/notifications/channels/smtp.js';
import { TAG, finding, notification, vulnUpdate } from './message-fixtures.js';
import { closeServer, listenOnLoopback } from '../../support/receivers.js';

const allowLoopback: DeliveryOptions = { policy: OutboundPolicy.parse('127.0.0.1'), maxResponseBytes: 4096, userAgent: 'Vigil/test' };
const defaultPolicy: DeliveryOptions = { ...allowLoopback, policy: OutboundPolicy.parse(null) };
const message = vulnUpdate([finding('CVE-2024-1', 'Critical')]);

/** Neither the target's URL path or query nor its password may appear anywhere in an outcome. */
function expectNoSecrets(outcome: DeliveryOutcome, ...secrets: string[]): void {
  const text = JSON.stringify(outcome);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

function expectShape(outcome: DeliveryOutcome): void {
  expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
  expect(Buffer.byteLength(outcome.response)).toBeLessThanOrEqual(1024);
}

describe('HTTP channels', () => {
  interface Received {
    url: string;
    headers: IncomingHttpHeaders;
    body: string;
  }
  const received: Received[] = [];
  /** path → [status, body]; an unknown path never gets an answer (for the timeout test). */
  const answers: Record<string, [number, string]> = {
    '/hook/tok-webhook': [200, 'received'],
    '/services/T000/B000/tokSlackSecret': [200, 'ok'],
    '/workflows/run?sig=tokTeamsSecret': [202, ''],
    '/relay/tokRelay': [200, 'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0'],
    '/fail500/tok500': [500, 'upstream down'],
    '/fail404/tok404': [404, 'no_service'],
    '/fail429/tok429': [429, 'rate_limited'],
    '/fail410/tok410': [410, 'channel_is_archived'],
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[req.url ?? ''];
      if (answer) res.writeHead(answer[0], { 'Content-Type': 'text/plain' }).end(answer[1]);
    });
  });
  let base = '';

  beforeAll(async () => {
    base = await listenOnLoopback(server);
  });
  afterAll(() => closeServer(server));

  const lastRequest = () => received[received.length - 1];
  const web = (path: string) => ({ url: `${base}${path}`, verifyTls: true, timeoutMs: 2000 });

  it('webhook: signed NotificationBase body, attempt and id headers, Basic auth', async () => {
    const target = { kind: 'webhook' as const, ...web('/hook/tok-webhook'), username: 'hookuser', password: 'hookPassw0rd', signingSecret: 'sign-key' };
    const outcome = await webhookChannel.deliver(target, message, { ...allowLoopback, attempt: { tries: 3, maxTries: 5 } });
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200, smtpResponse: null, response: 'HTTP 200: received', error: null, retryable: false });
    expectShape(outcome);
    const request = lastRequest();
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Vigil/test',
      'x-vigil-notification-id': 'ntf-0001',
      'x-vigil-notification-type': 'vuln_update',
      'x-vigil-delivery-attempt': '3',
      authorization: `Basic ${Buffer.from('hookuser:hookPassw0rd').toString('base64')}`,
    });
    expect(verifySignature(request.body, 'sign-key', request.headers['x-vigil-signature'] as string)).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({ data_id: 'ntf-0001', tries: 3, max_tries: 5, data: { notification_type: 'vuln_update' } });
    expectNoSecrets(outcome, 'tok-webhook', 'hookPassw0rd');
  });

  it('webhook: first attempt and no Authorization when no username is set', async () => {
    const target = { kind: 'webhook' as const, ...web('/hook/tok-webhook'), username: null, password: null, signingSecret: 'k' };
    expect((await webhookChannel.deliver(target, message, allowLoopback)).ok).toBe(true);
    expect(lastRequest().headers['x-vigil-delivery-attempt']).toBe('1');
    expect(lastRequest().headers.authorization).toBeUndefined();
    expect(JSON.parse(lastRequest().body)).toMatchObject({ tries: 1, max_tries: 1 });
  });

  it('slack: Block Kit body, Slack answers ok', async () => {
    const outcome = await slackChannel.deliver({ kind: 'slack', ...web('/services/T000/B000/tokSlackSecret') }, message, allowLoopback);
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200, response: 'HTTP 200: ok' });
    const body = JSON.parse(lastRequest().body);
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { text: `Vulnerabilities changed in ${TAG}` } });
    expectNoSecrets(outcome, 'tokSlackSecret', 'T000/B000');
  });

  it('slack: 404 no_service and 410 channel_is_archived are final failures with the answer shown', async () => {
    for (const [path, status, code] of [['/fail404/tok404', 404, 'no_service'], ['/fail410/tok410', 410, 'channel_is_archived']] as const) {
      const outcome = await slackChannel.deliver({ kind: 'slack', ...web(path) }, message, allowLoopback);
      expect(outcome).toMatchObject({ ok: false, httpStatus: status, retryable: false, response: `HTTP ${status}: ${code}` });
      expectNoSecrets(outcome, path);
    }
  });

  it('teams: Adaptive Card message, Workflows answer 202', async () => {
    const outcome = await teamsChannel.deliver({ kind: 'teams', ...web('/workflows/run?sig=tokTeamsSecret') }, message, allowLoopback);
    expect(outcome).toMatchObject({ ok: true, httpStatus: 202, retryable: false });
    expect(JSON.parse(lastRequest().body).attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expectNoSecrets(outcome, 'tokTeamsSecret', '/workflows/run');
  });

  it('teams: a connector relay failure hidden in a 200 is a retryable failure', async () => {
    const outcome = await teamsChannel.deliver({ kind: 'teams', ...web('/relay/tokRelay') }, message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, httpStatus: 200, retryable: true, error: 'Teams refused the message with HTTP 429' });
  });

  it('classifies failures: 5xx and 429 retryable, 4xx final', async () => {
    const outcomeOf = (path: string) => teamsChannel.deliver({ kind: 'teams', ...web(path) }, message, allowLoopback);
    expect(await outcomeOf('/fail500/tok500')).toMatchObject({ ok: false, httpStatus: 500, retryable: true, response: 'HTTP 500: upstream down', error: 'receiver answered HTTP 500' });
    expect(await outcomeOf('/fail429/tok429')).toMatchObject({ ok: false, httpStatus: 429, retryable: true });
    expect(await outcomeOf('/fail404/tok404')).toMatchObject({ ok: false, httpStatus: 404, retryable: false });
  });

  it('a receiver that does not answer in time is unreachable, retryable', async () => {
    const outcome = await webhookChannel.deliver(
      { kind: 'webhook', ...web('/silent/tokSilent'), timeoutMs: 200, username: null, password: null, signingSecret: 'k' },
      message,
      allowLoopback,
    );
    expect(outcome).toMatchObject({ ok: false, httpStatus: null, retryable: true });
    expect(outcome.error).toMatch(/^unreachable: cannot reach 127\.0\.0\.1:\d+: the address is not allowed or did not answer$/);
    expectNoSecrets(outcome, 'tokSilent');
  });

  it('an address the policy refuses is never contacted, and fails like an unreachable receiver', async () => {
    const before = received.length;
    const outcome = await slackChannel.deliver({ kind: 'slack', ...web('/services/T000/B000/tokSlackSecret') }, message, defaultPolicy);
    // retried like a receiver that is down (no traffic: it is never contacted), so the two look alike
    expect(outcome).toMatchObject({ ok: false, httpStatus: null, retryable: true });
    expect(outcome.error).toMatch(/^unreachable: cannot reach 127\.0\.0\.1:\d+: the address is not allowed or did not answer$/);
    expect(received.length).toBe(before);
    expectNoSecrets(outcome, 'tokSlackSecret');
  });

  it('a URL that is not http(s) is a final failure', async () => {
    const outcome = await slackChannel.deliver({ kind: 'slack', url: 'ftp://hooks.example/tokFtp', verifyTls: true, timeoutMs: 1000 }, message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(outcome.error).toMatch(/^bad_url: /);
    expectNoSecrets(outcome, 'tokFtp');
  });
});

describe('SMTP channel', () => {
  const PASSWORD = 'correct-horse-battery';
  const raw: Buffer[] = [];
  const sessions: SMTPServerSession[] = [];
  let connections = 0;

  /** Recipients steer the server: reject550@ is refused for good, busy451@ for now. */
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === PASSWORD) return callback(null, { user: 'mailer' });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const code = /^reject550@/.test(address.address) ? 550 : /^busy451@/.test(address.address) ? 451 : 0;
      if (code === 0) return callback();
      return callback(Object.assign(new Error(code === 550 ? 'No such user here' : 'Mailbox busy, try later'), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        raw.push(Buffer.concat(chunks));
        sessions.push(session);
        callback();
      });
    },
  });
  const silent = net.createServer(() => {}); // accepts and never greets
  let port = 0;
  let silentPort = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
    silentPort = (silent.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(resolve));
    await new Promise((resolve) => silent.close(resolve));
  });

  const target = (overrides: Partial<SmtpTarget> = {}): SmtpTarget => ({
    kind: 'smtp',
    host: '127.0.0.1',
    port,
    username: null,
    password: null,
    from: 'Vigil <vigil@acme.example>',
    to: 'ops@acme.example, sec@acme.example',
    useTls: false,
    verifyTls: true,
    timeoutMs: 2000,
    ...overrides,
  });

  it('sends the notification as a MIME message', async () => {
    const outcome = await smtpChannel.deliver(target(), message, allowLoopback);
    expect(outcome).toMatchObject({ ok: true, httpStatus: null, error: null, retryable: false });
    expect(outcome.smtpResponse).toMatch(/^250 /);
    expectShape(outcome);
    const email = await PostalMime.parse(raw[raw.length - 1]);
    expect(email.subject).toBe(`[Vigil] Vulnerabilities changed in ${TAG}`);
    expect(email.from).toMatchObject({ name: 'Vigil', address: 'vigil@acme.example' });
    expect(email.to?.map((a) => a.address)).toEqual(['ops@acme.example', 'sec@acme.example']);
    expect(email.messageId).toBe('<ntf-0001@vigil>');
    expect(email.text).toContain(TAG);
    expect(email.html).toContain('<table');
    const header = (name: string) => email.headers.find((h) => h.key === name)?.value;
    expect(header('x-vigil-notification-id')).toBe('ntf-0001');
    expect(header('x-mailer')).toBe('Vigil/test');
    expect(sessions[sessions.length - 1].hostNameAppearsAs).toBe('vigil');
  });

  it('logs in when a username is set', async () => {
    const outcome = await smtpChannel.deliver(target({ username: 'mailer', password: PASSWORD }), notification('test'), allowLoopback);
    expect(outcome.ok).toBe(true);
    expect(sessions[sessions.length - 1].user).toBe('mailer');
  });

  it('refused credentials: final, and the password appears nowhere', async () => {
    const wrong = 'wrong-Passw0rd-123';
    const outcome = await smtpChannel.deliver(target({ username: 'mailer', password: wrong }), message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(outcome.error).toMatch(/^EAUTH: /);
    expect(outcome.smtpResponse).toMatch(/^535 /);
    const base64 = (s: string) => Buffer.from(s).toString('base64');
    expectNoSecrets(outcome, wrong, base64(wrong), base64(`\u0000mailer\u0000${wrong}`));
  });

  it('a 5xx recipient rejection is final', async () => {
    const outcome = await smtpChannel.deliver(target({ to: 'reject550@acme.example' }), message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(outcome.smtpResponse).toMatch(/^550 /);
    expect(outcome.error).toContain('EENVELOPE');
  });

  it('a 4xx recipient rejection is retryable', async () => {
    const outcome = await smtpChannel.deliver(target({ to: 'busy451@acme.example' }), message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(outcome.smtpResponse).toMatch(/^451 /);
  });

  it('a refused connection is unreachable, retryable', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await smtpChannel.deliver(target({ port: closedPort }), message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(outcome.error).toMatch(/^unreachable: cannot reach 127\.0\.0\.1:\d+: the address is not allowed or did not answer$/);
  });

  it('a server that never greets is unreachable within the attempt timeout, retryable', async () => {
    const outcome = await smtpChannel.deliver(target({ port: silentPort, timeoutMs: 250 }), message, allowLoopback);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(outcome.error).toMatch(/^unreachable: cannot reach 127\.0\.0\.1:\d+: the address is not allowed or did not answer$/);
    expect(outcome.latencyMs).toBeLessThan(1500);
  });

  it('an address the policy refuses is never connected to, and fails like a closed port', async () => {
    const before = connections;
    const outcome = await smtpChannel.deliver(target(), message, defaultPolicy);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(outcome.error).toMatch(/^unreachable: cannot reach 127\.0\.0\.1:\d+: the address is not allowed or did not answer$/);
    expect(connections).toBe(before);
  });
});
