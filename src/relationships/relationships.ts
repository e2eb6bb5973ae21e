/**
 * Relationships between an account's artifacts: an image and the source revision it was built from (or another
 * image), as a directed edge of upstream's types. Both artifacts must exist in the account when recorded.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { getImage } from '../images/store.js';
import { getSource } from '../sources/store.js';
import { nowIso } from '../util/time.js';
import { deleteRelationships, findRelationship, insertRelationship, selectRelationships, type RelationshipFilter, type RelationshipRow } from './store.js';

export type ArtifactType = 'source' | 'image';
export type RelationshipType = 'contains' | 'contained_by';

/** Upstream does not page the listing; this many newest relationships are answered at most. */
export const MAX_LISTED_RELATIONSHIPS = 1000;
/** The most user_metadata may hold, as JSON text. */
export const MAX_USER_METADATA_BYTES = 16 * 1024;

export interface ArtifactReference {
  artifact_type: ArtifactType;
  artifact_id: string;
}

export interface RelationshipInput {
  source: ArtifactReference;
  target: ArtifactReference;
  relationship_type: RelationshipType;
  comment?: string;
  user_metadata?: Record<string, unknown>;
}

export interface Relationship {
  uuid: string;
  source: ArtifactReference;
  target: ArtifactReference;
  relationship_type: RelationshipType;
  comment: string | null;
  user_metadata: Record<string, unknown> | null;
  created_at: string;
}

const invalid = (location: string, message: string) => new InvalidError(`${location.replace(/^body\./, '')} ${message}`, { errors: [{ location, message }] });

/** Throws NotFoundError unless the artifact exists in the account. */
export async function checkArtifact(db: Db, accountName: string, ref: ArtifactReference): Promise<void> {
  if (ref.artifact_type === 'image') await getImage(db, accountName, ref.artifact_id);
  else await getSource(db, accountName, ref.artifact_id);
}

export async function addRelationship(db: Db, accountName: string, input: RelationshipInput): Promise<Relationship> {
  const { source, target } = input;
  if (source.artifact_type === target.artifact_type && source.artifact_id === target.artifact_id) throw invalid('body.target', 'must be another artifact than the source');
  if (source.artifact_type !== 'image' && target.artifact_type !== 'image') throw invalid('body.source', 'or target must be an image: a relationship is for an image');
  const userMetadata = input.user_metadata === undefined ? null : JSON.stringify(input.user_metadata);
  if (userMetadata !== null && Buffer.byteLength(userMetadata) > MAX_USER_METADATA_BYTES) throw invalid('body.user_metadata', `must be at most ${MAX_USER_METADATA_BYTES} bytes of JSON`);
  await checkArtifact(db, accountName, source);
  await checkArtifact(db, accountName, target);
  const row: RelationshipRow = {
    uuid: randomUUID(),
    account_name: accountName,
    source_type: source.artifact_type,
    source_id: source.artifact_id,
    target_type: target.artifact_type,
    target_id: target.artifact_id,
    relationship_type: input.relationship_type,
    comment: input.comment ?? null,
    user_metadata: userMetadata,
    created_at: nowIso(),
  };
  if (!(await insertRelationship(db, row)))
    throw new ConflictError('this relationship between the two artifacts is already recorded', { source, target, relationship_type: input.relationship_type });
  return relationshipOf(row);
}

export async function getRelationship(db: Db, accountName: string, uuid: string): Promise<Relationship> {
  const row = await findRelationship(db, accountName, uuid);
  if (!row) throw new NotFoundError(`relationship '${uuid}' does not exist`, { relationship_id: uuid });
  return relationshipOf(row);
}

export async function listRelationships(db: Db, accountName: string, filter: RelationshipFilter): Promise<Relationship[]> {
  return (await selectRelationships(db, accountName, filter, MAX_LISTED_RELATIONSHIPS)).map(relationshipOf);
}

/** Deletes all the named relationships, or (when one does not exist) none; answers the ids deleted. */
export async function removeRelationships(db: Db, accountName: string, uuids: string[]): Promise<string[]> {
  const unique = [...new Set(uuids)];
  const missing = await deleteRelationships(db, accountName, unique);
  if (missing.length > 0) throw new NotFoundError(`relationship '${missing[0]}' does not exist; none was deleted`, { relationship_ids: missing });
  return unique;
}

function relationshipOf(row: RelationshipRow): Relationship {
  return {
    uuid: row.uuid,
    source: { artifact_type: row.source_type as ArtifactType, artifact_id: row.source_id },
    target: { artifact_type: row.target_type as ArtifactType, artifact_id: row.target_id },
    relationship_type: row.relationship_type as RelationshipType,
    comment: row.comment,
    user_metadata: row.user_metadata === null ? null : (JSON.parse(row.user_metadata) as Record<string, unknown>),
    created_at: row.created_at,
  };
}
