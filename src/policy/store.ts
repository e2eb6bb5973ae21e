/**
 * Policies per account. Exactly one is active: every account gets the default policy, active, the first time its
 * policies are read (so accounts created before policies existed get one too); activating another deactivates
 * the previous one in the same transaction, and the active policy cannot be deleted.
 */
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import { defaultPolicy } from './default-policy.js';
import type { PolicyDocument } from './document.js';
import { assertValidPolicy } from './validate-policy.js';

interface PolicyRow {
  account_name: string;
  policy_id: string;
  name: string;
  description: string | null;
  active: unknown;
  policy_source: string;
  document: string;
  created_at: string;
  last_updated: string;
}

export interface PolicyRecord {
  policy_id: string;
  active: boolean;
  account_name: string;
  policy_source: string;
  name: string;
  description?: string;
  policy?: PolicyDocument;
  created_at: string;
  last_updated: string;
}

function recordOf(row: PolicyRow, detail: boolean): PolicyRecord {
  return {
    policy_id: row.policy_id,
    active: toBool(row.active),
    account_name: row.account_name,
    policy_source: row.policy_source,
    name: row.name,
    ...(row.description ? { description: row.description } : {}),
    ...(detail ? { policy: JSON.parse(row.document) as PolicyDocument } : {}),
    created_at: row.created_at,
    last_updated: row.last_updated,
  };
}

function rowOf(accountName: string, doc: PolicyDocument, active: boolean, now: string): PolicyRow {
  return {
    account_name: accountName,
    policy_id: doc.id,
    name: doc.name,
    description: doc.description ?? null,
    active,
    policy_source: 'local',
    document: JSON.stringify({ ...doc, last_updated: Math.floor(Date.parse(now) / 1000) }),
    created_at: now,
    last_updated: now,
  };
}

/** Gives an account with no policies its default policy, active. Safe to call concurrently. */
export async function ensureDefaultPolicy(db: Db, accountName: string): Promise<void> {
  const any = await db('policies').where({ account_name: accountName }).first('policy_id');
  if (any) return;
  await db('policies').insert(rowOf(accountName, defaultPolicy(), true, nowIso())).onConflict(['account_name', 'policy_id']).ignore();
}

export async function listPolicies(db: Db, accountName: string, detail: boolean): Promise<PolicyRecord[]> {
  await ensureDefaultPolicy(db, accountName);
  const rows: PolicyRow[] = await db('policies').where({ account_name: accountName }).orderBy([{ column: 'created_at' }, { column: 'policy_id' }]).select('*');
  return rows.map((r) => recordOf(r, detail));
}

export async function getPolicy(db: Db, accountName: string, policyId: string, detail = true): Promise<PolicyRecord> {
  await ensureDefaultPolicy(db, accountName);
  const row: PolicyRow | undefined = await db('policies').where({ account_name: accountName, policy_id: policyId }).first();
  if (!row) throw new NotFoundError(`no policy '${policyId}' in account '${accountName}'`, { policy_id: policyId });
  return recordOf(row, detail);
}

/** The account's active policy document. */
export async function activePolicy(db: Db, accountName: string): Promise<PolicyRecord & { policy: PolicyDocument }> {
  await ensureDefaultPolicy(db, accountName);
  const row: PolicyRow | undefined = await db('policies').where({ account_name: accountName, active: true }).first();
  if (!row) throw new NotFoundError(`account '${accountName}' has no active policy`);
  return recordOf(row, true) as PolicyRecord & { policy: PolicyDocument };
}

export async function addPolicy(db: Db, accountName: string, doc: PolicyDocument): Promise<PolicyRecord> {
  assertValidPolicy(doc);
  await ensureDefaultPolicy(db, accountName);
  const row = rowOf(accountName, doc, false, nowIso());
  const inserted = await db('policies').insert(row).onConflict(['account_name', 'policy_id']).ignore().returning('policy_id');
  if (inserted.length === 0) throw new ConflictError(`account '${accountName}' already has a policy '${doc.id}'; update it instead`, { policy_id: doc.id });
  return recordOf(row, true);
}

/**
 * Replaces the document (when `doc` is given; otherwise the stored one stays) and, with `activate`, makes the
 * policy the account's active one.
 */
export async function updatePolicy(db: Db, accountName: string, policyId: string, doc: PolicyDocument | undefined, activate?: boolean): Promise<PolicyRecord> {
  if (doc) {
    if (doc.id !== policyId) throw new InvalidError(`the document's id '${doc.id}' is not the policy being updated ('${policyId}')`, { field: 'policy.id' });
    assertValidPolicy(doc);
  }
  return db.transaction(async (trx) => {
    const before = await getPolicy(trx, accountName, policyId, !doc);
    doc ??= before.policy as PolicyDocument;
    if (activate === false && before.active)
      throw new ConflictError(`policy '${policyId}' is the active one; activate another policy instead of deactivating it`, { policy_id: policyId });
    const now = nowIso();
    const active = before.active || activate === true;
    if (active && !before.active) await trx('policies').where({ account_name: accountName, active: true }).update({ active: false, last_updated: now });
    const row = rowOf(accountName, doc, active, now);
    await trx('policies')
      .where({ account_name: accountName, policy_id: policyId })
      .update({ name: row.name, description: row.description, document: row.document, active, last_updated: now });
    return recordOf({ ...row, created_at: before.created_at }, true);
  });
}

export async function deletePolicy(db: Db, accountName: string, policyId: string): Promise<void> {
  const record = await getPolicy(db, accountName, policyId, false);
  if (record.active) throw new ConflictError(`policy '${policyId}' is active and cannot be deleted; activate another policy first`, { policy_id: policyId });
  await db('policies').where({ account_name: accountName, policy_id: policyId }).delete();
}
