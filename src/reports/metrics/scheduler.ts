/**
 * Runs metrics collections on VIGIL_METRICS_SCHEDULE (the periodic job METRICS_COLLECT_JOB, one run per slot
 * across nodes, on a node holding the scheduler role) and on demand (`collectNow`). Collections of one process
 * run one after another; the collector's own slot claim (collector.ts) still keeps a slot to one collection when
 * an on-demand run meets a scheduled one. Emits 'collected' with the outcome after each collection, whether or
 * not this node got the slot.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { definePeriodicJob } from '../../jobs/periodic.js';
import { collectMetrics, type CollectionOutcome } from './collector.js';

export const METRICS_COLLECT_JOB = definePeriodicJob({ kind: 'metrics_collect', role: 'scheduler' });

export interface MetricsSchedulerOptions {
  /** Cron expression (UTC); null turns scheduled collection off (collectNow still works). */
  schedule: string | null;
  retentionDays: number;
}

export class MetricsScheduler extends EventEmitter {
  /** The collection in progress or last finished; the next one starts after it. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: MetricsSchedulerOptions,
  ) {
    super();
  }

  /** The cron schedule of collections (null: on demand only). */
  get schedule(): string | null {
    return this.options.schedule;
  }

  /** Collects the slot `now` falls in (by default the current one) once the collection in progress finished. */
  collectNow(now: Date = new Date()): Promise<CollectionOutcome> {
    return this.queue(now, this.options.schedule);
  }

  /**
   * Collects now, stamped with the current second rather than the schedule's slot (which may have been collected
   * before the data a caller wants to see): an administrator's on-demand collection. The next slot of the
   * schedule is collected as usual.
   */
  collectOnDemand(now: Date = new Date()): Promise<CollectionOutcome> {
    return this.queue(now, null);
  }

  private queue(now: Date, schedule: string | null): Promise<CollectionOutcome> {
    const run = this.last
      .catch(() => undefined)
      .then(() => collectMetrics(this.db, now, { ...this.options, schedule, log: this.log }))
      .then((outcome) => {
        if (outcome.collected) this.log.debug(outcome, 'metrics collected');
        this.emit('collected', outcome);
        return outcome;
      });
    this.last = run;
    return run;
  }

  /** Waits for a collection in progress. */
  async stop(): Promise<void> {
    await this.last.catch(() => undefined);
  }
}
