/**
 * Reads an OSV path (all.zip, directory, file) in a worker thread: inflating, decoding, JSON.parse, validation
 * and serialising (feed-rows.ts) happen there, while the main thread digests, compares and writes. On two cores
 * the two halves overlap, and however large the feed, its parsing never blocks the event loop that serves API
 * requests.
 *
 * Batches arrive with bounded flow control (at most READER_WINDOW of them wait; see feed-reader-worker.ts). Read
 * errors keep their meaning: a malformed record is skipped and counted by the reader as in process, and a source
 * that cannot be read (truncated zip, missing path) fails the iteration with the reader's error (InvalidError
 * stays InvalidError). A thread that dies fails it with FeedReaderError. After a clean end the thread is kept,
 * idle and unreferenced, for the next read (a feed sync usually reads several sources in a row), and stopped after
 * READER_IDLE_MS.
 *
 * A busy thread is never terminated: it is asked to stop (a shared flag it checks between batches) and does so at
 * a point of its own choosing. Node 20 aborts the whole process when a worker is terminated between creating a
 * zlib handle and initialising it ("close before init" in node_zlib.cc, seen in CI), and the reader inflates
 * every zip entry. Only a thread that does not answer within READER_STOP_GRACE_MS is terminated.
 */
import type { Worker } from 'node:worker_threads';
import { AppError, InvalidError, type ErrorCode } from '../errors.js';
import { startModuleWorker } from '../util/module-worker.js';
import { READ_EXIT, READ_STOP } from './feed-reader-control.js';
import { SERIALISED_BATCH_RECORDS, unpackBatch, type PackedBatch, type SerialisedRecord, type SerialisedSource } from './feed-rows.js';
import type { OsvReadOptions, OsvReadStats } from './osv/archive.js';

/**
 * Batches the reader may post ahead of the main thread: 8 000 records, more than one SQLite staging step (5 000),
 * so the reader keeps reading while the main thread writes and commits a step (a window of one step's size left it
 * waiting for a fifth of the import). About 16 MB of strings at most.
 */
export const READER_WINDOW = 32;
/** How long an idle reader thread is kept for the next read. */
const READER_IDLE_MS = 30_000;
/** How long a thread asked to stop may take (it finishes the batch in hand: 250 records, each inflate bounded). */
const READER_STOP_GRACE_MS = 30_000;


export type ReaderRequest =
  | { type: 'read'; path: string; options: OsvReadOptions; batchRecords: number; window: number; control: Int32Array }
  | { type: 'credit' }
  /** Wakes a thread waiting for credit, to look at its control flag. */
  | { type: 'wake' };

export type ReaderReply =
  /** `ahead`: the batches posted and not yet taken, this one included (what the thread's credits allow). */
  | { type: 'batch'; batch: PackedBatch; skipped: number; ahead: number }
  | { type: 'done'; stats: OsvReadStats }
  | { type: 'failed'; error: WireError }
  /** The read ended early, as its control flag asked. */
  | { type: 'stopped' };

/** An error of the reader as posted: domain errors keep their type and detail, system errors their code. */
export interface WireError {
  message: string;
  app?: { status: number; errorType: ErrorCode; detail: Record<string, unknown> };
  code?: string;
}

/** The feed reader thread stopped without finishing its read (a crash, running out of memory). */
export class FeedReaderError extends AppError {
  constructor(reason: string) {
    super(500, 'internal_error', `the feed reader thread stopped: ${reason}`, { reason });
  }
}

/**
 * The records of an OSV path, read and serialised in a reader thread. The read starts at once, so the thread
 * works while the caller prepares its side; `close` ends it early (a no-op once the batches were read to the end).
 */
export function readOsvPathInWorker(path: string, options: OsvReadOptions = {}): ReaderSource {
  return new ReaderRead(path, options);
}

export interface ReaderSource extends SerialisedSource {
  /** The most batches posted and not yet taken at once: at most READER_WINDOW. */
  readonly largestBacklog: number;
  close(): void;
}

class ReaderRead implements ReaderSource {
  readonly stats: OsvReadStats = { read: 0, skipped: 0, errors: [] };
  readonly batches: AsyncGenerator<SerialisedRecord[]>;
  largestBacklog = 0;
  private readonly worker = takeReader();
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
  private readonly replies: ReaderReply[] = [];
  private stopped: Error | undefined;
  private finished = false;
  private released = false;
  private arrived: (() => void) | undefined;
  private readonly onMessage = (reply: ReaderReply) => {
    this.replies.push(reply);
    if (reply.type === 'batch') this.largestBacklog = Math.max(this.largestBacklog, reply.ahead);
    this.arrived?.();
  };
  private readonly onError = (err: Error) => this.stop(new FeedReaderError(err.message));
  private readonly onExit = (code: number) => this.stop(new FeedReaderError(`exited with code ${code}`));

  constructor(path: string, options: OsvReadOptions) {
    this.worker.on('message', this.onMessage).on('error', this.onError).on('exit', this.onExit);
    busy.set(this.worker, this.control);
    this.worker.postMessage({ type: 'read', path, options, batchRecords: SERIALISED_BATCH_RECORDS, window: READER_WINDOW, control: this.control } satisfies ReaderRequest);
    this.batches = this.read();
  }

  close(): void {
    if (!this.finished) this.release();
  }

  batchWaiting(): boolean {
    return this.replies.length > 0;
  }

  private async *read(): AsyncGenerator<SerialisedRecord[]> {
    try {
      for (;;) {
        while (this.replies.length === 0 && !this.stopped) await new Promise<void>((resolve) => (this.arrived = resolve));
        if (this.stopped) throw this.stopped;
        const reply = this.replies.shift()!;
        if (reply.type === 'failed') throw fromWireError(reply.error);
        if (reply.type === 'stopped') throw new FeedReaderError('the read was stopped');
        if (reply.type === 'done') {
          Object.assign(this.stats, reply.stats);
          this.finished = true;
          return;
        }
        this.worker.postMessage({ type: 'credit' } satisfies ReaderRequest);
        this.stats.skipped = reply.skipped;
        yield unpackBatch(reply.batch);
      }
    } finally {
      this.release();
    }
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    this.arrived?.();
  }

  /** Hands the thread back for the next read: at once after a clean end, once it has stopped otherwise. Once only. */
  private release(): void {
    if (this.released) return;
    this.released = true;
    this.worker.off('message', this.onMessage).off('error', this.onError).off('exit', this.onExit);
    if (this.finished) {
      busy.delete(this.worker);
      keepReader(this.worker);
    } else void stopReader(this.worker, this.control, READ_STOP);
    // Wakes an iteration waiting for a batch: the read is over.
    this.stop(new FeedReaderError('the read was closed'));
  }
}

function fromWireError(error: WireError): Error {
  if (error.app?.errorType === 'validation_error') return new InvalidError(error.message, error.app.detail);
  if (error.app) return new AppError(error.app.status, error.app.errorType, error.message, error.app.detail);
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

/** Every reader thread alive; the busy ones with their read's control flag; the idle one kept, if any. */
const readers = new Set<Worker>();
const busy = new Map<Worker, Int32Array>();
let idle: { worker: Worker; timer: NodeJS.Timeout } | undefined;

function takeReader(): Worker {
  if (idle) {
    const { worker, timer } = idle;
    idle = undefined;
    clearTimeout(timer);
    worker.ref();
    return worker;
  }
  const worker = startModuleWorker(import.meta.url, 'feed-reader-worker');
  readers.add(worker);
  // Idle, it has no read's listeners: forget it if it dies then, rather than let its error go unhandled.
  worker.on('error', () => undefined).on('exit', () => {
    readers.delete(worker);
    busy.delete(worker);
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  });
  return worker;
}

function keepReader(worker: Worker): void {
  // An idle thread waits for a message: terminating it interrupts no zlib call.
  if (idle) {
    void worker.terminate();
    return;
  }
  // Unreferenced, so an idle reader never keeps the process alive.
  worker.unref();
  const timer = setTimeout(() => void worker.terminate(), READER_IDLE_MS);
  timer.unref();
  idle = { worker, timer };
}

/**
 * Asks a busy thread to end its read (READ_STOP: then it is kept for the next read) or itself (READ_EXIT), and
 * resolves once it has; a thread that does not within the grace period is terminated after all.
 */
function stopReader(worker: Worker, control: Int32Array, how: typeof READ_STOP | typeof READ_EXIT): Promise<void> {
  Atomics.store(control, 0, how);
  return new Promise<void>((resolve) => {
    const done = (keep: boolean) => {
      clearTimeout(grace);
      worker.off('message', onMessage).off('exit', onExit);
      busy.delete(worker);
      if (keep) keepReader(worker);
      resolve();
    };
    // Batches posted before the thread saw the flag still arrive: only the read's end counts.
    const onMessage = (reply: ReaderReply) => {
      if (reply.type !== 'batch') done(how === READ_STOP);
    };
    const onExit = () => done(false);
    const grace = setTimeout(() => {
      worker.off('message', onMessage);
      void worker.terminate();
    }, READER_STOP_GRACE_MS);
    grace.unref();
    worker.on('message', onMessage).on('exit', onExit);
    worker.postMessage({ type: 'wake' } satisfies ReaderRequest);
  });
}

/**
 * Ends every reader thread, busy or idle; a read in progress fails with FeedReaderError, as if its thread had
 * died. For an embedding process that wants its threads gone without exiting, and for tests of that failure.
 */
export async function terminateFeedReaders(): Promise<void> {
  await Promise.all(
    [...readers].map((worker) => {
      const control = busy.get(worker);
      return control ? stopReader(worker, control, READ_EXIT) : worker.terminate();
    }),
  );
}
