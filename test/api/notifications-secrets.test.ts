/**
 * Secrets of notification configurations (webhook URL tokens and passwords, signing secrets, Slack and Teams
 * URLs, SMTP passwords) appear in no response and no log line, through successful and failing deliveries,
 * tests, updates and listings alike. Every log line of the server is captured at debug level and searched.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/events.js';
import type { SettledNotification } from '../../src/notifications/dispatcher.js';
import { json, raw, type RawResponse } from '../support/http.js';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../support/receivers.js';
import { startTestServer, type TestServer } from '../support/server.js';

const EP = '/v2/notifications/endpoints';
const SECRETS = {
  webhookPath: 'whk-PATH-s3cr3t-41',
  webhookQuery: 'whk-QUERY-s3cr3t-42',
  webhookPassword: 'whk-PASSWORD-s3cr3t-43',
  signing: 'whk-SIGNING-s3cr3t-44-long-enough',
  slackPath: 'slk-PATH-s3cr3t-45',
  teamsQuery: 'tms-QUERY-s3cr3t-46',
  smtpPassword: 'smtp-PASSWORD-s3cr3t-47',
  wrongSmtpPassword: 'smtp-WRONG-s3cr3t-48',
};
const SELECTOR = { scope: 'account', event: { level: '*', resource_type: '*', type: 'system.feeds.sync.feed_failed' } };

let logText = '';
const logs = new Writable({
  write(chunk, _enc, done) {
    logText += chunk.toString();
    done();
  },
});
const responses: RawResponse[] = [];
let server: TestServer;
let receiver: HttpReceiver;
let smtp: SmtpReceiver;

async function call(method: string, path: string, body?: unknown): Promise<RawResponse> {
  const res = body === undefined ? await raw(server.url, method, path) : await json(server.url, method, path, body);
  responses.push(res);
  return res;
}

beforeAll(async () => {
  // The receiver echoes what it was sent (path, query, auth header) into its answer, as careless servers do.
  receiver = await startHttpReceiver({
    responder: (r) => (r.path.includes('fail') ? { status: 500, body: `error at ${r.path} auth=${r.headers.authorization ?? ''}` } : { status: 200, body: `ok ${r.path}` }),
  });
  smtp = await startSmtpReceiver({ user: { username: 'mailer', password: SECRETS.smtpPassword } });
  server = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20', VIGIL_NOTIFY_MAX_TRIES: '2', VIGIL_NOTIFY_BACKOFF_BASE_MS: '10' }, { logs });
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await smtp?.close();
});

describe('secrets of notification configurations', () => {
  it('appear in no response and no log line', async () => {
    const configs = [
      ['webhook', { url: `${receiver.url}/ok/${SECRETS.webhookPath}?token=${SECRETS.webhookQuery}`, username: 'u', password: SECRETS.webhookPassword, signing_secret: SECRETS.signing }],
      ['webhook', { url: `${receiver.url}/fail/${SECRETS.webhookPath}?token=${SECRETS.webhookQuery}`, username: 'u', password: SECRETS.webhookPassword, signing_secret: SECRETS.signing }],
      ['slack', { url: `${receiver.url}/fail/services/${SECRETS.slackPath}` }],
      ['teams', { url: `${receiver.url}/ok/teams?sig=${SECRETS.teamsQuery}` }],
      ['smtp', { host: '127.0.0.1', port: smtp.port, use_tls: false, username: 'mailer', password: SECRETS.smtpPassword, from: 'v@example.com', to: 'o@example.com' }],
      ['smtp', { host: '127.0.0.1', port: smtp.port, use_tls: false, username: 'mailer', password: SECRETS.wrongSmtpPassword, from: 'v@example.com', to: 'o@example.com' }],
    ] as const;
    const uuids: [string, string][] = [];
    for (const [kind, body] of configs) {
      const created = await call('POST', `${EP}/${kind}/configurations`, body);
      expect(created.status).toBe(200);
      uuids.push([kind, created.json.uuid]);
      await call('POST', `${EP}/${kind}/configurations/${created.json.uuid}/selectors`, SELECTOR);
      await call('POST', `${EP}/${kind}/test`, body);
    }

    // One event for all six; wait until each notification has settled (delivered, or failed after its tries).
    const dispatcher = server.running.services.notifications.dispatcher;
    const settled = new Promise<void>((resolve) => {
      let n = 0;
      dispatcher.on('settled', (_s: SettledNotification) => {
        if (++n === uuids.length) resolve();
      });
    });
    await recordEvent(server.running.services.db, { accountName: 'admin', type: 'system.feeds.sync.feed_failed', resourceType: 'feed', resourceId: 'osv', details: {} });
    await settled;

    for (const [kind, uuid] of uuids) {
      const base = `${EP}/${kind}/configurations/${uuid}`;
      const got = await call('GET', base);
      await call('PUT', base, got.json); // sends back the redacted form: keeps the stored secrets
      await call('GET', `${base}/test`);
      await call('GET', `${base}/status`);
      const deliveries = await call('GET', `${base}/deliveries`);
      for (const d of deliveries.json.items) {
        await call('GET', `${base}/deliveries/${d.notification_id}`);
        await call('GET', `${base}/deliveries/${d.notification_id}/receipts`);
      }
      await call('GET', `${EP}/${kind}/configurations`);
    }

    // The failing ones did fail (so their error paths ran), and the working ones delivered.
    const states = await Promise.all(uuids.map(async ([kind, uuid]) => (await raw(server.url, 'GET', `${EP}/${kind}/configurations/${uuid}/deliveries`)).json.items[0].state));
    expect(states).toEqual(['delivered', 'failed', 'failed', 'delivered', 'delivered', 'failed']);
    expect(logText).toMatch(/notification failed; no more tries/);
    expect(logText).toMatch(/notification delivered/);

    const bodies = responses.map((r) => r.text).join('\n');
    for (const [name, secret] of Object.entries(SECRETS)) {
      expect(bodies.includes(secret), `${name} in a response`).toBe(false);
      expect(logText.includes(secret), `${name} in the log`).toBe(false);
    }
    // Nor in the forms they travel in: Basic auth of the webhook, AUTH PLAIN of SMTP.
    for (const encoded of [Buffer.from(`u:${SECRETS.webhookPassword}`).toString('base64'), Buffer.from(`\0mailer\0${SECRETS.wrongSmtpPassword}`).toString('base64')]) {
      expect(bodies.includes(encoded)).toBe(false);
      expect(logText.includes(encoded)).toBe(false);
    }
  });
});
