/** Streams an upload to a file under the data directory, refusing (and removing) anything over the limit. */
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, InvalidError } from '../errors.js';

export class UploadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'payload_too_large', `the upload exceeds the limit of ${limit} bytes (VIGIL_MAX_UPLOAD_BYTES)`, { limit });
  }
}

export async function saveUpload(body: Readable, dataDir: string, limitBytes: number): Promise<{ path: string; size: number }> {
  const dir = join(dataDir, 'uploads');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.tar`);
  let size = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limitBytes) done(new UploadTooLargeError(limitBytes));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, limiter, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await rm(path, { force: true });
    if (err instanceof AppError) throw err;
    throw new InvalidError(`the upload could not be read: ${(err as Error).message}`);
  }
  if (size === 0) {
    await rm(path, { force: true });
    throw new InvalidError('the upload is empty: send the archive as the request body');
  }
  return { path, size };
}
