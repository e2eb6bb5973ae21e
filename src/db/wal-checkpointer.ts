/**
 * Checkpoints of a SQLite database's write-ahead log, run in a thread of their own instead of inside the commits
 * of the application's connection. SQLite's automatic checkpoint runs in whichever commit pushes the WAL past
 * `wal_autocheckpoint` pages: that commit copies the pages into the database file and waits for two fsyncs,
 * on the event loop's thread. bench:match measured a feed import spending most of its commit time there
 * (0.94 s of commits for 49 305 records, 0.27 s without the checkpoints).
 *
 * The application's connection keeps a high `wal_autocheckpoint` as a backstop (db/index.ts): should this thread
 * fall behind or stop, the WAL is still checkpointed past it. Databases that stay small never start the thread:
 * it starts once the WAL file first grows past START_AT_BYTES (looked at every WATCH_MS), so a test's or a quiet
 * node's database costs a stat a second and nothing more.
 */
import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../util/module-worker.js';
import { CHECKPOINT_MAX_DELAY_MS } from './wal-checkpoint-schedule.js';
import type { CheckpointerData, CheckpointerReport, CheckpointerRequest, DrainReply } from './wal-checkpointer-worker.js';

/**
 * Pages the application's connection lets the WAL reach before it checkpoints itself (262 144 pages = 1 GiB of
 * 4 KiB pages). High, because under a steady stream of write transactions (a re-match, a large import) the WAL is
 * never restarted: SQLite rewinds it only when a write begins with every frame already copied, and the thread
 * always trails the last commit. So the WAL grows however well the thread keeps up, and a lower backstop fired in
 * a commit on the event loop's thread, with the fsyncs of a checkpoint: at 64 MiB bench:match's re-match spent 3.8
 * of its 16 s in three such commits (12 s with this backstop). The frames the thread has copied cost readers
 * nothing (they search only the WAL's frames past the copied ones), and JOURNAL_SIZE_LIMIT_BYTES gives the disk back
 * once the WAL is rewound.
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 262_144;
/** The size the WAL file is cut back to when SQLite rewinds it; without a limit it keeps its largest size. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * The WAL size past which a long writer waits, between its transactions, for the thread to copy every committed
 * page (`drain`), so that its next transaction rewinds the WAL. At most JOURNAL_SIZE_LIMIT_BYTES, so that rewind
 * cuts little off the file.
 */
export const REWIND_AT_BYTES = 48 * 1024 * 1024;
/** The WAL size that starts the thread: SQLite's own default checkpoint point (1 000 pages of 4 KiB). */
const START_AT_BYTES = 4 * 1024 * 1024;
const WATCH_MS = 1000;
/** How often the thread looks for commits to checkpoint (when it copies them: wal-checkpoint-schedule.ts). */
const CHECKPOINT_INTERVAL_MS = 200;

export interface WalCheckpointer {
  /** Stops the thread (if it started) and waits for it to close its connection; its counts, or undefined. */
  stop(): Promise<CheckpointerReport | undefined>;
  /** Whether the thread is running. */
  readonly running: boolean;
  /** The thread's counts as of its last checkpoint that copied pages. */
  readonly report: CheckpointerReport | undefined;
  /**
   * Has the thread checkpoint now (starting it if the WAL has not grown enough yet); answers whether every frame
   * is in the database file, false when the thread is not running. Call it with no statement of this process
   * running, so that no reader holds frames back.
   */
  drain(): Promise<boolean>;
  /**
   * Between two transactions of a long write: drains once the WAL has grown past REWIND_AT_BYTES since the last
   * time, so that the next transaction rewinds it. Under a steady stream of transactions SQLite never rewinds it
   * otherwise (BACKSTOP_AUTOCHECKPOINT_PAGES), and it grew to the backstop's 1 GiB in one large feed import, whose
   * commit then checkpointed and cut the file on the event loop's thread.
   */
  letRewind(): Promise<void>;
}

export interface WalCheckpointerOptions {
  /** Start at once rather than when the WAL grows (tests). */
  startNow?: boolean;
  intervalMs?: number;
  maxDelayMs?: number;
}

/** Watches `file`'s WAL and checkpoints it in a thread once it grows; stop() before closing the database. */
export function watchWalCheckpoints(file: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  let worker: Worker | undefined;
  let exited: Promise<CheckpointerReport | undefined> = Promise.resolve(undefined);
  let stopped = false;
  let alive = false;
  let report: CheckpointerReport | undefined;
  /** The WAL file's size when letRewind last drained it. */
  let sizeAtDrain = 0;
  /** The drain waiting for the thread's answer; one at a time, shared by callers that ask meanwhile. */
  let draining: { promise: Promise<boolean>; resolve: (complete: boolean) => void } | undefined;
  const settleDrain = (complete: boolean) => {
    draining?.resolve(complete);
    draining = undefined;
  };
  const start = () => {
    clearInterval(watch);
    const data: CheckpointerData = { file, intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS, maxDelayMs: options.maxDelayMs ?? CHECKPOINT_MAX_DELAY_MS };
    const thread = startModuleWorker(import.meta.url, 'wal-checkpointer-worker', { workerData: data });
    // Never keeps the process alive; its connection closes when the process ends.
    thread.unref();
    thread.on('message', (message: CheckpointerReport | DrainReply) => {
      if ('type' in message) settleDrain(message.complete);
      else report = message;
    });
    // A thread that failed leaves the backstop to checkpoint; nothing to report.
    thread.on('error', () => undefined);
    alive = true;
    exited = new Promise((resolve) =>
      thread.once('exit', () => {
        alive = false;
        settleDrain(false);
        resolve(report);
      }),
    );
    worker = thread;
  };
  const walSize = (): number => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0; // No WAL yet.
    }
  };
  const watch = setInterval(() => {
    if (walSize() > START_AT_BYTES) start();
  }, WATCH_MS);
  watch.unref();
  if (options.startNow) start();
  const checkpointer: WalCheckpointer = {
    get report() {
      return report;
    },
    get running() {
      return alive && !stopped;
    },
    async stop() {
      clearInterval(watch);
      if (stopped || !worker) {
        stopped = true;
        return exited;
      }
      stopped = true;
      worker.postMessage('stop' satisfies CheckpointerRequest);
      return exited;
    },
    drain() {
      if (stopped) return Promise.resolve(false);
      if (!worker) start();
      if (!alive) return Promise.resolve(false);
      if (!draining) {
        let resolve!: (complete: boolean) => void;
        const promise = new Promise<boolean>((r) => (resolve = r));
        draining = { promise, resolve };
        worker!.postMessage('drain' satisfies CheckpointerRequest);
      }
      return draining.promise;
    },
    async letRewind() {
      const size = walSize();
      // A rewound WAL is written over from its start, so the file keeps its size until new frames outgrow it:
      // growth past the size at the last drain says it filled up again (a file that was cut back resets that size).
      if (size <= REWIND_AT_BYTES || size <= sizeAtDrain) {
        sizeAtDrain = Math.min(sizeAtDrain, size);
        return;
      }
      sizeAtDrain = size;
      await checkpointer.drain();
    },
  };
  return checkpointer;
}
