/**
 * Adding an image from an uploaded archive (docker save or OCI layout): the upload is stored in the database
 * (any node's analyzer reads it from there) and kept until its analysis is done; the image is recorded under the
 * requested tag or the archive's own tags, and its analysis queued. The archive is read here, for its digest and
 * tags, from a node-local temporary copy written while the upload streams in.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidError } from '../errors.js';
import type { Services } from '../service.js';
import { deleteUpload, holdUpload, receiveUpload } from '../uploads/stored-uploads.js';
import { ANALYZE_IMAGE_JOB, type AnalyzeImagePayload } from './analyze.js';
import { readImageArchive } from './sources/image-archive.js';
import { parseImageReference } from './sources/references.js';
import * as store from './store.js';
import { recordTag } from './tags.js';

export async function addImageFromArchive(
  services: Services,
  accountName: string,
  body: Readable,
  options: { tag?: string; force: boolean },
): Promise<store.ImageRecord> {
  const temp = await mkdtemp(join(tmpdir(), 'vigil-upload-'));
  try {
    const upload = await receiveUpload(services.db, body, {
      purpose: 'image-archive',
      limitBytes: services.config.analysis.maxUploadBytes,
      emptyMessage: 'the upload is empty: send the archive as the request body',
      localCopy: join(temp, 'archive'),
    });
    let keepUpload = false;
    try {
      const image = await readImageArchive(join(temp, 'archive'));
      const { manifestDigest, repoTags } = image;
      await image.close();
      await rm(temp, { recursive: true, force: true });
      const tags = (options.tag ? [options.tag] : repoTags).map((t) => parseImageReference(t));
      if (tags.length === 0)
        throw new InvalidError('the archive names no tag; pass ?tag=registry/repository:tag', { errors: [{ location: 'query.tag', message: 'is required for this archive' }] });
      if (tags.some((t) => t.digest)) throw new InvalidError('tag must be a tag, not a digest', { errors: [{ location: 'query.tag', message: 'names a digest' }] });

      const source = JSON.stringify({ kind: 'archive', upload: upload.id });
      // Held before the image names it, so the abandoned-upload sweep never sees it unclaimed and named.
      await holdUpload(services.db, upload.id, { accountName, imageDigest: manifestDigest });
      const created = await store.ensureImage(services.db, {
        account_name: accountName,
        image_digest: manifestDigest,
        parent_digest: null,
        image_type: 'docker',
        annotations: '{}',
        source,
        dockerfile: null,
      });
      for (const t of tags) await recordTag(services.db, accountName, manifestDigest, t);
      const current = await store.getImage(services.db, accountName, manifestDigest);
      const rerun = !created && current.analysis_status !== 'analyzing' && (options.force || current.analysis_status === 'analysis_failed');
      if (rerun) {
        await services.db('images').where({ account_name: accountName, image_digest: manifestDigest }).update({ source });
        await store.transitionAnalysis(services.db, accountName, manifestDigest, ['analyzed', 'analysis_failed'], 'not_analyzed', 'analysis requested again (new upload)');
      }
      if (created || rerun) {
        keepUpload = true;
        const payload: AnalyzeImagePayload = { accountName, imageDigest: manifestDigest };
        await services.jobs.enqueue(ANALYZE_IMAGE_JOB, payload, { accountName });
        services.worker.wake();
      }
      return store.getImage(services.db, accountName, manifestDigest);
    } finally {
      if (!keepUpload) await deleteUpload(services.db, upload.id);
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
