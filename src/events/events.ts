/** Events: an account's record of what happened to its resources, newest first. */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import { EVENT_TYPES, type EventLevel } from './catalog.js';

export interface EventRecord {
  id: string;
  account_name: string;
  type: string;
  level: EventLevel;
  message: string;
  resource_type: string;
  resource_id: string;
  details: string;
  host_id: string;
  timestamp: string;
}

export interface NewEvent {
  accountName: string;
  type: string;
  resourceType: string;
  resourceId: string;
  message?: string;
  details?: Record<string, unknown>;
}

/** Runs inside the transaction that records an event, so what it writes commits (or not) with the event. */
export type EventSubscriber = (trx: Db, event: EventRecord) => Promise<unknown>;

const subscribers = new Set<EventSubscriber>();

/**
 * Adds a subscriber for every event recorded in this process from now on (notifications queue theirs this way;
 * events know nothing of them). Process-wide and idempotent: subscribing one function twice runs it once.
 */
export function subscribeToEvents(subscriber: EventSubscriber): void {
  subscribers.add(subscriber);
}

export async function recordEvent(db: Db, e: NewEvent): Promise<EventRecord> {
  const info = EVENT_TYPES.get(e.type);
  if (!info) throw new Error(`unknown event type ${e.type}`); // a programming error: every type is in the catalog
  const record: EventRecord = {
    id: randomUUID(),
    account_name: e.accountName,
    type: e.type,
    level: info.level,
    message: e.message ?? info.message,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    details: JSON.stringify(e.details ?? {}),
    host_id: hostname(),
    timestamp: nowIso(),
  };
  // The event and what subscribers write for it (its notifications) are one write: neither is stored without the other.
  const store = async (trx: Db) => {
    await trx('events').insert(record);
    for (const subscriber of subscribers) await subscriber(trx, record);
  };
  if (db.isTransaction) await store(db);
  else await db.transaction(store);
  return record;
}

export interface EventFilter {
  eventType?: string;
  resourceType?: string;
  resourceId?: string;
  level?: EventLevel;
  since?: string;
  before?: string;
}

/** `user.image.` matches by prefix, `*` is a wildcard, anything else matches exactly. */
function typeCondition(pattern: string): { op: 'like' | '='; value: string } {
  const escaped = pattern.replace(/[\\%_]/g, (c) => `\\${c}`);
  if (pattern.includes('*')) return { op: 'like', value: escaped.replaceAll('*', '%') };
  if (pattern.endsWith('.')) return { op: 'like', value: `${escaped}%` };
  return { op: '=', value: pattern };
}

function filtered(db: Db, accountName: string, f: EventFilter) {
  const q = db<EventRecord>('events').where({ account_name: accountName });
  if (f.eventType) {
    const c = typeCondition(f.eventType);
    if (c.op === 'like') q.andWhereRaw("type like ? escape '\\'", [c.value]);
    else q.andWhere('type', c.value);
  }
  if (f.resourceType) q.andWhere('resource_type', f.resourceType);
  if (f.resourceId) q.andWhere('resource_id', f.resourceId);
  if (f.level) q.andWhere('level', f.level);
  if (f.since) q.andWhere('timestamp', '>=', new Date(f.since).toISOString());
  if (f.before) q.andWhere('timestamp', '<', new Date(f.before).toISOString());
  return q;
}

export async function listEvents(
  db: Db,
  accountName: string,
  f: EventFilter,
  page: number,
  limit: number,
): Promise<{ events: EventRecord[]; nextPage: boolean }> {
  const rows = await filtered(db, accountName, f)
    .orderBy([{ column: 'timestamp', order: 'desc' }, { column: 'id', order: 'desc' }])
    .offset((page - 1) * limit)
    .limit(limit + 1);
  return { events: rows.slice(0, limit), nextPage: rows.length > limit };
}

export async function getEvent(db: Db, accountName: string, id: string): Promise<EventRecord> {
  const e = await db<EventRecord>('events').where({ account_name: accountName, id }).first();
  if (!e) throw new NotFoundError(`event '${id}' does not exist`, { event_id: id });
  return e;
}

export async function deleteEvent(db: Db, accountName: string, id: string): Promise<void> {
  const n = await db('events').where({ account_name: accountName, id }).delete();
  if (n === 0) throw new NotFoundError(`event '${id}' does not exist`, { event_id: id });
}

export async function deleteEvents(db: Db, accountName: string, f: Pick<EventFilter, 'since' | 'before' | 'level'>): Promise<string[]> {
  return db.transaction(async (trx) => {
    const ids = (await filtered(trx, accountName, f).select('id')).map((r: { id: string }) => r.id);
    for (let i = 0; i < ids.length; i += 500) await trx('events').whereIn('id', ids.slice(i, i + 500)).delete();
    return ids;
  });
}
