/**
 * Runs metrics collections on VIGIL_METRICS_SCHEDULE (a cron job) and on demand (`collectNow`). Collections
 * of one process run one after another; across nodes the slot claim (collector.ts) keeps a slot to one node.
 * Emits 'collected' with the outcome after each collection, whether or not this node got the slot.
 */
import { EventEmitter } from 'node:events';
import { CronJob } from 'cron';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { collectMetrics, type CollectionOutcome } from './collector.js';
import { METRICS_TIME_ZONE } from './slots.js';

export interface MetricsSchedulerOptions {
  /** Cron expression (UTC); null turns scheduled collection off (collectNow still works). */
  schedule: string | null;
  retentionDays: number;
}

export class MetricsScheduler extends EventEmitter {
  private job: CronJob | null = null;
  /** The collection in progress or last finished; the next one starts after it. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: MetricsSchedulerOptions,
  ) {
    super();
  }

  start(): void {
    if (!this.options.schedule || this.job) return;
    this.job = CronJob.from({
      cronTime: this.options.schedule,
      timeZone: METRICS_TIME_ZONE,
      onTick: () => void this.collectNow().catch((err) => this.log.error({ err }, 'metrics collection failed; the next slot will be collected')),
      start: true,
    });
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

  /** Stops the schedule and waits for a collection in progress. */
  async stop(): Promise<void> {
    await this.job?.stop();
    this.job = null;
    await this.last.catch(() => undefined);
  }
}
