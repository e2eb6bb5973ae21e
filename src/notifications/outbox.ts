/**
 * The outbox: notifications queued in the same transaction as the event they come from (so a crash loses
 * none), claimed by a dispatcher for one attempt at a time, and settled with a receipt per attempt.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { startsWithLiteral, type Db } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { subscribeToEvents, type EventRecord } from '../events/events.js';
import { nowIso } from '../util/time.js';
import { getConfiguration, recordStatus } from './configurations.js';
import { messageForEvent, messageWithId } from './messages.js';
import { matchingConfigurations } from './selectors.js';
import type { DeliveryOutcome, EndpointKind, NotificationMessage, NotificationType } from './types.js';

export type DeliveryState = 'pending' | 'delivering' | 'delivered' | 'failed';

export interface NotificationRecord {
  id: string;
  configuration_uuid: string;
  endpoint: EndpointKind;
  account_name: string;
  notification_type: NotificationType;
  event_id: string | null;
  event_type: string;
  message: string;
  state: DeliveryState;
  tries: number;
  /** 0 until a dispatcher first claims it (the limit is the dispatcher's setting). */
  max_tries: number;
  replays: number;
  next_attempt_at: string | null;
  claimed_by: string | null;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  last_updated: string;
  delivered_at: string | null;
}

export interface ReceiptRecord {
  id: string;
  notification_id: string;
  attempt: number;
  attempted_at: string;
  latency_ms: number;
  success: boolean;
  http_status: number | null;
  smtp_response: string | null;
  response: string;
  error: string | null;
}

/** Emits `queued` once notifications are committed, so dispatchers in this process send them without waiting to poll. */
export const outboxSignals = new EventEmitter();

function signalWhenCommitted(db: Db): void {
  const trx = db as Db & { executionPromise?: Promise<unknown> };
  if (trx.executionPromise) trx.executionPromise.then(() => outboxSignals.emit('queued'), () => undefined);
  else outboxSignals.emit('queued');
}

/** Notifications follow events: from now on, each event recorded in this process queues its notifications. */
export function queueNotificationsForEvents(): void {
  subscribeToEvents(enqueueForEvent);
}

/** Queues a notification per configuration whose selectors match the event. Call inside the event's transaction. */
export async function enqueueForEvent(db: Db, event: EventRecord): Promise<number> {
  const targets = await matchingConfigurations(db, event);
  if (targets.length === 0) return 0;
  const base = await messageForEvent(db, event);
  const now = nowIso();
  const rows = targets.map((t) => {
    const id = randomUUID();
    return {
      id,
      configuration_uuid: t.uuid,
      endpoint: t.endpoint,
      account_name: event.account_name,
      notification_type: base.notificationType,
      event_id: event.id,
      event_type: event.type,
      message: JSON.stringify(messageWithId(base, id)),
      state: 'pending',
      tries: 0,
      max_tries: 0,
      replays: 0,
      next_attempt_at: now,
      created_at: now,
      last_updated: now,
    };
  });
  await db('notifications').insert(rows);
  signalWhenCommitted(db);
  return rows.length;
}

/** Kinds an administrator disabled: their notifications wait. A tiny table, read per claim. */
async function disabledKinds(db: Db): Promise<string[]> {
  return (await db('notification_endpoints').where({ enabled: false }).select('name')).map((r: { name: string }) => r.name);
}

/**
 * Due now: pending whose time has come (the index on state and next_attempt_at serves it in order, however long
 * the backlog), then claims of a dispatcher that stopped before settling (rare: a crash on another host).
 */
async function dueRows(db: Db, now: string, limit: number): Promise<NotificationRecord[]> {
  const disabled = await disabledKinds(db);
  const pending = db<NotificationRecord>('notifications').where('state', 'pending').andWhere('next_attempt_at', '<=', now);
  if (disabled.length) pending.whereNotIn('endpoint', disabled);
  const rows = await pending.orderBy('next_attempt_at').limit(limit);
  if (rows.length === limit) return rows;
  const lapsed = db<NotificationRecord>('notifications').where('state', 'delivering').andWhere('claimed_until', '<', now);
  if (disabled.length) lapsed.whereNotIn('endpoint', disabled);
  return [...rows, ...(await lapsed.limit(limit - rows.length))];
}

/**
 * When the next notification falls due: the earliest pending try, or the earliest claim that would lapse. Kinds
 * that are turned off do not count (their notifications wait, and re-enabling a kind wakes delivery).
 */
export async function nextDueAt(db: Db): Promise<string | null> {
  const disabled = await disabledKinds(db);
  const pending = await db('notifications').where('state', 'pending').whereNotIn('endpoint', disabled).min({ at: 'next_attempt_at' }).first();
  const claimed = await db('notifications').where('state', 'delivering').whereNotIn('endpoint', disabled).min({ at: 'claimed_until' }).first();
  const times = [pending?.at, claimed?.at].filter((t): t is string => typeof t === 'string');
  return times.length ? times.sort()[0]! : null;
}

/** Claims up to `limit` due notifications for this dispatcher until `leaseMs` from now. */
export async function claimDue(db: Db, owner: string, limit: number, leaseMs: number, maxTries: number): Promise<NotificationRecord[]> {
  const now = nowIso();
  const claim = { state: 'delivering' as const, claimed_by: owner, claimed_until: new Date(Date.now() + leaseMs).toISOString(), max_tries: maxTries, last_updated: now };
  const claimed: NotificationRecord[] = [];
  for (const row of await dueRows(db, now, limit)) {
    // Updating only what is still as read makes the claim atomic: of two dispatchers racing for a row, one wins.
    const n = await db('notifications')
      .where({ id: row.id, state: row.state })
      .andWhere(row.state === 'pending' ? { next_attempt_at: row.next_attempt_at } : { claimed_until: row.claimed_until })
      .update(claim);
    if (n === 1) claimed.push({ ...row, ...claim });
  }
  return claimed;
}

export function messageOf(r: NotificationRecord): NotificationMessage {
  return JSON.parse(r.message) as NotificationMessage;
}

export interface Settlement {
  state: DeliveryState;
  nextAttemptAt: string | null;
}

/**
 * Records an attempt's receipt and moves the notification on: delivered, pending again after `retryInMs`, or
 * failed. Only the claim's owner may settle it; answers null when the claim was lost (it expired and another
 * dispatcher took the notification), so nothing is recorded twice.
 */
export async function settleAttempt(
  db: Db,
  owner: string,
  record: NotificationRecord,
  outcome: DeliveryOutcome,
  attemptedAt: string,
  retryInMs: number | null,
): Promise<Settlement | null> {
  const tries = record.tries + 1;
  const state: DeliveryState = outcome.ok ? 'delivered' : retryInMs === null ? 'failed' : 'pending';
  const now = nowIso();
  const nextAttemptAt = state === 'pending' ? new Date(Date.now() + retryInMs!).toISOString() : null;
  return db.transaction(async (trx) => {
    const n = await trx('notifications')
      .where({ id: record.id, state: 'delivering', claimed_by: owner })
      .update({
        state,
        tries,
        next_attempt_at: nextAttemptAt,
        claimed_by: null,
        claimed_until: null,
        last_error: outcome.ok ? null : outcome.error,
        last_updated: now,
        ...(outcome.ok ? { delivered_at: now } : {}),
      });
    if (n === 0) return null;
    await trx('notification_receipts').insert({
      id: randomUUID(),
      notification_id: record.id,
      attempt: tries,
      attempted_at: attemptedAt,
      latency_ms: Math.round(outcome.latencyMs),
      success: outcome.ok,
      http_status: outcome.httpStatus,
      smtp_response: outcome.smtpResponse,
      response: outcome.response,
      error: outcome.error,
    });
    await recordStatus(trx, record.configuration_uuid, outcome, attemptedAt);
    return { state, nextAttemptAt };
  });
}

/**
 * Makes the claims of earlier processes of this node (hostPrefix: its VIGIL_HOST_ID) due at once (they were
 * killed mid-try), instead of waiting for their leases to lapse; other nodes' claims, on this host or another, are
 * theirs. The receiver may have got the notification already; it de-duplicates on the id.
 */
export async function releaseAbandonedClaims(db: Db, hostPrefix: string, processPrefix: string): Promise<number> {
  const now = nowIso();
  // Compared as literal prefixes: with LIKE, a `_` or `%` in a node's id would match other nodes' claims.
  return db('notifications')
    .where({ state: 'delivering' })
    .andWhereRaw(...startsWithLiteral('claimed_by', hostPrefix))
    .andWhereNot((q) => q.whereRaw(...startsWithLiteral('claimed_by', processPrefix)))
    .update({ state: 'pending', claimed_by: null, claimed_until: null, next_attempt_at: now, last_updated: now });
}

/** Hands claims back (the dispatcher is stopping before it tried them). */
export async function releaseClaims(db: Db, owner: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db('notifications').whereIn('id', ids).andWhere({ state: 'delivering', claimed_by: owner }).update({ state: 'pending', claimed_by: null, claimed_until: null });
}

export async function listDeliveries(
  db: Db,
  accountName: string,
  kind: EndpointKind,
  configurationUuid: string,
  filter: { state?: DeliveryState; page: number; limit: number },
): Promise<{ items: NotificationRecord[]; nextPage: boolean }> {
  await getConfiguration(db, accountName, kind, configurationUuid);
  const q = db<NotificationRecord>('notifications').where({ configuration_uuid: configurationUuid });
  if (filter.state) q.andWhere({ state: filter.state });
  const rows = await q
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .offset((filter.page - 1) * filter.limit)
    .limit(filter.limit + 1);
  return { items: rows.slice(0, filter.limit), nextPage: rows.length > filter.limit };
}

export async function getDelivery(db: Db, accountName: string, kind: EndpointKind, configurationUuid: string, id: string): Promise<NotificationRecord> {
  await getConfiguration(db, accountName, kind, configurationUuid);
  const row = await db<NotificationRecord>('notifications').where({ configuration_uuid: configurationUuid, id }).first();
  if (!row) throw new NotFoundError(`notification '${id}' of ${kind} configuration '${configurationUuid}' does not exist`, { notification_id: id });
  return row;
}

export async function listReceipts(db: Db, notificationId: string): Promise<ReceiptRecord[]> {
  return db<ReceiptRecord>('notification_receipts').where({ notification_id: notificationId }).orderBy([{ column: 'attempted_at' }, { column: 'attempt' }]);
}

/** Queues a failed or delivered notification again, same id, tries from zero. */
export async function replayDelivery(db: Db, accountName: string, kind: EndpointKind, configurationUuid: string, id: string): Promise<NotificationRecord> {
  const current = await getDelivery(db, accountName, kind, configurationUuid, id);
  const now = nowIso();
  const queued = { state: 'pending' as const, tries: 0, replays: current.replays + 1, next_attempt_at: now, last_error: null, delivered_at: null, last_updated: now };
  const n = await db('notifications').where({ id }).whereIn('state', ['failed', 'delivered']).update(queued);
  if (n === 0) throw new ConflictError(`notification '${id}' is ${current.state}; only failed or delivered notifications can be replayed`, { notification_id: id, state: current.state });
  // As queued: a dispatcher may already be sending it by the time a re-read would run.
  return { ...current, ...queued };
}

/** Deletes settled notifications (with their receipts) last changed before `before`. */
export async function deleteSettledBefore(db: Db, before: string): Promise<number> {
  const ids: string[] = (await db('notifications').whereIn('state', ['delivered', 'failed']).andWhere('last_updated', '<', before).limit(5000).select('id')).map((r: { id: string }) => r.id);
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await db.transaction(async (trx) => {
      await trx('notification_receipts').whereIn('notification_id', chunk).delete();
      await trx('notifications').whereIn('id', chunk).delete();
    });
  }
  return ids.length;
}
