/**
 * Feed imports at the scale of real exports, all or nothing (issue 14, item 5):
 * - a single all.zip of 500 000 records (150 000 already failed with "Maximum call stack size exceeded" after
 *   going live) imports: its records are queryable, the completion event is recorded and the re-match ran
 *   (`npm run bench:feeds` measures the same import);
 * - a failure at any step of the switch (staged data into the live tables) leaves the previous data serving and
 *   nothing of the new import visible, with the failure recorded; a re-match that fails after a switch is still
 *   owed, and done by the next sync;
 * - a source whose records are all invalid fails, for a new feed too, as does one whose only record is over the
 *   record size limit;
 * - a large single-entry archive is streamed: the reader never holds more than a bounded buffer of it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKind, type Db } from '../../src/db/index.js';
import { readOsvPath } from '../../src/vulns/osv/archive.js';
import { runFeedSync, type FeedSyncProgress } from '../../src/vulns/feeds.js';
import { waitForAnalysis } from '../support/analysis.js';
import { raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { minimalOsvRecord, recordEntries, writeSingleEntryZip, writeZip } from '../support/osv-zip.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The size of a real ecosystem export (npm, PyPI, Debian: hundreds of thousands of records); the old import
 * failed from about 125 000 on (a spread of its changed keys into push()).
 */
const LARGE_FEED_RECORDS = 500_000;
/** The package the test image holds; the feeds' advisories for it are what the re-match has to find. */
const VICTIM = 'vigil-victim';

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'vigil-feed-import-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function uploadVictimImage(server: TestServer, tag: string): Promise<string> {
  const image = await buildImage({
    layers: [[{ path: `app/node_modules/${VICTIM}/package.json`, content: JSON.stringify({ name: VICTIM, version: '1.0.0', license: 'MIT' }) }]],
  });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [tag] }) });
  expect(res.status, res.text).toBe(200);
  const digest = res.json.image_digest as string;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
  return digest;
}

async function syncNow(server: TestServer) {
  const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true&timeout_seconds=900');
  expect(res.status, res.text).toBe(200);
  expect(res.json.status).toBe('done');
  return res.json as { feeds: { feed: string; status: string; stats?: Record<string, number>; error?: string }[]; rematch: Record<string, number> };
}

async function vulnIds(server: TestServer, digest: string): Promise<string[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all`);
  expect(res.status).toBe(200);
  return res.json.vulnerabilities.map((v: { vuln: string; fix: string }) => `${v.vuln} fix=${v.fix}`).sort();
}

async function queryRecord(server: TestServer, id: string): Promise<{ id: string; description?: string } | undefined> {
  const res = await raw(server.url, 'GET', `/v2/query/vulnerabilities?id=${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return res.json.vulnerabilities[0];
}

async function eventCount(server: TestServer, type: string, resourceId: string): Promise<number> {
  const res = await raw(server.url, 'GET', `/v2/events?event_type=${type}&limit=1000`);
  expect(res.status).toBe(200);
  return res.json.results.filter((e: { event: { resource: { id: string } } }) => e.event.resource.id === resourceId).length;
}

async function feedState(server: TestServer, name: string) {
  const res = await raw(server.url, 'GET', '/v2/system/feeds');
  expect(res.status).toBe(200);
  // A source is a group of its dataset in the listing, with its namespaces.
  return res.json.flatMap((f: { groups: unknown[] }) => f.groups).find((g: { name: string }) => g.name === name) as {
    last_sync_status: string;
    last_sync_error: string | null;
    namespaces: { name: string; record_count: number }[];
  };
}

const rows = async (db: Db, table: string) => Number((await db(table).count({ n: '*' }).first())?.n);

describe('a single all.zip of 500 000 records', () => {
  let server: TestServer;
  let zip: string;
  let digest: string;

  beforeAll(async () => {
    zip = join(work, 'large', 'all.zip');
    mkdirSync(join(work, 'large'));
    function* records() {
      for (let i = 0; i < LARGE_FEED_RECORDS; i++) yield minimalOsvRecord(`GEN-${i}`, `generated-package-${i}`);
      yield minimalOsvRecord('VICTIM-1', VICTIM, '2.0.0');
    }
    await writeZip(zip, recordEntries(records()));
    server = await startTestServer({
      VIGIL_FEED_SOURCES: `large=${zip}`,
      VIGIL_FEED_SYNC_ON_START: 'false',
      // The report read model catching up on 500 000 new records takes about as long again as the import; that
      // work is not what this test is about, and would only double its time.
      VIGIL_REPORTS_REFRESH_SECONDS: '3600',
    });
    digest = await uploadVictimImage(server, 'registry.example.com/feeds/large:1');
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it('imports whole: records queryable, the completion event recorded, the re-match run', async () => {
    expect(await vulnIds(server, digest)).toEqual([]);
    const outcome = await syncNow(server);
    expect(outcome.feeds).toEqual([expect.objectContaining({ feed: 'large', status: 'ok', stats: expect.objectContaining({ read: LARGE_FEED_RECORDS + 1, inserted: LARGE_FEED_RECORDS + 1 }) })]);
    expect(outcome.rematch).toMatchObject({ images: 1, changed_images: 1, added: 1 });
    expect(await queryRecord(server, `GEN-${LARGE_FEED_RECORDS - 1}`)).toMatchObject({ id: `GEN-${LARGE_FEED_RECORDS - 1}` });
    expect(await eventCount(server, 'system.feeds.sync.feed_completed', 'large')).toBe(1);
    expect(await eventCount(server, 'system.feeds.sync.feed_failed', 'large')).toBe(0);
    expect(await feedState(server, 'large')).toMatchObject({ last_sync_status: 'ok', namespaces: [{ name: 'npm', record_count: LARGE_FEED_RECORDS + 1 }] });
    expect(await vulnIds(server, digest)).toEqual(['VICTIM-1 fix=2.0.0']);
    // The re-match took every queued key off the queue.
    expect(await rows(server.running.services.db, 'vuln_rematch_keys')).toBe(0);
  }, 600_000);
});

/** Makes the database refuse one kind of write (a trigger), as a crash or a constraint would mid-switch. */
async function refuseWrites(db: Db, table: string, operation: 'INSERT' | 'UPDATE' | 'DELETE', when?: string): Promise<() => Promise<void>> {
  if (databaseKind(db) === 'sqlite') {
    await db.raw(`CREATE TRIGGER vigil_test_refuse BEFORE ${operation} ON ${table} ${when ? `WHEN ${when}` : ''} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    return async () => void (await db.raw('DROP TRIGGER vigil_test_refuse'));
  }
  await db.raw(`CREATE OR REPLACE FUNCTION vigil_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`);
  await db.raw(`CREATE TRIGGER vigil_test_refuse BEFORE ${operation} ON ${table} FOR EACH ROW ${when ? `WHEN (${when})` : ''} EXECUTE FUNCTION vigil_test_refuse()`);
  return async () => void (await db.raw(`DROP TRIGGER vigil_test_refuse ON ${table}`));
}

function writeRecords(dir: string, records: Record<string, unknown>[]): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const r of records) writeFileSync(join(dir, `${String(r.id)}.json`), JSON.stringify(r));
}

describe('the switch to a new import', () => {
  let server: TestServer;
  let db: Db;
  let dir: string;
  let digest: string;
  const before = [minimalOsvRecord('ADV-1', VICTIM, '2.0.0'), minimalOsvRecord('ADV-2', 'other-package', '1.0.0')];
  // ADV-1 changes (a later fix), ADV-2 goes away, ADV-3 is new and hits the image too.
  const after = [minimalOsvRecord('ADV-1', VICTIM, '3.0.0'), minimalOsvRecord('ADV-3', VICTIM, '1.5.0')];
  let served: { vulns: string[]; groups: unknown };

  beforeAll(async () => {
    dir = join(work, 'switch');
    writeRecords(dir, before);
    server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${dir}`, VIGIL_FEED_SYNC_ON_START: 'false' });
    db = server.running.services.db;
    digest = await uploadVictimImage(server, 'registry.example.com/feeds/switch:1');
    expect((await syncNow(server)).rematch).toMatchObject({ changed_images: 1 });
    served = { vulns: await vulnIds(server, digest), groups: (await feedState(server, 'osv')).namespaces };
    expect(served.vulns).toEqual(['ADV-1 fix=2.0.0']);
    writeRecords(dir, after);
  });
  afterAll(async () => {
    await server?.close();
  });

  const steps: [string, string, 'INSERT' | 'UPDATE' | 'DELETE', string?][] = [
    ["removing the replaced records' index entries", 'vulnerability_affected', 'DELETE'],
    ['moving the staged records in', 'vulnerabilities', 'INSERT'],
    ['moving the staged index entries in', 'vulnerability_affected', 'INSERT'],
    ['counting the records per group', 'vuln_feed_groups', 'INSERT'],
    ['queueing the changed packages for re-matching', 'vuln_rematch_keys', 'INSERT'],
    ["recording the feed's outcome", 'vuln_feeds', 'UPDATE', "NEW.last_sync_status = 'ok'"],
    ['recording the completion event', 'events', 'INSERT', "NEW.type = 'system.feeds.sync.feed_completed'"],
  ];

  it.each(steps)('a failure %s leaves the previous data serving and nothing of the new import visible', async (_step, table, operation, when) => {
    const failedBefore = await eventCount(server, 'system.feeds.sync.feed_failed', 'osv');
    const allow = await refuseWrites(db, table, operation, when);
    let outcome;
    try {
      outcome = await syncNow(server);
    } finally {
      await allow();
    }
    expect(outcome.feeds).toEqual([expect.objectContaining({ feed: 'osv', status: 'failed', error: expect.stringContaining('injected failure') })]);
    expect(outcome.rematch).toMatchObject({ images: 0, changed_images: 0 });
    // The previous data, whole: records, index, group counts, findings.
    expect(await queryRecord(server, 'ADV-2')).toMatchObject({ id: 'ADV-2' });
    expect(await queryRecord(server, 'ADV-3')).toBeUndefined();
    expect(await vulnIds(server, digest)).toEqual(served.vulns);
    const state = await feedState(server, 'osv');
    expect(state.namespaces).toEqual(served.groups);
    expect(state).toMatchObject({ last_sync_status: 'failed', last_sync_error: expect.stringContaining('injected failure') });
    // The failure recorded, no completion, nothing staged or queued left behind.
    expect(await eventCount(server, 'system.feeds.sync.feed_failed', 'osv')).toBe(failedBefore + 1);
    expect(await eventCount(server, 'system.feeds.sync.feed_completed', 'osv')).toBe(1);
    for (const t of ['vuln_sync_records', 'vuln_sync_affected', 'vuln_rematch_keys']) expect(await rows(db, t), t).toBe(0);
  });

  it('once nothing fails, the same import goes live whole, with its completion event and re-match', async () => {
    const outcome = await syncNow(server);
    expect(outcome.feeds).toEqual([expect.objectContaining({ feed: 'osv', status: 'ok', stats: expect.objectContaining({ inserted: 1, updated: 1, removed: 1 }) })]);
    expect(outcome.rematch).toMatchObject({ changed_images: 1, added: 1, updated: 1 });
    expect(await queryRecord(server, 'ADV-2')).toBeUndefined();
    expect(await queryRecord(server, 'ADV-3')).toMatchObject({ id: 'ADV-3' });
    expect(await vulnIds(server, digest)).toEqual(['ADV-1 fix=3.0.0', 'ADV-3 fix=1.5.0']);
    expect(await eventCount(server, 'system.feeds.sync.feed_completed', 'osv')).toBe(2);
    expect(await feedState(server, 'osv')).toMatchObject({ last_sync_status: 'ok', last_sync_error: null });
  });

  it('a re-match that fails after the switch is still owed, and the next sync does it', async () => {
    writeRecords(dir, [...after, minimalOsvRecord('ADV-4', VICTIM, '4.0.0')]);
    const progress: FeedSyncProgress = { running: false };
    const allow = await refuseWrites(db, 'image_vulnerabilities', 'INSERT');
    try {
      await expect(runFeedSync(server.running.services, { trigger: 'api' }, new AbortController().signal, progress, { imagesChanged: async () => {} })).rejects.toThrow(/injected failure/);
    } finally {
      await allow();
    }
    // The switch stands: the record is live and its completion recorded; the image is not re-matched yet.
    expect(await queryRecord(server, 'ADV-4')).toMatchObject({ id: 'ADV-4' });
    expect(await eventCount(server, 'system.feeds.sync.feed_completed', 'osv')).toBe(3);
    expect(await vulnIds(server, digest)).toEqual(['ADV-1 fix=3.0.0', 'ADV-3 fix=1.5.0']);
    // The next sync changes no record, and still re-matches what the failed one owed.
    const outcome = await syncNow(server);
    expect(outcome.feeds).toEqual([expect.objectContaining({ feed: 'osv', status: 'ok', stats: expect.objectContaining({ unchanged: 3, inserted: 0 }) })]);
    expect(outcome.rematch).toMatchObject({ changed_images: 1, added: 1 });
    expect(await vulnIds(server, digest)).toEqual(['ADV-1 fix=3.0.0', 'ADV-3 fix=1.5.0', 'ADV-4 fix=4.0.0']);
  });
});

describe('sources with no usable record', () => {
  let server: TestServer;
  const RECORD_LIMIT = 1 << 20;
  /** One record whose JSON is 20 times the limit, as the single entry of its archive. */
  const HUGE_RECORD_BYTES = 20 * RECORD_LIMIT;

  beforeAll(async () => {
    const invalid = join(work, 'invalid.zip');
    await writeZip(invalid, [
      ['A.json', Buffer.from('{"id": "A"}')],
      ['B.json', Buffer.from('not json')],
      ['C.json', Buffer.from(JSON.stringify({ ...minimalOsvRecord('C', 'x'), modified: 'yesterday' }))],
    ]);
    const hostile = join(work, 'hostile.zip');
    await writeZip(hostile, [['huge.json', Buffer.from(JSON.stringify({ ...minimalOsvRecord('HUGE-1', VICTIM), details: 'x'.repeat(HUGE_RECORD_BYTES) }))]]);
    server = await startTestServer({ VIGIL_FEED_SOURCES: `invalid=${invalid},hostile=${hostile}`, VIGIL_FEED_SYNC_ON_START: 'false', VIGIL_FEED_MAX_RECORD_BYTES: String(RECORD_LIMIT) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fail, for new feeds too: every record invalid, or the only one over the record size limit', async () => {
    const outcome = await syncNow(server);
    const byFeed = Object.fromEntries(outcome.feeds.map((f) => [f.feed, f]));
    expect(byFeed.invalid).toMatchObject({ status: 'failed', error: expect.stringMatching(/no valid records \(3 skipped/) });
    expect(byFeed.hostile).toMatchObject({ status: 'failed', error: expect.stringMatching(/no valid records \(1 skipped, first: huge\.json: record of \d+ bytes is larger than the limit of 1048576\)/) });
    for (const feed of ['invalid', 'hostile']) {
      expect(await feedState(server, feed)).toMatchObject({ last_sync_status: 'failed', namespaces: [] });
      expect(await eventCount(server, 'system.feeds.sync.feed_failed', feed)).toBe(1);
      expect(await eventCount(server, 'system.feeds.sync.feed_completed', feed)).toBe(0);
    }
    expect(await queryRecord(server, 'HUGE-1')).toBeUndefined();
  });
});

describe('a large single-entry archive', () => {
  /** What the reader may hold of an archive at once: its 8 MiB read window (see src/formats/zip.ts). */
  const READER_BOUND = 8 << 20;
  /** How far the reader reads a streamed entry at a time, and the record limit of the hostile case. */
  const STREAM_READ = 1 << 20;

  it('is split into records as it streams, never held whole', async () => {
    const path = join(work, 'single-entry.zip');
    const count = 80_000;
    function* document() {
      yield Buffer.from('[\n');
      for (let i = 0; i < count; i++) yield Buffer.from(`${i ? ',\n' : ''}${JSON.stringify(minimalOsvRecord(`ONE-${i}`, `entry-package-${i}`), null, 1)}`);
      yield Buffer.from('\n]\n');
    }
    const { entryBytes } = await writeSingleEntryZip(path, 'all.json', document());
    expect(entryBytes).toBeGreaterThan(2 * READER_BOUND);
    const result = readOsvPath(path);
    let read = 0;
    for await (const record of result.records) if (record.id === `ONE-${read}`) read++;
    expect(read).toBe(count);
    expect(result.stats).toMatchObject({ read: count, skipped: 0 });
    expect(result.stats.largestBuffer).toBeLessThanOrEqual(READER_BOUND);
  });

  it('whose entry inflates past the size its directory states is refused at that size (a zip bomb)', async () => {
    /** The archive at `path` with its (only) central directory entry stating `size` as the uncompressed size. */
    const understated = (path: string, size: number) => {
      const zip = readFileSync(path);
      const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
      zip.writeUInt32LE(size, central + 24);
      writeFileSync(path, zip);
    };
    // An entry read whole (stated 1 000 bytes, inflates to 200 000) and a streamed one (stated 2 MiB, inflates to 40).
    const small = join(work, 'bomb-small.zip');
    await writeZip(small, [['bomb.json', Buffer.from(JSON.stringify({ ...minimalOsvRecord('BOMB-1', VICTIM), details: 'z'.repeat(200_000) }))]]);
    understated(small, 1000);
    const whole = readOsvPath(small);
    for await (const _ of whole.records) expect.unreachable();
    expect(whole.stats).toMatchObject({ read: 0, skipped: 1, errors: [{ source: 'bomb.json', message: expect.stringMatching(/^cannot decompress/) }] });
    const large = join(work, 'bomb-large.zip');
    await writeZip(large, [['bomb.json', Buffer.from(JSON.stringify({ ...minimalOsvRecord('BOMB-2', VICTIM), details: 'z'.repeat(40 * STREAM_READ) }))]]);
    understated(large, 2 * STREAM_READ);
    const streamed = readOsvPath(large);
    await expect((async () => { for await (const _ of streamed.records) expect.unreachable(); })()).rejects.toThrow(/bomb\.json inflates to more than its stated 2097152 bytes/);
    expect(streamed.stats.largestBuffer).toBeLessThanOrEqual(2 * STREAM_READ);
  });

  it('whose one record is over the limit is refused, having held no more than a bounded piece of it', async () => {
    const path = join(work, 'single-huge-record.zip');
    const size = 40 * STREAM_READ;
    await writeZip(path, [['huge.json', Buffer.from(JSON.stringify({ ...minimalOsvRecord('HUGE-2', VICTIM), details: 'y'.repeat(size) }))]]);
    const result = readOsvPath(path, { maxRecordBytes: STREAM_READ });
    const got = [];
    for await (const record of result.records) got.push(record);
    expect(got).toEqual([]);
    expect(result.stats).toMatchObject({ read: 0, skipped: 1, errors: [{ source: 'huge.json', message: expect.stringMatching(/^record of \d+ bytes is larger than the limit of 1048576$/) }] });
    expect(result.stats.largestBuffer).toBeLessThanOrEqual(STREAM_READ);
  });
});
