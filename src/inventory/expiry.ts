/**
 * Expiry: what no report has named for the inventory's time to live (the runtime setting inventory.ttl_seconds,
 * default VIGIL_INVENTORY_TTL_SECONDS) no longer runs anywhere we know of. A
 * periodic sweep deletes it, and every read sweeps the account first, so lists never show expired rows.
 */
import type { Db } from '../db/index.js';
import type { Services } from '../service.js';
import { definePeriodicJob } from '../jobs/periodic.js';

/** Each inventory table with the column that says when a report last named the row. */
const EXPIRING_TABLES: readonly { table: string; seen: string }[] = [
  { table: 'inventory_items', seen: 'last_seen' },
  { table: 'k8s_containers', seen: 'last_seen' },
  { table: 'k8s_pods', seen: 'last_seen' },
  { table: 'k8s_nodes', seen: 'last_seen' },
  { table: 'k8s_namespaces', seen: 'last_seen' },
  { table: 'ecs_containers', seen: 'last_seen' },
  { table: 'ecs_tasks', seen: 'last_seen' },
  { table: 'ecs_services', seen: 'last_seen' },
  { table: 'inventory_clusters', seen: 'last_report_at' },
];

/** Longest pause between sweeps; reads sweep their account anyway, this keeps storage and reports tidy. */
const MAX_SWEEP_INTERVAL_SECONDS = 300;

/** Rows last seen before this instant have expired. */
export function expiryCutoff(ttlSeconds: number, now = Date.now()): string {
  return new Date(now - ttlSeconds * 1000).toISOString();
}

/** Deletes every inventory row last seen before `cutoff` (of one account, or of all); answers how many. */
export async function expireInventory(db: Db, cutoff: string, accountName?: string): Promise<number> {
  let deleted = 0;
  for (const { table, seen } of EXPIRING_TABLES) {
    const q = db(table).where(seen, '<', cutoff);
    if (accountName !== undefined) q.andWhere('account_name', accountName);
    deleted += await q.delete();
  }
  return deleted;
}

/** The sweep every read of an account's inventory starts with. */
export async function expireAccountInventory(services: Services, accountName: string): Promise<void> {
  await expireInventory(services.db, expiryCutoff(await services.settings.get('inventory.ttl_seconds')), accountName);
}

/** The sweep of every account's runtime inventory, every time to live (five minutes at most). */
export const INVENTORY_EXPIRY_JOB = definePeriodicJob({ kind: 'inventory_expiry', role: 'scheduler' });

/** How often the sweep runs: as often as the time to live, but at least every five minutes. */
export function inventoryExpiryEveryMs(ttlSeconds: number): number {
  return Math.min(ttlSeconds, MAX_SWEEP_INTERVAL_SECONDS) * 1000;
}

/** One sweep (the job's work). */
export async function expireAllInventory(services: Services): Promise<void> {
  const deleted = await expireInventory(services.db, expiryCutoff(await services.settings.get('inventory.ttl_seconds')));
  if (deleted > 0) services.log.info({ deleted }, 'expired runtime inventory rows');
}
