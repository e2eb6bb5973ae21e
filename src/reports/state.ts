/**
 * Named singletons of the reporting service in report_state: values (when the read model was refreshed, the
 * last metrics slot) and leases, so that of several nodes sharing a database only one does a given piece of work.
 */
import type { Db } from '../db/index.js';
import { isoFromNow, nowIso } from '../util/time.js';

async function ensureRow(db: Db, name: string): Promise<void> {
  await db('report_state').insert({ name, value: null, locked_by: null, locked_until: null }).onConflict('name').ignore();
}

/** Takes (or renews) the lease `name` for `holder`; false while another holder's lease is unexpired. */
export async function acquireLease(db: Db, name: string, holder: string, seconds: number): Promise<boolean> {
  await ensureRow(db, `lease:${name}`);
  const now = nowIso();
  const updated = await db('report_state')
    .where({ name: `lease:${name}` })
    .andWhere((q) => q.whereNull('locked_until').orWhere('locked_until', '<', now).orWhere('locked_by', holder))
    .update({ locked_by: holder, locked_until: isoFromNow(seconds) });
  return updated === 1;
}

export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db('report_state').where({ name: `lease:${name}`, locked_by: holder }).update({ locked_by: null, locked_until: null });
}

export async function readState(db: Db, name: string): Promise<string | null> {
  const row = await db('report_state').where({ name }).first('value');
  return row?.value ?? null;
}

export async function writeState(db: Db, name: string, value: string): Promise<void> {
  await db('report_state').insert({ name, value }).onConflict('name').merge(['value']);
}

/**
 * Moves `name` from `expected` to `next` only if it still holds `expected`: of several nodes trying to claim
 * the same slot, exactly one succeeds.
 */
export async function claimState(db: Db, name: string, expected: string | null, next: string): Promise<boolean> {
  await ensureRow(db, name);
  const q = db('report_state').where({ name });
  if (expected === null) q.whereNull('value');
  else q.where({ value: expected });
  return (await q.update({ value: next })) === 1;
}
