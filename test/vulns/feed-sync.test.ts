import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { databaseKind } from '../../src/db/index.js';
import { serialiseRecord, type SerialisedRecord } from '../../src/vulns/feed-rows.js';
import { feedGroupCounts, refreshGroupCounts, syncFeedRecords, syncOsvSource, syncSerialisedSource } from '../../src/vulns/feed-sync.js';
import { parseOsvRecord } from '../../src/vulns/osv/record.js';
import type { OsvReadResult } from '../../src/vulns/osv/archive.js';
import { decodeRecord, encodeRecordWithDigest } from '../../src/vulns/records.js';
import { queuedKeysOf } from '../../src/vulns/rematch.js';
import { queryVulnerabilities } from '../../src/vulns/query.js';
import { knexVulnerabilityProvider, readRecords } from '../../src/vulns/vulnerability-repository.js';
import { createTestDb } from '../support/db.js';

let db: Db;
let close: () => Promise<void>;
let dir: string;

function record(id: string, modified: string, affected: { ecosystem: string; name: string; fixed: string }[]) {
  return {
    schema_version: '1.6.0',
    id,
    modified,
    published: '2026-01-01T00:00:00Z',
    aliases: [`CVE-2026-${id.replace(/\D/g, '').padStart(4, '0')}`],
    summary: `advisory ${id}`,
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: affected.map((a) => ({
      package: { ecosystem: a.ecosystem, name: a.name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: a.fixed }] }],
    })),
  };
}

function writeFeed(files: Record<string, unknown>): string {
  const feed = mkdtempSync(join(dir, 'feed-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(feed, name), typeof content === 'string' ? content : JSON.stringify(content));
  return feed;
}

/** The keys a sync queued for re-matching, as `ecosystem:release:name`. */
async function changedKeysOf(sync: Promise<{ syncId: string; changedKeys: number }>): Promise<string[]> {
  const { syncId, changedKeys } = await sync;
  const keys = (await queuedKeysOf(db, syncId)).map((k) => `${k.ecosystem}:${k.release}:${k.packageName}`).sort();
  expect(keys).toHaveLength(changedKeys);
  return keys;
}

const ids = async () => (await db('vulnerabilities').orderBy('id').select('id', 'modified')).map((r: { id: string; modified: string }) => `${r.id}@${r.modified}`);

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  dir = mkdtempSync(join(tmpdir(), 'vigil-feeds-'));
});
afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('OSV feed sync', () => {
  it('stores records and indexes affected packages by normalised name', async () => {
    const feed = writeFeed({
      'PYSEC-1.json': record('PYSEC-1', '2026-01-01T00:00:00Z', [{ ecosystem: 'PyPI', name: 'Foo_Bar', fixed: '1.2' }]),
      'DSA-2.json': record('DSA-2', '2026-01-01T00:00:00Z', [
        { ecosystem: 'Debian:12', name: 'openssl', fixed: '3.0.11-1~deb12u2' },
        { ecosystem: 'Debian:11', name: 'openssl', fixed: '1.1.1w-0+deb11u1' },
      ]),
      'broken.json': '{"id": "X", "modified": 5}',
      'not-json.json': '{{{',
    });
    const sync = syncOsvSource(db, 'osv', feed);
    const { stats } = await sync;
    expect(stats).toMatchObject({ read: 2, skipped: 2, inserted: 2, updated: 0, unchanged: 0, removed: 0 });
    expect(await changedKeysOf(sync)).toEqual(['debian:11:openssl', 'debian:12:openssl', 'pypi:null:foo-bar']);
    expect(stats.errors.map((e) => e.source).sort()).toEqual([join(feed, 'broken.json'), join(feed, 'not-json.json')]);
    const index = await db('vulnerability_affected').orderBy(['vuln_id', 'release']).select('vuln_id', 'ecosystem', 'release', 'package_name');
    expect(index).toEqual([
      { vuln_id: 'DSA-2', ecosystem: 'debian', release: '11', package_name: 'openssl' },
      { vuln_id: 'DSA-2', ecosystem: 'debian', release: '12', package_name: 'openssl' },
      { vuln_id: 'PYSEC-1', ecosystem: 'pypi', release: null, package_name: 'foo-bar' },
    ]);
    expect(await feedGroupCounts(db, 'osv')).toEqual([
      { group: 'debian:11', records: 1 },
      { group: 'debian:12', records: 1 },
      { group: 'pypi', records: 1 },
    ]);
    const state = await db('vuln_feeds').where({ name: 'osv' }).first();
    expect(state).toMatchObject({ last_sync_status: 'ok', last_sync_error: null });
  });

  it('is incremental: only records whose content changed are rewritten', async () => {
    const feed = writeFeed({
      'PYSEC-1.json': record('PYSEC-1', '2026-01-01T00:00:00Z', [{ ecosystem: 'PyPI', name: 'Foo_Bar', fixed: '1.2' }]),
      'DSA-2.json': record('DSA-2', '2026-02-01T00:00:00Z', [{ ecosystem: 'Debian:12', name: 'openssl', fixed: '3.0.13-1~deb12u1' }]),
      'GO-3.json': record('GO-3', '2026-02-01T00:00:00Z', [{ ecosystem: 'Go', name: 'golang.org/x/net', fixed: '0.23.0' }]),
    });
    const before = await db('vulnerabilities').where({ id: 'PYSEC-1' }).first('updated_at');
    const lastChange = Number((await db('report_changes').max({ n: 'id' }).first())?.n ?? 0);
    const sync = syncOsvSource(db, 'osv', feed);
    const { stats } = await sync;
    expect(stats).toMatchObject({ read: 3, inserted: 1, updated: 1, unchanged: 1, skipped: 0, removed: 0 });
    // The reporting read model hears of the written records (DSA-2 also as its old row goes), not the unchanged one.
    const logged = await db('report_changes').where('id', '>', lastChange).where({ kind: 'vulnerability' }).orderBy('ref').pluck('ref');
    expect(logged).toEqual(['osv DSA-2', 'osv DSA-2', 'osv GO-3']);
    // The old and new index entries of DSA-2, and the new GO-3 one; nothing of the unchanged PYSEC-1.
    expect(await changedKeysOf(sync)).toEqual(['debian:11:openssl', 'debian:12:openssl', 'go:null:golang.org/x/net']);
    expect(await ids()).toEqual(['DSA-2@2026-02-01T00:00:00Z', 'GO-3@2026-02-01T00:00:00Z', 'PYSEC-1@2026-01-01T00:00:00Z']);
    expect((await db('vulnerabilities').where({ id: 'PYSEC-1' }).first('updated_at')).updated_at).toBe(before.updated_at);
    // The updated record's index was replaced, not appended to.
    const dsa = await db('vulnerability_affected').where({ vuln_id: 'DSA-2' }).select('release');
    expect(dsa).toEqual([{ release: '12' }]);
  });

  it('compares content, not just modified: a placeholder timestamp still picks up changes, a bumped one alone does not', async () => {
    const base = record('PYSEC-1', '2026-01-01T00:00:00Z', [{ ecosystem: 'PyPI', name: 'Foo_Bar', fixed: '1.2' }]);
    const others = {
      'DSA-2.json': record('DSA-2', '2026-02-01T00:00:00Z', [{ ecosystem: 'Debian:12', name: 'openssl', fixed: '3.0.13-1~deb12u1' }]),
      'GO-3.json': record('GO-3', '2026-02-01T00:00:00Z', [{ ecosystem: 'Go', name: 'golang.org/x/net', fixed: '0.23.0' }]),
    };
    const touched = await syncOsvSource(db, 'osv', writeFeed({ ...others, 'PYSEC-1.json': { ...base, modified: '2026-05-05T00:00:00Z' } }));
    expect(touched.stats).toMatchObject({ unchanged: 3, updated: 0 });
    expect(touched.changedKeys).toBe(0);
    const changed = await syncOsvSource(db, 'osv', writeFeed({ ...others, 'PYSEC-1.json': { ...base, summary: 'now with details' } }));
    expect(changed.stats).toMatchObject({ unchanged: 2, updated: 1 });
  });

  it('reads a per-ecosystem all.zip export and drops records the source no longer has', async () => {
    const zip = zipSync({
      'GO-4.json': strToU8(JSON.stringify(record('GO-4', '2026-03-01T00:00:00Z', [{ ecosystem: 'Go', name: 'example.com/mod', fixed: '1.0.1' }]))),
    });
    const path = join(dir, 'all.zip');
    writeFileSync(path, zip);
    const sync = syncOsvSource(db, 'osv', path);
    expect((await sync).stats).toMatchObject({ read: 1, inserted: 1, removed: 3 });
    expect(await ids()).toEqual(['GO-4@2026-03-01T00:00:00Z']);
    expect(await changedKeysOf(sync)).toEqual(['debian:12:openssl', 'go:null:example.com/mod', 'go:null:golang.org/x/net', 'pypi:null:foo-bar']);
    expect(await feedGroupCounts(db, 'osv')).toEqual([{ group: 'go', records: 1 }]);
  });

  it('counts records per group as the index holds them: a record in two groups, a withdrawn one, an id listed twice', async () => {
    const go = (id: string) => record(id, '2026-03-01T00:00:00Z', [{ ecosystem: 'Go', name: `example.com/${id}`, fixed: '1.0.1' }]);
    const feed = writeFeed({
      'A-1.json': record('A-1', '2026-03-01T00:00:00Z', [
        { ecosystem: 'Debian:12', name: 'curl', fixed: '8.0' },
        { ecosystem: 'Debian:12', name: 'libcurl4', fixed: '8.0' },
        { ecosystem: 'Debian:11', name: 'curl', fixed: '7.9' },
      ]),
      'A-2.json': { ...go('A-2'), withdrawn: '2026-04-01T00:00:00Z' },
      'A-3.json': go('A-3'),
      // The same id twice: the copy read last is the one kept, and only it counts.
      'B-1.json': go('DUP-1'),
      'B-2.json': record('DUP-1', '2026-03-02T00:00:00Z', [{ ecosystem: 'PyPI', name: 'dup', fixed: '2.0' }]),
    });
    await syncOsvSource(db, 'tally', feed);
    const counted = await feedGroupCounts(db, 'tally');
    expect(counted).toEqual([
      { group: 'debian:11', records: 1 },
      { group: 'debian:12', records: 1 },
      { group: 'go', records: 1 },
      { group: 'pypi', records: 1 },
    ]);
    await refreshGroupCounts(db, 'tally');
    expect(await feedGroupCounts(db, 'tally')).toEqual(counted);
    // A later sync that drops a group and changes another.
    await syncOsvSource(db, 'tally', writeFeed({ 'A-3.json': go('A-3'), 'A-4.json': go('A-4') }));
    expect(await feedGroupCounts(db, 'tally')).toEqual([{ group: 'go', records: 2 }]);
  });

  it('writes what it has collected while the reader is behind, and waits to collect more while batches are waiting', async () => {
    const batchOf = (from: number) =>
      Array.from({ length: 600 }, (_, i) => serialiseRecord(parseOsvRecord(record(`EARLY-${from + i}`, '2026-03-01T00:00:00Z', [{ ecosystem: 'Go', name: `example.com/e${from + i}`, fixed: '1.0.1' }]))));
    // Rows written so far under the sync's generation, not yet published.
    const unpublished = async (feed: string) => Number((await db('vulnerabilities').where({ feed }).count({ n: '*' }).first())?.n);
    for (const [feed, waiting, writtenBeforeLast] of [
      ['behind', false, 1_200],
      ['ahead', true, 0],
    ] as const) {
      const seen: number[] = [];
      async function* batches(): AsyncGenerator<SerialisedRecord[]> {
        for (let b = 0; b < 3; b++) {
          seen.push(await unpublished(feed));
          yield batchOf(b * 600);
        }
      }
      const result = await syncSerialisedSource(db, feed, { batches: batches(), stats: { read: 1_800, skipped: 0, errors: [] }, batchWaiting: () => waiting });
      expect(result.stats).toMatchObject({ read: 1_800, inserted: 1_800 });
      // Two batches (1 200 records, over the 1 000 it waits for) were written before the third was asked for.
      expect(seen).toEqual([0, 0, writtenBeforeLast]);
      expect(await unpublished(feed)).toBe(1_800);
    }
  });

  it('leaves the previous data intact and serving when a sync fails part-way', async () => {
    const before = await ids();
    const entries: Record<string, Uint8Array> = {};
    for (let i = 0; i < 50; i++)
      entries[`GO-${100 + i}.json`] = strToU8(JSON.stringify(record(`GO-${100 + i}`, '2026-04-01T00:00:00Z', [{ ecosystem: 'Go', name: `example.com/m${i}`, fixed: '1.0.0' }])));
    entries['PYSEC-1.json'] = strToU8(JSON.stringify(record('PYSEC-1', '2026-09-09T00:00:00Z', [{ ecosystem: 'PyPI', name: 'foo-bar', fixed: '9.9' }])));
    const zip = zipSync(entries, { level: 0 });
    const truncated = join(dir, 'truncated.zip');
    writeFileSync(truncated, zip.subarray(0, Math.floor(zip.length * 0.7)));
    await expect(syncOsvSource(db, 'osv', truncated)).rejects.toThrow();
    expect(await ids()).toEqual(before);
    const state = await db('vuln_feeds').where({ name: 'osv' }).first();
    expect(state.last_sync_status).toBe('failed');
    expect(state.last_sync_error).toBeTruthy();
    // Nothing of the failed attempt lingers in staging.
    expect(Number((await db('vuln_sync_records').count({ n: '*' }).first())?.n)).toBe(0);
    expect(Number((await db('vuln_sync_affected').count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('fails clearly for a source that does not exist', async () => {
    await expect(syncOsvSource(db, 'osv', join(dir, 'nope', 'all.zip'))).rejects.toThrow(/nope/);
    mkdirSync(join(dir, 'empty'));
    expect((await syncOsvSource(db, 'other', join(dir, 'empty'))).stats).toMatchObject({ read: 0, inserted: 0 });
  });

  /** A source of `count` generated Go records that throws after them when `failAfter` is set. */
  function generated(count: number, prefix: string, failAfter = false): OsvReadResult {
    async function* records() {
      for (let i = 0; i < count; i++) yield parseOsvRecord(record(`${prefix}-${i}`, '2026-06-01T00:00:00Z', [{ ecosystem: 'Go', name: `example.com/${prefix}/m${i}`, fixed: '1.0.0' }]));
      if (failAfter) throw new Error('the source broke off');
    }
    return { records: records(), stats: { read: count, skipped: 0, errors: [] } };
  }
  /** SQLite stages in TEMP tables of the sync's own; none may outlive the sync. */
  const tempStagingTables = async () =>
    databaseKind(db) === 'sqlite' ? (await db.raw(`SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'vuln_stage_%'`)).length : 0;
  const staged = async () =>
    Number((await db('vuln_sync_records').count({ n: '*' }).first())?.n) + Number((await db('vuln_sync_affected').count({ n: '*' }).first())?.n) + (await tempStagingTables());

  it('imports a source larger than a staging batch and a switch copy step whole', async () => {
    // 20 500 records: several staging transactions, and more rows than one copy statement moves on SQLite.
    const { stats } = await syncFeedRecords(db, 'large', generated(20_500, 'GO-L'));
    expect(stats).toMatchObject({ read: 20_500, inserted: 20_500 });
    expect(Number((await db('vulnerabilities').where({ feed: 'large' }).count({ n: '*' }).first())?.n)).toBe(20_500);
    expect(Number((await db('vulnerability_affected').where({ feed: 'large' }).count({ n: '*' }).first())?.n)).toBe(20_500);
    const last = await db('vulnerability_affected').where({ feed: 'large', vuln_id: 'GO-L-20499' }).first();
    expect(last).toMatchObject({ grp: 'go', ecosystem: 'go', release: null, package_name: 'example.com/GO-L/m20499' });
    expect(JSON.parse(last.affected)).toMatchObject({ package: { name: 'example.com/GO-L/m20499' } });
    const stored = await db('vulnerabilities').where({ feed: 'large', id: 'GO-L-7' }).first();
    expect(decodeRecord(stored.record)).toEqual(parseOsvRecord(record('GO-L-7', '2026-06-01T00:00:00Z', [{ ecosystem: 'Go', name: 'example.com/GO-L/m7', fixed: '1.0.0' }])));
    expect(stored).toMatchObject({ feed: 'large', modified: '2026-06-01T00:00:00Z', summary: 'advisory GO-L-7', updated_at: expect.any(String) });
    expect(await staged()).toBe(0);
    // Synced again, every record is found unchanged: the digests it compares with are read a chunk at a time.
    const again = await syncFeedRecords(db, 'large', generated(20_500, 'GO-L'));
    expect(again.stats).toMatchObject({ read: 20_500, unchanged: 20_500, inserted: 0, updated: 0, removed: 0 });
    expect(again.changedKeys).toBe(0);
  });

  it('leaves the previous data whole when the source breaks off after batches were staged', async () => {
    const before = await db('vulnerabilities').where({ feed: 'large' }).count({ n: '*' }).first();
    await expect(syncFeedRecords(db, 'large', generated(6_000, 'GO-X', true))).rejects.toThrow('the source broke off');
    expect(await db('vulnerabilities').where({ feed: 'large' }).count({ n: '*' }).first()).toEqual(before);
    expect(await db('vulnerabilities').where({ feed: 'large' }).where('id', 'like', 'GO-X-%').first()).toBeUndefined();
    expect(await db('vulnerability_affected').where({ feed: 'large' }).where('vuln_id', 'like', 'GO-X-%').first()).toBeUndefined();
    expect((await db('vuln_feeds').where({ name: 'large' }).first()).last_sync_status).toBe('failed');
    expect(await staged()).toBe(0);
  });

  it('rolls the whole switch back when work inside it fails, the copied records included', async () => {
    const before = await db('vulnerability_affected').where({ feed: 'large' }).orderBy('row_id').pluck('vuln_id');
    const onSwitch = async () => {
      throw new Error('completion event refused');
    };
    await expect(syncFeedRecords(db, 'large', generated(3_000, 'GO-Y'), { onSwitch })).rejects.toThrow('completion event refused');
    expect(await db('vulnerability_affected').where({ feed: 'large' }).orderBy('row_id').pluck('vuln_id')).toEqual(before);
    expect(await db('vulnerabilities').where({ feed: 'large' }).where('id', 'like', 'GO-Y-%').first()).toBeUndefined();
    expect(await db('vuln_rematch_keys').whereLike('package_name', 'example.com/GO-Y/%').first()).toBeUndefined();
    expect(await staged()).toBe(0);
  });

  /** A source of `count` generated records that stops after `pauseAfter` of them until `resume` is called. */
  function paused(count: number, prefix: string, pauseAfter: number) {
    let resume!: () => void;
    let reachedPause!: () => void;
    const gate = new Promise<void>((r) => (resume = r));
    const atPause = new Promise<void>((r) => (reachedPause = r));
    const source = generated(count, prefix);
    async function* records() {
      let n = 0;
      for await (const r of source.records) {
        if (n++ === pauseAfter) {
          reachedPause();
          await gate;
        }
        yield r;
      }
    }
    return { source: { records: records(), stats: source.stats }, atPause, resume };
  }

  it('writes new records live but unpublished: nothing reads them before the switch, everything after', async () => {
    // More records before the pause than one write batch holds, so some are in the tables while the sync waits.
    const { source, atPause, resume } = paused(5_200, 'GO-P', 5_100);
    const changesBefore = Number((await db('report_changes').where({ kind: 'vulnerability' }).whereLike('ref', 'pending GO-P-%').count({ n: '*' }).first())?.n);
    const sync = syncFeedRecords(db, 'pending', source);
    await atPause;
    const written = Number((await db('vulnerabilities').where({ feed: 'pending' }).count({ n: '*' }).first())?.n);
    expect(written).toBeGreaterThan(0);
    const seen = async () => {
      const [byName] = await knexVulnerabilityProvider(db).findAffected([{ ecosystem: 'go', names: ['example.com/GO-P/m1'] }]);
      const records = await readRecords(db, [{ feed: 'pending', id: 'GO-P-1' }]);
      const page = queryVulnerabilities(db, { ids: ['GO-P-1'], page: 1, limit: 10 });
      const found: unknown[] = [];
      for await (const chunk of page.vulnerabilities) found.push(...chunk);
      return { entries: byName!.size, records: records.size, search: found.length };
    };
    expect(await seen()).toEqual({ entries: 0, records: 0, search: 0 });
    expect(await feedGroupCounts(db, 'pending')).toEqual([]);
    expect(Number((await db('report_changes').where({ kind: 'vulnerability' }).whereLike('ref', 'pending GO-P-%').count({ n: '*' }).first())?.n)).toBe(changesBefore);
    resume();
    expect((await sync).stats).toMatchObject({ read: 5_200, inserted: 5_200 });
    expect(await seen()).toEqual({ entries: 1, records: 1, search: 1 });
    expect(await feedGroupCounts(db, 'pending')).toEqual([{ group: 'go', records: 5_200 }]);
    // The read model hears of every published record once the switch made it visible.
    expect(Number((await db('report_changes').where({ kind: 'vulnerability' }).whereLike('ref', 'pending GO-P-%').count({ n: '*' }).first())?.n)).toBeGreaterThanOrEqual(
      changesBefore + 5_200,
    );
    expect(await db('vuln_feeds').where({ name: 'pending' }).first('pending_generation')).toEqual({ pending_generation: null });
  });

  it('clears what a sync that died before its switch left, then imports the same ids', async () => {
    const feed = await db('vuln_feeds').where({ name: 'pending' }).first('generation');
    const next = Number(feed.generation) + 1;
    // What a process killed mid-sync leaves: rows under the next generation, and the feed marked as having some.
    const row = await db('vulnerabilities').where({ feed: 'pending', id: 'GO-P-1' }).first();
    const entry = await db('vulnerability_affected').where({ feed: 'pending', vuln_id: 'GO-P-1' }).first();
    for (const id of ['GO-Q-1', 'GO-Q-2']) {
      await db('vulnerabilities').insert({ ...row, id, generation: next });
      await db('vulnerability_affected').insert({ ...entry, row_id: undefined, vuln_id: id, generation: next });
    }
    await db('vuln_feeds').where({ name: 'pending' }).update({ pending_generation: next });
    const { stats } = await syncFeedRecords(db, 'pending', generated(2, 'GO-Q'));
    // Both ids are new to the feed (the leftovers were never published), and GO-P-* left the source.
    expect(stats).toMatchObject({ read: 2, inserted: 2, removed: 5_200 });
    expect(await db('vulnerabilities').where({ feed: 'pending' }).orderBy('id').pluck('id')).toEqual(['GO-Q-0', 'GO-Q-1']);
    expect(await db('vulnerability_affected').where({ feed: 'pending' }).orderBy('vuln_id').pluck('vuln_id')).toEqual(['GO-Q-0', 'GO-Q-1']);
    expect(await db('vuln_feeds').where({ name: 'pending' }).first('generation', 'pending_generation')).toEqual({ generation: next, pending_generation: null });
  });

  it('digests a record without its modified time, from the same serialisation it stores', () => {
    const parsed = parseOsvRecord({ ...record('PYSEC-9', '2026-07-01T00:00:00Z', [{ ecosystem: 'PyPI', name: 'élan', fixed: '2.0' }]), details: 'ü'.repeat(5000) });
    const { stored, digest } = encodeRecordWithDigest(parsed);
    const { modified: _modified, ...content } = parsed;
    expect(digest).toBe(createHash('sha256').update(JSON.stringify(content)).digest('hex'));
    // Over the size limit, so deflated; it reads back as the record.
    expect(stored[0]).toBe(1);
    expect(decodeRecord(stored)).toEqual(parsed);
    expect(encodeRecordWithDigest({ ...parsed, modified: '2027-01-01T00:00:00Z' }).digest).toBe(digest);
    // A record built in another key order (serialised again without modified) digests the same content.
    const reordered = { modified: parsed.modified, ...content };
    expect(encodeRecordWithDigest(reordered).digest).toBe(digest);
    expect(decodeRecord(encodeRecordWithDigest(reordered).stored)).toEqual(parsed);
  });
});
