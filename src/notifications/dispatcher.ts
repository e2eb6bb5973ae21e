/**
 * The dispatcher: takes due notifications from the outbox and delivers them, at most `concurrency` at a
 * time, each try bounded by its configuration's timeout. A failed try is retried after an exponential
 * backoff with jitter until the tries run out; then the notification is failed (a replay queues it again).
 *
 * Delivery passes are the periodic job NOTIFICATIONS_DELIVER_JOB on nodes holding the notifications role: due
 * when the next notification is, at the latest VIGIL_NOTIFY_POLL_MS on, and made due at once (`wake()`) by any
 * node that queues notifications. A pass delivers until nothing is due (or its time budget is spent). Passes on
 * several nodes may overlap: the claim of each notification keeps them from sending one twice.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { NotificationsConfig } from '../config.js';
import type { Db } from '../db/index.js';
import type { SecretBox } from '../util/secret-box.js';
import { nowIso } from '../util/time.js';
import { channelFor } from './channels/index.js';
import { closeIdleConnections } from '../outbound/http.js';
import { deliveryTarget, type ConfigurationRecord } from './configurations.js';
import { PROCESS_TOKEN } from '../jobs/worker.js';
import type { JobQueue } from '../jobs/queue.js';
import { definePeriodicJob, dueAtOrWithin, runPeriodicSoon, type PeriodicSchedule } from '../jobs/periodic.js';
import { claimDue, deleteSettledBefore, messageOf, nextDueAt, outboxSignals, releaseAbandonedClaims, releaseClaims, settleAttempt, type NotificationRecord, type Settlement } from './outbox.js';
import type { DeliveryOptions, DeliveryOutcome } from './types.js';

/** Time past a try's own timeout before its claim lapses and another dispatcher may take it. */
const LEASE_MARGIN_MS = 30_000;
const LONGEST_TIMEOUT_MS = 120_000;
const RETENTION_SWEEP_MS = 3600_000;
/** A pass returns after this long, so one pass never holds its job slot for good; the next one carries on. */
const PASS_BUDGET_MS = 60_000;

export const NOTIFICATIONS_DELIVER_JOB = definePeriodicJob({ kind: 'notifications_deliver', role: 'notifications' });

/** What the dispatcher needs of the job runtime: to make the delivery job due, and to nudge this process's worker. */
export interface DeliveryRuntime {
  jobs: Pick<JobQueue, 'enqueue'>;
  wakeWorker: () => void;
}

export interface SettledNotification {
  id: string;
  configurationUuid: string;
  state: Settlement['state'];
  tries: number;
  outcome: DeliveryOutcome;
}

/** Full-jitter-free "equal jitter": at least half the exponential delay, so retries spread but never bunch at 0. */
export function retryDelayMs(tries: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, tries - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** Which process a dispatcher belongs to, as for the job worker (WorkerOptions). */
export interface DispatcherIdentity {
  /**
   * The node's name (VIGIL_HOST_ID; the host name by default). A starting dispatcher sends again what earlier
   * processes of this node left claimed, so several processes on one host need different ones: with the host
   * name, each start would take over the deliveries the others have in flight and send them twice.
   */
  nodeId?: string;
  /** Overrides the process identity (tests simulate another or a restarted process with it). */
  processToken?: string;
}

export class NotificationDispatcher extends EventEmitter {
  private readonly onQueued = () => this.wake();
  private lastSweep = 0;
  private waking: Promise<void> | null = null;
  private wakeAgain = false;
  // Claims name node, process and dispatcher, like the job worker's: see releaseAbandonedClaims.
  private readonly hostPrefix: string;
  private readonly processPrefix: string;
  private readonly owner: string;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly box: SecretBox,
    private readonly config: NotificationsConfig,
    private readonly options: DeliveryOptions,
    private readonly runtime: DeliveryRuntime,
    identity: DispatcherIdentity = {},
  ) {
    super();
    this.hostPrefix = `${identity.nodeId ?? hostname()}:`;
    this.processPrefix = `${this.hostPrefix}${identity.processToken ?? PROCESS_TOKEN}:`;
    this.owner = `${this.processPrefix}${randomBytes(4).toString('hex')}`;
  }

  /** When the delivery job runs next: when the next notification falls due, VIGIL_NOTIFY_POLL_MS on at most. */
  get schedule(): PeriodicSchedule {
    return {
      nextAt: async (after) => dueAtOrWithin(await nextDueAt(this.db), after, this.config.pollMs),
    };
  }

  /** Every node: notifications queued in this process make the delivery job due at once, wherever it runs. */
  listen(): void {
    outboxSignals.on('queued', this.onQueued);
  }

  unlisten(): void {
    outboxSignals.off('queued', this.onQueued);
  }

  /** On a node starting to deliver: sends again what an earlier process of this host claimed but never settled. */
  async releaseAbandoned(): Promise<void> {
    const released = await releaseAbandonedClaims(this.db, this.hostPrefix, this.processPrefix);
    if (released) this.log.info({ released }, 'sending again notifications whose try an earlier process did not finish');
  }

  /** Makes the delivery job due now. Bursts of calls share one database write. */
  wake(): void {
    if (this.waking) {
      this.wakeAgain = true;
      return;
    }
    this.waking = runPeriodicSoon(this.runtime.jobs, NOTIFICATIONS_DELIVER_JOB)
      .then(() => this.runtime.wakeWorker())
      .catch((err) => this.log.error({ err }, 'could not wake notification delivery; it runs at its next poll'))
      .finally(() => {
        this.waking = null;
        if (this.wakeAgain) {
          this.wakeAgain = false;
          this.wake();
        }
      });
  }

  /** Waits for a wake in progress (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.waking) await this.waking;
  }

  /**
   * One delivery pass (the job's work): claims due notifications up to the concurrency, keeps that many tries in
   * flight while more are due, and returns when nothing is due, the budget is spent or `signal` aborts (a stop:
   * tries in flight finish, each within its timeout; what is still queued waits for the next pass).
   */
  async deliverDue(signal: AbortSignal): Promise<void> {
    await this.sweep();
    const deadline = Date.now() + PASS_BUDGET_MS;
    const inFlight = new Set<Promise<void>>();
    try {
      while (!signal.aborted && Date.now() < deadline) {
        const free = this.config.concurrency - inFlight.size;
        const claimed = free > 0 ? await claimDue(this.db, this.owner, free, LONGEST_TIMEOUT_MS + LEASE_MARGIN_MS, this.config.maxTries) : [];
        if (signal.aborted) {
          await releaseClaims(this.db, this.owner, claimed.map((c) => c.id));
          break;
        }
        for (const record of claimed) {
          const run: Promise<void> = this.attempt(record)
            .catch((err) => this.log.error({ err, notification_id: record.id }, 'notification attempt could not be recorded'))
            .finally(() => inFlight.delete(run));
          inFlight.add(run);
        }
        if (inFlight.size === 0) break;
        // A slot frees: look again, for what is due by then.
        await Promise.race(inFlight);
      }
    } finally {
      await Promise.all([...inFlight]);
    }
  }

  /** Closes kept-alive delivery connections (the process is stopping). */
  close(): void {
    closeIdleConnections(this.options.policy);
  }

  private async sweep(): Promise<void> {
    if (Date.now() - this.lastSweep < RETENTION_SWEEP_MS) return;
    this.lastSweep = Date.now();
    const before = new Date(Date.now() - this.config.retentionDays * 86400_000).toISOString();
    const deleted = await deleteSettledBefore(this.db, before);
    if (deleted) this.log.info({ deleted, before }, 'deleted settled notifications past retention');
  }

  private async attempt(record: NotificationRecord): Promise<void> {
    const configuration: ConfigurationRecord | undefined = await this.db('notification_configurations').where({ uuid: record.configuration_uuid }).first();
    if (!configuration) return; // deleted meanwhile; its notifications went with it
    const attemptedAt = nowIso();
    const outcome = await this.deliver(record, configuration);
    const tries = record.tries + 1;
    const retryInMs = !outcome.ok && outcome.retryable && tries < this.config.maxTries ? retryDelayMs(tries, this.config.backoffBaseMs, this.config.backoffMaxMs) : null;
    const settled = await settleAttempt(this.db, this.owner, record, outcome, attemptedAt, retryInMs);
    if (!settled) return;
    const fields = { notification_id: record.id, configuration_uuid: record.configuration_uuid, endpoint: record.endpoint, tries, state: settled.state, latency_ms: Math.round(outcome.latencyMs) };
    if (outcome.ok) this.log.info(fields, 'notification delivered');
    else this.log.warn({ ...fields, error: outcome.error, next_attempt_at: settled.nextAttemptAt }, settled.state === 'failed' ? 'notification failed; no more tries' : 'notification attempt failed; will retry');
    if (settled.state !== 'pending') this.emit('settled', { id: record.id, configurationUuid: record.configuration_uuid, state: settled.state, tries, outcome } satisfies SettledNotification);
    this.emit('attempt', { id: record.id, configurationUuid: record.configuration_uuid, state: settled.state, tries, outcome } satisfies SettledNotification);
  }

  private async deliver(record: NotificationRecord, configuration: ConfigurationRecord): Promise<DeliveryOutcome> {
    try {
      const target = deliveryTarget(this.box, configuration);
      return await channelFor(target.kind).deliver(target, messageOf(record), { ...this.options, attempt: { tries: record.tries + 1, maxTries: this.config.maxTries } });
    } catch (err) {
      // Channels report failures as outcomes; reaching here is a bug or an unreadable secret (key changed).
      this.log.error({ err, notification_id: record.id }, 'notification could not be sent');
      return { ok: false, httpStatus: null, smtpResponse: null, response: '', error: 'internal error preparing the delivery', latencyMs: 0, retryable: true };
    }
  }
}
