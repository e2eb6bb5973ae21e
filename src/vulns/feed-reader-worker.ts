/**
 * The feed reader thread (started by feed-reader.ts): reads an OSV path, parses and validates its records and
 * serialises them (feed-rows.ts), then posts them to the main thread in batches. It posts a batch only
 * while it holds a credit; the main thread returns one for each batch it takes, so at most `window` batches wait
 * and memory stays bounded however large the feed. One read at a time; the thread is reused for the next.
 */
import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { packBatch, serialisedBatches } from './feed-rows.js';
import type { ReaderReply, ReaderRequest, WireError } from './feed-reader.js';
import { readOsvPath } from './osv/archive.js';

const port = parentPort!;
let credits = 0;
let creditReturned: (() => void) | undefined;

port.on('message', (message: ReaderRequest) => {
  if (message.type === 'credit') {
    credits++;
    creditReturned?.();
  } else void read(message);
});

function reply(message: ReaderReply): void {
  port.postMessage(message);
}

async function read(request: Extract<ReaderRequest, { type: 'read' }>): Promise<void> {
  credits = request.window;
  const source = readOsvPath(request.path, request.options);
  try {
    for await (const batch of serialisedBatches(source.records, request.batchRecords)) {
      while (credits === 0) await new Promise<void>((resolve) => (creditReturned = resolve));
      credits--;
      reply({ type: 'batch', batch: packBatch(batch), skipped: source.stats.skipped, ahead: request.window - credits });
    }
    reply({ type: 'done', stats: source.stats });
  } catch (err) {
    reply({ type: 'failed', error: wireError(err) });
  }
}

function wireError(err: unknown): WireError {
  if (err instanceof AppError) return { message: err.message, app: { status: err.status, errorType: err.errorType, detail: err.detail } };
  if (err instanceof Error) return { message: err.message, ...(typeof (err as NodeJS.ErrnoException).code === 'string' ? { code: (err as NodeJS.ErrnoException).code } : {}) };
  return { message: String(err) };
}
