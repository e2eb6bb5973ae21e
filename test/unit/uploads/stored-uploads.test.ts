/** Uploads stored in chunks: what goes in comes out byte for byte, in bounded chunks, and a cut-short read fails. */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/index.js';
import {
  copyUploadToTempFile,
  deleteUpload,
  readUpload,
  receiveUpload,
  UPLOAD_CHUNK_BYTES,
  UploadMissingError,
  UploadTooLargeError,
} from '../../../src/uploads/stored-uploads.js';
import { createTestDb } from '../../support/db.js';

let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await createTestDb());
});
afterAll(async () => {
  await close?.();
});

/** A body arriving in pieces of odd sizes, as a socket delivers it. */
function body(bytes: Buffer): Readable {
  return Readable.from((function* () {
    for (let at = 0; at < bytes.length; at += 65_521) yield bytes.subarray(at, at + 65_521);
  })());
}

const options = { purpose: 'image-archive' as const, limitBytes: 64 * 1024 * 1024, emptyMessage: 'empty' };

describe('stored uploads', () => {
  it('stores a body in chunks of UPLOAD_CHUNK_BYTES and reads it back whole', async () => {
    const bytes = randomBytes(2 * UPLOAD_CHUNK_BYTES + 777);
    const upload = await receiveUpload(db, body(bytes), { ...options, hash: true });
    expect(upload).toMatchObject({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(upload.head).toEqual(bytes.subarray(0, 64));
    const chunks = await db('stored_upload_chunks').where({ upload_id: upload.id }).orderBy('seq').select('seq', 'bytes');
    expect(chunks.map((c: { seq: number; bytes: Buffer }) => [c.seq, c.bytes.length])).toEqual([
      [0, UPLOAD_CHUNK_BYTES],
      [1, UPLOAD_CHUNK_BYTES],
      [2, 777],
    ]);
    const back: Buffer[] = [];
    for await (const piece of readUpload(db, upload.id)) back.push(piece as Buffer);
    expect(Buffer.concat(back).equals(bytes)).toBe(true);
    const copy = await copyUploadToTempFile(db, upload.id, 'archive.tar');
    expect((await readFile(copy.path)).equals(bytes)).toBe(true);
    await copy.remove();
    await deleteUpload(db, upload.id);
    expect(Number((await db('stored_upload_chunks').count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('refuses a body over the limit and an empty one, keeping nothing', async () => {
    await expect(receiveUpload(db, body(randomBytes(UPLOAD_CHUNK_BYTES + 10)), { ...options, limitBytes: UPLOAD_CHUNK_BYTES })).rejects.toBeInstanceOf(UploadTooLargeError);
    await expect(receiveUpload(db, body(Buffer.alloc(0)), options)).rejects.toThrow('empty');
    expect(Number((await db('stored_uploads').count({ n: '*' }).first())?.n)).toBe(0);
    expect(Number((await db('stored_upload_chunks').count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('fails a read of an upload deleted before or while it is read', async () => {
    // Three chunks: the stream may have fetched the second before the deletion, never the third.
    const upload = await receiveUpload(db, body(randomBytes(2 * UPLOAD_CHUNK_BYTES + 5)), options);
    const reader = readUpload(db, upload.id)[Symbol.asyncIterator]();
    expect(((await reader.next()).value as Buffer).length).toBe(UPLOAD_CHUNK_BYTES);
    await deleteUpload(db, upload.id);
    await expect((async () => {
      while (!(await reader.next()).done);
    })()).rejects.toBeInstanceOf(UploadMissingError);
    await expect(copyUploadToTempFile(db, upload.id, 'gone')).rejects.toBeInstanceOf(UploadMissingError);
  });
});
