/**
 * When the WAL checkpointer thread (wal-checkpointer-worker.ts) copies committed pages into the database file. It
 * looks every interval; while other connections keep committing it lets their pages collect for up to `maxDelayMs`,
 * and copies them as soon as a look finds no new commit. A page rewritten by many short transactions (an index page
 * during a feed import or a re-match) is then copied once per delay instead of once per look. Measured against a
 * checkpoint at every 200 ms look (bench:match data, 2 vCPUs): the thread's CPU time in the maven import fell from
 * 0.54-0.78 s to 0.39-0.46 s, and three interleaved re-matches took 10.3-11.2 s against 11.6-11.8 s.
 */

/** The longest the thread lets committed pages wait while commits keep coming. */
export const CHECKPOINT_MAX_DELAY_MS = 2000;

/** Decides, look by look, whether a checkpoint is due; pure, so it is tested with a clock of the test's own. */
export class CheckpointSchedule {
  private seenVersion: number | undefined;
  /** When the first commit not yet checkpointed was seen; undefined when there is none. */
  private pendingSince: number | undefined;

  constructor(private readonly maxDelayMs = CHECKPOINT_MAX_DELAY_MS) {}

  /**
   * `version` is the database's `data_version` as the thread's connection reads it (it changes whenever another
   * connection commits); `now` in milliseconds. True when the thread should checkpoint now.
   */
  due(version: number, now: number): boolean {
    // The first look counts as a commit: the thread starts because the WAL grew.
    const committed = version !== this.seenVersion;
    this.seenVersion = version;
    if (committed) this.pendingSince ??= now;
    if (this.pendingSince === undefined) return false;
    if (committed && now - this.pendingSince < this.maxDelayMs) return false;
    this.pendingSince = undefined;
    return true;
  }
}
