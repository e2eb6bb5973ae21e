/**
 * Inventory items: one row per image seen running in a context (`<cluster>/<namespace>` or an ECS cluster ARN).
 * Reports upsert them with the report's timestamp as last_seen; images that stop running are not removed by
 * the next report but expire once no report has named them for the TTL.
 */
import type { Knex } from 'knex';
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import type { Services } from '../service.js';
import { expireAccountInventory } from './expiry.js';
import type { InventoryType } from './model.js';
import { INSERT_BATCH, type SnapshotTimes } from './snapshot.js';

export interface InventoryItemRecord {
  inventory_type: InventoryType;
  context: string;
  image_tag: string;
  /** '' when the reporter did not know it. */
  image_digest: string;
  created_at: string;
  last_updated: string;
  last_seen: string;
}

export interface SeenImage {
  context: string;
  image_tag: string;
  image_digest: string;
}

const UNIQUE = ['account_name', 'inventory_type', 'context', 'image_tag', 'image_digest'];

/** Records the images of one report; an item seen before keeps its created_at. */
export async function recordItems(
  trx: Knex.Transaction,
  target: { accountName: string; type: InventoryType; cluster: string },
  seen: readonly SeenImage[],
  times: SnapshotTimes,
): Promise<void> {
  // One row per key: Postgres refuses an upsert that would touch the same row twice.
  const distinct = new Map(seen.map((s) => [`${s.context}\n${s.image_tag}\n${s.image_digest}`, s]));
  const rows = [...distinct.values()].map((s) => ({
    account_name: target.accountName,
    inventory_type: target.type,
    cluster: target.cluster,
    ...s,
    created_at: times.now,
    last_updated: times.now,
    last_seen: times.seenAt,
  }));
  for (let i = 0; i < rows.length; i += INSERT_BATCH)
    await trx('inventory_items').insert(rows.slice(i, i + INSERT_BATCH)).onConflict(UNIQUE).merge(['cluster', 'last_updated', 'last_seen']);
}

export interface ItemFilter {
  inventoryType?: InventoryType;
  imageDigest?: string;
  context?: string;
}

export async function listItems(services: Services, accountName: string, f: ItemFilter): Promise<InventoryItemRecord[]> {
  await expireAccountInventory(services, accountName);
  const q = services.db('inventory_items').where({ account_name: accountName });
  if (f.inventoryType) q.andWhere('inventory_type', f.inventoryType);
  if (f.imageDigest) q.andWhere('image_digest', f.imageDigest);
  if (f.context) q.andWhere('context', f.context);
  return q
    .select<InventoryItemRecord[]>('inventory_type', 'context', 'image_tag', 'image_digest', 'created_at', 'last_updated', 'last_seen')
    .orderBy([{ column: 'inventory_type' }, { column: 'context' }, { column: 'image_tag' }, { column: 'image_digest' }]);
}

/** Deletes the items of a context (only those of one digest when given); NotFoundError when none matched. */
export async function deleteItems(services: Services, accountName: string, f: Required<Pick<ItemFilter, 'inventoryType' | 'context'>> & ItemFilter): Promise<number> {
  await expireAccountInventory(services, accountName);
  const q = services.db('inventory_items').where({ account_name: accountName, inventory_type: f.inventoryType, context: f.context });
  if (f.imageDigest) q.andWhere('image_digest', f.imageDigest);
  const deleted = await q.delete();
  if (deleted === 0)
    throw new NotFoundError(
      `no ${f.inventoryType} inventory items in context '${f.context}'${f.imageDigest ? ` with image digest ${f.imageDigest}` : ''}`,
      { inventory_type: f.inventoryType, context: f.context, ...(f.imageDigest ? { image_digest: f.imageDigest } : {}) },
    );
  return deleted;
}

/** Deletes every item a cluster reported. */
export async function deleteClusterItems(db: Db, target: { accountName: string; type: InventoryType; cluster: string }): Promise<number> {
  return db('inventory_items').where({ account_name: target.accountName, inventory_type: target.type, cluster: target.cluster }).delete();
}
