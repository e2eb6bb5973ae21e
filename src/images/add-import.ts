/** Adding an image from an SBOM import: check the named parts exist, record the image and its tags, queue the analysis. */
import { ConflictError, InvalidError } from '../errors.js';
import type { Services } from '../service.js';
import { ANALYZE_IMAGE_JOB, type AnalyzeImagePayload } from './analyze.js';
import { getOperation, readImportParts, setOperationStatus, type ImportPartKind } from './imports.js';
import { parseImageReference } from './sources/references.js';
import * as store from './store.js';
import { recordTag } from './tags.js';

export interface ImportManifest {
  contents: Partial<Record<ImportPartKind, string>> & { packages: string };
  tags: string[];
  digest: string;
  parent_digest?: string;
  local_image_id?: string;
  operation_uuid: string;
}

export async function addImageFromImport(services: Services, accountName: string, manifest: ImportManifest, force: boolean): Promise<store.ImageRecord> {
  const op = await getOperation(services.db, accountName, manifest.operation_uuid);
  if (op.status === 'expired' || op.status === 'failed')
    throw new ConflictError(`import operation '${op.uuid}' is ${op.status}; start a new one`, { operation_id: op.uuid, status: op.status });
  await readImportParts(services.db, op.uuid, manifest.contents); // throws naming the missing part
  const tags = manifest.tags.map((t) => parseImageReference(t));
  if (tags.some((t) => t.digest)) throw new InvalidError('tags must be tags, not digests', { errors: [{ location: 'body.source.import.tags', message: 'names a digest' }] });

  const source = JSON.stringify({ kind: 'import', operation_uuid: op.uuid, contents: manifest.contents });
  const created = await store.ensureImage(services.db, {
    account_name: accountName,
    image_digest: manifest.digest,
    parent_digest: manifest.parent_digest ?? null,
    image_type: 'docker',
    annotations: '{}',
    source,
    dockerfile: null,
  });
  for (const t of tags) await recordTag(services.db, accountName, manifest.digest, t);
  const image = await store.getImage(services.db, accountName, manifest.digest);
  const rerun = !created && image.analysis_status !== 'analyzing' && (force || image.analysis_status === 'analysis_failed');
  if (rerun) {
    await services.db('images').where({ account_name: accountName, image_digest: manifest.digest }).update({ source });
    await store.transitionAnalysis(services.db, accountName, manifest.digest, ['analyzed', 'analysis_failed'], 'not_analyzed', 'import requested again');
  }
  if (created || rerun) {
    await setOperationStatus(services.db, op.uuid, 'queued');
    const payload: AnalyzeImagePayload = { accountName, imageDigest: manifest.digest };
    await services.jobs.enqueue(ANALYZE_IMAGE_JOB, payload, { accountName });
    services.worker.wake();
  }
  return store.getImage(services.db, accountName, manifest.digest);
}
