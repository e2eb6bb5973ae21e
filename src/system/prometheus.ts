/**
 * Prometheus metrics of this process (GET /metrics): what it served and ran, counted as it happens, and the state
 * every node shares (queue depth, feed age, reporting lag), read from the database when scraped.
 *
 * Counters are per process, so a monitoring system sums them over nodes. No label carries an account, user or
 * image: labels stay few (operationIds, job kinds, feed names, outcomes), so the series count is bounded.
 * Each process has its own registry (not prom-client's global one), so several servers in one test process do not
 * share counters.
 */
import type { EventEmitter } from 'node:events';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/index.js';

/** Database-derived gauges are read at most this often, however often or by how many scrapers they are asked. */
const SHARED_STATE_TTL_MS = 5000;

/** A finished job as the worker reports it (src/jobs/worker.ts). */
export interface FinishedJob {
  kind: string;
  status: string;
  durationMs?: number;
  outcome?: string;
}

/** A notification attempt as the dispatcher reports it (src/notifications/dispatcher.ts). */
export interface NotificationAttempt {
  state: string;
  outcome: { ok: boolean };
}

interface SharedState {
  jobs: Array<{ kind: string; status: string; n: number; oldest: string | null }>;
  feeds: Array<{ name: string; last_sync: string | null; records: number }>;
  images: Array<{ analysis_status: string; n: number }>;
  pendingReportChanges: number;
}

export class PrometheusMetrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly httpRequests: Counter<'operation' | 'method' | 'status'>;
  private readonly httpDuration: Histogram<'operation' | 'method'>;
  private readonly jobsFinished: Counter<'kind' | 'status'>;
  private readonly jobDuration: Histogram<'kind'>;
  private readonly analyses: Counter<'outcome'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly refreshes: Counter<'outcome'>;
  private readonly lastRefresh: Gauge;
  private shared: { at: number; state: Promise<SharedState> } | null = null;

  constructor(private readonly db: Db) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'vigil_' });
    // Totals of gauges that are also exposed by type; their `_total` names break Prometheus' naming rules
    // (promtool: only counters end in _total).
    for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total']) this.registry.removeSingleMetric(`vigil_nodejs_${name}`);
    this.httpRequests = new Counter({
      name: 'vigil_http_requests_total',
      help: 'HTTP requests answered, by operationId (graphql for the reporting API, none when no operation matched), method and status.',
      labelNames: ['operation', 'method', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'vigil_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by operationId and method.',
      labelNames: ['operation', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.jobsFinished = new Counter({
      name: 'vigil_jobs_finished_total',
      help: 'Background jobs this process ran to an end, by kind and status (done, failed, or queued again to retry).',
      labelNames: ['kind', 'status'],
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'vigil_job_duration_seconds',
      help: 'How long a background job ran in this process, by kind.',
      labelNames: ['kind'],
      buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    });
    this.analyses = new Counter({
      name: 'vigil_analyses_total',
      help: 'Image analyses this process finished, by outcome (analyzed, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'vigil_notification_deliveries_total',
      help: 'Notification delivery attempts this process made, by outcome (delivered, retrying, failed for good).',
      labelNames: ['outcome'],
      registers,
    });
    this.refreshes = new Counter({
      name: 'vigil_report_refreshes_total',
      help: 'Reporting read-model refreshes this process ran, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.lastRefresh = new Gauge({
      name: 'vigil_report_last_refresh_timestamp_seconds',
      help: 'When this process last refreshed the reporting read model (Unix time); 0 before its first refresh.',
      registers,
    });
    this.sharedGauges(registers);
  }

  /** One answered HTTP request. */
  observeRequest(operation: string, method: string, status: number, seconds: number): void {
    this.httpRequests.inc({ operation, method, status: String(status) });
    this.httpDuration.observe({ operation, method }, seconds);
  }

  /** Counts what the job worker, the notification dispatcher and the report refresher report. */
  watch(sources: { worker: EventEmitter; dispatcher: EventEmitter; refresher: EventEmitter }): void {
    sources.worker.on('finished', (job: FinishedJob) => {
      this.jobsFinished.inc({ kind: job.kind, status: job.status });
      if (job.durationMs !== undefined) this.jobDuration.observe({ kind: job.kind }, job.durationMs / 1000);
      if (job.outcome === 'analyzed' || job.outcome === 'failed') this.analyses.inc({ outcome: job.outcome });
    });
    sources.dispatcher.on('attempt', (attempt: NotificationAttempt) => {
      this.deliveries.inc({ outcome: attempt.outcome.ok ? 'delivered' : attempt.state === 'failed' ? 'failed' : 'retrying' });
    });
    sources.refresher.on('refreshed', () => {
      this.refreshes.inc({ outcome: 'ok' });
      this.lastRefresh.set(Date.now() / 1000);
    });
    sources.refresher.on('failed', () => this.refreshes.inc({ outcome: 'error' }));
  }

  /** The exposition text. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  private sharedState(): Promise<SharedState> {
    if (!this.shared || Date.now() - this.shared.at > SHARED_STATE_TTL_MS) {
      const state = readSharedState(this.db);
      this.shared = { at: Date.now(), state };
      // A failed read is not cached: the next scrape tries again.
      state.catch(() => {
        if (this.shared?.state === state) this.shared = null;
      });
    }
    return this.shared.state;
  }

  private sharedGauges(registers: Registry[]): void {
    const shared = () => this.sharedState();
    const nowSeconds = () => Date.now() / 1000;
    new Gauge({
      name: 'vigil_jobs',
      help: 'Background jobs waiting or running on all nodes, by kind and status (queued, running).',
      labelNames: ['kind', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const j of (await shared()).jobs) this.set({ kind: j.kind, status: j.status }, j.n);
      },
    });
    new Gauge({
      name: 'vigil_jobs_oldest_queued_age_seconds',
      help: 'Age of the oldest job of a kind that is due and waiting for a worker (all nodes).',
      labelNames: ['kind'],
      registers,
      async collect() {
        this.reset();
        for (const j of (await shared()).jobs)
          if (j.status === 'queued' && j.oldest) this.set({ kind: j.kind }, Math.max(0, nowSeconds() - Date.parse(j.oldest) / 1000));
      },
    });
    new Gauge({
      name: 'vigil_feed_last_sync_age_seconds',
      help: 'Time since each vulnerability feed last synced successfully; absent for a feed never synced.',
      labelNames: ['feed'],
      registers,
      async collect() {
        this.reset();
        for (const f of (await shared()).feeds) if (f.last_sync) this.set({ feed: f.name }, Math.max(0, nowSeconds() - Date.parse(f.last_sync) / 1000));
      },
    });
    new Gauge({
      name: 'vigil_feed_records',
      help: 'Vulnerability records each feed holds (its enabled and disabled groups).',
      labelNames: ['feed'],
      registers,
      async collect() {
        this.reset();
        for (const f of (await shared()).feeds) this.set({ feed: f.name }, f.records);
      },
    });
    new Gauge({
      name: 'vigil_images',
      help: 'Active images of all accounts, by analysis status.',
      labelNames: ['analysis_status'],
      registers,
      async collect() {
        this.reset();
        for (const i of (await shared()).images) this.set({ analysis_status: i.analysis_status }, i.n);
      },
    });
    new Gauge({
      name: 'vigil_report_pending_changes',
      help: 'Changes not yet applied to the reporting read model (all nodes); it grows when refreshes fall behind.',
      registers,
      async collect() {
        this.set((await shared()).pendingReportChanges);
      },
    });
    const db = this.db;
    new Gauge({
      name: 'vigil_db_pool_connections',
      help: "This process's database connections, by state (used, free, pending acquires).",
      labelNames: ['state'],
      registers,
      collect() {
        const pool = (db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
        if (!pool) return;
        this.set({ state: 'used' }, pool.numUsed());
        this.set({ state: 'free' }, pool.numFree());
        this.set({ state: 'pending' }, pool.numPendingAcquires());
      },
    });
  }
}

/** Small aggregate reads: the jobs index (status, run_at) serves the first; the others read short tables or counts. */
async function readSharedState(db: Db): Promise<SharedState> {
  const now = new Date().toISOString();
  type Row = Record<string, unknown>;
  const jobs: Row[] = await db('jobs')
    .whereIn('status', ['queued', 'running'])
    .groupBy('kind', 'status')
    .select('kind', 'status')
    .count({ n: '*' })
    .min({ oldest: db.raw(`CASE WHEN status = 'queued' AND run_at <= ? THEN run_at END`, [now]) });
  const feeds: Row[] = await db('vuln_feeds as f')
    .leftJoin('vuln_feed_groups as g', 'g.feed', 'f.name')
    .groupBy('f.name', 'f.last_success_at')
    .select('f.name', 'f.last_success_at')
    .sum({ records: 'g.record_count' });
  const images: Row[] = await db('images').where({ image_status: 'active' }).groupBy('analysis_status').select('analysis_status').count({ n: '*' });
  const pending = await db('report_changes').count({ n: '*' }).first();
  return {
    jobs: jobs.map((j) => ({ kind: String(j.kind), status: String(j.status), n: Number(j.n), oldest: (j.oldest as string | null) ?? null })),
    feeds: feeds.map((f) => ({ name: String(f.name), last_sync: (f.last_success_at as string | null) ?? null, records: Number(f.records ?? 0) })),
    images: images.map((i) => ({ analysis_status: String(i.analysis_status), n: Number(i.n) })),
    pendingReportChanges: Number(pending?.n ?? 0),
  };
}
