/**
 * Runs scheduled queries on their cron, once per scheduled time even with several nodes on one database.
 *
 * Each enabled query stores its next run (next_run_at, UTC). The periodic job SCHEDULED_QUERIES_DUE_JOB (run by
 * a node holding the scheduler role) is due at the earliest one, or a minute on at most, and claims every due
 * run with a compare-and-set on next_run_at — moving it to the following run only if it still holds the due
 * value — so exactly one node wins each run. The winner records a queued execution and a job in the same
 * transaction; the job queue runs it (any node's worker), which survives restarts. A schedule change calls
 * `wake()`, which makes the periodic job due at once on whichever node runs it. Manual runs use the same path
 * (executeScheduledQueryAsync) or run at once (executeScheduledQuery). Emits 'finished' with the
 * ExecutionRecord after each run this process finishes, so callers and tests can await it.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { NotFoundError } from '../../errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobWorker } from '../../jobs/worker.js';
import { definePeriodicJob, dueAtOrWithin, runPeriodicSoon, type PeriodicSchedule } from '../../jobs/periodic.js';
import { nextRunAt } from './cron.js';
import { getExecution, insertExecution, pruneExecutions, type ExecutionRecord, type ExecutionTrigger } from './executions.js';
import { SCHEDULED_QUERY_JOB } from './job.js';
import { claimScheduledRun, dueScheduledQueries, earliestScheduledRun, loadScheduledQuery, type ScheduledQueryRecord } from './store.js';

/** The longest wait between looks at the schedule: a safety net, as schedule changes wake the job at once. */
const MAX_SLEEP_MS = 60_000;

export const SCHEDULED_QUERIES_DUE_JOB = definePeriodicJob({ kind: 'scheduled_queries_due', role: 'scheduler' });

/** Runs one execution of a query to its end (./execute.ts#executeStoredQuery over the service's bundle). */
export type RunExecution = (query: ScheduledQueryRecord, execution: ExecutionRecord) => Promise<ExecutionRecord>;

export interface SchedulerDeps {
  db: Db;
  log: Logger;
  jobs: JobQueue;
  worker: JobWorker;
  run: RunExecution;
  /** VIGIL_SCHEDULED_QUERIES: off, no node looks at the schedule, so nothing is queued for it either. */
  scheduling: boolean;
}

export class ScheduledQueryScheduler extends EventEmitter {
  constructor(private readonly deps: SchedulerDeps) {
    super();
  }

  /** When the due-runs job runs next: at the earliest next run of any query, a minute on at most. */
  get schedule(): PeriodicSchedule {
    return {
      nextAt: async (after) => dueAtOrWithin(await earliestScheduledRun(this.deps.db), after, MAX_SLEEP_MS),
    };
  }

  /** Makes the due-runs job due now (on whichever node runs it). Call after schedules change. */
  wake(): void {
    if (!this.deps.scheduling) return;
    runPeriodicSoon(this.deps.jobs, SCHEDULED_QUERIES_DUE_JOB)
      .then(() => this.deps.worker.wake())
      .catch((err) => this.deps.log.error({ err }, 'scheduled queries: could not wake the schedule; it is looked at within a minute'));
  }

  /** Claims and queues every run that is due now; answers how many this scheduler claimed. */
  async runDue(): Promise<number> {
    const due = await dueScheduledQueries(this.deps.db, new Date().toISOString());
    let claimed = 0;
    for (const run of due) if (await this.claim(run.uuid, run.nextRunAt, run.cronSchedule)) claimed += 1;
    if (claimed) this.deps.worker.wake();
    return claimed;
  }

  private claim(uuid: string, due: string, cronSchedule: string): Promise<boolean> {
    return this.deps.db.transaction(async (trx) => {
      if (!(await claimScheduledRun(trx, uuid, due, nextRunAt(cronSchedule)))) return false;
      const query = await loadScheduledQuery(trx, uuid);
      if (!query) return false;
      await this.queue(trx, query, 'schedule');
      return true;
    });
  }

  private async queue(db: Db, query: ScheduledQueryRecord, trigger: ExecutionTrigger): Promise<ExecutionRecord> {
    const execution = await insertExecution(db, query, trigger);
    await this.deps.jobs.enqueue(SCHEDULED_QUERY_JOB, { executionUuid: execution.uuid }, { accountName: query.accountName }, db);
    return execution;
  }

  /** Queues a manual run and answers the queued execution at once (executeScheduledQueryAsync). */
  async enqueue(query: ScheduledQueryRecord): Promise<ExecutionRecord> {
    const execution = await this.deps.db.transaction((trx) => this.queue(trx, query, 'manual'));
    this.deps.worker.wake();
    return execution;
  }

  /** Runs the query now and answers the finished execution (executeScheduledQuery). */
  async executeNow(query: ScheduledQueryRecord): Promise<ExecutionRecord> {
    const execution = await insertExecution(this.deps.db, query, 'manual');
    const finished = await this.runQueued(execution.uuid);
    if (!finished) throw new NotFoundError(`scheduled query '${query.uuid}' was deleted while it ran`, { uuid: query.uuid });
    return finished;
  }

  /**
   * Runs a queued execution (the job's work) and emits 'finished'. A job repeated after its run finished does
   * nothing; one whose query was deleted meanwhile answers null.
   */
  async runQueued(executionUuid: string): Promise<ExecutionRecord | null> {
    const execution = await getExecution(this.deps.db, executionUuid);
    if (!execution) return null;
    if (execution.status === 'complete' || execution.status === 'failed') return execution;
    const query = await loadScheduledQuery(this.deps.db, execution.queryUuid);
    if (!query) return null;
    const finished = await this.deps.run(query, execution);
    await pruneExecutions(this.deps.db, query.uuid);
    this.emit('finished', finished);
    return finished;
  }
}
