/**
 * A deployment of three Vigil processes on one Postgres database, each with its own roles, VIGIL_HOST_ID and data
 * dir, driven as an operator would drive it: images added by tag through one API node and archives uploaded
 * through another are each analyzed once; an analyzer killed (SIGKILL) in the middle of an analysis has its job
 * taken over by another node once the lease lapses; every notification reaches the receiver once although three
 * nodes dispatch (and a replacement node starts while one is in flight); every slot of a per-second cron schedule
 * on two scheduler nodes is collected once; and /metrics of every node is valid Prometheus text whose counters add
 * up to what happened.
 *
 * Node A: api, scheduler, notifications (no analyzer). Node B: api, analyzer, scheduler, notifications.
 * Node C: analyzer, feeds, reports, notifications (no api).
 *
 * Only what the deployment shows from outside is asserted (HTTP answers, database rows, /metrics, what the
 * receiver got), not the classes that run the background work. Every wait is bounded; database state of other
 * processes is polled at short intervals, as no event crosses the process boundary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createDb, type Db } from '../../src/db/index.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/db.js';
import { HoldingProxy } from '../support/holding-proxy.js';
import { json, raw, type RawResponse } from '../support/http.js';
import type { BuiltImage } from '../support/image-builder.js';
import { promtoolProblems, samples, valueOf, type Sample } from '../support/prometheus-text.js';
import { startHttpReceiver, type HttpReceiver } from '../support/receivers.js';
import { alpineImage, uploadArchive } from '../support/registry-fixtures.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { pollUntil, startVigil, stopVigil, within, type VigilChild } from '../support/vigil-process.js';

const LEASE_SECONDS = 5;
const IMAGES_BY_TAG = 20;
const ARCHIVES = 3;
/** The held image (added by tag through A, analysis interrupted by the kill) plus the others. */
const ALL_IMAGES = 1 + IMAGES_BY_TAG + ARCHIVES;
const WEBHOOKS = '/v2/notifications/endpoints/webhook/configurations';
/** Operations of the start-up probes and the scrapes, which every node answers. */
const PROBES = ['health_check', 'health_ready', 'metrics'];

const ENV = {
  VIGIL_JOB_LEASE_SECONDS: String(LEASE_SECONDS),
  VIGIL_JOB_POLL_MS: '50',
  VIGIL_NOTIFY_POLL_MS: '50',
  // A slot every second, so that the two scheduler nodes compete for many slots during the test.
  VIGIL_METRICS_SCHEDULE: '* * * * * *',
  VIGIL_FEED_SYNC_SCHEDULE: 'off',
};

type NodeName = 'A' | 'B' | 'C';
const ROLES: Record<NodeName, string> = {
  A: 'api,scheduler,notifications',
  B: 'api,analyzer,scheduler,notifications',
  C: 'analyzer,feeds,reports,notifications',
};

interface Node {
  name: NodeName;
  hostId: string;
  dataDir: string;
  child: VigilChild;
}

let scratch: ScratchDatabase;
let db: Db;
let registry: TestRegistry;
let proxy: HoldingProxy;
let receiver: HttpReceiver;
let heldImage: BuiltImage;
let tagged: BuiltImage[];
let archives: BuiltImage[];
const nodes = {} as Record<NodeName, Node>;
/** Every process started, killed ones included, for clean-up. */
const started: Node[] = [];
/** Requests the test sent to node A, by `operation method status`: its HTTP counters must show exactly these. */
const sentToA = new Map<string, number>();
/** Digests of every image added, in the order added. */
const digests: string[] = [];

async function startNode(name: NodeName, hostId: string): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), `vigil-${hostId}-`));
  const node: Node = { name, hostId, dataDir, child: undefined as unknown as VigilChild };
  started.push(node);
  // Three processes starting at once on a shared 2-core machine take longer than one.
  node.child = await startVigil(scratch, { ...ENV, VIGIL_ROLES: ROLES[name], VIGIL_HOST_ID: hostId, VIGIL_DATA_DIR: dataDir }, { readyTimeoutMs: 45_000 });
  // Ready: migrations done and every role started (the dispatcher's and the worker's start-up included).
  const ready = async () => ((await raw(node.child.url, 'GET', '/v2/health/ready', { auth: null })).status === 200 ? true : undefined);
  await pollUntil(30_000, `${hostId} to be ready`, ready, 50);
  nodes[name] = node;
  return node;
}

/** A request to node A, counted in `sentToA`. */
async function toA(operation: string, method: string, path: string, body?: unknown): Promise<RawResponse> {
  const res = body === undefined ? await raw(nodes.A.child.url, method, path) : await json(nodes.A.child.url, method, path, body);
  const key = `${operation} ${method} ${res.status}`;
  sentToA.set(key, (sentToA.get(key) ?? 0) + 1);
  return res;
}

const count = async (q: PromiseLike<Array<Record<string, unknown>>>) => Number((await q)[0]?.n ?? 0);

beforeAll(async () => {
  [scratch, registry, receiver] = await Promise.all([createScratchDatabase(), startRegistry(), startHttpReceiver()]);
  heldImage = await alpineImage('multi-node-held');
  tagged = await Promise.all(Array.from({ length: IMAGES_BY_TAG }, (_, i) => alpineImage(`multi-node-tag-${i}`)));
  archives = await Promise.all(Array.from({ length: ARCHIVES }, (_, i) => alpineImage(`multi-node-archive-${i}`)));
  await pushImage(registry.url, 'multi/held', '1', heldImage);
  for (const [i, image] of tagged.entries()) await pushImage(registry.url, `multi/app${i}`, '1', image);
  proxy = new HoldingProxy(new URL(registry.url), heldImage.layers.map((l) => l.digest));
  await proxy.listen();

  // All three at once: one runs the migrations, the others wait for them (src/db/index.ts migrateToLatest).
  // allSettled: should one fail, the others have finished starting (and are known to afterAll) before it runs.
  const starts = await Promise.allSettled([startNode('A', 'mn-a'), startNode('B', 'mn-b'), startNode('C', 'mn-c')]);
  for (const s of starts) if (s.status === 'rejected') throw s.reason;
  db = createDb({ databaseUrl: scratch.url, dataDir: scratch.dataDir });

  // Every row the metrics collector writes (an upsert's conflicting row included) is recorded by a trigger, so
  // a slot collected twice shows as two writes even though the upsert leaves one row.
  await db.raw(`
    CREATE SCHEMA multinode_test;
    CREATE TABLE multinode_test.metric_writes (collected_at text NOT NULL, account_name text NOT NULL, metric_id text NOT NULL);
    CREATE FUNCTION multinode_test.record_metric_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO multinode_test.metric_writes VALUES (NEW.collected_at, NEW.account_name, NEW.metric_id);
      RETURN NEW;
    END $$;
    CREATE TRIGGER record_metric_write BEFORE INSERT ON report_metric_data
      FOR EACH ROW EXECUTE FUNCTION multinode_test.record_metric_write();
  `);

  // A webhook for every completed analysis, created through node A.
  const created = await toA('add_webhook_configuration', 'POST', WEBHOOKS, { url: `${receiver.url}/hook`, signing_secret: 'multi-node-signing-secret' });
  expect(created.status, created.text).toBe(200);
  const selector = { scope: 'account', event: { level: '*', resource_type: '*', type: 'user.image.analysis.completed' } };
  const added = await toA('add_webhook_selector', 'POST', `${WEBHOOKS}/${created.json.uuid}/selectors`, selector);
  expect(added.status, added.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((n) => stopVigil(n.child, 'SIGKILL')));
  await db?.destroy();
  await Promise.all([proxy?.close(), registry?.close(), receiver?.close()]);
  await scratch?.drop();
  for (const n of started) rmSync(n.dataDir, { recursive: true, force: true });
}, 30_000);

/** The output of every process, for a failure message. */
const outputs = () => started.map((n) => `--- ${n.hostId} ---\n${n.child?.output() ?? ''}`).join('\n');

describe('three Vigil processes with different roles on one Postgres database', () => {
  it('lists the three nodes with their roles', async () => {
    const res = await toA('list_services', 'GET', '/v2/system/services');
    expect(res.status).toBe(200);
    const rolesOf = (hostId: string) => [
      ...new Set(
        res.json
          .filter((s: { host_id: string }) => s.host_id === hostId)
          .map((s: { service_detail: { detail: { vigil_roles: string[] } } }) => [...s.service_detail.detail.vigil_roles].sort().join(',')),
      ),
    ];
    for (const n of Object.values(nodes)) expect(rolesOf(n.hostId), n.hostId).toEqual([ROLES[n.name].split(',').sort().join(',')]);
  });

  it('takes over, once its lease lapses, the analysis of an analyzer killed in the middle of it', async () => {
    // The analysis reaches the layer download, which the proxy holds; the job row names the node running it.
    const held = proxy.nextHeld(20_000);
    const added = await toA('add_image', 'POST', '/v2/images', { source: { tag: { pull_string: `${proxy.host}/multi/held:1` } } });
    expect(added.status, added.text).toBe(200);
    const digest = added.json.image_digest as string;
    digests.push(digest);
    await held;
    const job = await pollUntil(5_000, 'the held analysis job to be running', async () => (await db('jobs').where({ kind: 'analyze_image', status: 'running' }).first()) ?? undefined);
    const holder = [nodes.B, nodes.C].find((n) => job.locked_by.startsWith(`${n.hostId}:`));
    expect(holder, `job locked by ${job.locked_by}`).toBeDefined();
    const killed = holder!;
    const other = holder === nodes.B ? nodes.C : nodes.B;

    // From now on the receiver holds what it gets until the replacement node has started below: the completed
    // analysis's notification is then in flight on a live node while another node starts on this host.
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    let notified!: () => void;
    const notifiedOnce = new Promise<void>((r) => (notified = r));
    receiver.respondWith(async () => {
      notified();
      await gate;
      return { status: 200, body: 'ok' };
    });
    // Whatever becomes of this test, the receiver answers again afterwards.
    onTestFinished(() => {
      receiver.respondWith(() => ({ status: 200, body: 'ok' }));
      openGate();
    });

    killed.child.proc.kill('SIGKILL');
    await within(5_000, 'the killed analyzer to exit', killed.child.exited);
    const { locked_until: leaseEnd } = await db('jobs').where({ id: job.id }).first();
    proxy.release();

    // The other analyzer claims it once the lease has lapsed, and carries it to the end.
    const analyzed = await pollUntil((LEASE_SECONDS + 20) * 1000, 'the interrupted image to be analyzed by another node', async () => {
      const image = await db('images').where({ image_digest: digest }).first('analysis_status');
      return image?.analysis_status === 'analyzed' ? image : undefined;
    });
    expect(analyzed).toBeDefined();
    const done = await pollUntil(5_000, 'the taken-over job to be done', async () => {
      const row = await db('jobs').where({ id: job.id }).first();
      return row.status === 'done' ? row : undefined;
    });
    expect(done).toMatchObject({ status: 'done', attempts: 2, locked_by: null });
    const history = await db('image_status_history').where({ image_digest: digest }).orderBy('id').select('from_status', 'to_status', 'detail', 'timestamp');
    expect(history.map((h) => `${h.from_status}->${h.to_status}`)).toEqual(['not_analyzed->analyzing', 'analyzing->analyzing', 'analyzing->analyzed']);
    expect(history[1].detail).toMatch(/resumed after an interruption \(attempt 2\)/);
    // Not before the killed node's lease ran out.
    expect(history[1].timestamp >= leaseEnd, `resumed at ${history[1].timestamp}, lease until ${leaseEnd}`).toBe(true);
    // The only analyzer left took it over and counts it as its own.
    const otherMetrics = samples((await raw(other.child.url, 'GET', '/metrics', { auth: null })).text);
    expect(valueOf(otherMetrics, 'vigil_analyses_total', { outcome: 'analyzed' })).toBe(1);

    // A replacement with the same roles, a new host id and its own data dir, started while a delivery is in flight.
    await within(10_000, 'the notification of the interrupted image to reach the receiver', notifiedOnce);
    const inFlight = await db('notifications').select('id', 'state', 'claimed_by', 'claimed_until');
    expect(inFlight).toEqual([expect.objectContaining({ state: 'delivering' })]);
    await startNode(killed.name, `${killed.hostId}-2`);
    // The delivery stays with the node that has it in flight.
    expect(await db('notifications').select('id', 'state', 'claimed_by', 'claimed_until')).toEqual(inFlight);
  }, 120_000);

  it('analyzes once each of 20 images added by tag through node A and archives uploaded through node B', async () => {
    const added = await Promise.all(
      tagged.map((_, i) => toA('add_image', 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/multi/app${i}:1` } } })),
    );
    for (const res of added) expect(res.status, res.text).toBe(200);
    expect(added.map((r) => r.json.image_digest)).toEqual(tagged.map((t) => t.manifestDigest));
    digests.push(...tagged.map((t) => t.manifestDigest));
    for (const [i, image] of archives.entries()) {
      const res = await uploadArchive(nodes.B.child.url, image, `example.com/multi/archive${i}:1`);
      expect(res.status, res.text).toBe(200);
      digests.push(res.json.image_digest);
    }
    expect(new Set(digests).size).toBe(ALL_IMAGES);

    // Done in the queue: the analysis is saved and the worker has counted it.
    await pollUntil(60_000, `the ${ALL_IMAGES} analysis jobs to be done`, async () => {
      const open = await count(db('jobs').where({ kind: 'analyze_image' }).whereNot({ status: 'done' }).count({ n: '*' }));
      const all = await count(db('jobs').where({ kind: 'analyze_image' }).count({ n: '*' }));
      return all === ALL_IMAGES && open === 0 ? true : undefined;
    }, 200).catch((err) => {
      throw new Error(`${(err as Error).message}\n${outputs()}`);
    });

    for (const digest of digests) {
      const res = await toA('get_image', 'GET', `/v2/images/${digest}`);
      expect(res.json.analysis_status, digest).toBe('analyzed');
    }
    // One job per image, run once (the interrupted one twice), one start and one completion each.
    const jobs: { payload: string; status: string; attempts: number }[] = await db('jobs').where({ kind: 'analyze_image' }).select('payload', 'status', 'attempts');
    const attemptsByDigest = Object.fromEntries(jobs.map((j) => [JSON.parse(j.payload).imageDigest as string, j.attempts]));
    expect(Object.keys(attemptsByDigest).sort()).toEqual([...digests].sort());
    expect(attemptsByDigest).toEqual(Object.fromEntries(digests.map((d, i) => [d, i === 0 ? 2 : 1])));
    const perImage = async (table: string, where: Record<string, string>, column: string) =>
      Object.fromEntries((await db(table).where(where).groupBy(column).select(column).count({ n: '*' })).map((r: Record<string, unknown>) => [r[column], Number(r.n)]));
    const once = Object.fromEntries(digests.map((d) => [d, 1]));
    expect(await perImage('events', { type: 'user.image.analysis.started' }, 'resource_id')).toEqual(once);
    expect(await perImage('events', { type: 'user.image.analysis.completed' }, 'resource_id')).toEqual(once);
    expect(await perImage('image_status_history', { to_status: 'analyzed' }, 'image_digest')).toEqual(once);
  }, 90_000);

  it('delivers the notification of every completed analysis once, with three dispatching nodes', async () => {
    const delivered = await pollUntil(20_000, `${ALL_IMAGES} notifications to be delivered`, async () => {
      const rows: { id: string; state: string; tries: number }[] = await db('notifications').select('id', 'state', 'tries');
      return rows.length === ALL_IMAGES && rows.every((r) => r.state === 'delivered') ? rows : undefined;
    });
    expect(delivered.every((r) => r.tries === 1)).toBe(true);
    const receivedIds = receiver.requests.map((r) => String(r.headers['x-vigil-notification-id']));
    expect(receivedIds.sort()).toEqual(delivered.map((r) => r.id).sort());
    const digestsNotified = receiver.requests.map((r) => r.json.data.notification_payload.curr_eval.image_digest as string);
    expect(digestsNotified.sort()).toEqual([...digests].sort());
    const receipts = await db('notification_receipts').select('notification_id', 'success');
    expect(receipts).toHaveLength(ALL_IMAGES);
    expect(new Set(receipts.map((r: { notification_id: string }) => r.notification_id)).size).toBe(ALL_IMAGES);
    expect(receipts.every((r: { success: boolean }) => r.success)).toBe(true);
  }, 30_000);

  it('collects each slot of the per-second metrics schedule once, with two scheduler nodes', async () => {
    // The schedule ran all along; make sure there are a few recorded slots, then read the writes per slot.
    const writes = await pollUntil(10_000, 'metrics slots to be collected', async () => {
      const rows: { collected_at: string; account_name: string; metric_id: string; n: string | number }[] = await db('multinode_test.metric_writes')
        .groupBy('collected_at', 'account_name', 'metric_id')
        .select('collected_at', 'account_name', 'metric_id')
        .count({ n: '*' });
      return new Set(rows.map((r) => r.collected_at)).size >= 5 ? rows : undefined;
    });
    expect(writes.filter((w) => Number(w.n) !== 1)).toEqual([]);
    // Every slot has the same set of samples, each written once: a slot is collected whole, by one node.
    const perSlot = new Map<string, number>();
    for (const w of writes) perSlot.set(w.collected_at, (perSlot.get(w.collected_at) ?? 0) + 1);
    expect(new Set(perSlot.values()).size).toBe(1);
    const stored = await count(db('report_metric_data').whereIn('collected_at', [...perSlot.keys()]).count({ n: '*' }));
    expect(stored).toBe(writes.length);
  }, 20_000);

  it("serves on every node Prometheus text whose counters add up to what happened", async () => {
    const live = Object.values(nodes);
    const scraped = new Map<string, Sample[]>();
    for (const n of live) {
      // Gauges of the state nodes share are read from the database at most every few seconds per node
      // (prometheus.ts), and the takeover check scraped one node a moment ago: scrape until they caught up.
      const text = await pollUntil(10_000, `the shared gauges of ${n.hostId} to show every image analyzed`, async () => {
        const res = await raw(n.child.url, 'GET', '/metrics', { auth: null });
        expect(res.status, n.hostId).toBe(200);
        return valueOf(samples(res.text), 'vigil_images', { analysis_status: 'analyzed' }) === ALL_IMAGES ? res.text : undefined;
      }, 250);
      expect(promtoolProblems(text), n.hostId).toEqual([]);
      scraped.set(n.hostId, samples(text));
    }
    const sum = (name: string, labels: Record<string, string> = {}) => live.reduce((total, n) => total + valueOf(scraped.get(n.hostId)!, name, labels), 0);
    const on = (n: Node, name: string, labels: Record<string, string> = {}) => valueOf(scraped.get(n.hostId)!, name, labels);

    // Analyses: the killed node finished none (the held image was the first job and it died running it), so the
    // live nodes' counters cover every image. Node A holds no analyzer role.
    expect(sum('vigil_analyses_total', { outcome: 'analyzed' })).toBe(ALL_IMAGES);
    expect(sum('vigil_analyses_total', { outcome: 'failed' })).toBe(0);
    expect(sum('vigil_jobs_finished_total', { kind: 'analyze_image', status: 'done' })).toBe(ALL_IMAGES);
    expect(sum('vigil_job_duration_seconds_count', { kind: 'analyze_image' })).toBe(ALL_IMAGES);
    expect(on(nodes.A, 'vigil_analyses_total', { outcome: 'analyzed' })).toBe(0);
    // State shared through the database reads the same on every node.
    for (const n of live) expect(on(n, 'vigil_images', { analysis_status: 'analyzing' }), n.hostId).toBe(0);

    // Notifications: one successful attempt per request the receiver got, no retries or failures.
    expect(sum('vigil_notification_deliveries_total', { outcome: 'delivered' })).toBe(receiver.requests.length);
    expect(sum('vigil_notification_deliveries_total', { outcome: 'retrying' })).toBe(0);
    expect(sum('vigil_notification_deliveries_total', { outcome: 'failed' })).toBe(0);

    // HTTP: node A counted exactly the requests this test sent it (besides the start-up probes and this scrape,
    // which the next scrape would count); node B counted the archive uploads.
    const a = scraped.get(nodes.A.hostId)!;
    for (const [key, n] of sentToA) {
      const [operation, method, status] = key.split(' ');
      expect(valueOf(a, 'vigil_http_requests_total', { operation, method, status }), key).toBe(n);
    }
    const requestsToA = a.filter((s) => s.name === 'vigil_http_requests_total' && !PROBES.includes(s.labels.operation));
    expect(requestsToA.reduce((t, s) => t + s.value, 0)).toBe([...sentToA.values()].reduce((t, n) => t + n, 0));
    expect(on(nodes.A, 'vigil_http_request_duration_seconds_count', { operation: 'add_image', method: 'POST' })).toBe(ALL_IMAGES - ARCHIVES);
    expect(on(nodes.B, 'vigil_http_requests_total', { operation: 'add_image_archive', method: 'POST', status: '200' })).toBe(ARCHIVES);
    // Node C serves no API: it was asked for its probes and /metrics only.
    const operationsOfC = scraped.get(nodes.C.hostId)!.filter((s) => s.name === 'vigil_http_requests_total').map((s) => s.labels.operation);
    expect(operationsOfC.filter((o) => !PROBES.includes(o))).toEqual([]);
  }, 30_000);
});
