/**
 * The one background-work runtime of a process, over the JobQueue: runs the handlers of defined job kinds
 * (./definition.ts) in two lanes with bounded concurrency each (`work`: analyses, syncs and other heavy jobs;
 * `upkeep`: periodic and delivery passes, so they never wait behind a long analysis), renews leases while a
 * handler runs, retries failures with exponential backoff, keeps every periodic kind's next slot queued
 * (./periodic.ts), and reports each claimed, finished or handed back job as an event (tests and callers await
 * events instead of sleeping). It is the only code that polls the database for work: it sleeps until the
 * earliest waiting job of its kinds is due, at most VIGIL_JOB_POLL_MS, and wakes at once for work queued here.
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Job, JobQueue, JobStatus } from './queue.js';
import { InvalidJobPayloadError, type JobDefinition, type JobLane } from './definition.js';
import { nextSlot, type PeriodicJobDefinition, type PeriodicPayload, type PeriodicSchedule } from './periodic.js';

export interface JobContext {
  log: Logger;
  /** Aborted when the worker stops; long handlers should pass it on to their I/O. */
  signal: AbortSignal;
}

/** A handler may answer what became of the job's subject (e.g. an analysis: analyzed or failed); it is reported as `outcome`. */
export type JobHandler<P> = (payload: P, job: Job<P>, context: JobContext) => Promise<void | { outcome: string }>;

/**
 * Called instead of the handler when a job is claimed again after using all its attempts without ever failing
 * cleanly: the process died while running it (a crash, or the kernel's OOM killer), so it is not run again.
 */
export type ExhaustedHandler<P> = (payload: P, job: Job<P>) => Promise<void>;

interface Registration {
  definition: JobDefinition<any>;
  handler: JobHandler<any>;
  onExhausted?: ExhaustedHandler<any>;
  schedule?: PeriodicSchedule;
}

/** How often a node re-checks that each periodic kind it runs has its next slot queued. */
const PERIODIC_CHECK_MS = 60_000;

export interface WorkerOptions {
  /** Jobs of the `work` lane at once (VIGIL_ANALYSIS_CONCURRENCY). */
  concurrency: number;
  /** Jobs of the `upkeep` lane at once. */
  upkeepConcurrency?: number;
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
  private readonly registrations = new Map<string, Registration>();
  private readonly running: Record<JobLane, Set<Promise<void>>> = { work: new Set(), upkeep: new Set() };
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopping = false;
  /** Set by drain(): jobs whose handlers are aborted go back to the queue instead of staying claimed. */
  private handingBack = false;
  private pumping = false;
  private wakeAgain = false;
  private lastPeriodicCheck = 0;

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

  /** Runs jobs of this kind on this node (call for the kinds of the node's roles only). */
  register<P>(definition: JobDefinition<P>, handler: JobHandler<P>, onExhausted?: ExhaustedHandler<P>): void {
    if (this.registrations.has(definition.kind)) throw new Error(`job kind '${definition.kind}' is registered twice`);
    this.registrations.set(definition.kind, { definition, handler, onExhausted });
  }

  /** Runs a periodic kind on this node and keeps its next slot queued. */
  registerPeriodic(definition: PeriodicJobDefinition, schedule: PeriodicSchedule, handler: JobHandler<PeriodicPayload>): void {
    this.register(definition, handler);
    this.registrations.get(definition.kind)!.schedule = schedule;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const released = await this.queue.releaseAbandoned(this.hostPrefix, this.processPrefix);
    if (released) this.log.info({ released }, 'resuming jobs interrupted by a previous stop');
    await this.checkPeriodic();
    this.wake();
  }

  /** The job kinds this worker claims (those of its node's roles). */
  get kinds(): string[] {
    return [...this.registrations.keys()];
  }

  /** The periodic kinds among them: each keeps its next slot queued, so their records come and go with time. */
  get periodicKinds(): string[] {
    return [...this.registrations.values()].filter((r) => r.schedule).map((r) => r.definition.kind);
  }

  private kindsOf(lane: JobLane): string[] {
    return [...this.registrations.values()].filter((r) => r.definition.lane === lane).map((r) => r.definition.kind);
  }

  private limitOf(lane: JobLane): number {
    return lane === 'work' ? this.options.concurrency : (this.options.upkeepConcurrency ?? 4);
  }

  /** Every `work` slot of this worker is taken (VIGIL_ANALYSIS_CONCURRENCY jobs running). */
  get busy(): boolean {
    return this.running.work.size >= this.options.concurrency;
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

  private schedulePoll(sleepMs: number): void {
    if (this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, sleepMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    let sleepMs = this.options.pollMs;
    try {
      do {
        this.wakeAgain = false;
        for (const lane of ['work', 'upkeep'] as const) {
          const kinds = this.kindsOf(lane);
          while (!this.stopping && this.running[lane].size < this.limitOf(lane)) {
            const job = await this.queue.claim(this.workerId, this.options.leaseMs, kinds);
            if (!job) break;
            this.emit('claimed', job.kind, job.id);
            const run = this.run(job).finally(() => {
              this.running[lane].delete(run);
              this.wake();
            });
            this.running[lane].add(run);
          }
        }
      } while (this.wakeAgain && !this.stopping);
      if (Date.now() - this.lastPeriodicCheck >= PERIODIC_CHECK_MS) await this.checkPeriodic();
      // Sleep until the earliest waiting job is due (a periodic slot, a retry), at most the poll interval.
      const next = await this.queue.nextDue(this.kinds);
      if (next) sleepMs = Math.max(0, Math.min(sleepMs, Date.parse(next) - Date.now() + 5));
    } catch (err) {
      this.log.error({ err }, 'job queue unavailable; retrying');
    } finally {
      this.pumping = false;
      if (this.wakeAgain) this.wake();
      else this.schedulePoll(sleepMs);
    }
  }

  /** Queues the next slot of every periodic kind this node runs (a no-op where one is already waiting). */
  private async checkPeriodic(): Promise<void> {
    this.lastPeriodicCheck = Date.now();
    for (const registration of this.registrations.values()) {
      if (registration.schedule) await this.queueNextSlot(registration, new Date());
    }
  }

  /** Queues the first slot after `after` (or after now, when that is later: missed slots are skipped). */
  private async queueNextSlot(registration: Registration, after: Date): Promise<void> {
    const from = new Date(Math.max(after.getTime(), Date.now()));
    try {
      const slot = await nextSlot(registration.schedule!, from);
      if (!slot) return;
      await this.queue.enqueue(registration.definition, { slot: slot.toISOString() }, { runAt: slot, onDuplicate: 'earliest' });
    } catch (err) {
      this.log.error({ err, job_kind: registration.definition.kind }, 'could not queue the next periodic run; retrying within a minute');
    }
  }

  private async run(job: Job): Promise<void> {
    const log = this.log.child({ job_id: job.id, job_kind: job.kind, attempt: job.attempts });
    const registration = this.registrations.get(job.kind)!;
    const ended = async (status: JobStatus) => {
      // A periodic kind's next slot is queued when a run ends for good; a retry keeps its place instead.
      if (registration.schedule && status !== 'queued') await this.queueNextSlot(registration, new Date((job.payload as PeriodicPayload).slot));
    };
    const problem = registration.definition.check(job.payload);
    if (problem) {
      // Written by another version of Vigil, or by hand: trying again cannot help.
      const message = new InvalidJobPayloadError(job.kind, problem).message;
      log.error(message);
      await this.queue.fail({ ...job, attempts: job.maxAttempts }, this.workerId, message, 0);
      this.emit('finished', { id: job.id, kind: job.kind, status: 'failed', error: message } satisfies JobFinished);
      return;
    }
    if (job.attempts > job.maxAttempts) {
      const message = `interrupted ${job.maxAttempts} times without finishing; the process may have crashed on this job`;
      log.error(message);
      await registration.onExhausted?.(job.payload, job);
      await this.queue.fail(job, this.workerId, message, 0);
      await ended('failed');
      this.emit('finished', { id: job.id, kind: job.kind, status: 'failed', error: message } satisfies JobFinished);
      return;
    }
    const renew = setInterval(() => {
      this.queue.renew(job.id, this.workerId, this.options.leaseMs).catch((err) => log.warn({ err }, 'lease renewal failed'));
    }, Math.max(50, Math.floor(this.options.leaseMs / 3)));
    renew.unref();
    const started = performance.now();
    try {
      const answer = await registration.handler(job.payload, job, { log, signal: this.abort.signal });
      clearInterval(renew);
      await this.queue.complete(job.id, this.workerId);
      await ended('done');
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
      await ended(status);
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
    await Promise.allSettled([...this.running.work, ...this.running.upkeep]);
  }

  /**
   * Graceful stop (SIGTERM): claims nothing more, lets running jobs finish for up to `graceMs`, then aborts the
   * rest and hands them back to the queue, so another node claims them at once instead of after their lease.
   */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    this.handingBack = true;
    if (this.timer) clearTimeout(this.timer);
    const running = [...this.running.work, ...this.running.upkeep];
    if (running.length && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled(running), grace]);
      clearTimeout(timer);
    }
    await this.stop();
  }
}
