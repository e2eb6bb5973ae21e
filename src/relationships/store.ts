/** SQL of the artifact relationships (artifact_relationships). */
import type { Db } from '../db/index.js';

export interface RelationshipRow {
  uuid: string;
  account_name: string;
  source_type: string;
  source_id: string;
  target_type: string;
  target_id: string;
  relationship_type: string;
  comment: string | null;
  /** JSON object, or null. */
  user_metadata: string | null;
  created_at: string;
}

export interface RelationshipFilter {
  artifactType?: string;
  artifactId?: string;
}

/** Inserts the row unless the account already has the same source, target and type; answers whether it did. */
export async function insertRelationship(db: Db, row: RelationshipRow): Promise<boolean> {
  await db('artifact_relationships')
    .insert(row)
    .onConflict(['account_name', 'source_type', 'source_id', 'target_type', 'target_id', 'relationship_type'])
    .ignore();
  return (await findRelationship(db, row.account_name, row.uuid)) !== undefined;
}

export async function findRelationship(db: Db, accountName: string, uuid: string): Promise<RelationshipRow | undefined> {
  return db<RelationshipRow>('artifact_relationships').where({ account_name: accountName, uuid }).first();
}

/** The account's relationships that match, newest first, at most `limit`. */
export async function selectRelationships(db: Db, accountName: string, f: RelationshipFilter, limit: number): Promise<RelationshipRow[]> {
  const q = db<RelationshipRow>('artifact_relationships').where({ account_name: accountName });
  if (f.artifactType) q.andWhere((w) => w.where('source_type', f.artifactType!).orWhere('target_type', f.artifactType!));
  if (f.artifactId) q.andWhere((w) => w.where('source_id', f.artifactId!).orWhere('target_id', f.artifactId!));
  return q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'uuid' }]).limit(limit);
}

/** Deletes all the named relationships of the account, or none when one of them is not the account's: answers the missing ones. */
export async function deleteRelationships(db: Db, accountName: string, uuids: string[]): Promise<string[]> {
  return db.transaction(async (trx) => {
    const found = new Set((await trx('artifact_relationships').where({ account_name: accountName }).whereIn('uuid', uuids).select('uuid')).map((r: { uuid: string }) => r.uuid));
    const missing = uuids.filter((u) => !found.has(u));
    if (missing.length === 0) await trx('artifact_relationships').where({ account_name: accountName }).whereIn('uuid', uuids).delete();
    return missing;
  });
}
