/**
 * Where a feed sync writes the records it reads until its switch makes them live. Records are written in short
 * transactions, between which other requests get the database; nothing written is visible until the switch.
 *
 * - Records **new to the feed** go straight into the live tables under the sync's generation (the feed's next,
 *   `vuln_feeds.pending_generation`), which readers skip (`published`, vulnerability-repository.ts) until the switch
 *   raises the feed's generation to it. The switch copies nothing for them, so a first import costs no more at the
 *   end than a sync that changed nothing.
 * - Records that **replace** a live one (same id, changed content) cannot sit beside it under the table's key, so
 *   they wait in staging tables and the switch copies them, after removing the old ones. A sync changes few.
 *   SQLite stages them in TEMP tables of the sync's own on the one pooled connection (outside the main database
 *   file: no WAL, no clean-up row by row; the switch must run on that connection, which `moveReplacements`
 *   checks); PostgreSQL in the shared `vuln_sync_records` / `vuln_sync_affected` tables under the sync's id (a pool
 *   has many connections, so TEMP tables would not be seen by the switch).
 *
 * A sync that stops before its switch leaves unpublished rows; `discard` deletes them, and if the process died
 * first, the next sync of the feed does (the feed's `pending_generation` says there may be some).
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { databaseKind, type Db } from '../db/index.js';
import { nowIso } from '../util/time.js';
import { insertRows } from '../db/insert-rows.js';
import type { StagedRecord } from './feed-rows.js';

/** A record to write: `fresh` when the feed has no record of its id, so it can be written live, unpublished. */
export interface SyncedRecord extends StagedRecord {
  fresh: boolean;
}

export interface Staging {
  /** Records to collect before calling `add`: one short transaction each. */
  readonly batchSize: number;
  /** The generation the sync writes under; the switch publishes it. */
  readonly generation: number;
  /** Writes a batch in one short transaction. */
  add(batch: SyncedRecord[]): Promise<void>;
  /** Copies the staged replacements into the live tables (under the sync's generation), in the switch transaction. */
  moveReplacements(trx: Db): Promise<void>;
  /** Removes what is staged and, unless the switch published them, the rows written live; safe to call more than once. */
  discard(): Promise<void>;
}

const RECORD_COLUMNS = [
  'feed',
  'id',
  'modified',
  'published',
  'withdrawn',
  'summary',
  'severity_label',
  'severity',
  'aliases',
  'content_digest',
  'record',
  'updated_at',
] as const;
/** The index entries' columns; feed-rows.ts builds staged rows in these orders. */
const AFFECTED_COLUMNS = ['feed', 'vuln_id', 'grp', 'ecosystem', 'release', 'package_name', 'affected'] as const;

/**
 * Opens the staging area of one sync of `feed` (which must exist in vuln_feeds): clears what a sync of the feed
 * that stopped before its switch left, and claims the feed's next generation. Only one sync of a feed runs at a time.
 */
export async function openStaging(db: Db, feed: string, syncId: string): Promise<Staging> {
  await db('vuln_sync_affected').where({ feed }).delete();
  await db('vuln_sync_records').where({ feed }).delete();
  const state: FeedGeneration | undefined = await db('vuln_feeds').where({ name: feed }).first('generation', 'pending_generation');
  if (!state) throw new Error(`feed '${feed}' does not exist`);
  const live = Number(state.generation);
  if (state.pending_generation !== null) await deleteUnpublished(db, feed, live);
  const generation = live + 1;
  await db('vuln_feeds').where({ name: feed }).update({ pending_generation: generation });
  return databaseKind(db) === 'sqlite' ? SqliteStaging.open(db, feed, generation) : new SharedTableStaging(db, feed, syncId, generation);
}

interface FeedGeneration {
  generation: number | string;
  pending_generation: number | string | null;
}

/** Rows deleted per statement when removing unpublished ones, so no statement holds the database for long. */
const DELETE_ROWS = 5000;

/** Deletes the feed's rows that no switch published (generation above `live`), a chunk per statement. */
async function deleteUnpublished(db: Db, feed: string, live: number): Promise<void> {
  const chunked = async (table: string, key: string, parent: string) => {
    for (;;) {
      const n: number = await db(table)
        .where({ [parent]: feed })
        .whereIn(key, db(table).where({ [parent]: feed }).where('generation', '>', live).select(key).limit(DELETE_ROWS))
        .delete();
      if (n < DELETE_ROWS) return;
    }
  };
  // Index entries first: they refer to their records.
  await chunked('vulnerability_affected', 'row_id', 'feed');
  await chunked('vulnerabilities', 'id', 'feed');
}

/** After a sync that did not reach its switch (or whose switch rolled back): its rows written live go. */
async function discardUnpublished(db: Db, feed: string, generation: number): Promise<void> {
  const state: FeedGeneration | undefined = await db('vuln_feeds').where({ name: feed }).first('generation', 'pending_generation');
  if (!state || Number(state.generation) >= generation) return;
  await deleteUnpublished(db, feed, Number(state.generation));
  await db('vuln_feeds').where({ name: feed, pending_generation: generation }).update({ pending_generation: null });
}

/** Rows copied per statement at the switch: each is synchronous on SQLite, so the event loop gets turns between. */
const MOVE_ROWS = 20_000;

/** The staged columns: feed and updated_at are the same for a whole sync and added when written live. */
const STAGED_RECORD_COLUMNS = RECORD_COLUMNS.slice(1, -1);
const STAGED_AFFECTED_COLUMNS = AFFECTED_COLUMNS.slice(1);
/** The live tables' columns as a sync writes them. */
const LIVE_RECORD_COLUMNS = [...RECORD_COLUMNS, 'generation'];
const LIVE_AFFECTED_COLUMNS = [...AFFECTED_COLUMNS, 'generation'];

class SqliteStaging implements Staging {
  /** Small: each batch is one synchronous transaction on the live tables, which the event loop waits for. */
  readonly batchSize = 5000;
  private readonly insertRecord: BetterSqlite3.Statement;
  private readonly insertAffected: BetterSqlite3.Statement;
  private readonly stageRecord: BetterSqlite3.Statement;
  private readonly stageAffected: BetterSqlite3.Statement;
  private dropped = false;

  private constructor(
    private readonly db: Db,
    private readonly conn: BetterSqlite3.Database,
    private readonly feed: string,
    readonly generation: number,
    private readonly tables: { records: string; affected: string },
  ) {
    const insert = (table: string, columns: readonly string[]) =>
      conn.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    this.insertRecord = insert('main.vulnerabilities', LIVE_RECORD_COLUMNS);
    this.insertAffected = insert('main.vulnerability_affected', LIVE_AFFECTED_COLUMNS);
    this.stageRecord = insert(tables.records, STAGED_RECORD_COLUMNS);
    this.stageAffected = insert(tables.affected, STAGED_AFFECTED_COLUMNS);
  }

  static async open(db: Db, feed: string, generation: number): Promise<SqliteStaging> {
    // A name of its own per sync: temp tables are per connection, and syncs of different feeds may overlap.
    const suffix = randomBytes(6).toString('hex');
    const tables = { records: `temp.vuln_stage_records_${suffix}`, affected: `temp.vuln_stage_affected_${suffix}` };
    return withConnection(db, (conn) => {
      // The live tables' columns and affinities, with no index or constraint to maintain while staging.
      conn.exec(
        `CREATE TABLE ${tables.records} AS SELECT ${STAGED_RECORD_COLUMNS.join(', ')} FROM main.vulnerabilities WHERE 0;
         CREATE TABLE ${tables.affected} AS SELECT ${STAGED_AFFECTED_COLUMNS.join(', ')} FROM main.vulnerability_affected WHERE 0;`,
      );
      return new SqliteStaging(db, conn, feed, generation, tables);
    });
  }

  async add(batch: SyncedRecord[]): Promise<void> {
    if (batch.length === 0) return;
    await withConnection(this.db, (conn) => {
      this.checkConnection(conn);
      const now = nowIso();
      conn.transaction(() => {
        for (const r of batch)
          if (r.fresh) {
            this.insertRecord.run(this.feed, ...r.row, now, this.generation);
            for (const entry of r.affected) this.insertAffected.run(this.feed, ...entry, this.generation);
          } else {
            this.stageRecord.run(r.row);
            for (const entry of r.affected) this.stageAffected.run(entry);
          }
      })();
    });
  }

  async moveReplacements(trx: Db): Promise<void> {
    this.checkConnection((await trx.client.acquireConnection()) as BetterSqlite3.Database);
    await this.copy(this.tables.records, 'main.vulnerabilities', LIVE_RECORD_COLUMNS, STAGED_RECORD_COLUMNS, { first: [this.feed], last: [nowIso(), this.generation] });
    await this.copy(this.tables.affected, 'main.vulnerability_affected', LIVE_AFFECTED_COLUMNS, STAGED_AFFECTED_COLUMNS, { first: [this.feed], last: [this.generation] });
  }

  /** Copies by rowid ranges (a temp table's rowids run 1..n in insertion order), yielding between statements. */
  private async copy(from: string, to: string, columns: readonly string[], staged: readonly string[], constants: { first: unknown[]; last: unknown[] }): Promise<void> {
    const last = Number((this.conn.prepare(`SELECT max(rowid) AS n FROM ${from}`).get() as { n: number | null }).n ?? 0);
    const select = [...constants.first.map(() => '?'), ...staged, ...constants.last.map(() => '?')].join(', ');
    const statement = this.conn.prepare(`INSERT INTO ${to} (${columns.join(', ')}) SELECT ${select} FROM ${from} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`);
    for (let low = 0; low < last; low += MOVE_ROWS) {
      statement.run(...constants.first, ...constants.last, low, low + MOVE_ROWS);
      if (low + MOVE_ROWS < last) await nextTurn();
    }
  }

  async discard(): Promise<void> {
    if (!this.dropped) {
      this.dropped = true;
      await withConnection(this.db, (conn) => {
        // A replaced connection took the temp tables with it.
        if (conn === this.conn) conn.exec(`DROP TABLE IF EXISTS ${this.tables.records}; DROP TABLE IF EXISTS ${this.tables.affected};`);
      });
    }
    await discardUnpublished(this.db, this.feed, this.generation);
  }

  private checkConnection(conn: BetterSqlite3.Database): void {
    if (conn !== this.conn) throw new Error('the database connection was replaced during the feed sync, and its staged records with it');
  }
}

/** Runs fn on the pool's connection, synchronously, holding it only for that. */
async function withConnection<T>(db: Db, fn: (conn: BetterSqlite3.Database) => T): Promise<T> {
  const conn = (await db.client.acquireConnection()) as BetterSqlite3.Database;
  try {
    return fn(conn);
  } finally {
    await db.client.releaseConnection(conn);
  }
}

class SharedTableStaging implements Staging {
  readonly batchSize = 5000;

  constructor(
    private readonly db: Db,
    private readonly feed: string,
    private readonly syncId: string,
    readonly generation: number,
  ) {}

  async add(batch: SyncedRecord[]): Promise<void> {
    if (batch.length === 0) return;
    const now = nowIso();
    const fresh = batch.filter((b) => b.fresh);
    const replacing = batch.filter((b) => !b.fresh);
    await this.db.transaction(async (trx) => {
      await insertRows(trx, 'vulnerabilities', LIVE_RECORD_COLUMNS, fresh.map((b) => [this.feed, ...b.row, now, this.generation]));
      await insertRows(trx, 'vulnerability_affected', LIVE_AFFECTED_COLUMNS, fresh.flatMap((b) => b.affected.map((entry) => [this.feed, ...entry, this.generation])));
      await insertRows(trx, 'vuln_sync_records', ['sync_id', ...RECORD_COLUMNS], replacing.map((b) => [this.syncId, this.feed, ...b.row, now]));
      await insertRows(trx, 'vuln_sync_affected', ['sync_id', ...AFFECTED_COLUMNS], replacing.flatMap((b) => b.affected.map((entry) => [this.syncId, this.feed, ...entry])));
    });
  }

  async moveReplacements(trx: Db): Promise<void> {
    const records = RECORD_COLUMNS.join(', ');
    const affected = AFFECTED_COLUMNS.join(', ');
    await trx.raw(`INSERT INTO vulnerabilities (${records}, generation) SELECT ${records}, ? FROM vuln_sync_records WHERE sync_id = ?`, [this.generation, this.syncId]);
    await trx.raw(`INSERT INTO vulnerability_affected (${affected}, generation) SELECT ${affected}, ? FROM vuln_sync_affected WHERE sync_id = ?`, [this.generation, this.syncId]);
    // Inside the switch: once live, nothing of the sync stays staged.
    await trx('vuln_sync_affected').where({ sync_id: this.syncId }).delete();
    await trx('vuln_sync_records').where({ sync_id: this.syncId }).delete();
  }

  async discard(): Promise<void> {
    await this.db('vuln_sync_affected').where({ sync_id: this.syncId }).delete();
    await this.db('vuln_sync_records').where({ sync_id: this.syncId }).delete();
    await discardUnpublished(this.db, this.feed, this.generation);
  }
}
