/**
 * A feed file's bytes, plain or gzip-compressed, as one stream (EPSS CSV, NVD JSON). Gzip is recognised by its magic
 * bytes, not the name: servers and mirrors rename files and some transparently decompress.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b] as const;

export function isGzip(head: Uint8Array): boolean {
  return head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

/** The file's bytes, gunzipped when they start with the gzip magic. */
export async function openFeedBytes(path: string): Promise<Readable> {
  const head = Buffer.alloc(GZIP_MAGIC.length);
  const handle = await open(path, 'r');
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  const file = createReadStream(path);
  if (!isGzip(head)) return file;
  // pipeline destroys both streams on an error in either, so the error reaches whoever iterates the gunzip side.
  return pipeline(file, createGunzip(), () => undefined);
}

/** Whether an error came from zlib: corrupt or truncated compressed data. */
export function isZlibError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  return code.startsWith('Z_') || code === 'ERR_ZLIB_INITIALIZATION_FAILED';
}
