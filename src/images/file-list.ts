/**
 * An image's file list (its final filesystem view), stored in gzipped JSON chunks of FILES_PER_CHUNK files in path
 * order, so that a page or a streamed answer reads only the chunks it needs: an image may hold millions of files,
 * and one document of them took seconds of the event loop to decompress and parse (about 150 ms per 100,000).
 */
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Db } from '../db/index.js';
import type { FileRecord } from './model.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Files per stored chunk: about 200 kB of JSON, a millisecond or two to parse. */
export const FILES_PER_CHUNK = 1000;

const TABLE = 'image_file_chunks';

interface ChunkRow {
  first_index: number;
  file_count: number;
  content: Buffer;
}

/** (De)compression runs on the thread pool; only the parse of one chunk runs on the event loop. */
async function decode(content: Buffer): Promise<FileRecord[]> {
  return JSON.parse((await gunzipAsync(content)).toString('utf8')) as FileRecord[];
}

/** Replaces the image's file list (files already in path order). */
export async function writeFileList(db: Db, accountName: string, digest: string, files: readonly FileRecord[]): Promise<void> {
  const scope = { account_name: accountName, image_digest: digest };
  await db(TABLE).where(scope).delete();
  for (let first = 0; first < files.length; first += FILES_PER_CHUNK) {
    const chunk = files.slice(first, first + FILES_PER_CHUNK);
    await db(TABLE).insert({ ...scope, first_index: first, file_count: chunk.length, content: await gzipAsync(JSON.stringify(chunk)) });
  }
}

export async function countFiles(db: Db, accountName: string, digest: string): Promise<number> {
  const row = await db(TABLE).where({ account_name: accountName, image_digest: digest }).sum({ total: 'file_count' }).first();
  return Number(row?.total ?? 0);
}

/** The files from `offset` (0-based, in path order), at most `limit` of them: only the chunks they are in are read. */
export async function readFileRange(db: Db, accountName: string, digest: string, offset: number, limit: number): Promise<FileRecord[]> {
  const rows: ChunkRow[] = await db(TABLE)
    .where({ account_name: accountName, image_digest: digest })
    .andWhere('first_index', '<', offset + limit)
    .andWhereRaw('first_index + file_count > ?', [offset])
    .orderBy('first_index')
    .select('first_index', 'file_count', 'content');
  const files: FileRecord[] = [];
  for (const row of rows) {
    const chunk = await decode(row.content);
    const from = Math.max(0, offset - row.first_index);
    const to = Math.min(chunk.length, offset + limit - row.first_index);
    for (let i = from; i < to; i++) files.push(chunk[i]!);
  }
  return files;
}

/** The file list chunk by chunk, one query each, so a reader holds one chunk at a time. */
export async function* fileListChunks(db: Db, accountName: string, digest: string): AsyncGenerator<FileRecord[]> {
  for (let next = 0; ; ) {
    const row: ChunkRow | undefined = await db(TABLE)
      .where({ account_name: accountName, image_digest: digest })
      .andWhere('first_index', '>=', next)
      .orderBy('first_index')
      .first('first_index', 'file_count', 'content');
    if (!row) return;
    yield await decode(row.content);
    next = row.first_index + row.file_count;
  }
}

/** The whole list, for readers that need every file at once (the files gate, the native SBOM). */
export async function readFileList(db: Db, accountName: string, digest: string): Promise<FileRecord[]> {
  const files: FileRecord[] = [];
  for await (const chunk of fileListChunks(db, accountName, digest)) for (const file of chunk) files.push(file);
  return files;
}
