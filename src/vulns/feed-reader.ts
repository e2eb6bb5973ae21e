/**
 * Reads an OSV path (all.zip, directory, file) in a worker thread: inflating, decoding, JSON.parse, validation
 * and serialising (feed-rows.ts) happen there, while the main thread digests, compares and writes. On two cores
 * the two halves overlap, and however large the feed, its parsing never blocks the event loop that serves API
 * requests.
 *
 * Batches arrive with bounded flow control (at most READER_WINDOW of them wait; see feed-reader-worker.ts). Read
 * errors keep their meaning: a malformed record is skipped and counted by the reader as in process, and a source
 * that cannot be read (truncated zip, missing path) fails the iteration with the reader's error (InvalidError
 * stays InvalidError). A thread that dies fails it with FeedReaderError. Whenever the iteration stops before the
 * end (an error, the consumer giving up, an abort), the thread is terminated; after a clean end it is kept, idle
 * and unreferenced, for the next read (a feed sync usually reads several sources in a row), and stopped after
 * READER_IDLE_MS.
 */
import type { Worker } from 'node:worker_threads';
import { AppError, InvalidError, type ErrorCode } from '../errors.js';
import { startModuleWorker } from '../util/module-worker.js';
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

export type ReaderRequest =
  | { type: 'read'; path: string; options: OsvReadOptions; batchRecords: number; window: number }
  | { type: 'credit' };

export type ReaderReply =
  /** `ahead`: the batches posted and not yet taken, this one included (what the thread's credits allow). */
  | { type: 'batch'; batch: PackedBatch; skipped: number; ahead: number }
  | { type: 'done'; stats: OsvReadStats }
  | { type: 'failed'; error: WireError };

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
    this.worker.postMessage({ type: 'read', path, options, batchRecords: SERIALISED_BATCH_RECORDS, window: READER_WINDOW } satisfies ReaderRequest);
    this.batches = this.read();
  }

  close(): void {
    if (!this.finished) this.release();
  }

  private async *read(): AsyncGenerator<SerialisedRecord[]> {
    try {
      for (;;) {
        while (this.replies.length === 0 && !this.stopped) await new Promise<void>((resolve) => (this.arrived = resolve));
        if (this.stopped) throw this.stopped;
        const reply = this.replies.shift()!;
        if (reply.type === 'failed') throw fromWireError(reply.error);
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

  /** Hands the thread back: kept for the next read after a clean end, terminated otherwise. Once only. */
  private release(): void {
    if (this.released) return;
    this.released = true;
    this.worker.off('message', this.onMessage).off('error', this.onError).off('exit', this.onExit);
    if (this.finished) keepReader(this.worker);
    else void this.worker.terminate();
    // Wakes an iteration waiting for a batch: the read is over.
    this.stop(new FeedReaderError('the read was closed'));
  }
}

function fromWireError(error: WireError): Error {
  if (error.app?.errorType === 'validation_error') return new InvalidError(error.message, error.app.detail);
  if (error.app) return new AppError(error.app.status, error.app.errorType, error.message, error.app.detail);
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

/** Every reader thread alive, and the idle one kept for the next read, if any. */
const readers = new Set<Worker>();
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
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  });
  return worker;
}

function keepReader(worker: Worker): void {
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
 * Terminates every reader thread, busy or idle; a read in progress fails with FeedReaderError, as if its thread
 * had died. For an embedding process that wants its threads gone without exiting, and for tests of that failure.
 */
export async function terminateFeedReaders(): Promise<void> {
  await Promise.all([...readers].map((worker) => worker.terminate()));
}
