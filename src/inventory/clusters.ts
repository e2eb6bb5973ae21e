/**
 * Reporting clusters and the order of their reports. A cluster's stored state is its latest snapshot, so a
 * report older than the last accepted one (a delayed retry, a second agent with a lagging clock) is refused
 * with 409 instead of rolling the cluster back; a report with the same timestamp is a retry and applies again.
 */
import type { Knex } from 'knex';
import { databaseKind } from '../db/index.js';
import { ConflictError } from '../errors.js';
import type { InventoryType } from './model.js';

export interface ClusterKey {
  accountName: string;
  type: InventoryType;
  /** The cluster name (Kubernetes) or cluster ARN (ECS). */
  cluster: string;
}

const where = (k: ClusterKey) => ({ account_name: k.accountName, inventory_type: k.type, cluster: k.cluster });

/**
 * Records `reportAt` as the cluster's latest report, or throws ConflictError when a newer one is stored. Runs in
 * the report's transaction and holds the cluster's row, so concurrent reports of one cluster apply in turn.
 */
export async function acceptReport(trx: Knex.Transaction, key: ClusterKey, reportAt: string, now: string): Promise<void> {
  await trx('inventory_clusters')
    .insert({ ...where(key), last_report_at: reportAt, created_at: now, last_updated: now })
    .onConflict(['account_name', 'inventory_type', 'cluster'])
    .ignore();
  const latest = trx('inventory_clusters').where(where(key)).first<{ last_report_at: string }>('last_report_at');
  if (databaseKind(trx) === 'postgres') latest.forUpdate();
  const stored = (await latest)!.last_report_at;
  if (stored > reportAt)
    throw new ConflictError(
      `${key.type} cluster '${key.cluster}' already has a newer report (${stored}) than this one (${reportAt}); reports must not go back in time`,
      { cluster: key.cluster, timestamp: reportAt, latest_timestamp: stored },
    );
  await trx('inventory_clusters').where(where(key)).update({ last_report_at: reportAt, last_updated: now });
}

/** Forgets the cluster (so any report is accepted next); answers whether it was known. */
export async function forgetCluster(trx: Knex, key: ClusterKey): Promise<boolean> {
  return (await trx('inventory_clusters').where(where(key)).delete()) > 0;
}
