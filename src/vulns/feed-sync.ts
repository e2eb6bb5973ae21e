/**
 * Feed synchronisation: store the records of a source (OSV all.zip, directory or file; Alpine secdb converted to
 * OSV) that are new or whose content changed, with their affected-package index, and drop records the source no
 * longer has. Records are written as they are read, in small transactions, so a long first import does not hold
 * the database (SQLite has one writer) for its whole duration, but nothing written shows until one transaction at
 * the end (the switch): records new to the feed go live unpublished, replacements wait in staging
 * (feed-staging.ts). The switch removes the replaced and withdrawn-from-source records, moves the replacements in,
 * publishes the sync's generation, records the outcome, queues the changed index keys for re-matching, logs the
 * changed records for the reporting read model and runs the caller's own switch work (its completion event).
 * A sync is all or nothing: a source that fails part-way
 * (truncated archive, unreadable path, a crash) never reaches the switch, and a switch that fails rolls back
 * whole, so the previous data keeps serving, unchanged. Malformed records are skipped and counted; a source
 * with no valid record at all fails. OSV paths are read and parsed in the feed reader thread (feed-reader.ts)
 * while this thread digests and stages; other sources are read here, through the same feed-rows.ts functions.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { letWalRewind, type Db } from '../db/index.js';
import { nowIso } from '../util/time.js';
import type { OsvReadError, OsvReadOptions, OsvReadResult } from './osv/archive.js';
import { readOsvPathInWorker } from './feed-reader.js';
import { recordDigest, serialiseInProcess, stagedRecord, type SerialisedSource } from './feed-rows.js';
import { insertRows } from '../db/insert-rows.js';
import { openStaging, type Staging, type SyncedRecord } from './feed-staging.js';
import { markVulnerabilityDataChanged, publishedGeneration } from './vulnerability-repository.js';

export interface SyncStats {
  read: number;
  skipped: number;
  inserted: number;
  updated: number;
  unchanged: number;
  removed: number;
  errors: OsvReadError[];
}

export interface SyncResult {
  stats: SyncStats;
  syncId: string;
  /**
   * How many (ecosystem, release, name) keys had their advisories changed: the packages to re-match. The keys
   * wait in vuln_rematch_keys under `syncId` until a re-match takes them (rematchQueuedKeys).
   */
  changedKeys: number;
}

export interface SyncOptions {
  /** Called every `progressEvery` records with the running counts. */
  onProgress?: (stats: Readonly<SyncStats>) => void;
  progressEvery?: number;
  /** Source description stored with the feed (path or URL without credentials). */
  source?: string;
  kind?: string;
  /**
   * Work that must happen exactly when the new data goes live (a completion event): run inside the switch
   * transaction, after everything else in it; a throw rolls the switch back and fails the sync.
   */
  onSwitch?: SwitchHook<SyncStats>;
  /** Aborting fails the sync (the previous data keeps serving) and stops reading the source. */
  signal?: AbortSignal;
}

/** Work run inside a sync's switch transaction, given the sync's statistics. */
export type SwitchHook<S> = (trx: Db, stats: Readonly<S>) => Promise<void>;

/**
 * The fewest collected records written early when the reader is behind (no batch waiting): smaller steps would
 * commit often for little.
 */
const IDLE_FLUSH_RECORDS = 1000;

/** Records per statement when reading a feed's digests: a feed of 148 000 read as one held the event loop 0.3-0.9 s. */
const DIGEST_CHUNK = 10_000;

/** The content digests of the feed's published records by id, read a chunk per statement with turns in between. */
async function publishedDigests(db: Db, feed: string): Promise<Map<string, string>> {
  const generation = await publishedGeneration(db, feed);
  const known = new Map<string, string>();
  for (let after = ''; ; await nextTurn()) {
    const rows: { id: string; content_digest: string }[] = await db('vulnerabilities')
      .where({ feed })
      .where('id', '>', after)
      .where('generation', '<=', generation)
      .orderBy('id')
      .limit(DIGEST_CHUNK)
      .select('id', 'content_digest');
    for (const r of rows) known.set(r.id, r.content_digest);
    if (rows.length < DIGEST_CHUNK) return known;
    after = rows[rows.length - 1]!.id;
  }
}

/** Ids per statement when removing replaced records: well under every database's parameter limit. */
const ID_BATCH = 500;

function chunks<T>(items: T[], size = ID_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Queues for re-matching, under the sync's id, the distinct index keys of `from` rows matching `where`; done in
 * the database, so a sync of hundreds of thousands of records never holds its keys in memory.
 */
async function queueKeys(trx: Db, syncId: string, from: string, where: string, bindings: string[]): Promise<void> {
  await trx.raw(
    `INSERT INTO vuln_rematch_keys (sync_id, ecosystem, release, package_name)
     SELECT DISTINCT CAST(? AS VARCHAR(36)), ecosystem, COALESCE(release, ''), package_name FROM ${from} WHERE ${where}
     ON CONFLICT (sync_id, ecosystem, release, package_name) DO NOTHING`,
    [syncId, ...bindings],
  );
}

/**
 * Record counts per group of the source as read: a source is the feed's complete content, so after the switch
 * these are the feed's counts, with no scan of the index to take them.
 */
class GroupTally {
  readonly counts = new Map<string, number>();

  add(affected: (string | null)[][], by = 1): void {
    // Entries are [vuln_id, grp, ...] (feed-rows.ts); a record counts once in each of its groups. Most records
    // have one entry: no set for those (this runs for every record read).
    if (affected.length === 1) this.bump(affected[0]![1]!, by);
    else for (const group of new Set(affected.map((entry) => entry[1]!))) this.bump(group, by);
  }

  private bump(group: string, by: number): void {
    this.counts.set(group, (this.counts.get(group) ?? 0) + by);
  }

  remove(affected: (string | null)[][]): void {
    this.add(affected, -1);
  }
}

/** What a sync wrote, kept for its switch: the records' ids and the distinct index keys of their entries. */
class Written {
  private readonly keys = new Set<string>();
  private readonly ids: string[] = [];

  add(records: Iterable<SyncedRecord>): void {
    for (const record of records) {
      // Each id is written once: the sync stages an id's first copy only (a later one replaces it while unwritten).
      this.ids.push(record.row[0] as string);
      // Entries are [vuln_id, grp, ecosystem, release, package_name, affected] (feed-rows.ts).
      for (const entry of record.affected) this.keys.add(`${entry[2]}\u0000${entry[3] ?? ''}\u0000${entry[4]}`);
    }
  }

  keyRows(syncId: string): string[][] {
    return [...this.keys].map((key) => [syncId, ...key.split('\u0000')]);
  }

  /** The reporting read model's change rows (report_changes) of the written records. */
  changeRows(feed: string): string[][] {
    return this.ids.map((id) => ['vulnerability', '', `${feed} ${id}`]);
  }
}

/**
 * The switch, in the caller's transaction: removes the replaced and removed records, moves the replacements in,
 * publishes what the sync wrote, and queues the index keys that changed (the old entries' and the written ones')
 * and logs the written records for the reporting read model (report-change-triggers.ts logs only published rows).
 */
async function applyStaged(trx: Db, feed: string, syncId: string, staging: Staging, replacedIds: string[], written: Written, groups: GroupTally): Promise<void> {
  for (const ids of chunks(replacedIds)) {
    await queueKeys(trx, syncId, 'vulnerability_affected', `feed = ? AND vuln_id IN (${ids.map(() => '?').join(', ')})`, [feed, ...ids]);
    await trx('vulnerability_affected').where({ feed }).whereIn('vuln_id', ids).delete();
    await trx('vulnerabilities').where({ feed }).whereIn('id', ids).delete();
  }
  await staging.moveReplacements(trx);
  await trx('vuln_feeds').where({ name: feed }).update({ generation: staging.generation, pending_generation: null });
  await insertRows(trx, 'vuln_rematch_keys', ['sync_id', 'ecosystem', 'release', 'package_name'], written.keyRows(syncId), ' ON CONFLICT (sync_id, ecosystem, release, package_name) DO NOTHING');
  // From the ids kept in memory: selecting the rows that carry the sync's generation read every record of the
  // feed again (0.1 s of a 49 305-record import's switch in bench:match, with the event loop held).
  await insertRows(trx, 'report_changes', ['kind', 'account_name', 'ref'], written.changeRows(feed));
  await storeGroupCounts(trx, feed, groups.counts);
  await markVulnerabilityDataChanged(trx);
}

/** Record counts per group, as the index holds them, kept with the group's enabled flag (storeGroupCounts). */
export async function refreshGroupCounts(db: Db, feed: string): Promise<void> {
  const counts: { grp: string; n: number | string }[] = await db('vulnerability_affected')
    .where({ feed })
    .where('generation', '<=', await publishedGeneration(db, feed))
    .groupBy('grp')
    .select('grp')
    .countDistinct({ n: 'vuln_id' });
  await storeGroupCounts(db, feed, new Map(counts.map((c) => [c.grp, Number(c.n)])));
}

/** Stores a feed's record counts per group; groups with none go unless an administrator disabled them. */
async function storeGroupCounts(db: Db, feed: string, counts: ReadonlyMap<string, number>): Promise<void> {
  const now = nowIso();
  const present = new Set<string>();
  for (const [group, n] of counts) {
    if (n <= 0) continue;
    present.add(group);
    await db('vuln_feed_groups')
      .insert({ feed, name: group, enabled: true, record_count: n, created_at: now, last_sync: now })
      .onConflict(['feed', 'name'])
      .merge(['record_count', 'last_sync']);
  }
  const stale = (await db('vuln_feed_groups').where({ feed }).select('name', 'enabled')).filter((g: { name: string }) => !present.has(g.name));
  for (const g of stale) {
    const q = db('vuln_feed_groups').where({ feed, name: g.name });
    if (g.enabled === false || g.enabled === 0) await q.update({ record_count: 0, last_sync: now });
    else await q.delete();
  }
}

export async function ensureFeed(db: Db, feed: string, kind?: string): Promise<void> {
  await db('vuln_feeds').insert({ name: feed, kind: kind ?? null, enabled: true, created_at: nowIso() }).onConflict('name').ignore();
}

export async function recordSyncOutcome(
  db: Db,
  feed: string,
  outcome: { status: 'ok' | 'failed'; stats?: unknown; error?: string; source?: string; kind?: string },
): Promise<void> {
  const now = nowIso();
  await db('vuln_feeds')
    .where({ name: feed })
    .update({
      last_sync_at: now,
      last_sync_status: outcome.status,
      last_sync_error: outcome.error ?? null,
      last_sync_stats: outcome.stats === undefined ? null : JSON.stringify(outcome.stats),
      ...(outcome.status === 'ok' ? { last_success_at: now } : {}),
      ...(outcome.source !== undefined ? { source: outcome.source } : {}),
      ...(outcome.kind !== undefined ? { kind: outcome.kind } : {}),
    });
}

/** Syncs a feed from records read in this thread from any source; the source is treated as the feed's complete content. */
export function syncFeedRecords(db: Db, feed: string, input: OsvReadResult, options: SyncOptions = {}): Promise<SyncResult> {
  return syncSerialisedSource(db, feed, serialiseInProcess(input), options);
}

/**
 * Syncs a feed from an OSV path (all.zip, directory or JSON file), read, parsed and prepared in the feed reader
 * thread (feed-reader.ts) while this thread stages.
 */
export async function syncOsvSource(db: Db, feed: string, path: string, options: SyncOptions & { read?: OsvReadOptions } = {}): Promise<SyncResult> {
  const { read, ...sync } = options;
  // Started before the database work below, which it overlaps; closed whichever way the sync ends.
  const source = readOsvPathInWorker(path, read);
  try {
    return await syncSerialisedSource(db, feed, source, { source: path, kind: 'osv', ...sync });
  } finally {
    source.close();
  }
}

/** Syncs a feed from records already serialised (feed-rows.ts), wherever they were read: the two entry points above. */
export async function syncSerialisedSource(db: Db, feed: string, input: SerialisedSource, options: SyncOptions = {}): Promise<SyncResult> {
  await ensureFeed(db, feed, options.kind);
  const stats: SyncStats = { read: 0, skipped: 0, inserted: 0, updated: 0, unchanged: 0, removed: 0, errors: [] };
  const every = options.progressEvery ?? 10_000;
  const syncId = randomUUID();
  let staging: Staging | undefined;
  try {
    // Only one sync per feed runs at a time; this clears what a crashed one left staged.
    staging = await openStaging(db, feed, syncId);
    const known = await publishedDigests(db, feed);
    const seen = new Set<string>();
    const replaced: string[] = [];
    const written = new Written();
    const groups = new GroupTally();
    // Keyed by id: a source that lists one id twice stores its last copy once.
    let batch = new Map<string, SyncedRecord>();
    const flush = async () => {
      await staging!.add([...batch.values()]);
      written.add(batch.values());
      batch = new Map();
      // The reader thread goes on reading meanwhile.
      await letWalRewind(db);
    };
    // Leaving this loop early (a throw, an abort) closes the source, which stops its reader thread.
    for await (const serialised of input.batches) {
      options.signal?.throwIfAborted();
      for (const record of serialised) {
        const { id } = record;
        const digest = recordDigest(record);
        stats.read++;
        if (seen.has(id)) {
          // A second copy of an id: the last one wins while it is still unstaged.
          const unwritten = batch.get(id);
          if (unwritten) {
            batch.set(id, { ...stagedRecord(record, digest), fresh: unwritten.fresh });
            groups.remove(unwritten.affected);
            groups.add(record.affected);
          }
          continue;
        }
        seen.add(id);
        groups.add(record.affected);
        const before = known.get(id);
        if (before === digest) stats.unchanged++;
        else {
          if (before === undefined) stats.inserted++;
          else {
            stats.updated++;
            replaced.push(id);
          }
          batch.set(id, { ...stagedRecord(record, digest), fresh: before === undefined });
          if (batch.size >= staging.batchSize) await flush();
        }
        if (options.onProgress && stats.read % every === 0) options.onProgress({ ...stats, skipped: input.stats.skipped });
      }
      // With no batch waiting, what is collected is written now, while the reader works on the next one, rather
      // than in one step after the last batch.
      if (batch.size >= IDLE_FLUSH_RECORDS && input.batchWaiting?.() === false) await flush();
      // Batches the reader thread posted ahead are taken without a turn of the event loop in between: without this,
      // a writer that keeps up never lets timers, I/O or other queries run (bench:match saw 8 s waits).
      await nextTurn();
    }
    await flush();
    stats.skipped = input.stats.skipped;
    stats.errors = input.stats.errors;
    // A source that yields nothing usable (a mirror that now serves an error page, a half-written file, records
    // all in a shape we cannot read) would otherwise read as "every record was withdrawn" and empty the feed, or
    // pass for an empty new feed.
    if (stats.read === 0 && (known.size > 0 || stats.skipped > 0)) {
      const why = `${stats.skipped} skipped${stats.errors[0] ? `, first: ${stats.errors[0].source}: ${stats.errors[0].message}` : ''}`;
      throw new Error(`the source yielded no valid records (${why})${known.size > 0 ? `; keeping the ${known.size} records of the last sync` : ''}`);
    }
    const removed = [...known.keys()].filter((id) => !seen.has(id));
    stats.removed = removed.length;
    const changedKeys = await db.transaction(async (trx) => {
      await applyStaged(trx, feed, syncId, staging!, replaced.concat(removed), written, groups);
      await recordSyncOutcome(trx, feed, { status: 'ok', stats, source: options.source, kind: options.kind });
      await options.onSwitch?.(trx, stats);
      return Number((await trx('vuln_rematch_keys').where({ sync_id: syncId }).count({ n: '*' }).first())?.n ?? 0);
    });
    options.onProgress?.(stats);
    return { stats, syncId, changedKeys };
  } catch (err) {
    await recordSyncOutcome(db, feed, { status: 'failed', stats, error: err instanceof Error ? err.message : String(err), source: options.source, kind: options.kind });
    throw err;
  } finally {
    await staging?.discard().catch(() => undefined);
  }
}

/** Record counts per group (`debian:12`, `pypi`, ...), as feed listings show them. */
export async function feedGroupCounts(db: Db, feed: string): Promise<{ group: string; records: number }[]> {
  const rows = await db('vuln_feed_groups').where({ feed }).orderBy('name').select('name', 'record_count');
  return rows.map((r: { name: string; record_count: number }) => ({ group: r.name, records: Number(r.record_count) }));
}
