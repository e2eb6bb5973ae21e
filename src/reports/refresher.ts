/**
 * Runs the read-model refresh: every VIGIL_REPORTS_REFRESH_SECONDS (the bound on reporting lag) as a periodic job
 * (REPORTS_REFRESH_JOB, run once per slot by one node holding the reports role), and on demand in this process.
 * Requests while a refresh runs are coalesced into one more run, so `refreshNow()` always returns after a
 * refresh that started after it was called. Emits 'refreshed' with the outcome after each run, 'failed' with the error.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import { definePeriodicJob } from '../jobs/periodic.js';
import { refreshReadModel, type RefreshOutcome } from './refresh.js';

export const REPORTS_REFRESH_JOB = definePeriodicJob({ kind: 'reports_refresh', role: 'reports' });

export class ReportRefresher extends EventEmitter {
  private running: Promise<RefreshOutcome> | null = null;
  private queued: Promise<RefreshOutcome> | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly holder: string,
  ) {
    super();
  }

  /** Refreshes now (or right after the refresh in progress) and resolves with the outcome. */
  refreshNow(): Promise<RefreshOutcome> {
    if (!this.running) return this.run();
    this.queued ??= this.running.catch(() => undefined).then(() => {
      this.queued = null;
      return this.run();
    });
    return this.queued;
  }

  private run(): Promise<RefreshOutcome> {
    const started = Date.now();
    this.running = refreshReadModel(this.db, this.holder)
      .then((outcome) => {
        if (outcome.changesApplied) this.log.debug({ ...outcome, ms: Date.now() - started }, 'reporting read model refreshed');
        this.emit('refreshed', outcome);
        return outcome;
      })
      .catch((err: unknown) => {
        this.emit('failed', err);
        throw err;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Waits for a refresh in progress. */
  async stop(): Promise<void> {
    await this.queued?.catch(() => undefined);
    await this.running?.catch(() => undefined);
  }
}
