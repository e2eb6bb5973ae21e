/** Subscriptions: per-tag (or per-repository) interest in a kind of change. Scoped to an account. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';

export type SubscriptionType = 'tag_update' | 'analysis_update' | 'vuln_update' | 'policy_eval' | 'repo_update' | 'alerts';

export interface SubscriptionRecord {
  id: string;
  account_name: string;
  subscription_type: SubscriptionType;
  subscription_key: string;
  subscription_value: string | null;
  active: boolean;
  last_checked_at: string | null;
  created_at: string;
  last_updated: string;
}

const normalise = (r: SubscriptionRecord): SubscriptionRecord => ({ ...r, active: toBool(r.active) });

export async function listSubscriptions(
  db: Db,
  accountName: string,
  filter: { key?: string; type?: SubscriptionType } = {},
): Promise<SubscriptionRecord[]> {
  const q = db<SubscriptionRecord>('subscriptions').where({ account_name: accountName });
  if (filter.key) q.andWhere('subscription_key', filter.key);
  if (filter.type) q.andWhere('subscription_type', filter.type);
  return (await q.orderBy([{ column: 'subscription_key' }, { column: 'subscription_type' }])).map(normalise);
}

export async function getSubscription(db: Db, accountName: string, id: string): Promise<SubscriptionRecord> {
  const row = await db<SubscriptionRecord>('subscriptions').where({ account_name: accountName, id }).first();
  if (!row) throw new NotFoundError(`subscription '${id}' does not exist`, { subscription_id: id });
  return normalise(row);
}

/** Creates the subscription, or answers the existing one (re-activated) when `upsert` is set. */
export async function addSubscription(
  db: Db,
  accountName: string,
  input: { type: SubscriptionType; key: string; value?: string | null; active?: boolean },
  options: { upsert?: boolean } = {},
): Promise<SubscriptionRecord> {
  const now = nowIso();
  const row: SubscriptionRecord = {
    id: randomUUID(),
    account_name: accountName,
    subscription_type: input.type,
    subscription_key: input.key,
    subscription_value: input.value ?? null,
    active: input.active ?? true,
    last_checked_at: null,
    created_at: now,
    last_updated: now,
  };
  const inserted = await db('subscriptions').insert(row).onConflict(['account_name', 'subscription_type', 'subscription_key']).ignore().returning('id');
  if (inserted.length > 0) return row;
  const existing = await db<SubscriptionRecord>('subscriptions')
    .where({ account_name: accountName, subscription_type: input.type, subscription_key: input.key })
    .first();
  if (!options.upsert || !existing)
    throw new ConflictError(`a ${input.type} subscription for '${input.key}' already exists`, { subscription_id: existing?.id, subscription_key: input.key });
  if (!toBool(existing.active)) await db('subscriptions').where({ id: existing.id }).update({ active: true, last_updated: now });
  return getSubscription(db, accountName, existing.id);
}

export async function updateSubscription(
  db: Db,
  accountName: string,
  id: string,
  patch: { active?: boolean; subscription_value?: string | null },
): Promise<SubscriptionRecord> {
  await getSubscription(db, accountName, id);
  // Only these two columns: the request body may hold any other property (the spec allows them), and spreading it
  // would let a caller rewrite the key, the type or the owning account.
  const changes = {
    ...(patch.active !== undefined ? { active: patch.active } : {}),
    ...(patch.subscription_value !== undefined ? { subscription_value: patch.subscription_value } : {}),
  };
  await db('subscriptions').where({ account_name: accountName, id }).update({ ...changes, last_updated: nowIso() });
  return getSubscription(db, accountName, id);
}

export async function deleteSubscription(db: Db, accountName: string, id: string): Promise<void> {
  const n = await db('subscriptions').where({ account_name: accountName, id }).delete();
  if (n === 0) throw new NotFoundError(`subscription '${id}' does not exist`, { subscription_id: id });
}

/**
 * Claims the watches of `type` that are due (never checked, or checked before `dueBefore`): each claim is a
 * conditional update, so when several nodes sweep at once every watch is checked by exactly one of them.
 */
export async function claimDueWatches(db: Db, type: 'tag_update' | 'repo_update', dueBefore: string, limit: number): Promise<SubscriptionRecord[]> {
  const candidates = await db<SubscriptionRecord>('subscriptions')
    .where({ subscription_type: type, active: true })
    .andWhere((q) => q.whereNull('last_checked_at').orWhere('last_checked_at', '<', dueBefore))
    .orderBy('last_checked_at')
    .limit(limit);
  const claimed: SubscriptionRecord[] = [];
  const now = nowIso();
  for (const c of candidates) {
    const n = await db('subscriptions')
      .where({ id: c.id })
      .andWhere((q) => (c.last_checked_at === null ? q.whereNull('last_checked_at') : q.where('last_checked_at', c.last_checked_at)))
      .update({ last_checked_at: now });
    if (n > 0) claimed.push(normalise(c));
  }
  return claimed;
}

export async function markChecked(db: Db, id: string): Promise<void> {
  await db('subscriptions').where({ id }).update({ last_checked_at: nowIso() });
}
