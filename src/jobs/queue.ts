/**
 * A job queue in the database. Jobs are claimed with a lease (locked_by, locked_until); a worker that dies
 * stops renewing its lease and the job is claimed again once it lapses, so nothing stays stuck in `running`.
 * On Postgres the claim uses FOR UPDATE SKIP LOCKED, so several worker processes can share one queue; on SQLite
 * the single-statement UPDATE ... RETURNING is atomic under the database lock.
 */
import type { Db } from '../db/index.js';
import { databaseKind, startsWithLiteral } from '../db/index.js';
import { nowIso } from '../util/time.js';
import { InvalidJobPayloadError, type JobDefinition } from './definition.js';
import { PERIODIC_PREFIX } from './periodic.js';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface JobRecord {
  id: number;
  kind: string;
  payload: string;
  account_name: string | null;
  status: JobStatus;
  run_at: string;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** One waiting job per key (src/jobs/definition.ts). */
  dedup_key: string | null;
  /** The run record of the last try: when it started and ended, and the worker that ran it. */
  started_at: string | null;
  finished_at: string | null;
  ran_on: string | null;
}

export interface Job<P = unknown> {
  id: number;
  kind: string;
  payload: P;
  accountName: string | null;
  attempts: number;
  maxAttempts: number;
}

export interface EnqueueOptions {
  accountName?: string | null;
  runAt?: Date;
  /**
   * When a job with the same de-duplication key is already waiting: `keep` answers it unchanged (the default);
   * `earliest` moves it to the earlier of the two due times, with that time's payload (periodic jobs); `replace`
   * gives it this due time and payload (a periodic kind whose schedule changed).
   */
  onDuplicate?: 'keep' | 'earliest' | 'replace';
}

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

export class JobQueue {
  constructor(private readonly db: Db) {}

  /**
   * The dedup_key of a job going back to the queue (a retry, a hand-back): kept unless an equal job is already
   * waiting, which then does the work; the returning job keeps its place without a key rather than break the index.
   */
  private returningKey() {
    return this.db.raw(`CASE WHEN EXISTS (SELECT 1 FROM jobs w WHERE w.dedup_key = jobs.dedup_key AND w.status = 'queued' AND w.id <> jobs.id) THEN NULL ELSE dedup_key END`);
  }

  /**
   * Queues a job of a defined kind, checking its payload against the kind's schema, and answers its id (or, when
   * a job with the same de-duplication key is already waiting, that job's id).
   */
  async enqueue<P>(definition: JobDefinition<P>, payload: NoInfer<P>, options: EnqueueOptions = {}, trx: Db = this.db): Promise<number> {
    const problem = definition.check(payload);
    if (problem) throw new InvalidJobPayloadError(definition.kind, problem);
    const now = nowIso();
    const row = {
      kind: definition.kind,
      payload: JSON.stringify(payload),
      account_name: options.accountName ?? null,
      status: 'queued',
      run_at: (options.runAt ?? new Date()).toISOString(),
      attempts: 0,
      max_attempts: definition.maxAttempts,
      dedup_key: definition.dedupKey?.(payload) ?? null,
      created_at: now,
      updated_at: now,
    };
    if (row.dedup_key === null) {
      const [inserted] = await trx('jobs').insert(row).returning('id');
      return typeof inserted === 'object' ? inserted.id : inserted;
    }
    // One statement, so two nodes queuing the same key at once leave one job (the partial unique index decides).
    const columns = Object.keys(row);
    const earlier = `excluded.run_at < jobs.run_at`;
    const onConflict =
      options.onDuplicate === 'earliest'
        ? `run_at = CASE WHEN ${earlier} THEN excluded.run_at ELSE jobs.run_at END, payload = CASE WHEN ${earlier} THEN excluded.payload ELSE jobs.payload END`
        : options.onDuplicate === 'replace'
          ? 'run_at = excluded.run_at, payload = excluded.payload'
          : 'dedup_key = jobs.dedup_key';
    const result = await trx.raw(
      `INSERT INTO jobs (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
       ON CONFLICT (dedup_key) WHERE status = 'queued' AND dedup_key IS NOT NULL DO UPDATE SET ${onConflict} RETURNING id`,
      Object.values(row),
    );
    const rows: { id: number }[] = Array.isArray(result) ? result : result.rows;
    return Number(rows[0]!.id);
  }

  /** Deletes the waiting (queued) job with this de-duplication key, if any: a periodic run whose schedule was turned off. */
  async dropWaiting(dedupKey: string): Promise<void> {
    await this.db('jobs').where({ dedup_key: dedupKey, status: 'queued' }).delete();
  }

  /** Claims the next due job (or one whose lease lapsed) for `workerId`, or answers null. */
  async claim(workerId: string, leaseMs: number, kinds: readonly string[]): Promise<Job | null> {
    if (kinds.length === 0) return null;
    const now = nowIso();
    const due = this.db('jobs')
      .select('id')
      .whereIn('kind', kinds)
      .where((q) => q.where({ status: 'queued' }).andWhere('run_at', '<=', now).orWhere((r) => r.where({ status: 'running' }).andWhere('locked_until', '<', now)))
      .orderBy([{ column: 'run_at' }, { column: 'id' }])
      .limit(1);
    if (databaseKind(this.db) === 'postgres') due.forUpdate().skipLocked();
    const rows: JobRecord[] = await this.db('jobs')
      .whereIn('id', due)
      .update({ status: 'running', locked_by: workerId, locked_until: isoIn(leaseMs), attempts: this.db.raw('attempts + 1'), started_at: now, finished_at: null, ran_on: workerId, updated_at: now })
      .returning('*');
    const row = rows[0];
    if (!row) return null;
    return { id: row.id, kind: row.kind, payload: JSON.parse(row.payload), accountName: row.account_name, attempts: row.attempts, maxAttempts: row.max_attempts };
  }

  /** Extends the lease of a running job; answers false when this worker no longer holds it. */
  async renew(id: number, workerId: string, leaseMs: number): Promise<boolean> {
    const n = await this.db('jobs').where({ id, locked_by: workerId, status: 'running' }).update({ locked_until: isoIn(leaseMs), updated_at: nowIso() });
    return n > 0;
  }

  async complete(id: number, workerId: string): Promise<void> {
    const now = nowIso();
    await this.db('jobs').where({ id, locked_by: workerId }).update({ status: 'done', locked_by: null, locked_until: null, finished_at: now, updated_at: now });
  }

  /** Records a failed attempt: retried after `retryInMs` while attempts remain, otherwise failed for good. */
  async fail(job: Job, workerId: string, error: string, retryInMs: number): Promise<JobStatus> {
    const final = job.attempts >= job.maxAttempts;
    const status: JobStatus = final ? 'failed' : 'queued';
    await this.db('jobs')
      .where({ id: job.id, locked_by: workerId })
      .update({ status, ...(final ? {} : { dedup_key: this.returningKey() }), run_at: final ? nowIso() : isoIn(retryInMs), locked_by: null, locked_until: null, last_error: error.slice(0, 4000), finished_at: nowIso(), updated_at: nowIso() });
    return status;
  }

  /**
   * Returns a job this worker holds to the queue, due now, without counting the interrupted attempt (attempts
   * count crashes; a drain is not one). Answers false when the worker no longer holds it.
   */
  async handBack(id: number, workerId: string): Promise<boolean> {
    const n = await this.db('jobs')
      .where({ id, locked_by: workerId, status: 'running' })
      .update({ status: 'queued', dedup_key: this.returningKey(), locked_by: null, locked_until: null, run_at: nowIso(), attempts: this.db.raw('attempts - 1'), updated_at: nowIso() });
    return n > 0;
  }

  /**
   * Releases jobs that earlier processes on this host left running (their ids start with hostPrefix but not
   * with this process's prefix), without waiting for their leases to lapse.
   */
  async releaseAbandoned(hostPrefix: string, processPrefix: string): Promise<number> {
    // Compared as literal prefixes: with LIKE, a `_` or `%` in a host id would match other hosts' jobs.
    return this.db('jobs')
      .where({ status: 'running' })
      .andWhereRaw(...startsWithLiteral('locked_by', hostPrefix))
      .andWhereNot((q) => q.whereRaw(...startsWithLiteral('locked_by', processPrefix)))
      .update({ status: 'queued', dedup_key: this.returningKey(), locked_by: null, locked_until: null, run_at: nowIso(), updated_at: nowIso() });
  }

  /** Deletes the records of jobs that ended (done or failed) before `before`; `periodic` limits it to periodic runs. */
  async pruneFinished(before: string, only?: 'periodic'): Promise<number> {
    const q = this.db('jobs').whereIn('status', ['done', 'failed']).andWhere('finished_at', '<', before);
    if (only === 'periodic') q.andWhereRaw(...startsWithLiteral('dedup_key', PERIODIC_PREFIX));
    return q.delete();
  }

  /** When the earliest waiting job of these kinds is due (the worker sleeps until then), or null. */
  async nextDue(kinds: readonly string[]): Promise<string | null> {
    if (kinds.length === 0) return null;
    const row = await this.db('jobs').where({ status: 'queued' }).whereIn('kind', kinds).min({ at: 'run_at' }).first();
    return (row?.at as string | null | undefined) ?? null;
  }

  async get(id: number): Promise<JobRecord | undefined> {
    return this.db<JobRecord>('jobs').where({ id }).first();
  }
}
