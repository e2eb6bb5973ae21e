/**
 * Database access: one Knex instance over SQLite (embedded default, better-sqlite3) or Postgres.
 * Migrations are TypeScript modules listed in ./migrations/index.ts so they run the same from source and dist.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import knex, { type Knex } from 'knex';
import type { Config } from '../config.js';
import { migrations } from './migrations/index.js';
import { SqliteClient } from './sqlite-client.js';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, JOURNAL_SIZE_LIMIT_BYTES } from './wal-checkpointer.js';

/** The memory map asked of SQLite: more than it allows, so it maps up to its own limit. */
const MMAP_BYTES = 4 * 1024 ** 3;

export type Db = Knex;

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

export function databaseKind(db: Db): 'sqlite' | 'postgres' {
  return db.client.config.client === 'pg' ? 'postgres' : 'sqlite';
}

/**
 * Call between the transactions of a long write (a feed import): on SQLite, lets the write-ahead log rewind once
 * it has grown, waiting for the checkpointer thread without holding the event loop (WalCheckpointer.letRewind).
 * Nothing to do on PostgreSQL.
 */
export async function letWalRewind(db: Db): Promise<void> {
  if (db.client instanceof SqliteClient) await db.client.letWalRewind();
}

export function createDb(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Db {
  if (config.databaseUrl) {
    return knex({
      client: 'pg',
      connection: config.databaseUrl,
      pool: { min: 0, max: 10 },
      migrations: { migrationSource },
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return knex({
    // better-sqlite3, keeping each connection's prepared statements and checkpointing in a thread (sqlite-client.ts).
    client: SqliteClient as unknown as typeof knex.Client,
    connection: { filename: join(config.dataDir, 'vigil.sqlite') },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      // WAL lets readers run during a write; foreign keys are off by default in SQLite and the schema relies on them.
      afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        conn.pragma('synchronous = NORMAL');
        // Checkpoints run in their own thread (wal-checkpointer.ts); this connection does only past a backstop.
        conn.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
        conn.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
        // SQLite's default page cache is 2 MiB: the report tables' indexes (millions of rows) would be re-read
        // from the OS on every scan and thrashed by every bulk insert. 64 MiB of cache and a memory map fix that.
        // The map covers the whole file up to SQLITE_MAX_MMAP_SIZE (2 GiB; SQLite clamps a larger request): a
        // re-match reads packages and findings scattered over a file of gigabytes, and every page outside the map
        // costs a read() and a copy. bench:match measured the re-match at 12.4 s with a 2 GiB map against 19.5 s
        // with 256 MiB. Mapped pages are the OS's file cache, shared and reclaimable, not process memory.
        conn.pragma('cache_size = -65536');
        conn.pragma(`mmap_size = ${MMAP_BYTES}`);
        done(null, conn);
      },
    },
    migrations: { migrationSource },
  });
}

/** Any fixed number: the session-level advisory lock nodes starting on one Postgres database take in turn. */
const MIGRATION_LOCK_KEY = 0x5649_4749; // "VIGI"

/**
 * Applies the pending migrations; answers the batch number and the names applied (none: nothing was pending).
 * On Postgres, nodes starting at once migrate one after the other: knex's own lock table is created by the first
 * migration run, so two first starts on an empty database would race to create it (one fails). An advisory lock,
 * held on a connection of its own while the migrations run on others, orders them; the later node finds nothing
 * pending.
 */
export async function migrateToLatest(db: Db): Promise<{ batch: number; applied: string[] }> {
  const run = async () => {
    const [batch, applied] = (await db.migrate.latest()) as [number, string[]];
    return { batch, applied };
  };
  if (databaseKind(db) !== 'postgres') return run();
  const conn = (await db.client.acquireConnection()) as { query(sql: string, values: unknown[]): Promise<unknown> };
  try {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await run();
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** The newest migration of this release: the schema version a successful start leaves the database at. */
export function latestSchemaVersion(): string {
  return Object.keys(migrations).pop() ?? 'none';
}

/** The name of the newest applied migration, reported as the database schema version. */
export async function schemaVersion(db: Db): Promise<string> {
  const names = Object.keys(migrations);
  const applied = await db('knex_migrations').select('name');
  const have = new Set(applied.map((r: { name: string }) => r.name));
  const current = names.filter((n) => have.has(n)).pop();
  return current ?? 'none';
}

/**
 * A whereRaw condition: `column` (a column name from the code, never input) starts with `prefix`, compared
 * literally; with LIKE, a `_` or `%` in the prefix would be a wildcard. Lengths count characters on both databases.
 */
export function startsWithLiteral(column: string, prefix: string): [string, [number, string]] {
  return [`substr(${column}, 1, ?) = ?`, [[...prefix].length, prefix]];
}

/** SQLite hands booleans back as 0/1. */
export function toBool(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 't';
}

/** Whether a write failed on a unique constraint (SQLite and PostgreSQL word it differently). */
export const isUniqueViolation = (err: unknown): boolean => /unique|duplicate key/i.test(String((err as Error)?.message));
