/**
 * Finalizing a source import: the SBOM uploaded to a source import operation (syft JSON of a source tree, or
 * CycloneDX / SPDX JSON, read by the image import's readers) becomes the packages of the source record for the
 * given host, repository and revision, and is matched at once. The SBOM is bounded by the request body limit, so
 * this runs in the request rather than as a job: the record, its packages, its findings, the completion event and
 * the operation's `complete` status land in one transaction, or none of them do.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/openapi-types.js';
import type { Db } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import { ConflictError, InvalidError } from '../errors.js';
import { getOperation, readStoredPart } from '../images/imports.js';
import { readSbomPackages } from '../images/sbom/index.js';
import { packageColumns, packageRowOf } from '../images/store.js';
import { refreshFindings, SOURCE_FINDINGS } from '../vulns/findings.js';
import { nowIso } from '../util/time.js';
import { findSourceByRevision, getSource, type SourceRecord } from './store.js';

/** Upstream's SourceImportMetadata, as the spec declares it. */
export type SourceImportMetadata = components['schemas']['SourceImportMetadata'];

const INSERT_BATCH = 200;

export async function finalizeSourceImport(db: Db, accountName: string, operationId: string, metadata: SourceImportMetadata): Promise<SourceRecord> {
  const op = await getOperation(db, accountName, operationId, 'source');
  if (op.status !== 'pending')
    throw new ConflictError(`import operation '${op.uuid}' is ${op.status}; start a new one`, { operation_id: op.uuid, status: op.status });
  const sbom = (await readStoredPart(db, op.uuid, 'sbom', metadata.contents.sbom)) ?? (await readStoredPart(db, op.uuid, 'packages', metadata.contents.sbom));
  if (sbom === undefined)
    throw new InvalidError(`import operation '${op.uuid}' has no SBOM with digest ${metadata.contents.sbom}`, {
      errors: [{ location: 'body.contents.sbom', message: 'names no uploaded SBOM' }],
    });
  const read = readSbomPackages(sbom);
  const now = nowIso();

  const sourceId = await db.transaction(async (trx) => {
    // Claim the operation first: a second finalize of it, even a concurrent one, finds it no longer pending.
    const claimed = await trx('import_operations').where({ uuid: op.uuid, status: 'pending' }).update({ status: 'processing' });
    if (claimed === 0) throw new ConflictError(`import operation '${op.uuid}' was finalized meanwhile`, { operation_id: op.uuid });
    const existing = await findSourceByRevision(trx, accountName, metadata.host, metadata.repository_name, metadata.revision);
    const id = existing?.source_id ?? randomUUID();
    const facts = {
      analysis_status: 'analyzed',
      source_status: 'active',
      sbom_format: read.format,
      distro: read.distro?.name ?? null,
      distro_version: read.distro?.version ?? null,
      distro_like: read.distro?.like.join(',') || null,
      analyzed_at: now,
      last_updated: now,
    };
    if (existing) {
      // The same revision imported again: its new SBOM replaces the packages; findings follow in the refresh.
      await trx('sources').where({ source_id: id }).update(facts);
      await trx('source_packages').where({ source_id: id }).delete();
    } else {
      await trx('sources').insert({
        source_id: id,
        account_name: accountName,
        host: metadata.host,
        repository_name: metadata.repository_name,
        revision: metadata.revision,
        vcs_type: 'git',
        created_at: now,
        ...facts,
      });
    }
    await trx('source_metadata_records').insert({
      uuid: randomUUID(),
      source_id: id,
      ci_workflow_name: metadata.ci_workflow_name ?? null,
      ci_workflow_execution_time: metadata.ci_workflow_execution_time ?? null,
      branch_name: metadata.branch_name ?? null,
      change_author: metadata.change_author ?? null,
      created_at: now,
    });
    const rows = read.packages.map((p) => ({ account_name: accountName, source_id: id, ...packageColumns(packageRowOf(p)) }));
    for (let i = 0; i < rows.length; i += INSERT_BATCH) await trx('source_packages').insert(rows.slice(i, i + INSERT_BATCH));
    await refreshFindings(trx, SOURCE_FINDINGS, accountName, id);
    await recordEvent(trx, {
      accountName,
      type: 'user.source.analysis.completed',
      resourceType: 'source',
      resourceId: id,
      message: `${metadata.host}/${metadata.repository_name}@${metadata.revision}: ${read.packages.length} packages imported`,
      details: { source_id: id, operation_id: op.uuid, sbom_format: read.format, packages: read.packages.length, warnings: read.warnings.slice(0, 20) },
    });
    await trx('import_operations').where({ uuid: op.uuid }).update({ status: 'complete' });
    return id;
  });
  return getSource(db, accountName, sourceId);
}
