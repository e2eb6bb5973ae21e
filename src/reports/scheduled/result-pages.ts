/**
 * The stored result of an execution: its result elements in pages of RESULT_PAGE_SIZE, each a gzipped JSON
 * array in scheduled_query_result_pages. Pages are written as they fill, so a large result never sits in memory
 * whole; the REST result route serves them one page at a time.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Db } from '../../db/index.js';
import { appendAll } from '../../util/arrays.js';

export const RESULT_PAGE_SIZE = 1000;

/** Buffers result elements and writes each full page; `finish()` writes the last partial page. */
export class ResultPageWriter {
  private buffer: unknown[] = [];
  private pages = 0;
  private count = 0;

  constructor(
    private readonly db: Db,
    private readonly executionUuid: string,
    private readonly pageSize = RESULT_PAGE_SIZE,
  ) {}

  async add(elements: readonly unknown[]): Promise<void> {
    appendAll(this.buffer, elements);
    this.count += elements.length;
    while (this.buffer.length >= this.pageSize) await this.write(this.buffer.splice(0, this.pageSize));
  }

  /** Writes what is left; answers how many elements and pages were stored. */
  async finish(): Promise<{ resultCount: number; pageCount: number }> {
    if (this.buffer.length) await this.write(this.buffer.splice(0));
    return { resultCount: this.count, pageCount: this.pages };
  }

  private async write(elements: unknown[]): Promise<void> {
    this.pages += 1;
    await this.db('scheduled_query_result_pages').insert({ execution_uuid: this.executionUuid, page: this.pages, content: gzipSync(JSON.stringify(elements)) });
  }
}

/** The elements of page `page` (from 1); empty beyond the last page. */
export async function readResultPage(db: Db, executionUuid: string, page: number): Promise<unknown[]> {
  const row = (await db('scheduled_query_result_pages').where({ execution_uuid: executionUuid, page }).first('content')) as { content: Buffer } | undefined;
  return row ? (JSON.parse(gunzipSync(row.content).toString('utf8')) as unknown[]) : [];
}

export async function deleteResultPages(db: Db, executionUuid: string): Promise<void> {
  await db('scheduled_query_result_pages').where({ execution_uuid: executionUuid }).delete();
}
