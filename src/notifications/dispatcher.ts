/**
 * The dispatcher: takes due notifications from the outbox and delivers them, at most `concurrency` at a
 * time, each try bounded by its configuration's timeout. A failed try is retried after an exponential
 * backoff with jitter until the tries run out; then the notification is failed (a replay queues it again).
 * Several nodes may run one: claims keep them from sending the same notification twice.
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
import { claimDue, deleteSettledBefore, messageOf, outboxSignals, releaseAbandonedClaims, releaseClaims, settleAttempt, type NotificationRecord, type Settlement } from './outbox.js';
import type { DeliveryOptions, DeliveryOutcome } from './types.js';

/** Time past a try's own timeout before its claim lapses and another dispatcher may take it. */
const LEASE_MARGIN_MS = 30_000;
const LONGEST_TIMEOUT_MS = 120_000;
const RETENTION_SWEEP_MS = 3600_000;

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
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private readonly onQueued = () => this.wake();
  private readonly inFlight = new Set<Promise<void>>();
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lastSweep = 0;
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
    identity: DispatcherIdentity = {},
  ) {
    super();
    this.hostPrefix = `${identity.nodeId ?? hostname()}:`;
    this.processPrefix = `${this.hostPrefix}${identity.processToken ?? PROCESS_TOKEN}:`;
    this.owner = `${this.processPrefix}${randomBytes(4).toString('hex')}`;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const released = await releaseAbandonedClaims(this.db, this.hostPrefix, this.processPrefix);
    if (released) this.log.info({ released }, 'sending again notifications whose try an earlier process did not finish');
    outboxSignals.on('queued', this.onQueued);
    this.schedule(0);
  }

  /** Stops claiming and waits for the tries in progress; what is still queued stays queued for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    outboxSignals.off('queued', this.onQueued);
    this.clearSchedule();
    await this.ticking;
    await Promise.all([...this.inFlight]);
    closeIdleConnections(this.options.policy);
  }

  /** Look for due notifications now rather than at the next poll. */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private clearSchedule(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
  }

  /** Runs a tick after `delayMs` (0: right after pending I/O, without the 1 ms floor of a timer). */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.clearSchedule();
    const run = () => {
      this.timer = null;
      this.immediate = null;
      if (this.ticking) {
        this.again = true; // woken mid-tick: what woke it may have come after the tick's claim
        return;
      }
      this.ticking = this.tick()
        .catch((err) => this.log.error({ err }, 'notification dispatch failed; trying again at the next poll'))
        .finally(() => {
          this.ticking = null;
          const again = this.again;
          this.again = false;
          this.schedule(again ? 0 : this.config.pollMs);
        });
    };
    if (delayMs === 0) this.immediate = setImmediate(run);
    else this.timer = setTimeout(run, delayMs).unref();
  }

  private async tick(): Promise<void> {
    await this.sweep();
    const free = this.config.concurrency - this.inFlight.size;
    if (free <= 0 || this.stopped) return;
    const claimed = await claimDue(this.db, this.owner, free, LONGEST_TIMEOUT_MS + LEASE_MARGIN_MS, this.config.maxTries);
    if (this.stopped) {
      await releaseClaims(this.db, this.owner, claimed.map((c) => c.id));
      return;
    }
    for (const record of claimed) {
      const run = this.attempt(record)
        .catch((err) => this.log.error({ err, notification_id: record.id }, 'notification attempt could not be recorded'))
        .finally(() => {
          this.inFlight.delete(run);
          this.wake(); // a slot is free: more may be due
        });
      this.inFlight.add(run);
    }
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
