/**
 * Starts a real Vigil server for a test file: SQLite in a temp dir by default, or a fresh Postgres database
 * when VIGIL_TEST_DATABASE_URL (a server URL whose user may CREATE DATABASE) is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server/start.js';

export const ADMIN_PASSWORD = 'admin-test-password';

export interface TestServer {
  url: string;
  running: RunningServer;
  close(): Promise<void>;
}

async function createPgDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vigil_t_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await a.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.destroy();
    },
  };
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const pgAdminUrl = process.env.VIGIL_TEST_DATABASE_URL;
  const pg = pgAdminUrl ? await createPgDatabase(pgAdminUrl) : null;
  const config = loadConfig({
    VIGIL_HOST: '127.0.0.1',
    VIGIL_PORT: '0',
    VIGIL_DATA_DIR: dataDir,
    VIGIL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // Cheap hashing keeps the suite fast; production defaults are in src/config.ts.
    VIGIL_ARGON2_MEMORY_KIB: '1024',
    VIGIL_ARGON2_TIME_COST: '1',
    VIGIL_LOG_LEVEL: 'silent',
    ...(pg ? { VIGIL_DATABASE_URL: pg.url } : {}),
    ...env,
  });
  const log = pino({ level: config.logLevel });
  const running = await startServer(config, log);
  return {
    url: running.url,
    running,
    async close() {
      await running.close();
      if (pg) await pg.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
