/**
 * The WAL checkpointer thread (started by wal-checkpointer.ts): on a connection of its own to the database file,
 * it looks every `intervalMs` for commits of other connections and runs a PASSIVE checkpoint when its schedule
 * says one is due (wal-checkpoint-schedule.ts: once the commits pause, or after `maxDelayMs` of them), or at once
 * when asked to (`drain`: a long writer letting the WAL rewind, wal-checkpointer.ts). PASSIVE never waits for, or
 * blocks, the writer or readers: it copies what no reader still needs and leaves the rest for the next round. Any
 * failure (the file removed, the disk full) ends the thread: the application's own connection still checkpoints
 * past its backstop, so the WAL stays bounded without it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CheckpointSchedule } from './wal-checkpoint-schedule.js';

export interface CheckpointerData {
  file: string;
  intervalMs: number;
  maxDelayMs: number;
}

/** What the thread reports when asked to stop: its rounds, for tests and diagnostics. */
export interface CheckpointerReport {
  checkpoints: number;
  framesCopied: number;
}

/** Messages to the thread. */
export type CheckpointerRequest = 'stop' | 'drain';

/** The answer to `drain`: whether every frame of the WAL is now in the database file. */
export interface DrainReply {
  type: 'drained';
  complete: boolean;
}

const { file, intervalMs, maxDelayMs } = workerData as CheckpointerData;
const port = parentPort!;
const conn = new Database(file, { fileMustExist: true });
const report: CheckpointerReport = { checkpoints: 0, framesCopied: 0 };
const schedule = new CheckpointSchedule(maxDelayMs);

function round(): void {
  // Changes whenever another connection commits: an idle database costs one cheap read per round.
  const version = conn.pragma('data_version', { simple: true }) as number;
  if (schedule.due(version, Date.now())) checkpoint();
}

/** Runs a PASSIVE checkpoint; answers whether it copied the whole WAL. */
function checkpoint(): boolean {
  const [result] = conn.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  report.checkpoints++;
  const copied = Math.max(0, result?.checkpointed ?? 0);
  report.framesCopied += copied;
  if (copied > 0) port.postMessage(report);
  return result !== undefined && result.busy === 0 && result.checkpointed === result.log;
}

const timer = setInterval(() => {
  try {
    round();
  } catch {
    stop();
  }
}, intervalMs);

function stop(): void {
  clearInterval(timer);
  try {
    conn.close();
  } finally {
    port.postMessage(report);
    port.close();
  }
}

port.on('message', (request: CheckpointerRequest) => {
  if (request !== 'drain') return stop();
  let complete = false;
  try {
    complete = checkpoint();
  } catch {
    stop();
    return;
  }
  port.postMessage({ type: 'drained', complete } satisfies DrainReply);
});
