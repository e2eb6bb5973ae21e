/** Writing a cluster's snapshot into one object table: the report's rows replace whatever the cluster had. */
import type { Knex } from 'knex';

/** Rows per INSERT: SQLite builds a multi-row insert as a compound SELECT, which allows 500 terms. */
export const INSERT_BATCH = 500;

export interface SnapshotTimes {
  /** When Vigil writes the rows. */
  now: string;
  /** The report's timestamp. */
  seenAt: string;
}

/**
 * Replaces the rows of one cluster (`scope`: account and cluster columns) with `rows`. An object the cluster
 * already had (same `key`) keeps its created_at, so "first seen" survives the replacement.
 */
export async function replaceClusterRows(
  trx: Knex.Transaction,
  table: string,
  scope: Record<string, string>,
  key: string,
  rows: readonly Record<string, unknown>[],
  times: SnapshotTimes,
): Promise<void> {
  const previous = await trx(table).where(scope).select<Record<string, string>[]>(key, 'created_at');
  const createdAt = new Map(previous.map((r) => [r[key], r.created_at]));
  await trx(table).where(scope).delete();
  const full = rows.map((r) => ({
    ...scope,
    ...r,
    created_at: createdAt.get(r[key] as string) ?? times.now,
    last_updated: times.now,
    last_seen: times.seenAt,
  }));
  for (let i = 0; i < full.length; i += INSERT_BATCH) await trx(table).insert(full.slice(i, i + INSERT_BATCH));
}
