/**
 * Corrections in the database (table `corrections`, shared by every account): reading and writing them, and the
 * provider the correction step reads.
 */
import type { Db } from '../../db/index.js';
import type { CorrectionProvider } from './apply.js';
import type { Correction, CorrectionMatch, CorrectionType } from './model.js';

interface CorrectionRow {
  uuid: string;
  type: CorrectionType;
  description: string | null;
  match_json: string;
  replace_json: string;
  created_at: string;
  last_updated: string;
}

function correctionOf(r: CorrectionRow): Correction {
  return {
    uuid: r.uuid,
    type: r.type,
    ...(r.description !== null ? { description: r.description } : {}),
    match: JSON.parse(r.match_json) as CorrectionMatch,
    replace: JSON.parse(r.replace_json) as Correction['replace'],
    created_at: r.created_at,
    last_updated: r.last_updated,
  };
}

function rowOf(c: Correction): CorrectionRow {
  return {
    uuid: c.uuid,
    type: c.type,
    description: c.description ?? null,
    match_json: JSON.stringify(c.match),
    replace_json: JSON.stringify(c.replace),
    created_at: c.created_at,
    last_updated: c.last_updated,
  };
}

/** Every correction, oldest first (the order the correction step applies them in). */
export async function listCorrections(db: Db, type?: CorrectionType): Promise<Correction[]> {
  const q = db<CorrectionRow>('corrections').orderBy([{ column: 'created_at' }, { column: 'uuid' }]);
  if (type) q.where({ type });
  return (await q.select('*')).map(correctionOf);
}

export async function countCorrections(db: Db): Promise<number> {
  return Number((await db('corrections').count({ n: '*' }).first())?.n ?? 0);
}

export async function findCorrection(db: Db, uuid: string): Promise<Correction | undefined> {
  const row = await db<CorrectionRow>('corrections').where({ uuid }).first();
  return row ? correctionOf(row) : undefined;
}

export async function insertCorrection(db: Db, c: Correction): Promise<void> {
  await db('corrections').insert(rowOf(c));
}

export async function updateCorrectionRow(db: Db, c: Correction): Promise<void> {
  const { uuid, created_at: _created, ...rest } = rowOf(c);
  await db('corrections').where({ uuid }).update(rest);
}

export async function deleteCorrectionRow(db: Db, uuid: string): Promise<boolean> {
  return (await db('corrections').where({ uuid }).delete()) > 0;
}

/** The correction step's provider over the database. */
export function knexCorrectionProvider(db: Db): CorrectionProvider {
  return { corrections: () => listCorrections(db) };
}
