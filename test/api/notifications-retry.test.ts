/**
 * Delivery when the receiver is down: tries with backoff, failed after the last, delivered once on replay; and a
 * restart of the service in the middle of the retries loses nothing and sends nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/events.js';
import type { SettledNotification } from '../../src/notifications/dispatcher.js';
import { retryDelayMs } from '../../src/notifications/dispatcher.js';
import { createReusableStore } from '../support/auth-fixtures.js';
import { expectError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { startHttpReceiver, type HttpReceiver } from '../support/receivers.js';
import { nextSettled } from '../support/notifications.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BASE = '/v2/notifications/endpoints/webhook/configurations';

/** A port nothing listens on: a receiver's, closed again (connections to it are refused). */
async function closedPort(): Promise<number> {
  const r = await startHttpReceiver();
  await r.close();
  return r.port;
}

async function webhookFor(server: TestServer, url: string): Promise<string> {
  const created = await json(server.url, 'POST', BASE, { url, signing_secret: 'retry-test-signing-secret' });
  expect(created.status).toBe(200);
  const selector = await json(server.url, 'POST', `${BASE}/${created.json.uuid}/selectors`, { scope: 'account', event: { level: 'error', resource_type: 'feed', type: 'system.feeds.sync.*' } });
  expect(selector.status).toBe(200);
  return created.json.uuid;
}

/** An event the selector matches, recorded as the feed sync records it. */
async function feedFailedEvent(server: TestServer, feed: string): Promise<void> {
  await recordEvent(server.running.services.db, { accountName: 'admin', type: 'system.feeds.sync.feed_failed', resourceType: 'feed', resourceId: feed, details: { error: 'test' } });
}


describe('retries, failure and replay', () => {
  let server: TestServer;
  let port: number;
  let receiver: HttpReceiver | undefined;
  let configUuid: string;

  beforeAll(async () => {
    port = await closedPort();
    server = await startTestServer({
      VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32',
      VIGIL_NOTIFY_POLL_MS: '20',
      VIGIL_NOTIFY_MAX_TRIES: '3',
      VIGIL_NOTIFY_BACKOFF_BASE_MS: '30',
    });
    configUuid = await webhookFor(server, `http://127.0.0.1:${port}/hook`);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('tries max_tries times with growing delays, then marks the notification failed', async () => {
    const done = nextSettled(server);
    await feedFailedEvent(server, 'osv');
    const outcome = await done;
    expect(outcome).toMatchObject({ state: 'failed', tries: 3 });
    const list = await raw(server.url, 'GET', `${BASE}/${configUuid}/deliveries?state=failed`);
    expect(list.json.items).toHaveLength(1);
    const delivery = list.json.items[0];
    expect(delivery).toMatchObject({ state: 'failed', tries: 3, max_tries: 3, next_attempt_at: null, notification_type: 'event', event_type: 'system.feeds.sync.feed_failed' });
    expect(delivery.last_error).toBe(`unreachable: cannot reach 127.0.0.1:${port}: the address is not allowed or did not answer`);
    const receipts = (await raw(server.url, 'GET', `${BASE}/${configUuid}/deliveries/${delivery.notification_id}/receipts`)).json.items;
    expect(receipts.map((r: { attempt: number; success: boolean }) => [r.attempt, r.success])).toEqual([[1, false], [2, false], [3, false]]);
    // Backoff: the second gap is at least the first delay's lower bound doubled (equal jitter keeps half of it).
    const times = receipts.map((r: { attempted_at: string }) => Date.parse(r.attempted_at));
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(15);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(30);
    expect((await raw(server.url, 'GET', `${BASE}/${configUuid}/status`)).json).toMatchObject({ status: 'unhealthy', last_error: expect.stringMatching(/^unreachable: cannot reach /) });
  });

  it('a replay of the failed notification is delivered once when the receiver is back, with the same id', async () => {
    receiver = await startHttpReceiver({ port });
    const [failed] = (await raw(server.url, 'GET', `${BASE}/${configUuid}/deliveries?state=failed`)).json.items;
    const done = nextSettled(server);
    const replay = await raw(server.url, 'POST', `${BASE}/${configUuid}/deliveries/${failed.notification_id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ notification_id: failed.notification_id, state: 'pending', tries: 0, replays: 1 });
    expect(await done).toMatchObject({ id: failed.notification_id, state: 'delivered', tries: 1 });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers['x-vigil-notification-id']).toBe(failed.notification_id);
    const receipts = (await raw(server.url, 'GET', `${BASE}/${configUuid}/deliveries/${failed.notification_id}/receipts`)).json.items;
    expect(receipts.map((r: { success: boolean }) => r.success)).toEqual([false, false, false, true]);
    expect((await raw(server.url, 'GET', `${BASE}/${configUuid}/status`)).json.status).toBe('healthy');
  });

  it('refuses to replay a notification that is still queued, and one that does not exist', async () => {
    // A node that queues but does not deliver (VIGIL_NOTIFICATIONS_DISPATCHER=false) keeps the notification pending.
    const quiet = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFICATIONS_DISPATCHER: 'false' });
    try {
      const uuid = await webhookFor(quiet, `http://127.0.0.1:${port}/hook`);
      await feedFailedEvent(quiet, 'queued');
      const [queued] = (await raw(quiet.url, 'GET', `${BASE}/${uuid}/deliveries?state=pending`)).json.items;
      expectError(await raw(quiet.url, 'POST', `${BASE}/${uuid}/deliveries/${queued.notification_id}/replay`), 409, 'conflict');
      expectError(await raw(quiet.url, 'POST', `${BASE}/${uuid}/deliveries/00000000-0000-4000-8000-000000000000/replay`), 404, 'not_found');
      expectError(await raw(quiet.url, 'GET', `${BASE}/${uuid}/deliveries/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
      expectError(await raw(quiet.url, 'GET', `${BASE}/${uuid}/deliveries?state=lost`), 400, 'validation_error');
      expectError(await raw(quiet.url, 'GET', `${BASE}/${uuid}/deliveries?limit=0`), 400, 'validation_error');
      // The same notification under another kind's path is not found: configurations are per kind.
      expectError(await raw(quiet.url, 'GET', `/v2/notifications/endpoints/slack/configurations/${uuid}/deliveries/${queued.notification_id}`), 404, 'not_found');
    } finally {
      await quiet.close();
    }
  });

  it('fails a refused address exactly like a receiver that is down: same error, same retries', async () => {
    // Only the name localhost is allowed: 127.0.0.1 is refused before connecting; localhost:<closed port> refuses the connection.
    const strict = await startTestServer({ VIGIL_OUTBOUND_ALLOW: 'localhost', VIGIL_NOTIFY_POLL_MS: '20', VIGIL_NOTIFY_MAX_TRIES: '2', VIGIL_NOTIFY_BACKOFF_BASE_MS: '10' });
    const closed = await closedPort();
    try {
      const refused = await webhookFor(strict, `http://127.0.0.1:${closed}/hook`);
      const down = await webhookFor(strict, `http://localhost:${closed}/hook`);
      const failed = (uuid: string) => nextSettled(strict, (s) => s.configurationUuid === uuid && s.state === 'failed');
      const done = Promise.all([failed(refused), failed(down)]);
      await feedFailedEvent(strict, 'osv');
      const [byPolicy, byReceiver] = await done;
      expect(byPolicy.tries).toBe(2);
      expect(byReceiver.tries).toBe(2);
      const lastError = async (uuid: string) => (await raw(strict.url, 'GET', `${BASE}/${uuid}/deliveries`)).json.items[0].last_error as string;
      expect(await lastError(refused)).toBe(`unreachable: cannot reach 127.0.0.1:${closed}: the address is not allowed or did not answer`);
      expect(await lastError(down)).toBe(`unreachable: cannot reach localhost:${closed}: the address is not allowed or did not answer`);
    } finally {
      await strict.close();
    }
  });
});

describe('a restart in the middle of the retries', () => {
  it('delivers each queued notification exactly once after the restart', async () => {
    const store = await createReusableStore();
    const port = await closedPort();
    // Retries far apart, so the restart surely lands between two tries.
    const env = { ...store.env, VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20', VIGIL_NOTIFY_MAX_TRIES: '5', VIGIL_NOTIFY_BACKOFF_BASE_MS: '400' };
    let receiver: HttpReceiver | undefined;
    try {
      const first = await startTestServer(env);
      let configUuid: string;
      try {
        configUuid = await webhookFor(first, `http://127.0.0.1:${port}/hook`);
        const attempts: SettledNotification[] = [];
        const twoFailed = new Promise<void>((resolve) =>
          first.running.services.notifications.dispatcher.on('attempt', (a: SettledNotification) => {
            attempts.push(a);
            if (attempts.length === 2) resolve();
          }),
        );
        await feedFailedEvent(first, 'one');
        await feedFailedEvent(first, 'two');
        await twoFailed;
        expect(attempts.map((a) => a.state)).toEqual(['pending', 'pending']);
      } finally {
        await first.close();
      }

      receiver = await startHttpReceiver({ port });
      const second = await startTestServer(env);
      try {
        const delivered = new Set<string>();
        await new Promise<void>((resolve) =>
          second.running.services.notifications.dispatcher.on('settled', (s: SettledNotification) => {
            if (s.state === 'delivered') delivered.add(s.id);
            if (delivered.size === 2) resolve();
          }),
        );
        const items = (await raw(second.url, 'GET', `${BASE}/${configUuid}/deliveries`)).json.items;
        expect(items.map((d: { state: string; tries: number }) => [d.state, d.tries])).toEqual([
          ['delivered', 2],
          ['delivered', 2],
        ]);
        const ids = receiver.requests.map((r) => r.headers['x-vigil-notification-id']);
        expect(ids.sort()).toEqual([...delivered].sort());
      } finally {
        await second.close();
      }
    } finally {
      await receiver?.close();
      await store.cleanup();
    }
  });
});

describe('waking the dispatcher', () => {
  it('sends a notification as soon as its event commits, without waiting for the next poll', async () => {
    const receiver = await startHttpReceiver();
    // A poll interval far beyond the test timeout: only the wake-up from the committed event can deliver in time.
    const server = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '60000' });
    try {
      await webhookFor(server, `${receiver.url}/prompt`);
      const done = nextSettled(server);
      await feedFailedEvent(server, 'prompt');
      expect(await done).toMatchObject({ state: 'delivered', tries: 1 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});

describe('retryDelayMs', () => {
  it('doubles per try, keeps at least half of each delay, and is capped', () => {
    expect([1, 2, 3, 4].map((t) => retryDelayMs(t, 100, 10_000, () => 0))).toEqual([50, 100, 200, 400]);
    expect([1, 2, 3, 4].map((t) => retryDelayMs(t, 100, 10_000, () => 1))).toEqual([100, 200, 400, 800]);
    expect(retryDelayMs(30, 100, 10_000, () => 1)).toBe(10_000);
  });
});
