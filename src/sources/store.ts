/**
 * Source repositories imported from SBOMs: one record per revision of a repository on a host, its metadata records
 * (one per import of that revision: CI workflow, branch, author), and its packages, stored with the columns of an
 * image's packages (images/store.ts) so listings, exports and matching read both the same way.
 */
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { countPackagesIn, packagesIn, type PackageRow } from '../images/store.js';

export type SourceAnalysisStatus = 'not_analyzed' | 'analyzing' | 'analyzed' | 'analysis_failed';
export type SourceStatus = 'active' | 'inactive' | 'deleting';

export interface SourceRecord {
  source_id: string;
  account_name: string;
  host: string;
  repository_name: string;
  revision: string;
  vcs_type: string;
  analysis_status: SourceAnalysisStatus;
  source_status: SourceStatus;
  sbom_format: string;
  distro: string | null;
  distro_version: string | null;
  distro_like: string | null;
  analyzed_at: string | null;
  created_at: string;
  last_updated: string;
}

export interface SourceMetadataRecord {
  uuid: string;
  source_id: string;
  ci_workflow_name: string | null;
  ci_workflow_execution_time: string | null;
  branch_name: string | null;
  change_author: string | null;
  created_at: string;
}

/** Sources per page when the caller gives none, and the most a page may hold. */
export const DEFAULT_SOURCES_PAGE = 100;
export const MAX_SOURCES_PAGE = 1000;

const scopeOf = (accountName: string, sourceId: string) => ({ account_name: accountName, source_id: sourceId });

export async function getSource(db: Db, accountName: string, sourceId: string): Promise<SourceRecord> {
  const row: SourceRecord | undefined = await db('sources').where(scopeOf(accountName, sourceId)).first();
  if (!row) throw new NotFoundError(`source '${sourceId}' does not exist`, { source_id: sourceId });
  return row;
}

/** The account's sources among the ids, in no particular order; unknown ids are left out. */
export async function findSources(db: Db, accountName: string, sourceIds: string[]): Promise<SourceRecord[]> {
  return sourceIds.length ? db('sources').where({ account_name: accountName }).whereIn('source_id', sourceIds) : [];
}

export async function findSourceByRevision(db: Db, accountName: string, host: string, repositoryName: string, revision: string): Promise<SourceRecord | undefined> {
  return db('sources').where({ account_name: accountName, host, repository_name: repositoryName, revision }).first();
}

/** The account's sources, newest first, one page of them. */
export async function listSources(db: Db, accountName: string, page: { limit: number; offset: number }): Promise<SourceRecord[]> {
  return db('sources').where({ account_name: accountName }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'source_id' }]).limit(page.limit).offset(page.offset);
}

export async function metadataRecordsOf(db: Db, sourceId: string): Promise<SourceMetadataRecord[]> {
  return db('source_metadata_records').where({ source_id: sourceId }).orderBy([{ column: 'created_at' }, { column: 'uuid' }]);
}

/** Removes a source with its packages, findings and metadata records (the foreign keys cascade). */
export async function deleteSource(db: Db, accountName: string, sourceId: string): Promise<void> {
  const deleted = await db('sources').where(scopeOf(accountName, sourceId)).delete();
  if (deleted === 0) throw new NotFoundError(`source '${sourceId}' does not exist`, { source_id: sourceId });
}

export function sourcePackages(db: Db, source: SourceRecord, types?: string[]): Promise<PackageRow[]> {
  return packagesIn(db, 'source_packages', scopeOf(source.account_name, source.source_id), types);
}

export function countSourcePackagesByType(db: Db, source: SourceRecord): Promise<Map<string, number>> {
  return countPackagesIn(db, 'source_packages', scopeOf(source.account_name, source.source_id));
}
