/** SQL of the stored runtime settings (system_configurations): one row per key set through the API. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { nowIso } from '../util/time.js';

export interface StoredSetting {
  key: string;
  uuid: string;
  /** JSON text. */
  value: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

export async function storedSettings(db: Db): Promise<StoredSetting[]> {
  return db<StoredSetting>('system_configurations').select();
}

/** Stores each value (insert or replace), in the caller's transaction. */
export async function storeSettings(trx: Db, entries: readonly { key: string; value: unknown }[], updatedBy: string): Promise<void> {
  const now = nowIso();
  for (const e of entries)
    await trx('system_configurations')
      .insert({ key: e.key, uuid: randomUUID(), value: JSON.stringify(e.value), updated_by: updatedBy, created_at: now, updated_at: now })
      .onConflict('key')
      .merge(['value', 'updated_by', 'updated_at']);
}

export async function unstoreSetting(db: Db, key: string): Promise<void> {
  await db('system_configurations').where({ key }).delete();
}
