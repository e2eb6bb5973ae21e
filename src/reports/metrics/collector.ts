/**
 * One metrics collection: claim the schedule slot, sample every metric of every account from the read model
 * as it is (no refresh first: the refresher keeps it within seconds of the source data), store the values at
 * the slot time, and drop samples older than the retention. Several nodes sharing a database each run the
 * schedule; the compare-and-set claim lets exactly one of them collect a slot.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { claimState, readState } from '../state.js';
import { computeAccountMetrics, METRICS } from './definitions.js';
import { metricsSlot } from './slots.js';

const SLOT_STATE = 'metrics_slot';

export interface CollectionOptions {
  /** The collection schedule (cron, UTC); null: on demand only, stamped with the current second. */
  schedule: string | null;
  /** Samples older than this many days before the slot are deleted. */
  retentionDays: number;
  log?: Logger;
}

export interface CollectionOutcome {
  /** The slot (ISO) this collection was for: every sample's collectedAt. */
  slot: string;
  /** False when this slot (or a later one) was already collected, here or by another node. */
  collected: boolean;
  accounts: number;
  /** Samples stored. */
  points: number;
  /** Accounts whose metrics could not be computed or stored (logged; the others are stored). */
  failedAccounts: string[];
  /** Expired samples deleted. */
  expired: number;
}

/** Claims `slot` unless it, or a later slot, was claimed already. */
async function claimSlot(db: Db, slot: string): Promise<boolean> {
  const previous = await readState(db, SLOT_STATE);
  // ISO timestamps order as strings; a late node must not go back and fill an older slot.
  if (previous !== null && previous >= slot) return false;
  return claimState(db, SLOT_STATE, previous, slot);
}

async function storeAccountMetrics(db: Db, accountName: string, slot: string): Promise<number> {
  const values = await computeAccountMetrics(db, accountName);
  const rows = METRICS.map((m) => ({ account_name: accountName, metric_id: m.id, collected_at: slot, value: values.get(m.id)! }));
  // Idempotent, should a slot ever be stored twice (a restored database state, say).
  await db('report_metric_data').insert(rows).onConflict(['account_name', 'metric_id', 'collected_at']).merge(['value']);
  return rows.length;
}

export async function collectMetrics(db: Db, now: Date, options: CollectionOptions): Promise<CollectionOutcome> {
  const slotDate = metricsSlot(options.schedule, now);
  const slot = slotDate.toISOString();
  const outcome: CollectionOutcome = { slot, collected: false, accounts: 0, points: 0, failedAccounts: [], expired: 0 };
  if (!(await claimSlot(db, slot))) return outcome;
  outcome.collected = true;

  // Accounts being deleted are skipped: their rows are about to go (the foreign key cascades).
  const accounts: string[] = await db('accounts').whereNot('state', 'deleting').orderBy('name').pluck('name');
  for (const accountName of accounts) {
    try {
      outcome.points += await storeAccountMetrics(db, accountName, slot);
      outcome.accounts++;
    } catch (err) {
      // One account's failure (deleted meanwhile, say) must not cost the others their sample.
      outcome.failedAccounts.push(accountName);
      options.log?.error({ err, account: accountName, slot }, 'could not collect the metrics of an account');
    }
  }

  const cutoff = new Date(slotDate.getTime() - options.retentionDays * 86_400_000).toISOString();
  outcome.expired = await db('report_metric_data').where('collected_at', '<', cutoff).delete();
  return outcome;
}
