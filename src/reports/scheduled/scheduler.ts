/**
 * Runs scheduled queries on their cron, once per scheduled time even with several nodes on one database.
 *
 * Each enabled query stores its next run (next_run_at, UTC). The scheduler sleeps until the earliest one (at
 * most MAX_SLEEP_MS, so schedule changes made on other nodes are seen), then claims every due run with a
 * compare-and-set on next_run_at — moving it to the following run only if it still holds the due value — so
 * exactly one node wins each run. The winner records a queued execution and a job in the same transaction;
 * the job queue runs it (any node's worker), which survives restarts. Manual runs use the same path
 * (executeScheduledQueryAsync) or run at once (executeScheduledQuery). Emits 'finished' with the
 * ExecutionRecord after each run this process finishes, so callers and tests can await it.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { NotFoundError } from '../../errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobWorker } from '../../jobs/worker.js';
import { nextRunAt } from './cron.js';
import { getExecution, insertExecution, pruneExecutions, type ExecutionRecord, type ExecutionTrigger } from './executions.js';
import { SCHEDULED_QUERY_JOB, type ScheduledQueryJob } from './job.js';
import { claimScheduledRun, dueScheduledQueries, earliestScheduledRun, loadScheduledQuery, type ScheduledQueryRecord } from './store.js';

/** The longest sleep between looks at the schedule: the bound on noticing another node's changes. */
const MAX_SLEEP_MS = 30_000;
/** After a failed look (database unavailable), try again after this long rather than at once. */
const RETRY_MS = 5_000;

/** Runs one execution of a query to its end (./execute.ts#executeStoredQuery over the service's bundle). */
export type RunExecution = (query: ScheduledQueryRecord, execution: ExecutionRecord) => Promise<ExecutionRecord>;

export interface SchedulerDeps {
  db: Db;
  log: Logger;
  jobs: JobQueue;
  worker: JobWorker;
  run: RunExecution;
}

export class ScheduledQueryScheduler extends EventEmitter {
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private looking: Promise<void> | null = null;
  private lookAgain = false;

  constructor(private readonly deps: SchedulerDeps) {
    super();
  }

  /** Starts running due queries (on nodes where VIGIL_SCHEDULED_QUERIES is on). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.wake();
  }

  /** Stops the timer and waits for a look at the schedule in progress; queued runs stay with the job queue. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.looking;
  }

  /** Looks at the schedule now: runs what is due and sleeps until the next run. Call after schedules change. */
  wake(): void {
    if (!this.started) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.looking = this.look().finally(() => {
      this.looking = null;
      if (this.lookAgain) {
        this.lookAgain = false;
        this.wake();
      }
    });
  }

  private async look(): Promise<void> {
    let sleep = MAX_SLEEP_MS;
    try {
      await this.runDue();
      const next = await earliestScheduledRun(this.deps.db);
      if (next) sleep = Math.min(MAX_SLEEP_MS, Math.max(0, Date.parse(next) - Date.now()));
    } catch (err) {
      this.deps.log.error({ err }, 'scheduled queries: cannot read the schedule; retrying');
      sleep = RETRY_MS;
    }
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, sleep);
    this.timer.unref();
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
    await this.deps.jobs.enqueue(SCHEDULED_QUERY_JOB, { executionUuid: execution.uuid } satisfies ScheduledQueryJob, { accountName: query.accountName }, db);
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
