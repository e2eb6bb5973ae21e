/**
 * Uploads kept in the database (tables stored_uploads and stored_upload_chunks), so that the node that runs an
 * analysis or a feed sync need not be the node that received the file, and nodes keep separate data directories.
 * A request body is written in chunks of UPLOAD_CHUNK_BYTES as it arrives (never whole in memory), refused past
 * the size limit while streaming, and removed when the request fails or the client goes away. Readers get the
 * chunks back one at a time; code that must seek (the tar reader) copies them to a node-local temporary file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable, type Readable as ReadableStream } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../db/index.js';
import { AppError, InvalidError } from '../errors.js';
import { nowIso } from '../util/time.js';

/** Bytes per stored chunk: large enough for few rows, small enough to hold one per upload in memory. */
export const UPLOAD_CHUNK_BYTES = 4 * 1024 * 1024;
/** An upload still receiving (or complete but never claimed) with no progress for this long was abandoned. */
export const ABANDONED_UPLOAD_MS = 60 * 60 * 1000;
/** Abandoned uploads are looked for when a new upload starts, at most this often per process. */
const SWEEP_EVERY_MS = 60 * 1000;

/** `analysis-archive`: an archived image analysis (src/archive/), held for as long as its archive record exists. */
export type UploadPurpose = 'image-archive' | 'feed' | 'analysis-archive';

export class UploadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'payload_too_large', `the upload exceeds the limit of ${limit} bytes (VIGIL_MAX_UPLOAD_BYTES)`, { limit });
  }
}

export interface ReceiveOptions {
  purpose: UploadPurpose;
  limitBytes: number;
  /** What an empty body is told. */
  emptyMessage: string;
  /** Also compute the SHA-256 of the bytes (feed files are checked against one). */
  hash?: boolean;
  /** Also write the bytes to this node-local file (a temp file the caller removes), for an immediate read. */
  localCopy?: string;
}

export interface ReceivedUpload {
  id: string;
  size: number;
  /** Hex SHA-256, when asked for. */
  sha256?: string;
  /** The first bytes, for telling formats apart. */
  head: Buffer;
}

/** Stores a request body as a complete upload (state `stored`); on any failure nothing of it is kept. */
export async function receiveUpload(db: Db, body: ReadableStream, options: ReceiveOptions): Promise<ReceivedUpload> {
  await sweepOccasionally(db);
  const id = randomUUID();
  const created = nowIso();
  await db('stored_uploads').insert({ id, purpose: options.purpose, state: 'receiving', size: 0, created_at: created, updated_at: created });
  const hash = options.hash ? createHash('sha256') : null;
  const local = options.localCopy ? await open(options.localCopy, 'wx', 0o600) : null;
  let size = 0;
  let seq = 0;
  let head = Buffer.alloc(0);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // The chunk insert in flight, awaited before a failed upload is deleted so that no chunk lands afterwards.
  let writing: Promise<unknown> = Promise.resolve();

  const flush = async (all: boolean) => {
    while (pendingBytes >= UPLOAD_CHUNK_BYTES || (all && pendingBytes > 0)) {
      const joined = Buffer.concat(pending);
      const take = Math.min(UPLOAD_CHUNK_BYTES, joined.length);
      const bytes = joined.subarray(0, take);
      pending = take < joined.length ? [joined.subarray(take)] : [];
      pendingBytes = joined.length - take;
      await db('stored_upload_chunks').insert({ upload_id: id, seq: seq++, bytes });
      await db('stored_uploads').where({ id }).update({ size: size - pendingBytes, updated_at: nowIso() });
    }
  };
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > options.limitBytes) return done(new UploadTooLargeError(options.limitBytes));
      hash?.update(chunk);
      if (head.length < 64) head = Buffer.concat([head, chunk.subarray(0, 64 - head.length)]);
      pending.push(chunk);
      pendingBytes += chunk.length;
      writing = (async () => {
        if (local) await writeAll(local, chunk);
        await flush(false);
      })();
      writing.then(() => done(), done);
    },
    final(done) {
      writing = flush(true);
      writing.then(() => done(), done);
    },
  });
  try {
    await pipeline(body, sink);
    if (size === 0) throw new InvalidError(options.emptyMessage);
    const sha256 = hash?.digest('hex');
    await db('stored_uploads').where({ id }).update({ state: 'stored', size, sha256: sha256 ?? null, updated_at: nowIso() });
    return { id, size, sha256, head };
  } catch (err) {
    await writing.catch(() => undefined);
    await deleteUpload(db, id);
    if (options.localCopy) await rm(options.localCopy, { force: true });
    if (err instanceof AppError) throw err;
    throw new InvalidError(`the upload could not be read: ${(err as Error).message}`);
  } finally {
    await local?.close();
  }
}

async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  for (let at = 0; at < chunk.length; ) at += (await file.write(chunk, at)).bytesWritten;
}

/** Marks an upload as in use by an image (until its analysis finishes) or as a feed's source. */
export async function holdUpload(db: Db, id: string, holder: { accountName: string; imageDigest: string } | { feed: string }): Promise<void> {
  const columns = 'feed' in holder ? { feed: holder.feed } : { account_name: holder.accountName, image_digest: holder.imageDigest };
  await db('stored_uploads').where({ id }).update({ state: 'held', ...columns, updated_at: nowIso() });
}

export async function deleteUpload(db: Db, id: string): Promise<void> {
  // Chunks go with it (foreign key, ON DELETE CASCADE); deleted first anyway so a large upload goes in one pass.
  await db('stored_upload_chunks').where({ upload_id: id }).delete();
  await db('stored_uploads').where({ id }).delete();
}

export class UploadMissingError extends Error {
  constructor(id: string) {
    super(`the uploaded file ${id} is no longer stored (removed after an earlier analysis or as abandoned)`);
    this.name = 'UploadMissingError';
  }
}

/** The upload's bytes, one stored chunk at a time. */
export function readUpload(db: Db, id: string): ReadableStream {
  async function* chunks(): AsyncGenerator<Buffer> {
    const row = await db('stored_uploads').where({ id }).whereIn('state', ['stored', 'held']).first('size');
    if (!row) throw new UploadMissingError(id);
    let read = 0;
    for (let seq = 0; ; seq++) {
      const chunk = await db('stored_upload_chunks').where({ upload_id: id, seq }).first('bytes');
      if (!chunk) break;
      read += chunk.bytes.length;
      yield Buffer.from(chunk.bytes as Uint8Array);
    }
    // Fewer bytes than stored: the upload was deleted while being read (its image deleted, say).
    if (read !== Number(row.size)) throw new UploadMissingError(id);
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * Copies an upload to a node-local temporary file named `fileName` (in a directory of its own under the OS temp
 * dir, not the data dir), for readers that need a path; `remove()` deletes it.
 */
export async function copyUploadToTempFile(db: Db, id: string, fileName: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-upload-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, fileName);
  try {
    await pipeline(readUpload(db, id), createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await remove();
    throw err;
  }
  return { path, remove };
}

/**
 * Deletes abandoned uploads: receiving or unclaimed ones without progress for ABANDONED_UPLOAD_MS, archives whose
 * image no longer waits for an analysis of them (deleted, analyzed, or given a newer upload), feed files no
 * feed names as its source any more, and archived analyses no archive record names. Answers how many were deleted.
 */
export async function sweepAbandonedUploads(db: Db, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - ABANDONED_UPLOAD_MS).toISOString();
  const unclaimed = db('stored_uploads').whereIn('state', ['receiving', 'stored']).where('updated_at', '<', cutoff).select('id');
  const archives = db('stored_uploads')
    .where({ state: 'held', purpose: 'image-archive' })
    .where('updated_at', '<', cutoff)
    .whereNotExists(function () {
      this.select(db.raw('1'))
        .from('images')
        .whereRaw('images.account_name = stored_uploads.account_name and images.image_digest = stored_uploads.image_digest')
        .where('images.image_status', 'active')
        .whereIn('images.analysis_status', ['not_analyzed', 'analyzing'])
        .whereRaw("images.source like '%' || stored_uploads.id || '%'");
    })
    .select('id');
  const feeds = db('stored_uploads')
    .where({ state: 'held', purpose: 'feed' })
    .where('updated_at', '<', cutoff)
    .whereNotExists(function () {
      this.select(db.raw('1')).from('vuln_feeds').whereRaw("vuln_feeds.source like '%' || stored_uploads.id || '%'");
    })
    .select('id');
  // An archived analysis whose record is gone (its account deleted) is of no use any more.
  const analyses = db('stored_uploads')
    .where({ state: 'held', purpose: 'analysis-archive' })
    .where('updated_at', '<', cutoff)
    .whereNotExists(function () {
      this.select(db.raw('1')).from('analysis_archive').whereRaw('analysis_archive.upload_id = stored_uploads.id');
    })
    .select('id');
  const ids = [...(await unclaimed), ...(await archives), ...(await feeds), ...(await analyses)].map((r: { id: string }) => r.id);
  for (const id of ids) await deleteUpload(db, id);
  return ids.length;
}

const lastSweep = new WeakMap<Db, number>();

async function sweepOccasionally(db: Db): Promise<void> {
  const now = Date.now();
  if (now - (lastSweep.get(db) ?? 0) < SWEEP_EVERY_MS) return;
  lastSweep.set(db, now);
  await sweepAbandonedUploads(db, now);
}
