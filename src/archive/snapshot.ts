/**
 * An archived analysis's content: every working-set row of one image (the image, its tags and status history, its
 * packages, documents and file list, its findings and annotations, its policy evaluations) as gzipped JSON lines,
 * written while it is read so no image is ever whole in memory. Restoring inserts the rows back; row ids are not
 * kept (the tables number their rows), binary columns travel as base64.
 */
import { createGzip, createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { Readable, type Readable as ReadableStream } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../db/index.js';

const FORMAT = 'vigil-analysis-archive';
const VERSION = 1;
/** Rows read, and inserted on restore, per query. */
const BATCH = 200;

interface ImageTable {
  name: string;
  /** Columns giving a stable order for paging through the image's rows. */
  order: string[];
  /** The table numbers its rows itself: the id is left out of the archive. */
  numbered?: boolean;
}

/** In insertion order: the image row first, as every other table refers to it. */
const IMAGE_TABLES: readonly ImageTable[] = [
  { name: 'images', order: ['image_digest'] },
  { name: 'image_tags', order: ['id'], numbered: true },
  { name: 'image_status_history', order: ['id'], numbered: true },
  { name: 'image_packages', order: ['id'], numbered: true },
  { name: 'image_documents', order: ['kind'] },
  { name: 'image_file_chunks', order: ['first_index'] },
  { name: 'image_vulnerabilities', order: ['id'], numbered: true },
  { name: 'vuln_annotations', order: ['uuid'] },
  { name: 'policy_evaluations', order: ['id'], numbered: true },
];
const TABLE_NAMES = new Set(IMAGE_TABLES.map((t) => t.name));

interface Header {
  format: string;
  version: number;
  account_name: string;
  image_digest: string;
}

const BYTES = '$base64';

function encodeRow(row: Record<string, unknown>, numbered: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (numbered && k === 'id') continue;
    out[k] = Buffer.isBuffer(v) || v instanceof Uint8Array ? { [BYTES]: Buffer.from(v).toString('base64') } : v;
  }
  return out;
}

function decodeRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row))
    out[k] = v && typeof v === 'object' && BYTES in v ? Buffer.from(String((v as Record<string, string>)[BYTES]), 'base64') : v;
  return out;
}

/** The image's rows as JSON lines: a header, then `{table, row}` per row. */
async function* snapshotLines(db: Db, accountName: string, digest: string): AsyncGenerator<string> {
  const header: Header = { format: FORMAT, version: VERSION, account_name: accountName, image_digest: digest };
  yield `${JSON.stringify(header)}\n`;
  for (const table of IMAGE_TABLES) {
    for (let offset = 0; ; offset += BATCH) {
      const rows: Record<string, unknown>[] = await db(table.name)
        .where({ account_name: accountName, image_digest: digest })
        .orderBy(table.order)
        .offset(offset)
        .limit(BATCH);
      for (const row of rows) yield `${JSON.stringify({ table: table.name, row: encodeRow(row, table.numbered ?? false) })}\n`;
      if (rows.length < BATCH) break;
    }
  }
}

/** The gzipped snapshot of an image, as a stream; a failed read fails the stream. */
export function snapshotStream(db: Db, accountName: string, digest: string): ReadableStream {
  const gzip = createGzip();
  pipeline(Readable.from(snapshotLines(db, accountName, digest)), gzip).catch((err) => gzip.destroy(err));
  return gzip;
}

export class SnapshotFormatError extends Error {
  constructor(detail: string) {
    super(`the archived analysis cannot be read: ${detail}`);
    this.name = 'SnapshotFormatError';
  }
}

/**
 * Inserts a snapshot's rows (within the caller's transaction), checking that it is the named image's; answers how
 * many rows each table got back.
 */
export async function restoreSnapshot(trx: Db, content: ReadableStream, accountName: string, digest: string): Promise<Record<string, number>> {
  // pipeline, not pipe: a failing source (content deleted while read) must fail the read, not the process.
  const gunzip = createGunzip();
  pipeline(content, gunzip).catch((err) => gunzip.destroy(err));
  const lines = createInterface({ input: gunzip, crlfDelay: Infinity });
  const counts: Record<string, number> = {};
  let header: Header | undefined;
  let pending: { table: string; rows: Record<string, unknown>[] } = { table: '', rows: [] };
  const flush = async () => {
    if (pending.rows.length) await trx(pending.table).insert(pending.rows);
    pending.rows = [];
  };
  for await (const line of lines) {
    if (!line) continue;
    const parsed = JSON.parse(line) as Header | { table: string; row: Record<string, unknown> };
    if (!header) {
      header = parsed as Header;
      if (header.format !== FORMAT || header.version !== VERSION) throw new SnapshotFormatError(`unknown format ${header.format} ${header.version}`);
      if (header.account_name !== accountName || header.image_digest !== digest) throw new SnapshotFormatError('it belongs to another image');
      continue;
    }
    const { table, row } = parsed as { table: string; row: Record<string, unknown> };
    if (!TABLE_NAMES.has(table)) throw new SnapshotFormatError(`unknown table ${table}`);
    if (table !== pending.table || pending.rows.length >= BATCH) {
      await flush();
      pending = { table, rows: [] };
    }
    // Whatever the archive says, the rows go back to the image they were archived from.
    pending.rows.push({ ...decodeRow(row), account_name: accountName, image_digest: digest });
    counts[table] = (counts[table] ?? 0) + 1;
  }
  await flush();
  if (!header || !counts.images) throw new SnapshotFormatError('it holds no image');
  return counts;
}
