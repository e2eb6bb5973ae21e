/**
 * An in-process worker over the JobQueue: runs handlers by job kind with bounded concurrency, renews leases
 * while a handler runs, retries failures with exponential backoff, and reports each claimed, finished or handed
 * back job as an event (tests and callers await events instead of sleeping).
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Job, JobQueue, JobStatus } from './queue.js';

export interface JobContext {
  log: Logger;
  /** Aborted when the worker stops; long handlers should pass it on to their I/O. */
  signal: AbortSignal;
}

/** A handler may answer what became of the job's subject (e.g. an analysis: analyzed or failed); it is reported as `outcome`. */
export type JobHandler = (payload: any, job: Job, context: JobContext) => Promise<void | { outcome: string }>;

/**
 * Called instead of the handler when a job is claimed again after using all its attempts without ever failing
 * cleanly: the process died while running it (a crash, or the kernel's OOM killer), so it is not run again.
 */
export type ExhaustedHandler = (payload: any, job: Job) => Promise<void>;

export interface WorkerOptions {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  retryBaseMs: number;
  /** Overrides the process identity (tests simulate a restarted process with it). */
  processToken?: string;
  /**
   * The node's name (VIGIL_HOST_ID; the host name by default). A starting worker releases jobs that earlier
   * processes of this node left running, so several processes on one host need different ones.
   */
  nodeId?: string;
}

export interface JobFinished {
  id: number;
  kind: string;
  status: JobStatus;
  error?: string;
  /** How long the handler ran in this attempt. */
  durationMs?: number;
  /** What the handler answered about the job's subject. */
  outcome?: string;
}

/** A running job a draining worker aborted and returned to the queue. */
export interface HandedBack {
  id: number;
  kind: string;
}

/** Identifies this process among earlier ones on the same host (pids repeat in containers, this does not). */
export const PROCESS_TOKEN = `${process.pid}.${randomBytes(4).toString('hex')}`;

export class JobWorker extends EventEmitter {
  readonly workerId: string;
  private readonly hostPrefix: string;
  private readonly processPrefix: string;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly exhaustedHandlers = new Map<string, ExhaustedHandler>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopping = false;
  /** Set by drain(): jobs whose handlers are aborted go back to the queue instead of staying claimed. */
  private handingBack = false;
  private pumping = false;
  private wakeAgain = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly log: Logger,
    private readonly options: WorkerOptions,
  ) {
    super();
    this.hostPrefix = `${options.nodeId ?? hostname()}:`;
    this.processPrefix = `${this.hostPrefix}${options.processToken ?? PROCESS_TOKEN}:`;
    this.workerId = `${this.processPrefix}${randomBytes(4).toString('hex')}`;
  }

  register(kind: string, handler: JobHandler, onExhausted?: ExhaustedHandler): void {
    this.handlers.set(kind, handler);
    if (onExhausted) this.exhaustedHandlers.set(kind, onExhausted);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const released = await this.queue.releaseAbandoned(this.hostPrefix, this.processPrefix);
    if (released) this.log.info({ released }, 'resuming jobs interrupted by a previous stop');
    this.wake();
  }

  /** The job kinds this worker claims (those of its node's roles). */
  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** Every job slot of this worker is taken (VIGIL_ANALYSIS_CONCURRENCY jobs running). */
  get busy(): boolean {
    return this.running.size >= this.options.concurrency;
  }

  /** Looks for work now (call after enqueueing in this process). */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.wakeAgain = true;
      return;
    }
    void this.pump();
  }

  private schedulePoll(): void {
    if (this.timer || this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.wakeAgain = false;
        while (!this.stopping && this.running.size < this.options.concurrency) {
          const job = await this.queue.claim(this.workerId, this.options.leaseMs, [...this.handlers.keys()]);
          if (!job) break;
          this.emit('claimed', job.kind, job.id);
          const run = this.run(job).finally(() => {
            this.running.delete(run);
            this.wake();
          });
          this.running.add(run);
        }
      } while (this.wakeAgain && !this.stopping);
    } catch (err) {
      this.log.error({ err }, 'job queue unavailable; retrying');
    } finally {
      this.pumping = false;
      this.schedulePoll();
    }
  }

  private async run(job: Job): Promise<void> {
    const log = this.log.child({ job_id: job.id, job_kind: job.kind, attempt: job.attempts });
    if (job.attempts > job.maxAttempts) {
      const message = `interrupted ${job.maxAttempts} times without finishing; the process may have crashed on this job`;
      log.error(message);
      await this.exhaustedHandlers.get(job.kind)?.(job.payload, job);
      await this.queue.fail(job, this.workerId, message, 0);
      this.emit('finished', { id: job.id, kind: job.kind, status: 'failed', error: message } satisfies JobFinished);
      return;
    }
    const renew = setInterval(() => {
      this.queue.renew(job.id, this.workerId, this.options.leaseMs).catch((err) => log.warn({ err }, 'lease renewal failed'));
    }, Math.max(50, Math.floor(this.options.leaseMs / 3)));
    renew.unref();
    const started = performance.now();
    try {
      const answer = await this.handlers.get(job.kind)!(job.payload, job, { log, signal: this.abort.signal });
      clearInterval(renew);
      await this.queue.complete(job.id, this.workerId);
      this.emit('finished', { id: job.id, kind: job.kind, status: 'done', durationMs: performance.now() - started, ...(answer ? { outcome: answer.outcome } : {}) } satisfies JobFinished);
    } catch (err) {
      clearInterval(renew);
      if (this.abort.signal.aborted) {
        // Interrupted by a stop: left claimed (the next start of this node resumes it) or, when draining, handed back.
        if (this.handingBack && (await this.queue.handBack(job.id, this.workerId).catch((e) => log.warn({ err: e }, 'could not hand the job back'))))
          this.emit('handedBack', { id: job.id, kind: job.kind } satisfies HandedBack);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      const backoff = this.options.retryBaseMs * 2 ** (job.attempts - 1) * (0.5 + Math.random());
      const status = await this.queue.fail(job, this.workerId, message, backoff);
      log[status === 'failed' ? 'error' : 'warn']({ err }, status === 'failed' ? 'job failed for good' : 'job failed; will retry');
      this.emit('finished', { id: job.id, kind: job.kind, status, error: message, durationMs: performance.now() - started } satisfies JobFinished);
    }
  }

  /** Resolves when the job reaches done or failed (as seen by this worker). */
  waitFor(id: number): Promise<JobFinished> {
    return new Promise((resolve) => {
      const onFinished = (f: JobFinished) => {
        if (f.id === id && (f.status === 'done' || f.status === 'failed')) {
          this.off('finished', onFinished);
          resolve(f);
        }
      };
      this.on('finished', onFinished);
    });
  }

  /** Stops claiming work and aborts running handlers; their jobs stay claimed and are resumed on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    await Promise.allSettled([...this.running]);
  }

  /**
   * Graceful stop (SIGTERM): claims nothing more, lets running jobs finish for up to `graceMs`, then aborts the
   * rest and hands them back to the queue, so another node claims them at once instead of after their lease.
   */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    this.handingBack = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.running.size && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled([...this.running]), grace]);
      clearTimeout(timer);
    }
    await this.stop();
  }
}
