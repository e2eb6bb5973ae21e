/**
 * Starts a real Vigil server for a test file: SQLite in a temp dir by default, or a fresh Postgres database
 * when VIGIL_TEST_DATABASE_URL (a server URL whose user may CREATE DATABASE) is set.
 */
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { createScratchDatabase, databaseEnv } from './db.js';
import { LOOPBACK_ALLOW } from './outbound.js';

export const ADMIN_PASSWORD = 'admin-test-password';

export interface TestServer {
  url: string;
  running: RunningServer;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Every log line goes here (at debug level), e.g. to check what is and is not logged. */
  logs?: NodeJS.WritableStream;
}

export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const scratch = await createScratchDatabase();
  const config = loadConfig({
    VIGIL_HOST: '127.0.0.1',
    VIGIL_PORT: '0',
    VIGIL_DATA_DIR: scratch.dataDir,
    VIGIL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // Cheap hashing keeps the suite fast; production defaults are in src/config.ts.
    VIGIL_ARGON2_MEMORY_KIB: '1024',
    VIGIL_ARGON2_TIME_COST: '1',
    VIGIL_LOG_LEVEL: options.logs ? 'debug' : (process.env.VIGIL_TEST_LOG_LEVEL ?? 'silent'),
    // No cron-timed feed syncs in tests: they sync on demand, deterministically.
    VIGIL_FEED_SYNC_SCHEDULE: 'off',
    // Nor timed watch sweeps: a sweep landing mid-test adds events and jobs the test did not cause. Tests of
    // watching call pollWatches themselves, or pass their own interval.
    VIGIL_WATCH_INTERVAL_SECONDS: '0',
    // The suite's registries, feed servers and receivers listen on loopback, which the outbound policy refuses
    // by default; tests of that refusal pass their own VIGIL_OUTBOUND_ALLOW ('' for none).
    VIGIL_OUTBOUND_ALLOW: LOOPBACK_ALLOW,
    ...databaseEnv(scratch),
    ...env,
  });
  const log = options.logs ? pino({ level: config.logLevel }, options.logs) : pino({ level: config.logLevel });
  const running = await startServer(config, log);
  return {
    url: running.url,
    running,
    async close() {
      await running.close();
      await scratch.drop();
    },
  };
}
