/**
 * Adding an image from an uploaded archive (docker save or OCI layout): keep the upload until its analysis is
 * done, record the image under the requested tag or the archive's own tags, and queue the analysis.
 */
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { InvalidError } from '../errors.js';
import type { Services } from '../service.js';
import { ANALYZE_IMAGE_JOB, type AnalyzeImagePayload } from './analyze.js';
import { readImageArchive } from './sources/image-archive.js';
import { parseImageReference } from './sources/references.js';
import * as store from './store.js';
import { recordTag } from './tags.js';
import { saveUpload } from './uploads.js';

export async function addImageFromArchive(
  services: Services,
  accountName: string,
  body: Readable,
  options: { tag?: string; force: boolean },
): Promise<store.ImageRecord> {
  const upload = await saveUpload(body, services.config.dataDir, services.config.analysis.maxUploadBytes);
  let keepUpload = false;
  try {
    const image = await readImageArchive(upload.path);
    const { manifestDigest, repoTags } = image;
    await image.close();
    const tags = (options.tag ? [options.tag] : repoTags).map((t) => parseImageReference(t));
    if (tags.length === 0)
      throw new InvalidError('the archive names no tag; pass ?tag=registry/repository:tag', { errors: [{ location: 'query.tag', message: 'is required for this archive' }] });
    if (tags.some((t) => t.digest)) throw new InvalidError('tag must be a tag, not a digest', { errors: [{ location: 'query.tag', message: 'names a digest' }] });

    const created = await store.ensureImage(services.db, {
      account_name: accountName,
      image_digest: manifestDigest,
      parent_digest: null,
      image_type: 'docker',
      annotations: '{}',
      source: JSON.stringify({ kind: 'archive', path: upload.path }),
      dockerfile: null,
    });
    for (const t of tags) await recordTag(services.db, accountName, manifestDigest, t);
    const current = await store.getImage(services.db, accountName, manifestDigest);
    const rerun = !created && current.analysis_status !== 'analyzing' && (options.force || current.analysis_status === 'analysis_failed');
    if (rerun) {
      await services.db('images').where({ account_name: accountName, image_digest: manifestDigest }).update({ source: JSON.stringify({ kind: 'archive', path: upload.path }) });
      await store.transitionAnalysis(services.db, accountName, manifestDigest, ['analyzed', 'analysis_failed'], 'not_analyzed', 'analysis requested again (new upload)');
    }
    if (created || rerun) {
      keepUpload = true;
      const payload: AnalyzeImagePayload = { accountName, imageDigest: manifestDigest };
      await services.jobs.enqueue(ANALYZE_IMAGE_JOB, payload, { accountName, maxAttempts: 3 });
      services.worker.wake();
    }
    return store.getImage(services.db, accountName, manifestDigest);
  } finally {
    if (!keepUpload) await rm(upload.path, { force: true });
  }
}
