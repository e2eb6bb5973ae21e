/**
 * `npm run bench:notifications`: what notifications cost on the event path, and how fast the dispatcher delivers
 * them, in process (no Vigil server), on a scratch database: SQLite in a temp dir, or with --pg a scratch PostgreSQL
 * database created (and dropped) through VIGIL_DATABASE_URL (or VIGIL_TEST_DATABASE_URL, which
 * scripts/with-postgres.sh sets). Configurations and selectors are stored with `createConfiguration` / `addSelector`
 * (secrets sealed with a SecretBox keyed from the temp dir), accounts with `createAccount`. Every event is a
 * `user.checks.tag.update` (INFO, resource type image_tag), recorded with `recordEvent`, which queues the
 * notifications in the event's transaction (`enqueueForEvent`).
 *
 * 1. Queuing on the event path: `recordEvent` one at a time, --events times (2000) in each of four accounts:
 *    (a) no notification configurations; (b) one webhook configuration whose selector matches (one notification per
 *    event); (c) ten matching configurations, mixed kinds (4 webhook, 2 Slack, 2 Teams, 2 SMTP; exact, wildcard and
 *    `*` selectors: ten notifications per event); (d) fifty configurations (mixed kinds) whose selectors name other
 *    event types (none match). The accounts share the database; the scenarios take turns in blocks of 50 events so
 *    that the machine's noise falls on all four alike, after --warmup (100) untimed events each. Reports events/s
 *    (events / the sum of the per-event times), per-event p50 / p99, and each as a ratio to (a). Nothing is
 *    delivered here; the queued rows are deleted before part 2 (on PostgreSQL followed by VACUUM ANALYZE).
 * 2. Dispatcher throughput and latency: a loopback receiver (`http.createServer` on 127.0.0.1) answers at once, 200
 *    `ok` under /ok/ and 500 `boom` under /fail/; one webhook configuration per path (its own account). A batch
 *    queues --deliveries notifications (2000) through `recordEvent` (transactions of 100 events, untimed; on
 *    PostgreSQL then VACUUM ANALYZE of the outbox, as autovacuum leaves it between bursts), then starts a
 *    `NotificationDispatcher` (pollMs 5 (--poll-ms), maxTries 3, backoff 1 s … 60 s, retention 30 days, responses
 *    read up to 64 KiB, outbound policy `OutboundPolicy.parse('127.0.0.1/32')`) with the batch's concurrency and times
 *    from `start()` to the last 'settled' event (no sleeps; a batch gives up after --timeout seconds). Batches:
 *    concurrency 1, 4 and 16 against /ok/, and concurrency 4 against /fail/ with maxTries 1 (every notification
 *    fails on its only try), --rounds times (2) in that order. Reports deliveries/s, queue-to-receipt latency
 *    p50 / p99 (the notification's created_at to its arrival at the receiver; the whole backlog is queued before
 *    the dispatcher starts, so this includes the wait in the backlog), the try's own latency as the dispatcher
 *    measured it (connect, POST, answer), process CPU per delivery (receiver and SQLite included: one process), and
 *    ratios of concurrency 4 and 16 to 1 and of the failing batch to the succeeding one at the same concurrency.
 *    Then --trickle (200) single notifications with a running dispatcher (concurrency 4): pause 2 ms plus a spread
 *    fraction (golden-ratio sequence) of pollMs, so that the event meets the poll timer at evenly spread phases
 *    (recordEvent wakes the dispatcher once the event commits, so the phase should not matter), record one event, wait for its 'settled', next: queue-to-receipt
 *    latency of a notification that finds the dispatcher idle.
 * 3. Checks, before the timed batches (a first batch of --check-deliveries to each path, untimed) and after every
 *    batch: every queued notification arrived exactly once (X-Vigil-Notification-Id at the receiver), on its first
 *    try (X-Vigil-Delivery-Attempt 1), with a body whose data_id and payload notification_id are its id and whose
 *    X-Vigil-Signature verifies (`verifySignature`) under the configuration's signing secret; the dispatcher
 *    settled each once; the outbox ends with every row delivered (failed for /fail/) after one try, with one
 *    receipt each (HTTP 200 / 500). Part 1 checks that each account queued what its selectors call for, for the
 *    configurations they name. An error logged by the dispatcher fails the run.
 * 4. Claiming from a backlog (after part 2): --claim-runs (50) timed `claimDue(limit 1)` calls, each handed back with
 *    `releaseClaims`, with 1 000, 10 000 and 50 000 due notifications in the outbox (inserted directly; what a
 *    receiver that was down for a while leaves). Reports p50 / p99 per size and the ratio of 50 000 to 1 000: a claim
 *    should not cost more as the backlog grows.
 *
 * Prints a table per part, ratios and a markdown copy for docs/benchmarks.md. No target: exits 0, or 2 on errors.
 * The temp dir (and the scratch database) is removed.
 *
 * Options (flag, or environment variable; flags win):
 *   --events N              BENCH_EVENTS              timed recordEvent calls per scenario of part 1 (default 2000)
 *   --warmup N              BENCH_WARMUP              untimed recordEvent calls per scenario first   (default 100)
 *   --deliveries N          BENCH_DELIVERIES          notifications per dispatcher batch             (default 2000)
 *   --rounds N              BENCH_ROUNDS              times each dispatcher batch runs               (default 2)
 *   --check-deliveries N    BENCH_CHECK_DELIVERIES    notifications of the untimed check batches     (default 100)
 *   --trickle N             BENCH_TRICKLE             single notifications to an idle dispatcher     (default 200;
 *                                                     0: none)
 *   --timeout S             BENCH_TIMEOUT             give up on a batch after S seconds             (default 120)
 *   --poll-ms M             BENCH_POLL_MS             the dispatchers' pollMs                        (default 5)
 *   --claim-runs N          BENCH_CLAIM_RUNS          timed claims per backlog size (part 4)       (default 50)
 *   --pg                                              PostgreSQL instead of SQLite (see above)
 *   --cpu-prof DIR                                    CPU-profile part 1's timed events and each timed dispatcher
 *                                                     batch in process (node:inspector) into DIR and print the hottest
 *                                                     functions; the timings then include the profiler
 *   --keep-data                                       leave the temp dir (and the scratch database) in place
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { createAccount } from '../src/auth/accounts.js';
import type { NotificationsConfig } from '../src/config.js';
import { databaseKind, type Db } from '../src/db/index.js';
import { recordEvent, type NewEvent } from '../src/events/events.js';
import { verifySignature } from '../src/notifications/channels/webhook.js';
import { createConfiguration, type ConfigurationInput } from '../src/notifications/configurations.js';
import { NOTIFICATIONS_DELIVER_JOB, NotificationDispatcher, type SettledNotification } from '../src/notifications/dispatcher.js';
import { JobQueue } from '../src/jobs/queue.js';
import { JobWorker } from '../src/jobs/worker.js';
import { claimDue, queueNotificationsForEvents, releaseClaims } from '../src/notifications/outbox.js';
import { OutboundPolicy } from '../src/outbound/policy.js';
import { addSelector, type SelectorInput } from '../src/notifications/selectors.js';
import type { DeliveryOptions, EndpointKind } from '../src/notifications/types.js';
import { SecretBox } from '../src/util/secret-box.js';
import { loadAverage, machine, numberOptions, percentile, phaseProfiler, scratchDatabase, table, thousands, type ScratchDatabase } from './bench-support.js';

// ---------------------------------------------------------------------------------------------------------
// Options

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string' },
    warmup: { type: 'string' },
    deliveries: { type: 'string' },
    rounds: { type: 'string' },
    'check-deliveries': { type: 'string' },
    trickle: { type: 'string' },
    timeout: { type: 'string' },
    'poll-ms': { type: 'string' },
    'claim-runs': { type: 'string' },
    pg: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
  },
  strict: true,
});

const numberOption = numberOptions(flags);

const opts = {
  events: Math.floor(numberOption('events', 'BENCH_EVENTS', 2000, 1)),
  warmup: Math.floor(numberOption('warmup', 'BENCH_WARMUP', 100, 0)),
  deliveries: Math.floor(numberOption('deliveries', 'BENCH_DELIVERIES', 2000, 1)),
  rounds: Math.floor(numberOption('rounds', 'BENCH_ROUNDS', 2, 1)),
  checkDeliveries: Math.floor(numberOption('check-deliveries', 'BENCH_CHECK_DELIVERIES', 100, 1)),
  trickle: Math.floor(numberOption('trickle', 'BENCH_TRICKLE', 200, 0)),
  timeout: numberOption('timeout', 'BENCH_TIMEOUT', 120, 1, 3600),
  pollMs: Math.floor(numberOption('poll-ms', 'BENCH_POLL_MS', 5, 5, 60_000)),
  claimRuns: Math.floor(numberOption('claim-runs', 'BENCH_CLAIM_RUNS', 50, 0)),
  pg: flags.pg ?? false,
  cpuProfDir: flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null,
  keepData: flags['keep-data'] ?? false,
};
const { profiled, summaries: profileSummaries } = phaseProfiler(opts.cpuProfDir, 'bench-notifications', 200);

const OUTBOUND_ALLOW = '127.0.0.1/32';
const BLOCK = 50;
const QUEUE_CHUNK = 100;
const CONCURRENCIES = [1, 4, 16];
const FAIL_CONCURRENCY = 4;
const TRICKLE_CONCURRENCY = 4;
const EVENT_TYPE = 'user.checks.tag.update';

const t0 = Date.now();
const progress = (m: string) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);
const msSince = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e6;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const ratio = (x: number) => `${x.toFixed(2)} x`;
const nowEpochMs = () => performance.timeOrigin + performance.now();
const digestOf = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;

function dispatcherConfig(concurrency: number, maxTries: number): NotificationsConfig {
  return {
    dispatcher: true,
    maxTries,
    backoffBaseMs: 1000,
    backoffMaxMs: 60_000,
    concurrency,
    pollMs: opts.pollMs,
    maxResponseBytes: 65_536,
    retentionDays: 30,
  };
}

/** A tag moving to a new digest, as recordTag records it. */
function tagEvent(accountName: string, i: number): NewEvent {
  const full = `registry.example.com/bench/app-${i % 50}:latest`;
  return {
    accountName,
    type: EVENT_TYPE,
    resourceType: 'image_tag',
    resourceId: full,
    message: `${full} moved from ${digestOf(i)} to ${digestOf(i + 1)}`,
    details: { previous_digest: digestOf(i), current_digest: digestOf(i + 1) },
  };
}

/**
 * A dispatcher with the job runtime that drives it in the service: a worker running the periodic delivery job,
 * and this process's queued notifications making it due at once (as startServer sets it up).
 */
function deliveryRuntime(db: Db, box: SecretBox, delivery: DeliveryOptions, concurrency: number, maxTries: number) {
  const jobs = new JobQueue(db);
  const worker = new JobWorker(jobs, log, { concurrency: 1, leaseMs: 60_000, pollMs: opts.pollMs, retryBaseMs: 1000 });
  const dispatcher = new NotificationDispatcher(db, log, box, dispatcherConfig(concurrency, maxTries), delivery, { jobs, wakeWorker: () => worker.wake() });
  worker.registerPeriodic(NOTIFICATIONS_DELIVER_JOB, dispatcher.schedule, (_payload, _job, context) => dispatcher.deliverDue(context.signal));
  return {
    dispatcher,
    async start() {
      dispatcher.listen();
      await worker.start();
      dispatcher.wake();
    },
    async stop() {
      dispatcher.unlisten();
      await dispatcher.settled();
      await worker.stop();
      dispatcher.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Logging: info and up, as in production (the dispatcher logs every settlement), into a sink that drops all
// but errors, which fail the run.

let logErrorHook: ((line: string) => void) | null = null;
const logErrors: string[] = [];
const log: Logger = pino(
  { level: 'info' },
  {
    write(line: string) {
      const level = Number(/^\{"level":(\d+)/.exec(line)?.[1] ?? 0);
      if (level < 50) return;
      logErrors.push(line.trim());
      console.error(line.trim());
      logErrorHook?.(line);
    },
  },
);

// ---------------------------------------------------------------------------------------------------------
// The loopback receiver

interface Arrival {
  path: string;
  id: string | undefined;
  attempt: string | undefined;
  signature: string | undefined;
  body: string;
  /** Epoch ms (fractional) when the request's headers were in. */
  at: number;
}

class Receiver {
  arrivals: Arrival[] = [];
  /** TCP connections accepted since the last reset. */
  connections = 0;
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const at = nowEpochMs();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const one = (h: string | string[] | undefined) => (Array.isArray(h) ? h.join(',') : h);
        this.arrivals.push({
          path: req.url ?? '',
          id: one(req.headers['x-vigil-notification-id']),
          attempt: one(req.headers['x-vigil-delivery-attempt']),
          signature: one(req.headers['x-vigil-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
          at,
        });
        const ok = (req.url ?? '').startsWith('/ok/');
        res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain' }).end(ok ? 'ok' : 'boom');
      });
    });
    server.on('connection', () => this.connections++);
    this.server = server;
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolveListen());
    });
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Part 1: configurations per scenario

const OTHER_KIND_INPUT: Record<EndpointKind, (i: number) => ConfigurationInput> = {
  webhook: (i) => ({ url: `https://hooks.example.com/vigil/${i}/${randomBytes(8).toString('hex')}`, description: `bench webhook ${i}` }),
  slack: (i) => ({ url: `https://hooks.slack.example/services/T0BENCH/B0${i}/${randomBytes(12).toString('hex')}` }),
  teams: (i) => ({ url: `https://bench.webhook.office.example/webhookb2/${randomBytes(8).toString('hex')}/IncomingWebhook/${i}` }),
  smtp: (i) => ({ host: 'smtp.example.com', port: 587, use_tls: false, username: 'vigil', password: `pw-${i}`, from: 'Vigil <vigil@example.com>', to: `ops-${i}@example.com` }),
  github: (i) => ({ username: 'vigil-bot', access_token: `ghp_${randomBytes(12).toString('hex')}`, owner: 'bench', repository: `repo-${i}` }),
  jira: (i) => ({ url: 'https://bench.atlassian.example', username: 'vigil@example.com', password: `token-${i}`, project_key: 'BENCH', issue_type: 'Bug' }),
};

const sel = (type: string, level: SelectorInput['event']['level'] = '*', resourceType = '*'): SelectorInput => ({ scope: 'account', event: { level, resource_type: resourceType, type } });

/** Selectors that match a user.checks.tag.update INFO event on an image_tag, in several spellings. */
const MATCHING: SelectorInput[] = [
  sel(EVENT_TYPE),
  sel('user.checks.tag.*', 'info', 'image_tag'),
  sel('*'),
  sel('user.checks.*', 'info'),
  sel('*.tag.update', '*', 'image_tag'),
];
/** Selectors on other event types only. */
const NON_MATCHING: SelectorInput[] = [
  sel('user.image.analysis.*'),
  sel('user.image.analysis.completed'),
  sel('system.feeds.sync.*'),
  sel('user.checks.tag.vulnerabilities.update'),
  sel('user.checks.tag.policy_evaluation.update'),
  sel('system.*'),
  sel('*.failed'),
  sel('system.repository.list_tags_fail'),
];
const MIXED_KINDS: EndpointKind[] = ['webhook', 'slack', 'teams', 'smtp', 'webhook', 'slack', 'teams', 'smtp', 'webhook', 'webhook'];

interface Scenario {
  key: string;
  label: string;
  account: string;
  /** Configurations whose selectors match the event. */
  matching: string[];
  configurations: number;
  samples: number[];
}

async function configure(db: Db, box: SecretBox, account: string, kind: EndpointKind, input: ConfigurationInput, selector: SelectorInput): Promise<string> {
  const { record } = await createConfiguration(db, box, account, kind, input);
  await addSelector(db, account, kind, record.uuid, selector);
  return record.uuid;
}

async function setUpScenarios(db: Db, box: SecretBox): Promise<Scenario[]> {
  const scenarios: Scenario[] = [
    { key: 'a', label: '(a) no configurations', account: 'bench-none', matching: [], configurations: 0, samples: [] },
    { key: 'b', label: '(b) 1 matching webhook configuration', account: 'bench-one', matching: [], configurations: 1, samples: [] },
    { key: 'c', label: '(c) 10 matching configurations (4 webhook, 2 Slack, 2 Teams, 2 SMTP)', account: 'bench-ten', matching: [], configurations: 10, samples: [] },
    { key: 'd', label: '(d) 50 configurations, none matching (other types)', account: 'bench-fifty', matching: [], configurations: 50, samples: [] },
  ];
  for (const s of scenarios) await createAccount(db, { name: s.account, type: 'user' });
  const [, one, ten, fifty] = scenarios as [Scenario, Scenario, Scenario, Scenario];
  one.matching.push(await configure(db, box, one.account, 'webhook', OTHER_KIND_INPUT.webhook(0), MATCHING[0]!));
  for (const [i, kind] of MIXED_KINDS.entries()) ten.matching.push(await configure(db, box, ten.account, kind, OTHER_KIND_INPUT[kind](i), MATCHING[i % MATCHING.length]!));
  for (let i = 0; i < 50; i++) {
    const kind = MIXED_KINDS[i % MIXED_KINDS.length]!;
    await configure(db, box, fifty.account, kind, OTHER_KIND_INPUT[kind](i), NON_MATCHING[i % NON_MATCHING.length]!);
  }
  return scenarios;
}

/** Each account queued `events` notifications per matching configuration, for exactly those configurations. */
async function checkQueued(db: Db, scenarios: Scenario[], events: number): Promise<void> {
  for (const s of scenarios) {
    const rows: { configuration_uuid: string; n: number | string }[] = await db('notifications').where({ account_name: s.account }).groupBy('configuration_uuid').select('configuration_uuid').count({ n: '*' });
    const got = new Map(rows.map((r) => [r.configuration_uuid, Number(r.n)]));
    const wrong = [...new Set([...got.keys(), ...s.matching])].filter((uuid) => (got.get(uuid) ?? 0) !== (s.matching.includes(uuid) ? events : 0));
    if (wrong.length) throw new Error(`${s.label}: after ${events} events the outbox holds ${JSON.stringify(Object.fromEntries(got))}; expected ${events} for each of ${s.matching.length} configurations`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Part 2: dispatcher batches

interface DispatchTarget {
  account: string;
  configurationUuid: string;
  signingSecret: string;
  path: 'ok' | 'fail';
}

interface BatchResult {
  label: string;
  path: 'ok' | 'fail';
  concurrency: number;
  deliveries: number;
  queueMs: number;
  wallMs: number;
  cpuMs: number;
  /** TCP connections the receiver accepted for the batch. */
  connections: number;
  /** created_at → arrival at the receiver, per notification. */
  latencies: number[];
  /** The try's latency as the dispatcher measured it (DeliveryOutcome.latencyMs). */
  tries: number[];
}

async function queueBatch(db: Db, target: DispatchTarget, n: number, offset: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i += QUEUE_CHUNK) {
    await db.transaction(async (trx) => {
      for (let k = i; k < Math.min(n, i + QUEUE_CHUNK); k++) await recordEvent(trx, tagEvent(target.account, offset + k));
    });
  }
  return msSince(started);
}

/** A promise settled by `run`, or rejected on the batch's timeout or on an error logged by the dispatcher. */
function bounded<T>(what: string, run: (resolve: (v: T) => void, reject: (e: Error) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(new Error(`${what}: not done within ${opts.timeout} s`))), opts.timeout * 1000);
    const finish = (f: () => void) => {
      clearTimeout(timer);
      logErrorHook = null;
      f();
    };
    logErrorHook = (line) => finish(() => reject(new Error(`${what}: the dispatcher logged an error: ${line.slice(0, 1000)}`)));
    run(
      (v) => finish(() => resolve(v)),
      (e) => finish(() => reject(e)),
    );
  });
}

let eventCounter = 1_000_000;

async function dispatchBatch(db: Db, box: SecretBox, delivery: DeliveryOptions, receiver: Receiver, target: DispatchTarget, concurrency: number, n: number, label: string, phase: string | null): Promise<BatchResult> {
  const maxTries = target.path === 'ok' ? 3 : 1;
  const queueMs = await queueBatch(db, target, n, eventCounter);
  eventCounter += n;
  // Each batch starts from a vacuumed outbox with fresh planner statistics, as autovacuum leaves it between bursts:
  // the dead row versions of the previous batches' claims and settlements would otherwise slow the claim query.
  if (databaseKind(db) === 'postgres') await db.raw('VACUUM ANALYZE notifications');
  const queued: { id: string; created_at: string }[] = await db('notifications').where({ configuration_uuid: target.configurationUuid, state: 'pending' }).select('id', 'created_at');
  if (queued.length !== n) throw new Error(`${label}: ${queued.length} notifications pending after queuing ${n}`);
  receiver.arrivals = [];
  receiver.connections = 0;

  const runtime = deliveryRuntime(db, box, delivery, concurrency, maxTries);
  const { dispatcher } = runtime;
  const settled: SettledNotification[] = [];
  let wallMs = 0;
  let cpu = { user: 0, system: 0 };
  const wait = () =>
    bounded<void>(label, (resolve, reject) => {
      dispatcher.on('attempt', (s: SettledNotification) => {
        if (s.state === 'pending') reject(new Error(`${label}: notification ${s.id} failed a try and was queued for a retry: ${s.outcome.error}`));
      });
      const cpu0 = process.cpuUsage();
      const started = performance.now();
      dispatcher.on('settled', (s: SettledNotification) => {
        settled.push(s);
        if (settled.length === n) {
          wallMs = performance.now() - started;
          cpu = process.cpuUsage(cpu0);
          resolve();
        }
      });
      runtime.start().catch(reject);
    });
  try {
    await (phase ? profiled(phase, wait) : wait());
  } finally {
    await runtime.stop();
  }
  await verifyBatch(db, receiver, target, queued, settled, label);
  const createdAt = new Map(queued.map((q) => [q.id, Date.parse(q.created_at)]));
  return {
    label,
    path: target.path,
    concurrency,
    deliveries: n,
    queueMs,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    connections: receiver.connections,
    latencies: receiver.arrivals.map((a) => a.at - createdAt.get(a.id!)!),
    tries: settled.map((s) => s.outcome.latencyMs),
  };
}

/** Exactly once, first try, signed, settled once, and the outbox and receipts agree. */
async function verifyBatch(db: Db, receiver: Receiver, target: DispatchTarget, queued: { id: string }[], settled: SettledNotification[], label: string): Promise<void> {
  const expectState = target.path === 'ok' ? 'delivered' : 'failed';
  const expectStatus = target.path === 'ok' ? 200 : 500;
  const problems: string[] = [];
  const ids = new Set(queued.map((q) => q.id));
  const seen = new Map<string, number>();
  for (const a of receiver.arrivals) {
    if (!a.id || !ids.has(a.id)) {
      problems.push(`an unexpected request (${a.path}, id ${a.id ?? 'none'})`);
      continue;
    }
    seen.set(a.id, (seen.get(a.id) ?? 0) + 1);
    if (!a.path.startsWith(`/${target.path}/`)) problems.push(`${a.id} arrived at ${a.path}`);
    if (a.attempt !== '1') problems.push(`${a.id} arrived with X-Vigil-Delivery-Attempt ${a.attempt}`);
    if (!verifySignature(a.body, target.signingSecret, a.signature)) problems.push(`${a.id}: the signature does not verify`);
    let body: { data_id?: string; data?: { notification_payload?: { notification_id?: string } } } = {};
    try {
      body = JSON.parse(a.body);
    } catch {
      problems.push(`${a.id}: the body is not JSON`);
    }
    if (body.data_id !== a.id || body.data?.notification_payload?.notification_id !== a.id) problems.push(`${a.id}: the body names ${body.data_id} / ${body.data?.notification_payload?.notification_id}`);
  }
  const missing = [...ids].filter((id) => !seen.has(id));
  const twice = [...seen].filter(([, k]) => k > 1);
  if (missing.length) problems.push(`${missing.length} notifications never arrived (e.g. ${missing[0]})`);
  if (twice.length) problems.push(`${twice.length} notifications arrived more than once (e.g. ${twice[0]![0]} ${twice[0]![1]} times)`);

  const settledIds = new Set(settled.map((s) => s.id));
  if (settled.length !== ids.size || settledIds.size !== ids.size || [...settledIds].some((id) => !ids.has(id))) problems.push(`${settled.length} 'settled' events for ${settledIds.size} distinct ids; ${ids.size} queued`);
  const badSettled = settled.filter((s) => s.state !== expectState || s.tries !== 1 || s.outcome.httpStatus !== expectStatus);
  if (badSettled.length) problems.push(`${badSettled.length} settled otherwise than ${expectState} after 1 try with HTTP ${expectStatus} (e.g. ${JSON.stringify(badSettled[0])})`);

  const idList = [...ids];
  const states = new Map<string, number>();
  let wrongRows = 0;
  const receipts = new Map<string, { n: number; ok: boolean }>();
  for (let i = 0; i < idList.length; i += 500) {
    const chunk = idList.slice(i, i + 500);
    const rows: { id: string; state: string; tries: number; claimed_by: string | null; delivered_at: string | null }[] = await db('notifications').whereIn('id', chunk).select('id', 'state', 'tries', 'claimed_by', 'delivered_at');
    for (const r of rows) {
      states.set(r.state, (states.get(r.state) ?? 0) + 1);
      if (r.state !== expectState || Number(r.tries) !== 1 || r.claimed_by !== null || (expectState === 'delivered') !== (r.delivered_at !== null)) wrongRows++;
    }
    const rs: { notification_id: string; success: unknown; http_status: number | null; attempt: number }[] = await db('notification_receipts').whereIn('notification_id', chunk).select('notification_id', 'success', 'http_status', 'attempt');
    for (const r of rs) {
      const prev = receipts.get(r.notification_id);
      const good = Number(r.http_status) === expectStatus && Boolean(Number(r.success) || r.success === true) === (expectState === 'delivered') && Number(r.attempt) === 1;
      receipts.set(r.notification_id, { n: (prev?.n ?? 0) + 1, ok: (prev?.ok ?? true) && good });
    }
  }
  if (states.get(expectState) !== ids.size || wrongRows) problems.push(`outbox states ${JSON.stringify(Object.fromEntries(states))}, ${wrongRows} rows not ${expectState} after exactly one try; expected ${ids.size} ${expectState}`);
  const badReceipts = idList.filter((id) => receipts.get(id)?.n !== 1 || !receipts.get(id)!.ok);
  if (badReceipts.length) problems.push(`${badReceipts.length} notifications without exactly one receipt of HTTP ${expectStatus} (e.g. ${badReceipts[0]}: ${JSON.stringify(receipts.get(badReceipts[0]!))})`);
  const status: { status: string } | undefined = await db('notification_configurations').where({ uuid: target.configurationUuid }).first('status');
  if (status?.status !== (expectState === 'delivered' ? 'healthy' : 'unhealthy')) problems.push(`the configuration's status is ${status?.status}`);
  if (problems.length) throw new Error(`${label}: checks failed:\n  ${problems.slice(0, 10).join('\n  ')}`);
}

/** One notification at a time to a running, idle dispatcher: queue-to-receipt when nothing is waiting. */
async function trickle(db: Db, box: SecretBox, delivery: DeliveryOptions, receiver: Receiver, target: DispatchTarget, n: number): Promise<{ latencies: number[]; tries: number[] }> {
  receiver.arrivals = [];
  const runtime = deliveryRuntime(db, box, delivery, TRICKLE_CONCURRENCY, 3);
  const { dispatcher } = runtime;
  const settled: SettledNotification[] = [];
  await runtime.start();
  try {
    for (let i = 0; i < n; i++) {
      // A pause of 2 ms plus a spread fraction of pollMs, so the events meet the worker's poll at evenly spread
      // phases (recordEvent makes the delivery job due once the event commits, so the phase should not matter).
      await new Promise((r) => setTimeout(r, 2 + ((i * 0.618034) % 1) * opts.pollMs));
      const next = bounded<SettledNotification>(`trickle ${i + 1}`, (resolve, reject) => {
        const onSettled = (s: SettledNotification) => {
          dispatcher.off('settled', onSettled);
          if (s.state !== 'delivered') reject(new Error(`trickle notification ${s.id} ended ${s.state}: ${s.outcome.error}`));
          else resolve(s);
        };
        dispatcher.on('settled', onSettled);
      });
      await recordEvent(db, tagEvent(target.account, eventCounter++));
      settled.push(await next);
    }
  } finally {
    await runtime.stop();
  }
  const rows: { id: string; created_at: string }[] = [];
  const ids = settled.map((s) => s.id);
  for (let i = 0; i < ids.length; i += 500) rows.push(...(await db('notifications').whereIn('id', ids.slice(i, i + 500)).select('id', 'created_at')));
  await verifyBatch(db, receiver, target, rows, settled, 'trickle');
  const createdAt = new Map(rows.map((r) => [r.id, Date.parse(r.created_at)]));
  return { latencies: receiver.arrivals.map((a) => a.at - createdAt.get(a.id!)!), tries: settled.map((s) => s.outcome.latencyMs) };
}

// ---------------------------------------------------------------------------------------------------------

const BACKLOG_SIZES = [1_000, 10_000, 50_000];

/** claimDue(limit 1) timings with ever larger backlogs of due notifications (part 4); each claim is handed back. */
async function claimFromBacklog(db: Db, target: DispatchTarget, runs: number): Promise<{ size: number; samples: number[] }[]> {
  const message = JSON.stringify({ id: 'backlog', payload: {} });
  const past = new Date(Date.now() - 3600_000);
  const out: { size: number; samples: number[] }[] = [];
  let inserted = 0;
  for (const size of BACKLOG_SIZES) {
    const rows = [];
    for (; inserted < size; inserted++)
      rows.push({
        id: `00000000-0000-4000-8000-${inserted.toString(16).padStart(12, '0')}`,
        configuration_uuid: target.configurationUuid,
        endpoint: 'webhook',
        account_name: target.account,
        notification_type: 'event',
        event_type: EVENT_TYPE,
        message,
        state: 'pending',
        tries: 0,
        max_tries: 0,
        replays: 0,
        next_attempt_at: new Date(past.getTime() + inserted).toISOString(),
        created_at: past.toISOString(),
        last_updated: past.toISOString(),
      });
    for (let i = 0; i < rows.length; i += 500) await db('notifications').insert(rows.slice(i, i + 500));
    if (databaseKind(db) === 'postgres') await db.raw('VACUUM ANALYZE notifications');
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = process.hrtime.bigint();
      const claimed = await claimDue(db, 'bench-claimer', 1, 60_000, 3);
      samples.push(msSince(started));
      if (claimed.length !== 1) throw new Error(`claimDue found ${claimed.length} due notifications in a backlog of ${size}`);
      await releaseClaims(db, 'bench-claimer', claimed.map((c) => c.id));
    }
    out.push({ size, samples });
  }
  await db('notifications').where({ configuration_uuid: target.configurationUuid }).delete();
  return out;
}

async function main(): Promise<number> {
  queueNotificationsForEvents(); // as createServices wires it: recorded events queue their notifications
  const m = machine();
  const args = process.argv.slice(2);
  const command = `npm run bench:notifications${args.length ? ` -- ${args.join(' ')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM (MemTotal ${m.memKb} kB), Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  console.log(
    `part 1: ${opts.events} timed recordEvent calls per scenario (+${opts.warmup} warm-up); part 2: ${opts.deliveries} deliveries per batch, ` +
      `concurrency ${CONCURRENCIES.join(' / ')} (200) and ${FAIL_CONCURRENCY} (500, maxTries 1), ${opts.rounds} round(s); ${opts.trickle} single notifications`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-notifications-'));
  let scratch: ScratchDatabase | undefined;
  const receiver = new Receiver();
  const cleanUp = async () => {
    await receiver.close().catch((err) => console.error(`closing the receiver: ${(err as Error).message}`));
    await scratch?.drop().catch((err) => console.error(`dropping the scratch database: ${(err as Error).message}`));
    scratch = undefined;
    if (opts.keepData) console.log(`temp dir kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => {
    console.error('interrupted; removing the temp dir');
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const dataDir = join(dir, 'data');
    scratch = await scratchDatabase({ pg: opts.pg, dataDir, keepData: opts.keepData });
    const db = scratch.db;
    const box = SecretBox.fromConfig(null, dataDir);
    progress(`database: ${scratch.describe}`);

    // 1. Queuing on the event path.
    const scenarios = await setUpScenarios(db, box);
    progress(`configurations: ${scenarios.map((s) => `${s.account} ${s.configurations} (${s.matching.length} matching)`).join(', ')}`);
    for (const s of scenarios) for (let i = 0; i < opts.warmup; i++) await recordEvent(db, tagEvent(s.account, i));
    await checkQueued(db, scenarios, opts.warmup);
    if (opts.warmup) progress(`check: after ${opts.warmup} warm-up events each, every account queued one notification per event for each matching configuration and none for the others`);
    await profiled('queuing', async () => {
      for (let done = 0; done < opts.events; done += BLOCK) {
        const k = Math.min(BLOCK, opts.events - done);
        for (const s of scenarios)
          for (let i = 0; i < k; i++) {
            const started = process.hrtime.bigint();
            await recordEvent(db, tagEvent(s.account, opts.warmup + done + i));
            s.samples.push(msSince(started));
          }
      }
    });
    await checkQueued(db, scenarios, opts.warmup + opts.events);
    const eps = (s: Scenario) => (s.samples.length / s.samples.reduce((a, b) => a + b, 0)) * 1000;
    const base = scenarios[0]!;
    for (const s of scenarios)
      progress(`${s.label}: ${thousands(eps(s))} events/s, p50 ${ms(percentile(s.samples, 50))} ms, p99 ${ms(percentile(s.samples, 99))} ms (${ratio(eps(s) / eps(base))} the events/s of (a))`);
    const deleted = await db('notifications').delete();
    if (databaseKind(db) === 'postgres') await db.raw('VACUUM ANALYZE notifications');
    progress(`check: the outbox holds what the selectors call for; ${thousands(deleted)} queued rows deleted before part 2`);

    // 2. Dispatcher.
    await receiver.start();
    const delivery: DeliveryOptions = { policy: OutboundPolicy.parse(OUTBOUND_ALLOW), maxResponseBytes: 65_536, userAgent: 'Vigil/bench' };
    const targets: Record<'ok' | 'fail', DispatchTarget> = {} as never;
    for (const path of ['ok', 'fail'] as const) {
      const account = `bench-dispatch-${path}`;
      await createAccount(db, { name: account, type: 'user' });
      const saved = await createConfiguration(db, box, account, 'webhook', { url: `${receiver.url}/${path}/${randomBytes(8).toString('hex')}`, description: `bench receiver (${path})` });
      await addSelector(db, account, 'webhook', saved.record.uuid, sel(EVENT_TYPE));
      targets[path] = { account, configurationUuid: saved.record.uuid, signingSecret: saved.generatedSigningSecret!, path };
    }
    progress(`receiver on ${receiver.url}; webhook configurations for /ok/ (200) and /fail/ (500)`);
    for (const path of ['ok', 'fail'] as const) {
      const r = await dispatchBatch(db, box, delivery, receiver, targets[path], 4, opts.checkDeliveries, `check batch (${path})`, null);
      progress(`check: ${r.deliveries} notifications to /${path}/ each arrived once, first try, signature verified; outbox all ${path === 'ok' ? 'delivered' : 'failed'}, one receipt each (${ms(r.wallMs)} ms, untimed)`);
    }
    const results: BatchResult[] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      const plan = [...CONCURRENCIES.map((c) => ({ path: 'ok' as const, c })), { path: 'fail' as const, c: FAIL_CONCURRENCY }];
      for (const { path, c } of plan) {
        const r = await dispatchBatch(db, box, delivery, receiver, targets[path], c, opts.deliveries, `round ${round}, ${path === 'ok' ? '200' : '500'}, concurrency ${c}`, `dispatch-r${round}-${path}-c${c}`);
        results.push(r);
        progress(
          `${r.label}: ${thousands(r.deliveries / (r.wallMs / 1000))} deliveries/s (${ms(r.wallMs)} ms; queued in ${ms(r.queueMs)} ms); queue→receipt p50 ${ms(percentile(r.latencies, 50))} ms, p99 ${ms(percentile(r.latencies, 99))} ms; ` +
            `try p50 ${percentile(r.tries, 50)} ms; CPU ${ms(r.cpuMs / r.deliveries)} ms per delivery; checks passed`,
        );
      }
    }
    const idle = opts.trickle ? await trickle(db, box, delivery, receiver, targets.ok, opts.trickle) : null;
    if (idle) progress(`idle dispatcher, one notification at a time (${opts.trickle}): queue→receipt p50 ${ms(percentile(idle.latencies, 50))} ms, p99 ${ms(percentile(idle.latencies, 99))} ms; checks passed`);
    if (logErrors.length) throw new Error(`the dispatcher logged ${logErrors.length} errors`);
    const backlog = opts.claimRuns ? await claimFromBacklog(db, targets.fail, opts.claimRuns) : [];
    for (const b of backlog) progress(`claimDue(limit 1) with ${thousands(b.size)} due: p50 ${ms(percentile(b.samples, 50))} ms, p99 ${ms(percentile(b.samples, 99))} ms`);

    // Report.
    const part1 = table(
      ['Scenario (recordEvent, one at a time)', 'Notifications per event', 'Events/s', 'p50 ms', 'p99 ms', 'Events/s vs (a)', 'p50 vs (a)'],
      scenarios.map((s) => [
        s.label,
        String(s.matching.length),
        thousands(eps(s)),
        ms(percentile(s.samples, 50)),
        ms(percentile(s.samples, 99)),
        ratio(eps(s) / eps(base)),
        ratio(percentile(s.samples, 50) / percentile(base.samples, 50)),
      ]),
      [false, true, true, true, true, true, true],
    );
    const pooled = (path: 'ok' | 'fail', c: number) => {
      const rs = results.filter((r) => r.path === path && r.concurrency === c);
      const deliveries = rs.reduce((a, r) => a + r.deliveries, 0);
      const wallMs = rs.reduce((a, r) => a + r.wallMs, 0);
      return {
        rs,
        deliveries,
        wallMs,
        rate: deliveries / (wallMs / 1000),
        latencies: rs.flatMap((r) => r.latencies),
        tries: rs.flatMap((r) => r.tries),
        cpuPer: rs.reduce((a, r) => a + r.cpuMs, 0) / deliveries,
        queueMs: rs.reduce((a, r) => a + r.queueMs, 0) / rs.length,
      };
    };
    const one = pooled('ok', 1);
    const sameC = pooled('ok', FAIL_CONCURRENCY);
    const batches = [...CONCURRENCIES.map((c) => ({ path: 'ok' as const, c })), { path: 'fail' as const, c: FAIL_CONCURRENCY }];
    const part2 = table(
      ['Batch', 'Concurrency', 'Deliveries', 'Wall s', 'Deliveries/s', 'Queue→receipt p50 ms', 'p99 ms', 'Try p50 ms (whole ms)', 'Try p99 ms', 'CPU ms / delivery', 'Deliveries/s vs'],
      [
        ...batches.map(({ path, c }) => {
          const p = pooled(path, c);
          return [
            path === 'ok' ? 'receiver answers 200' : 'receiver answers 500, maxTries 1',
            String(c),
            thousands(p.deliveries),
            (p.wallMs / 1000).toFixed(2),
            thousands(p.rate),
            ms(percentile(p.latencies, 50)),
            ms(percentile(p.latencies, 99)),
            String(percentile(p.tries, 50)),
            String(percentile(p.tries, 99)),
            ms(p.cpuPer),
            path === 'ok' ? (c === 1 ? '' : `${ratio(p.rate / one.rate)} c=1`) : `${ratio(p.rate / sameC.rate)} 200 at c=${c}`,
          ];
        }),
        ...(idle
          ? [['idle dispatcher, one notification at a time', String(TRICKLE_CONCURRENCY), thousands(opts.trickle), '', '', ms(percentile(idle.latencies, 50)), ms(percentile(idle.latencies, 99)), String(percentile(idle.tries, 50)), String(percentile(idle.tries, 99)), '', '']]
          : []),
      ],
      [false, true, true, true, true, true, true, true, true, true, false],
    );
    const ratioRows: string[][] = [
      ...scenarios.slice(1).map((s) => [`Queuing: events/s of ${s.label.split(' ')[0]} / (a)`, ratio(eps(s) / eps(base))]),
      ...scenarios.slice(1).map((s) => [`Queuing: per-event p50 of ${s.label.split(' ')[0]} / (a)`, ratio(percentile(s.samples, 50) / percentile(base.samples, 50))]),
      ...CONCURRENCIES.slice(1).map((c) => [`Dispatcher: deliveries/s at concurrency ${c} / concurrency 1`, ratio(pooled('ok', c).rate / one.rate)]),
      [`Dispatcher: deliveries/s failing (500, maxTries 1) / succeeding, concurrency ${FAIL_CONCURRENCY}`, ratio(pooled('fail', FAIL_CONCURRENCY).rate / sameC.rate)],
      [`Dispatcher: CPU per delivery failing / succeeding, concurrency ${FAIL_CONCURRENCY}`, ratio(pooled('fail', FAIL_CONCURRENCY).cpuPer / sameC.cpuPer)],
    ];
    if (backlog.length > 1)
      ratioRows.push([`Claim p50 with ${thousands(backlog.at(-1)!.size)} due / ${thousands(backlog[0]!.size)} due`, ratio(percentile(backlog.at(-1)!.samples, 50) / percentile(backlog[0]!.samples, 50))]);
    const ratios = table(['Ratio (same run)', 'Value'], ratioRows, [false, false]);
    const part4 = table(
      ['Due notifications in the outbox', 'claimDue(limit 1) p50 ms', 'p99 ms'],
      backlog.map((b) => [thousands(b.size), ms(percentile(b.samples, 50)), ms(percentile(b.samples, 99))]),
      [true, true, true],
    );
    const facts = [
      `database: ${scratch.describe}`,
      `part 1: ${opts.events} timed events per scenario in blocks of ${BLOCK}, taking turns, after ${opts.warmup} warm-up events each; (c) queued ${thousands((opts.warmup + opts.events) * 10)} notifications`,
      `part 2: per round, deliveries/s ${batches.map(({ path, c }) => `${path === 'ok' ? '200' : '500'} c=${c}: ${pooled(path, c).rs.map((r) => thousands(r.deliveries / (r.wallMs / 1000))).join(' / ')}`).join('; ')}`,
      `part 2: the receiver accepted ${thousands(results.reduce((a, r) => a + r.connections, 0))} TCP connections for ${thousands(results.reduce((a, r) => a + r.deliveries, 0))} deliveries (postJson keeps connections alive per outbound policy)`,
      `part 2: queuing a batch of ${opts.deliveries} (recordEvent in transactions of ${QUEUE_CHUNK}) took ${ms(one.queueMs)} ms on average before the dispatcher started; queue→receipt includes that wait`,
      `load average at the end: ${loadAverage()}`,
    ];
    console.log(`\n${part1.text}\n\n${part2.text}\n\n${part4.text}\n\n${ratios.text}\n\n${facts.join('\n')}\n`);
    console.log(`markdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}${opts.pg ? ', PostgreSQL' : ''}):\n`);
    console.log(`${part1.markdown}\n\n${part2.markdown}\n\n${part4.markdown}\n\n${ratios.markdown}\n`);
    if (profileSummaries.length) console.log(`${profileSummaries.join('\n\n')}\n\n(timings above were taken under the profiler)`);
    return 0;
  } finally {
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error(`bench:notifications failed: ${text.length > 4000 ? `${text.slice(0, 2000)} [...] ${text.slice(-2000)}` : text}`);
    process.exit(2);
  },
);
