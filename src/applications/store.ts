/**
 * Applications in the database: an account's applications, their versions (names unique per application) and the
 * artifacts associated with a version. Every read is scoped by account, so another account's ids answer not found.
 */
import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Db } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';

export interface ApplicationRecord {
  application_id: string;
  account_name: string;
  name: string;
  description: string | null;
  created_at: string;
  last_updated: string;
}

export interface ApplicationVersionRecord {
  application_version_id: string;
  application_id: string;
  version_name: string;
  created_at: string;
  last_updated: string;
}

export type ArtifactType = 'image' | 'source';

export interface ArtifactAssociationRecord {
  association_id: string;
  application_version_id: string;
  account_name: string;
  artifact_type: ArtifactType;
  artifact_id: string;
  created_at: string;
}

/** Bounds on what one application holds, so every list the API answers is bounded. */
export const MAX_APPLICATIONS_PAGE = 1000;
export const MAX_VERSIONS_PER_APPLICATION = 1000;
export const MAX_ARTIFACTS_PER_VERSION = 1000;

/** Runs a write; a unique-constraint failure becomes a ConflictError with the given message. */
async function uniquely<T>(write: () => Promise<T>, message: string, detail: Record<string, unknown>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(message, detail);
    throw err;
  }
}

export async function getApplication(db: Db, accountName: string, applicationId: string): Promise<ApplicationRecord> {
  const row: ApplicationRecord | undefined = await db('applications').where({ account_name: accountName, application_id: applicationId }).first();
  if (!row) throw new NotFoundError(`application '${applicationId}' does not exist`, { application_id: applicationId });
  return row;
}

export async function listApplications(db: Db, accountName: string, page: { limit: number; offset: number }): Promise<ApplicationRecord[]> {
  return db('applications').where({ account_name: accountName }).orderBy([{ column: 'name' }, { column: 'application_id' }]).limit(page.limit).offset(page.offset);
}

export async function insertApplication(db: Db, accountName: string, input: { name: string; description?: string | null }): Promise<ApplicationRecord> {
  const now = nowIso();
  const row: ApplicationRecord = { application_id: randomUUID(), account_name: accountName, name: input.name, description: input.description ?? null, created_at: now, last_updated: now };
  await uniquely(() => db('applications').insert(row), `an application named '${input.name}' already exists`, { name: input.name });
  return row;
}

export async function updateApplication(db: Db, current: ApplicationRecord, input: { name: string; description?: string | null }): Promise<ApplicationRecord> {
  const changes = { name: input.name, description: input.description === undefined ? current.description : input.description, last_updated: nowIso() };
  await uniquely(() => db('applications').where({ application_id: current.application_id }).update(changes), `an application named '${input.name}' already exists`, { name: input.name });
  return { ...current, ...changes };
}

/** Removes the application with its versions and their artifact associations (the foreign keys cascade). */
export async function deleteApplication(db: Db, accountName: string, applicationId: string): Promise<void> {
  const deleted = await db('applications').where({ account_name: accountName, application_id: applicationId }).delete();
  if (deleted === 0) throw new NotFoundError(`application '${applicationId}' does not exist`, { application_id: applicationId });
}

export async function versionsOf(db: Db, applicationIds: string[]): Promise<ApplicationVersionRecord[]> {
  if (applicationIds.length === 0) return [];
  return db('application_versions').whereIn('application_id', applicationIds).orderBy([{ column: 'created_at' }, { column: 'application_version_id' }]);
}

export async function getVersion(db: Db, application: ApplicationRecord, versionId: string): Promise<ApplicationVersionRecord> {
  const row: ApplicationVersionRecord | undefined = await db('application_versions').where({ application_id: application.application_id, application_version_id: versionId }).first();
  if (!row) throw new NotFoundError(`application version '${versionId}' does not exist`, { application_id: application.application_id, application_version_id: versionId });
  return row;
}

export async function insertVersion(db: Db, application: ApplicationRecord, versionName: string): Promise<ApplicationVersionRecord> {
  const now = nowIso();
  const row: ApplicationVersionRecord = { application_version_id: randomUUID(), application_id: application.application_id, version_name: versionName, created_at: now, last_updated: now };
  return db.transaction(async (trx) => {
    const count = Number((await trx('application_versions').where({ application_id: application.application_id }).count({ n: '*' }).first())?.n ?? 0);
    if (count >= MAX_VERSIONS_PER_APPLICATION) throw new ConflictError(`an application holds at most ${MAX_VERSIONS_PER_APPLICATION} versions`, { application_id: application.application_id });
    await uniquely(() => trx('application_versions').insert(row), `application version '${versionName}' already exists`, { version_name: versionName });
    return row;
  });
}

export async function renameVersion(db: Db, current: ApplicationVersionRecord, versionName: string): Promise<ApplicationVersionRecord> {
  const changes = { version_name: versionName, last_updated: nowIso() };
  await uniquely(() => db('application_versions').where({ application_version_id: current.application_version_id }).update(changes), `application version '${versionName}' already exists`, {
    version_name: versionName,
  });
  return { ...current, ...changes };
}

export async function deleteVersion(db: Db, version: ApplicationVersionRecord): Promise<void> {
  await db('application_versions').where({ application_version_id: version.application_version_id }).delete();
}

export async function associationsOf(db: Db, version: ApplicationVersionRecord): Promise<ArtifactAssociationRecord[]> {
  return db('application_artifacts')
    .where({ application_version_id: version.application_version_id })
    .orderBy([{ column: 'created_at' }, { column: 'association_id' }])
    .limit(MAX_ARTIFACTS_PER_VERSION);
}

export async function insertAssociation(db: Db, version: ApplicationVersionRecord, accountName: string, type: ArtifactType, artifactId: string): Promise<ArtifactAssociationRecord> {
  const row: ArtifactAssociationRecord = {
    association_id: randomUUID(),
    application_version_id: version.application_version_id,
    account_name: accountName,
    artifact_type: type,
    artifact_id: artifactId,
    created_at: nowIso(),
  };
  return db.transaction(async (trx) => {
    const count = Number((await trx('application_artifacts').where({ application_version_id: version.application_version_id }).count({ n: '*' }).first())?.n ?? 0);
    if (count >= MAX_ARTIFACTS_PER_VERSION) throw new ConflictError(`an application version holds at most ${MAX_ARTIFACTS_PER_VERSION} artifacts`, { application_version_id: version.application_version_id });
    await uniquely(() => trx('application_artifacts').insert(row), `the ${type} '${artifactId}' is already associated with this version`, { artifact_type: type, artifact_id: artifactId });
    return row;
  });
}

export async function deleteAssociation(db: Db, version: ApplicationVersionRecord, associationId: string): Promise<void> {
  const deleted = await db('application_artifacts').where({ application_version_id: version.application_version_id, association_id: associationId }).delete();
  if (deleted === 0) throw new NotFoundError(`artifact association '${associationId}' does not exist`, { association_id: associationId });
}
