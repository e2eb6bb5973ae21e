/**
 * Where the service log goes: standard output, written so that a reader which stops reading (`vigil | head -4`, a
 * stalled log shipper) can never hold the process. pino's default destination retries a full pipe for as long as
 * it stays full and flushes synchronously at exit, so such a reader kept a stopping process alive for ever.
 *
 * Lines go through the output stream (asynchronous for pipes and sockets), at most `maxPendingBytes` waiting for
 * the reader; past that, lines are dropped and counted, and one line saying how many is written once the reader
 * catches up. A reader that is gone (EPIPE) ends logging, not the service.
 */
import type { Writable } from 'node:stream';

/** What may wait for a slow reader: about ten thousand typical lines. */
export const DEFAULT_MAX_PENDING_LOG_BYTES = 8 * 1024 * 1024;

/** pino's level number for warn, so the dropped-lines notice reads like the lines around it. */
const WARN_LEVEL = 40;

export class LogSink {
  private dropped = 0;
  private gone = false;

  constructor(
    private readonly out: Writable = process.stdout,
    private readonly maxPendingBytes = DEFAULT_MAX_PENDING_LOG_BYTES,
    /** How a serialized line is shown (log-format.ts for a person at a terminal); as it is by default. */
    private readonly format: (line: string) => string = (line) => line,
  ) {
    out.on('error', () => {
      this.gone = true;
    });
  }

  /** pino's destination interface: one serialized line, newline included. Never blocks, never throws. */
  write(line: string): boolean {
    if (this.gone) return true;
    if (this.out.writableLength >= this.maxPendingBytes) {
      this.dropped += 1;
      return true;
    }
    if (this.dropped > 0) {
      const msg = `${this.dropped} log lines were dropped: the log reader did not keep up`;
      this.out.write(this.format(`${JSON.stringify({ level: WARN_LEVEL, time: Date.now(), msg })}\n`));
      this.dropped = 0;
    }
    this.out.write(this.format(line));
    return true;
  }

  /** Resolves once every line written so far has been handed to the reader (or the reader is gone). */
  drained(): Promise<void> {
    if (this.gone) return Promise.resolve();
    // Writes complete in order: the callback of an empty write comes after every line before it went out.
    return new Promise((resolve) => this.out.write('', () => resolve()));
  }
}
