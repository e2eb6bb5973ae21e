/**
 * Two Vigil processes on one host, each its own node (VIGIL_HOST_ID) on one Postgres database, both dispatching
 * notifications. A process that starts sends again at once what earlier processes of its own node left claimed
 * (notifications-crash.test.ts), but never a delivery another live node has in flight: claims were once named by
 * the host name, so each start on a shared host took the other nodes' deliveries back and sent them twice.
 * Postgres only (*.pg.test.ts): two processes share the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/index.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/db.js';
import { json, raw } from '../support/http.js';
import { startHttpReceiver, type HttpReceiver } from '../support/receivers.js';
import { freePort } from '../support/registry.js';
import { pollUntil, startVigil, stopVigil, within, type VigilChild } from '../support/vigil-process.js';

const BASE = '/v2/notifications/endpoints/webhook/configurations';

let scratch: ScratchDatabase;
let db: Db;
let receiver: HttpReceiver;
const children: VigilChild[] = [];
const dataDirs: string[] = [];

async function startNode(hostId: string): Promise<VigilChild> {
  const dataDir = mkdtempSync(join(tmpdir(), `vigil-${hostId}-`));
  dataDirs.push(dataDir);
  const child = await startVigil(scratch, { VIGIL_HOST_ID: hostId, VIGIL_DATA_DIR: dataDir, VIGIL_NOTIFY_POLL_MS: '20', VIGIL_FEED_SYNC_SCHEDULE: 'off' });
  children.push(child);
  return child;
}

beforeAll(async () => {
  [scratch, receiver] = await Promise.all([createScratchDatabase(), startHttpReceiver()]);
  db = createDb({ databaseUrl: scratch.url, dataDir: scratch.dataDir });
});
afterAll(async () => {
  for (const c of children) await stopVigil(c, 'SIGKILL');
  await db?.destroy();
  await receiver?.close();
  await scratch?.drop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('a node starting on a host where another node is delivering a notification', () => {
  it('leaves that delivery to the other node: sent once', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const firstArrival = new Promise<void>((r) => (arrived = r));
    const arrivals: string[] = [];
    // The receiver holds every request until released: the first node's delivery stays in flight meanwhile.
    receiver.respondWith(async (req) => {
      arrivals.push(String(req.headers['x-vigil-notification-id']));
      arrived();
      await released;
      return { status: 200, body: 'ok' };
    });

    const first = await startNode('notify-node-1');
    const created = await json(first.url, 'POST', BASE, { url: `${receiver.url}/hook`, signing_secret: 'nodes-test-signing-secret' });
    expect(created.status).toBe(200);
    const selector = { scope: 'account', event: { level: 'error', resource_type: '*', type: 'system.image_analysis.registry_lookup_failed' } };
    expect((await json(first.url, 'POST', `${BASE}/${created.json.uuid}/selectors`, selector)).status).toBe(200);
    // A lookup in a registry that is not there records the event (and so queues the notification) at once.
    const added = await json(first.url, 'POST', '/v2/images', { source: { tag: { pull_string: `127.0.0.1:${await freePort()}/gone/app:1.0` } } });
    expect(added.status).toBeGreaterThanOrEqual(400);
    await within(10_000, 'the first node to deliver', firstArrival);
    const inFlight = await db('notifications').first('id', 'state', 'claimed_by', 'claimed_until');
    expect(inFlight).toMatchObject({ state: 'delivering' });

    // The second node is ready once its roles, the notification dispatcher included, have started.
    const second = await startNode('notify-node-2');
    await pollUntil(10_000, 'the second node to be ready', async () => ((await raw(second.url, 'GET', '/v2/health/ready', { auth: null })).status === 200 ? true : undefined), 50);
    expect(await db('notifications').first('id', 'state', 'claimed_by', 'claimed_until')).toEqual(inFlight);
    expect(inFlight.claimed_by).toMatch(/^notify-node-1:/);

    release();
    const delivered = await pollUntil(10_000, 'the notification to be delivered', async () => {
      const row = await db('notifications').first('state', 'tries');
      return row.state === 'delivered' ? row : undefined;
    });
    expect(delivered).toEqual({ state: 'delivered', tries: 1 });
    expect(arrivals).toEqual([inFlight.id]);
  }, 40_000);
});
