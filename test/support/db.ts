/** A migrated database for tests: SQLite in a temp dir, or a fresh Postgres database when VIGIL_TEST_DATABASE_URL is set. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import { createDb, migrateToLatest, type Db } from '../../src/db/index.js';

export interface ScratchDatabase {
  /** postgres URL of the new database, or null on SQLite. */
  url: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * Drops a scratch database, ending its connections. An autovacuum worker in it can only be ended by a role with
 * pg_signal_backend (scripts/with-postgres.sh grants it); elsewhere the drop is tried again, briefly, until the
 * worker is done.
 */
export async function dropScratchDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== '42501' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await admin.destroy();
  }
}

/**
 * What a server on `scratch` is given to reach it: on Postgres its URL and an encryption key (Vigil refuses to
 * generate a per-node key there; every test server shares this one, as every node of a deployment would).
 */
export function databaseEnv(scratch: Pick<ScratchDatabase, 'url'>): Record<string, string> {
  return scratch.url ? { VIGIL_DATABASE_URL: scratch.url, VIGIL_ENCRYPTION_KEY: 'vigil-test-suite-encryption-key' } : {};
}

export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const adminUrl = process.env.VIGIL_TEST_DATABASE_URL;
  if (!adminUrl) return { url: null, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const name = `vigil_t_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    async drop() {
      await dropScratchDatabase(adminUrl, name);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A migrated Knex handle on a scratch database; `close()` destroys both. */
export async function createTestDb(): Promise<{ db: Db; close(): Promise<void> }> {
  const scratch = await createScratchDatabase();
  const db = createDb({ databaseUrl: scratch.url, dataDir: scratch.dataDir });
  await migrateToLatest(db);
  return {
    db,
    async close() {
      await db.destroy();
      await scratch.drop();
    },
  };
}
