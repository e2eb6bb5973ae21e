/**
 * A Vigil process killed (SIGKILL) while a webhook receiver holds its delivery leaves the notification claimed;
 * the next process on the same data sends it again at once (not after the claim's lease), it is delivered, and
 * it stays delivered: one success, the same notification id both times, nothing lost.
 *
 * The receiver holds the first request without answering; the test learns the delivery is in progress from the
 * request arriving (an event), then kills the process. Every wait is bounded.
 */
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../support/db.js';
import { json, raw } from '../support/http.js';
import { closeServer, listenOnLoopback } from '../support/receivers.js';
import { freePort } from '../support/registry.js';
import { startVigil, stopVigil, within, type VigilChild } from '../support/vigil-process.js';

const BASE = '/v2/notifications/endpoints/webhook/configurations';
const ENV = { VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20', VIGIL_FEED_SYNC_SCHEDULE: 'off' };

/** Holds every request until `answer` is set; then answers it (and later ones) with 200. */
class HoldingReceiver extends EventEmitter {
  readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      this.seen.push({ id: String(req.headers['x-vigil-notification-id']), body });
      this.emit('request');
      if (this.answer) res.end('ok');
      else this.held.push(res);
    });
  });
  readonly seen: { id: string; body: string }[] = [];
  private held: http.ServerResponse[] = [];
  answer = false;
  url = '';

  async listen(): Promise<void> {
    this.url = await listenOnLoopback(this.server);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

let scratch: ScratchDatabase;
let receiver: HoldingReceiver;
const children: VigilChild[] = [];

beforeAll(async () => {
  scratch = await createScratchDatabase();
  receiver = new HoldingReceiver();
  await receiver.listen();
});
afterAll(async () => {
  for (const c of children) await stopVigil(c, 'SIGKILL');
  await receiver?.close();
  await scratch?.drop();
}, 30_000);

describe('a Vigil process killed while delivering a notification', () => {
  it('is delivered by the next process at once, exactly once successfully, under the same id', async () => {
    const first = await startVigil(scratch, ENV);
    children.push(first);
    const created = await json(first.url, 'POST', BASE, { url: `${receiver.url}/hook`, signing_secret: 'crash-test-signing-secret' });
    expect(created.status).toBe(200);
    const uuid = created.json.uuid as string;
    const selector = { scope: 'account', event: { level: 'error', resource_type: '*', type: 'system.image_analysis.registry_lookup_failed' } };
    expect((await json(first.url, 'POST', `${BASE}/${uuid}/selectors`, selector)).status).toBe(200);

    // A lookup in a registry that is not there records the event (and so queues the notification) at once.
    const arrived = within(10_000, 'the first delivery to reach the receiver', once(receiver, 'request'));
    const port = await freePort();
    const added = await json(first.url, 'POST', '/v2/images', { source: { tag: { pull_string: `127.0.0.1:${port}/gone/app:1.0` } } });
    expect(added.status).toBeGreaterThanOrEqual(400);
    await arrived;
    const [during] = (await raw(first.url, 'GET', `${BASE}/${uuid}/deliveries`)).json.items;
    expect(during).toMatchObject({ state: 'delivering', tries: 0 });

    first.proc.kill('SIGKILL');
    await within(5_000, 'the killed process to exit', first.exited);

    receiver.answer = true;
    const again = within(10_000, 'the delivery to be sent again', once(receiver, 'request'));
    const second = await startVigil(scratch, ENV);
    children.push(second);
    await again;
    let delivery: { state: string; tries: number; notification_id: string } | undefined;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      [delivery] = (await raw(second.url, 'GET', `${BASE}/${uuid}/deliveries`)).json.items;
      if (delivery?.state === 'delivered') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(delivery).toMatchObject({ state: 'delivered', tries: 1 });
    expect(receiver.seen.map((s) => s.id)).toEqual([delivery!.notification_id, delivery!.notification_id]);
    const receipts = (await raw(second.url, 'GET', `${BASE}/${uuid}/deliveries/${delivery!.notification_id}/receipts`)).json.items;
    expect(receipts).toEqual([expect.objectContaining({ attempt: 1, success: true, http_status: 200 })]);
    await stopVigil(second, 'SIGTERM');
  });
});
