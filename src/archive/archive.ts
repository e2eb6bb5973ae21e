/**
 * The analysis archive of an account: archived image analyses, each a record (tags and metadata, listable without
 * opening anything) and its gzipped snapshot (./snapshot.ts) kept as a stored upload, so any node can read it.
 * Archiving writes the snapshot first, then claims it and writes the record in one transaction (with, for rule
 * transitions, the deletion of the working-set image): a failure leaves either no archive or a whole one. Restoring
 * puts the rows back and re-matches the findings against today's feeds, in one transaction.
 */
import type { Db } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { deleteImage, findImage, getImage, tagsOf, type ImageRecord } from '../images/store.js';
import { deleteUpload, holdUpload, readUpload, receiveUpload, UploadMissingError } from '../uploads/stored-uploads.js';
import { nowIso } from '../util/time.js';
import { refreshImageFindings } from '../vulns/findings.js';
import { restoreSnapshot, snapshotStream, SnapshotFormatError } from './snapshot.js';

/** Upstream's statuses; Vigil's writes are transactions, so readers only ever see `archived`. */
export type ArchiveStatus = 'archiving' | 'archived' | 'deleting' | 'deleted';

/** An archived analysis larger than this (compressed) is refused rather than stored. */
const MAX_ARCHIVE_BYTES = 2 * 1024 ** 3;

export interface TagEntry {
  full_tag: string;
  registry: string;
  repo: string;
  tag: string;
  tag_detected_at: string;
}

export interface ArchivedRecord {
  account_name: string;
  image_digest: string;
  parent_digest: string | null;
  status: ArchiveStatus;
  annotations: Record<string, string>;
  image_detail: TagEntry[];
  tag_count: number;
  upload_id: string;
  archive_size_bytes: number;
  analyzed_at: string | null;
  created_at: string;
  last_updated: string;
}

export interface ArchiveAddResult {
  digest: string;
  status: 'archived' | 'error';
  detail?: string;
}

function recordOf(row: any): ArchivedRecord {
  return {
    ...row,
    annotations: JSON.parse(row.annotations),
    image_detail: JSON.parse(row.image_detail),
    tag_count: Number(row.tag_count),
    archive_size_bytes: Number(row.archive_size_bytes),
  };
}

export async function findArchived(db: Db, accountName: string, digest: string): Promise<ArchivedRecord | undefined> {
  const row = await db('analysis_archive').where({ account_name: accountName, image_digest: digest }).first();
  return row ? recordOf(row) : undefined;
}

export async function getArchived(db: Db, accountName: string, digest: string): Promise<ArchivedRecord> {
  const record = await findArchived(db, accountName, digest);
  if (!record) throw new NotFoundError(`no archived analysis of image '${digest}' in this account`, { image_digest: digest });
  return record;
}

/** One page of the account's archived analyses, newest archived first. */
export async function listArchived(db: Db, accountName: string, page: { page: number; limit: number }): Promise<ArchivedRecord[]> {
  const rows = await db('analysis_archive')
    .where({ account_name: accountName })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'image_digest' }])
    .offset((page.page - 1) * page.limit)
    .limit(page.limit);
  return rows.map(recordOf);
}

export async function archiveSummary(db: Db, accountName: string) {
  const row = await db('analysis_archive')
    .where({ account_name: accountName })
    .count({ images: '*' })
    .sum({ tags: 'tag_count', bytes: 'archive_size_bytes' })
    .max({ last: 'last_updated' })
    .first();
  return {
    total_image_count: Number(row?.images ?? 0),
    total_tag_count: Number(row?.tags ?? 0),
    total_data_bytes: Number(row?.bytes ?? 0),
    last_updated: (row?.last as string | null) ?? null,
  };
}

class NotArchivable extends Error {}

/**
 * Archives the image's analysis; with `removeFromWorkingSet` (rule transitions) the image leaves the working set in
 * the same transaction. An image already archived answers `archived` and is left as it is (and, for a transition,
 * still removed from the working set).
 */
export async function archiveImage(db: Db, accountName: string, digest: string, options: { removeFromWorkingSet?: boolean } = {}): Promise<ArchiveAddResult> {
  const remove = async (trx: Db) => {
    if (options.removeFromWorkingSet) await deleteImage(trx, accountName, digest, false);
  };
  if (await findArchived(db, accountName, digest)) {
    await remove(db);
    return { digest, status: 'archived', detail: 'the analysis was already archived' };
  }
  const image = await findImage(db, accountName, digest);
  if (!image) return { digest, status: 'error', detail: 'no such image in this account' };
  if (image.analysis_status !== 'analyzed') return { digest, status: 'error', detail: `the image is not analyzed (analysis_status: ${image.analysis_status})` };

  const tags = (await tagsOf(db, accountName, [digest])).get(digest) ?? [];
  const upload = await receiveUpload(db, snapshotStream(db, accountName, digest), {
    purpose: 'analysis-archive',
    limitBytes: MAX_ARCHIVE_BYTES,
    emptyMessage: 'the archived analysis is empty',
  });
  try {
    await db.transaction(async (trx) => {
      // A re-analysis between the snapshot and now would make the snapshot stale.
      const now = await findImage(trx, accountName, digest);
      if (!now || now.analyzed_at !== image.analyzed_at) throw new NotArchivable('the image changed while it was archived; retry');
      const at = nowIso();
      const inserted = await trx('analysis_archive')
        .insert({
          account_name: accountName,
          image_digest: digest,
          parent_digest: image.parent_digest,
          status: 'archived' satisfies ArchiveStatus,
          annotations: image.annotations,
          image_detail: JSON.stringify(tags.map((t) => ({ full_tag: t.full_tag, registry: t.registry, repo: t.repo, tag: t.tag, tag_detected_at: t.tag_detected_at }))),
          tag_count: tags.length,
          upload_id: upload.id,
          archive_size_bytes: upload.size,
          analyzed_at: image.analyzed_at,
          created_at: at,
          last_updated: at,
        })
        .onConflict(['account_name', 'image_digest'])
        .ignore()
        .returning('image_digest');
      if (inserted.length === 0) throw new NotArchivable('the analysis was already archived');
      await holdUpload(trx, upload.id, { accountName, imageDigest: digest });
      await remove(trx);
    });
  } catch (err) {
    await deleteUpload(db, upload.id);
    if (!(err instanceof NotArchivable)) throw err;
    const already = await findArchived(db, accountName, digest);
    return already ? { digest, status: 'archived', detail: err.message } : { digest, status: 'error', detail: err.message };
  }
  return { digest, status: 'archived' };
}

/** Deletes an archived analysis and its content. */
export async function deleteArchived(db: Db, accountName: string, digest: string): Promise<void> {
  const record = await getArchived(db, accountName, digest);
  await db.transaction(async (trx) => {
    await trx('analysis_archive').where({ account_name: accountName, image_digest: digest }).delete();
    await deleteUpload(trx, record.upload_id);
  });
}

/**
 * Restores an archived analysis into the working set: the image with its tags, SBOM, findings (re-matched against
 * the current feeds) and policy evaluations, analyzed, without a registry. The archive record stays. An image
 * already analyzed in the working set is answered as it is; one in any other state is a conflict.
 */
export async function restoreArchived(db: Db, accountName: string, digest: string): Promise<ImageRecord> {
  const record = await getArchived(db, accountName, digest);
  const present = async (q: Db) => {
    const image = await findImage(q, accountName, digest);
    if (image && image.analysis_status !== 'analyzed')
      throw new ConflictError(`image '${digest}' is in the working set and not analyzed (analysis_status: ${image.analysis_status}); delete it first to restore the archived analysis`, {
        image_digest: digest,
        analysis_status: image.analysis_status,
      });
    return image;
  };
  const existing = await present(db);
  if (existing) return existing;
  try {
    await db.transaction(async (trx) => {
      if (await present(trx)) return; // restored meanwhile by another request
      await restoreSnapshot(trx, readUpload(trx, record.upload_id), accountName, digest);
      await refreshImageFindings(trx, accountName, digest);
    });
  } catch (err) {
    // Stored content that no longer reads back (damaged, or from an incompatible release): nothing was restored.
    const unreadable = err instanceof SnapshotFormatError || err instanceof UploadMissingError || err instanceof SyntaxError;
    if (unreadable || (err as { code?: string }).code?.startsWith('Z_'))
      throw new ConflictError(`the archived analysis of image '${digest}' cannot be restored: ${(err as Error).message}`, { image_digest: digest });
    throw err;
  }
  return getImage(db, accountName, digest);
}
