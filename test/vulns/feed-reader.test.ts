import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { InvalidError } from '../../src/errors.js';
import { FeedReaderError, READER_WINDOW, readOsvPathInWorker, terminateFeedReaders } from '../../src/vulns/feed-reader.js';
import { serialiseRecord, type SerialisedRecord } from '../../src/vulns/feed-rows.js';
import { syncFeedRecords, syncOsvSource } from '../../src/vulns/feed-sync.js';
import { readOsvPath } from '../../src/vulns/osv/archive.js';
import { createTestDb } from '../support/db.js';

let db: Db;
let close: () => Promise<void>;
let dir: string;

function record(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    schema_version: '1.6.0',
    id,
    modified: '2026-03-01T00:00:00Z',
    published: '2026-01-01T00:00:00Z',
    aliases: [`CVE-2026-${id.replace(/\D/g, '').padStart(4, '0')}`],
    summary: `advisory ${id} for ${name}`,
    affected: [{ package: { ecosystem: 'Go', name }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }] }],
    ...extra,
  };
}

/** An all.zip of `count` Go records named `prefix-<n>`, plus any extra entries. */
function writeZip(name: string, count: number, prefix: string, extra: Record<string, string> = {}): string {
  const entries: Record<string, Uint8Array> = {};
  for (let i = 0; i < count; i++) entries[`${prefix}-${i}.json`] = strToU8(JSON.stringify(record(`${prefix}-${i}`, `example.com/${prefix}/m${i}`)));
  for (const [entry, text] of Object.entries(extra)) entries[entry] = strToU8(text);
  const path = join(dir, name);
  writeFileSync(path, zipSync(entries, { level: 1 }));
  return path;
}

async function collect(batches: AsyncIterable<SerialisedRecord[]>): Promise<SerialisedRecord[]> {
  const out: SerialisedRecord[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

const count = async (table: string, feed: string) => Number((await db(table).where({ feed }).count({ n: '*' }).first())?.n);

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  dir = mkdtempSync(join(tmpdir(), 'vigil-feed-reader-'));
});
afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('the feed reader thread', () => {
  it('yields what reading in process yields: the same serialised records, counts and skip reasons', async () => {
    const path = writeZip('mixed.zip', 2_500, 'GO-M', {
      'broken.json': '{"id": "X", "modified": 5}',
      'not-json.json': '{{{',
      'big.json': JSON.stringify(record('GO-BIG', 'example.com/big', { details: 'x'.repeat(5000) })),
      'list.json': JSON.stringify([record('GO-L1', 'example.com/l1'), { id: 'GO-L2' }]),
    });
    const options = { maxRecordBytes: 4096, maxErrors: 3 };
    const inProcess = readOsvPath(path, options);
    const expected: SerialisedRecord[] = [];
    for await (const r of inProcess.records) expected.push(serialiseRecord(r));
    const inWorker = readOsvPathInWorker(path, options);
    expect(await collect(inWorker.batches)).toEqual(expected);
    expect(inWorker.stats).toEqual(inProcess.stats);
    expect(inWorker.stats).toMatchObject({ read: 2_501, skipped: 4 });
    expect(inWorker.stats.errors).toHaveLength(3);
  });

  it('keeps at most a few batches ahead of a consumer slower than it', async () => {
    const path = writeZip('many.zip', 30_000, 'GO-S');
    const source = readOsvPathInWorker(path);
    let records = 0;
    for await (const batch of source.batches) {
      records += batch.length;
      // Stands in for slow staging (blocking, as better-sqlite3 is): the thread runs ahead as far as its credits let it.
      const until = performance.now() + 10;
      while (performance.now() < until);
    }
    expect(records).toBe(30_000);
    expect(source.largestBacklog).toBeGreaterThan(1);
    expect(source.largestBacklog).toBeLessThanOrEqual(READER_WINDOW);
  });

  it('fails a damaged archive with the error reading it in process gives, and a missing path with its name', async () => {
    const whole = zipSync({ 'GO-1.json': strToU8(JSON.stringify(record('GO-1', 'example.com/one'))), 'GO-2.json': strToU8('x'.repeat(4000)) }, { level: 0 });
    const truncated = join(dir, 'truncated.zip');
    writeFileSync(truncated, whole.subarray(0, whole.length - 30));
    const inProcess = await collect((async function* () {
      for await (const r of readOsvPath(truncated).records) yield [serialiseRecord(r)];
    })()).catch((err: unknown) => err);
    expect(inProcess).toBeInstanceOf(InvalidError);
    const inWorker = await collect(readOsvPathInWorker(truncated).batches).catch((err: unknown) => err);
    expect(inWorker).toBeInstanceOf(InvalidError);
    expect(inWorker).toMatchObject({ message: (inProcess as InvalidError).message, detail: (inProcess as InvalidError).detail });
    const missing = await collect(readOsvPathInWorker(join(dir, 'nope', 'all.zip')).batches).catch((err: unknown) => err);
    expect(missing).toMatchObject({ code: 'ENOENT', message: expect.stringContaining(join(dir, 'nope', 'all.zip')) });
  });
});

describe('an OSV sync through the reader thread', () => {
  it('fails with FeedReaderError when the thread dies mid-read, keeping the previous data, and the next sync starts a new one', async () => {
    const first = await syncOsvSource(db, 'crash', writeZip('crash-1.zip', 50, 'GO-C'));
    expect(first.stats).toMatchObject({ read: 50, inserted: 50 });
    const big = writeZip('crash-2.zip', 20_000, 'GO-D');
    const onProgress = () => void terminateFeedReaders();
    await expect(syncOsvSource(db, 'crash', big, { onProgress, progressEvery: 1_000 })).rejects.toThrow(FeedReaderError);
    expect(await count('vulnerabilities', 'crash')).toBe(50);
    expect(await count('vulnerability_affected', 'crash')).toBe(50);
    expect(await db('vuln_feeds').where({ name: 'crash' }).first()).toMatchObject({ last_sync_status: 'failed', last_sync_error: expect.stringContaining('feed reader thread stopped') });
    expect(await count('vuln_sync_records', 'crash')).toBe(0);
    const again = await syncOsvSource(db, 'crash', big);
    expect(again.stats).toMatchObject({ read: 20_000, inserted: 20_000, removed: 50 });
  });

  it('lets timers and queries run while it writes records that are all ready at once (what the reader thread posted ahead)', async () => {
    let read = 0;
    let answeredAt: number | undefined;
    const onProgress = (stats: { read: number }) => {
      if (read === 0) setTimeout(() => void db.raw('select 1').then(() => (answeredAt ??= read)), 1);
      read = stats.read;
    };
    // Every record is ready without a turn of the event loop, as a reader thread's backlog is.
    const source = readOsvPath(writeZip('turns.zip', 1, 'GO-T0'));
    const records = (async function* () {
      for await (const r of source.records) for (let i = 0; i < 20_000; i++) yield { ...r, id: `GO-T-${i}` };
    })();
    await syncFeedRecords(db, 'turns', { records, stats: source.stats }, { onProgress, progressEvery: 1_000 });
    // Answered while the first records were written, not once the last ones were.
    expect(answeredAt).toBeLessThanOrEqual(5_000);
  });

  it('stops reading and fails when aborted, keeping the previous data', async () => {
    await syncOsvSource(db, 'aborted', writeZip('abort-1.zip', 30, 'GO-A'));
    const controller = new AbortController();
    const onProgress = () => controller.abort(new Error('service stopping'));
    const sync = syncOsvSource(db, 'aborted', writeZip('abort-2.zip', 20_000, 'GO-B'), { onProgress, progressEvery: 1_000, signal: controller.signal });
    await expect(sync).rejects.toThrow('service stopping');
    expect(await count('vulnerabilities', 'aborted')).toBe(30);
    expect(await db('vuln_feeds').where({ name: 'aborted' }).first()).toMatchObject({ last_sync_status: 'failed', last_sync_error: 'service stopping' });
  });
});
