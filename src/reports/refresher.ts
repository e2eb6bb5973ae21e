/**
 * Runs the read-model refresh every refreshIntervalSeconds (the bound on reporting lag) and on demand.
 * Requests while a refresh runs are coalesced into one more run, so `refreshNow()` always returns after a
 * refresh that started after it was called. Emits 'refreshed' with the outcome after each run, 'failed' with the error.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import { refreshReadModel, type RefreshOutcome } from './refresh.js';

export class ReportRefresher extends EventEmitter {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RefreshOutcome> | null = null;
  private queued: Promise<RefreshOutcome> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly holder: string,
    private readonly intervalMs: number,
  ) {
    super();
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.refreshNow()
        .catch((err) => this.log.error({ err }, 'reporting refresh failed; retrying at the next interval'))
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
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

  /** Stops the timer and waits for a refresh in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.queued?.catch(() => undefined);
    await this.running?.catch(() => undefined);
  }
}
