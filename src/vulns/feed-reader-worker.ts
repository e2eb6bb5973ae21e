/**
 * The feed reader thread (started by feed-reader.ts): reads an OSV path, parses and validates its records and
 * packs them (feed-rows.ts), then posts them to the main thread in batches. It posts a batch only
 * while it holds a credit; the main thread returns one for each batch it takes, so at most `window` batches wait
 * and memory stays bounded however large the feed. One read at a time; the thread is reused for the next.
 * Between batches it looks at the read's control flag: asked to stop, it ends the read (closing the source) and
 * answers `stopped`, or ends the thread; the main thread never terminates it mid-inflate (feed-reader.ts says why).
 */
import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { packedBatches } from './feed-rows.js';
import type { ReaderReply, ReaderRequest, WireError } from './feed-reader.js';
import { READ_EXIT, READ_RUN } from './feed-reader-control.js';
import { readOsvPath } from './osv/archive.js';

const port = parentPort!;
let credits = 0;
let creditReturned: (() => void) | undefined;
let control: Int32Array | undefined;

port.on('message', (message: ReaderRequest) => {
  if (message.type === 'credit') {
    credits++;
    creditReturned?.();
  } else if (message.type === 'wake') creditReturned?.();
  else void read(message);
});

const stopAsked = () => control !== undefined && Atomics.load(control, 0) !== READ_RUN;

function reply(message: ReaderReply): void {
  // A batch's bytes are handed over, not copied.
  port.postMessage(message, message.type === 'batch' ? [message.batch.bytes] : []);
}

async function read(request: Extract<ReaderRequest, { type: 'read' }>): Promise<void> {
  credits = request.window;
  control = request.control;
  const source = readOsvPath(request.path, request.options);
  try {
    for await (const batch of packedBatches(source.records, request.batchRecords)) {
      while (credits === 0 && !stopAsked()) await new Promise<void>((resolve) => (creditReturned = resolve));
      // Leaving the loop returns the generators, which close the source.
      if (stopAsked()) break;
      credits--;
      reply({ type: 'batch', batch, skipped: source.stats.skipped, ahead: request.window - credits });
    }
    if (!stopAsked()) reply({ type: 'done', stats: source.stats });
    else if (Atomics.load(control, 0) === READ_EXIT) process.exit(1);
    else reply({ type: 'stopped' });
  } catch (err) {
    reply({ type: 'failed', error: wireError(err) });
  }
}

function wireError(err: unknown): WireError {
  if (err instanceof AppError) return { message: err.message, app: { status: err.status, errorType: err.errorType, detail: err.detail } };
  if (err instanceof Error) return { message: err.message, ...(typeof (err as NodeJS.ErrnoException).code === 'string' ? { code: (err as NodeJS.ErrnoException).code } : {}) };
  return { message: String(err) };
}
