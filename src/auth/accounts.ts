/** Accounts: the owners of every resource. */
import type { Db } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';

export type AccountType = 'admin' | 'user' | 'service';
export type AccountState = 'enabled' | 'disabled' | 'deleting';

export interface AccountRecord {
  name: string;
  email: string | null;
  type: AccountType;
  state: AccountState;
  created_at: string;
  last_updated: string;
}

export const ADMIN_ACCOUNT = 'admin';

export async function findAccount(db: Db, name: string): Promise<AccountRecord | undefined> {
  return db<AccountRecord>('accounts').where({ name }).first();
}

export async function getAccount(db: Db, name: string): Promise<AccountRecord> {
  const account = await findAccount(db, name);
  if (!account) throw new NotFoundError(`account '${name}' does not exist`, { account_name: name });
  return account;
}

export async function listAccounts(db: Db, filter: { state?: AccountState } = {}): Promise<AccountRecord[]> {
  const q = db<AccountRecord>('accounts').orderBy('name');
  if (filter.state) q.where({ state: filter.state });
  return q;
}

export async function createAccount(
  db: Db,
  input: { name: string; email?: string | null; type?: AccountType },
): Promise<AccountRecord> {
  const now = nowIso();
  const record: AccountRecord = {
    name: input.name,
    email: input.email ?? null,
    type: input.type ?? 'user',
    state: 'enabled',
    created_at: now,
    last_updated: now,
  };
  const inserted = await db('accounts').insert(record).onConflict('name').ignore().returning('name');
  if (inserted.length === 0) throw new ConflictError(`account '${input.name}' already exists`, { account_name: input.name });
  return record;
}

export async function updateAccountEmail(db: Db, name: string, email: string): Promise<AccountRecord> {
  const count = await db('accounts').where({ name }).update({ email, last_updated: nowIso() });
  if (count === 0) throw new NotFoundError(`account '${name}' does not exist`, { account_name: name });
  return getAccount(db, name);
}

export async function setAccountState(db: Db, name: string, state: 'enabled' | 'disabled'): Promise<AccountRecord> {
  const account = await getAccount(db, name);
  if (account.type === 'admin' && state !== 'enabled')
    throw new ConflictError('the admin account cannot be disabled', { account_name: name });
  if (account.state === 'deleting') throw new ConflictError(`account '${name}' is being deleted`, { account_name: name });
  await db('accounts').where({ name }).update({ state, last_updated: nowIso() });
  return getAccount(db, name);
}

/**
 * Deletes a disabled account and, through foreign-key cascades, everything it owns. The state goes to
 * `deleting` first in the same transaction, so no reader sees a half-deleted account as usable.
 */
export async function deleteAccount(db: Db, name: string): Promise<void> {
  const account = await getAccount(db, name);
  if (account.type === 'admin') throw new ConflictError('the admin account cannot be deleted', { account_name: name });
  await db.transaction(async (trx) => {
    // Conditional update: only a disabled account moves to deleting, even if another request raced this one.
    const moved = await trx('accounts').where({ name, state: 'disabled' }).update({ state: 'deleting', last_updated: nowIso() });
    if (moved === 0)
      throw new ConflictError(`account '${name}' must be disabled before it can be deleted`, { account_name: name, state: account.state });
    await trx('accounts').where({ name }).delete();
  });
}
