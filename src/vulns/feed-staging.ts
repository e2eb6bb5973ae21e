/**
 * Where a feed sync keeps the records it read until the switch makes them live. Staging is written in short
 * transactions between which other requests get the database, and the switch copies it into the live tables with
 * `INSERT … SELECT` inside the caller's transaction, so the live tables change only at the switch.
 *
 * - SQLite: two TEMP tables of the sync's own, filled through prepared statements on the one pooled connection.
 *   TEMP tables live outside the main database file: staging takes no write lock, writes nothing to the WAL and
 *   needs no clean-up row by row (the tables are dropped; a crash drops them with the connection). The switch
 *   must run on that same connection, which `moveLive` checks, so a replaced connection fails the sync instead of
 *   switching in nothing.
 * - PostgreSQL: the shared `vuln_sync_records` / `vuln_sync_affected` tables under the sync's id (a pool has many
 *   connections, so TEMP tables would not be seen by the switch), written with multi-row inserts.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { databaseKind, type Db } from '../db/index.js';
import { nowIso } from '../util/time.js';
import type { StagedRecord, StagedValue } from './feed-rows.js';

export interface Staging {
  /** Records to collect before calling `add`: one staging transaction each. */
  readonly batchSize: number;
  /** Stages a batch in one short transaction. */
  add(batch: StagedRecord[]): Promise<void>;
  /** The staged index entries, for `SELECT … FROM ${from} WHERE ${where}` inside the switch transaction. */
  readonly affected: { from: string; where: string; bindings: string[] };
  /** Copies the staged records and index entries into the live tables, in the switch transaction. */
  moveLive(trx: Db): Promise<void>;
  /** Removes what is staged; safe to call more than once and after a failed switch. */
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

/** Opens the staging area of one sync of `feed`, clearing what a crashed sync of the feed may have left. */
export async function openStaging(db: Db, feed: string, syncId: string): Promise<Staging> {
  await clearSharedStaging(db, feed);
  return databaseKind(db) === 'sqlite' ? SqliteStaging.open(db, feed) : new SharedTableStaging(db, feed, syncId);
}

/** Leftovers of a sync that stopped before its switch (PostgreSQL; SQLite releases before 2026-11 too). */
async function clearSharedStaging(db: Db, feed: string): Promise<void> {
  await db('vuln_sync_affected').where({ feed }).delete();
  await db('vuln_sync_records').where({ feed }).delete();
}

/** Rows copied per statement at the switch: each is synchronous on SQLite, so the event loop gets turns between. */
const MOVE_ROWS = 20_000;

/** The staged columns: feed and updated_at are the same for a whole sync and added by the switch. */
const STAGED_RECORD_COLUMNS = RECORD_COLUMNS.slice(1, -1);
const STAGED_AFFECTED_COLUMNS = AFFECTED_COLUMNS.slice(1);

class SqliteStaging implements Staging {
  readonly batchSize = 2000;
  readonly affected: Staging['affected'];
  private readonly insertRecord: BetterSqlite3.Statement;
  private readonly insertAffected: BetterSqlite3.Statement;
  private dropped = false;

  private constructor(
    private readonly db: Db,
    private readonly conn: BetterSqlite3.Database,
    private readonly feed: string,
    private readonly tables: { records: string; affected: string },
  ) {
    const insert = (table: string, columns: readonly string[]) =>
      conn.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    this.insertRecord = insert(tables.records, STAGED_RECORD_COLUMNS);
    this.insertAffected = insert(tables.affected, STAGED_AFFECTED_COLUMNS);
    this.affected = { from: tables.affected, where: '1 = 1', bindings: [] };
  }

  static async open(db: Db, feed: string): Promise<SqliteStaging> {
    // A name of its own per sync: temp tables are per connection, and syncs of different feeds may overlap.
    const suffix = randomBytes(6).toString('hex');
    const tables = { records: `temp.vuln_stage_records_${suffix}`, affected: `temp.vuln_stage_affected_${suffix}` };
    return withConnection(db, (conn) => {
      // The live tables' columns and affinities, with no index or constraint to maintain while staging.
      conn.exec(
        `CREATE TABLE ${tables.records} AS SELECT ${STAGED_RECORD_COLUMNS.join(', ')} FROM main.vulnerabilities WHERE 0;
         CREATE TABLE ${tables.affected} AS SELECT ${STAGED_AFFECTED_COLUMNS.join(', ')} FROM main.vulnerability_affected WHERE 0;`,
      );
      return new SqliteStaging(db, conn, feed, tables);
    });
  }

  async add(batch: StagedRecord[]): Promise<void> {
    if (batch.length === 0) return;
    await withConnection(this.db, (conn) => {
      this.checkConnection(conn);
      conn.transaction(() => {
        for (const staged of batch) {
          this.insertRecord.run(staged.row);
          for (const entry of staged.affected) this.insertAffected.run(entry);
        }
      })();
    });
  }

  async moveLive(trx: Db): Promise<void> {
    this.checkConnection((await trx.client.acquireConnection()) as BetterSqlite3.Database);
    await this.copy(this.tables.records, 'main.vulnerabilities', RECORD_COLUMNS, `?, ${STAGED_RECORD_COLUMNS.join(', ')}, ?`, [this.feed, nowIso()]);
    await this.copy(this.tables.affected, 'main.vulnerability_affected', AFFECTED_COLUMNS, `?, ${STAGED_AFFECTED_COLUMNS.join(', ')}`, [this.feed]);
  }

  /** Copies by rowid ranges (a temp table's rowids run 1..n in insertion order), yielding between statements. */
  private async copy(from: string, to: string, columns: readonly string[], select: string, constants: string[]): Promise<void> {
    const last = Number((this.conn.prepare(`SELECT max(rowid) AS n FROM ${from}`).get() as { n: number | null }).n ?? 0);
    const statement = this.conn.prepare(`INSERT INTO ${to} (${columns.join(', ')}) SELECT ${select} FROM ${from} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`);
    for (let low = 0; low < last; low += MOVE_ROWS) {
      statement.run(...constants, low, low + MOVE_ROWS);
      if (low + MOVE_ROWS < last) await nextTurn();
    }
  }

  async discard(): Promise<void> {
    if (this.dropped) return;
    this.dropped = true;
    await withConnection(this.db, (conn) => {
      // A replaced connection took the temp tables with it.
      if (conn === this.conn) conn.exec(`DROP TABLE IF EXISTS ${this.tables.records}; DROP TABLE IF EXISTS ${this.tables.affected};`);
    });
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

/** Rows per multi-row insert: 13 parameters a record row stays well under PostgreSQL's 65 535 per statement. */
const INSERT_ROWS = 1000;

class SharedTableStaging implements Staging {
  readonly batchSize = 5000;
  readonly affected: Staging['affected'];

  constructor(
    private readonly db: Db,
    private readonly feed: string,
    private readonly syncId: string,
  ) {
    this.affected = { from: 'vuln_sync_affected', where: 'sync_id = ?', bindings: [syncId] };
  }

  async add(batch: StagedRecord[]): Promise<void> {
    if (batch.length === 0) return;
    const now = nowIso();
    const records = batch.map((b) => [this.syncId, this.feed, ...b.row, now]);
    const affected = batch.flatMap((b) => b.affected.map((entry) => [this.syncId, this.feed, ...entry]));
    await this.db.transaction(async (trx) => {
      await insertRows(trx, 'vuln_sync_records', ['sync_id', ...RECORD_COLUMNS], records);
      await insertRows(trx, 'vuln_sync_affected', ['sync_id', ...AFFECTED_COLUMNS], affected);
    });
  }

  async moveLive(trx: Db): Promise<void> {
    const records = RECORD_COLUMNS.join(', ');
    const affected = AFFECTED_COLUMNS.join(', ');
    await trx.raw(`INSERT INTO vulnerabilities (${records}) SELECT ${records} FROM vuln_sync_records WHERE sync_id = ?`, [this.syncId]);
    await trx.raw(`INSERT INTO vulnerability_affected (${affected}) SELECT ${affected} FROM vuln_sync_affected WHERE sync_id = ?`, [this.syncId]);
    // Inside the switch: once live, nothing of the sync stays staged.
    await trx('vuln_sync_affected').where({ sync_id: this.syncId }).delete();
    await trx('vuln_sync_records').where({ sync_id: this.syncId }).delete();
  }

  async discard(): Promise<void> {
    await this.db('vuln_sync_affected').where({ sync_id: this.syncId }).delete();
    await this.db('vuln_sync_records').where({ sync_id: this.syncId }).delete();
  }
}

/** Multi-row inserts with positional parameters, without a query builder per row. */
async function insertRows(trx: Db, table: string, columns: readonly string[], rows: StagedValue[][]): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    const slice = rows.slice(i, i + INSERT_ROWS);
    await trx.raw(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${slice.map(() => tuple).join(', ')}`, slice.flat());
  }
}
