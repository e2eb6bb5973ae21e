/** Endpoint kinds: which are installed and whether an administrator has disabled one for every account. */
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { nowIso } from '../util/time.js';
import type { EndpointKind } from './types.js';

export interface EndpointRecord {
  name: EndpointKind;
  enabled: boolean;
  last_updated: string;
}

export async function listEndpoints(db: Db): Promise<EndpointRecord[]> {
  const rows: EndpointRecord[] = await db('notification_endpoints').orderBy('name');
  return rows.map((r) => ({ ...r, enabled: toBool(r.enabled) }));
}

export async function setEndpointEnabled(db: Db, name: EndpointKind, enabled: boolean): Promise<EndpointRecord> {
  const row = { enabled, last_updated: nowIso() };
  await db('notification_endpoints').where({ name }).update(row);
  return { name, ...row };
}
