/**
 * A job queue in the database. Jobs are claimed with a lease (locked_by, locked_until); a worker that dies
 * stops renewing its lease and the job is claimed again once it lapses, so nothing stays stuck in `running`.
 * On Postgres the claim uses FOR UPDATE SKIP LOCKED, so several worker processes can share one queue; on SQLite
 * the single-statement UPDATE ... RETURNING is atomic under the database lock.
 */
import type { Db } from '../db/index.js';
import { databaseKind, startsWithLiteral } from '../db/index.js';
import { nowIso } from '../util/time.js';

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
  maxAttempts?: number;
  runAt?: Date;
}

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

export class JobQueue {
  constructor(private readonly db: Db) {}

  async enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}, trx: Db = this.db): Promise<number> {
    const now = nowIso();
    const [row] = await trx('jobs')
      .insert({
        kind,
        payload: JSON.stringify(payload),
        account_name: options.accountName ?? null,
        status: 'queued',
        run_at: (options.runAt ?? new Date()).toISOString(),
        attempts: 0,
        max_attempts: options.maxAttempts ?? 3,
        created_at: now,
        updated_at: now,
      })
      .returning('id');
    return typeof row === 'object' ? row.id : row;
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
      .update({ status: 'running', locked_by: workerId, locked_until: isoIn(leaseMs), attempts: this.db.raw('attempts + 1'), updated_at: now })
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
    await this.db('jobs').where({ id, locked_by: workerId }).update({ status: 'done', locked_by: null, locked_until: null, updated_at: nowIso() });
  }

  /** Records a failed attempt: retried after `retryInMs` while attempts remain, otherwise failed for good. */
  async fail(job: Job, workerId: string, error: string, retryInMs: number): Promise<JobStatus> {
    const final = job.attempts >= job.maxAttempts;
    const status: JobStatus = final ? 'failed' : 'queued';
    await this.db('jobs')
      .where({ id: job.id, locked_by: workerId })
      .update({ status, run_at: final ? nowIso() : isoIn(retryInMs), locked_by: null, locked_until: null, last_error: error.slice(0, 4000), updated_at: nowIso() });
    return status;
  }

  /**
   * Returns a job this worker holds to the queue, due now, without counting the interrupted attempt (attempts
   * count crashes; a drain is not one). Answers false when the worker no longer holds it.
   */
  async handBack(id: number, workerId: string): Promise<boolean> {
    const n = await this.db('jobs')
      .where({ id, locked_by: workerId, status: 'running' })
      .update({ status: 'queued', locked_by: null, locked_until: null, run_at: nowIso(), attempts: this.db.raw('attempts - 1'), updated_at: nowIso() });
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
      .update({ status: 'queued', locked_by: null, locked_until: null, run_at: nowIso(), updated_at: nowIso() });
  }

  async get(id: number): Promise<JobRecord | undefined> {
    return this.db<JobRecord>('jobs').where({ id }).first();
  }
}
