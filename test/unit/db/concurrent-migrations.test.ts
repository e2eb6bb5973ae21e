/**
 * Nodes starting at once on one empty database: every one of them comes up, and the schema is migrated once.
 * On Postgres (VIGIL_TEST_DATABASE_URL) several Knex pools stand for several nodes; on SQLite, where one file
 * serves one node, the same run checks that the lock path is not taken.
 */
import { describe, expect, it } from 'vitest';
import { createDb, latestSchemaVersion, migrateToLatest, schemaVersion } from '../../../src/db/index.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { createScratchDatabase } from '../../support/db.js';

describe('migrations at start-up', () => {
  it('lets several nodes migrate an empty database at once: each succeeds and each migration is applied once', async () => {
    const scratch = await createScratchDatabase();
    const nodes = Array.from({ length: scratch.url ? 3 : 1 }, () => createDb({ databaseUrl: scratch.url, dataDir: scratch.dataDir }));
    try {
      const results = await Promise.all(nodes.map((db) => migrateToLatest(db)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied.sort()).toEqual(Object.keys(migrations).sort());
      for (const db of nodes) expect(await schemaVersion(db)).toBe(latestSchemaVersion());
      const rows = await nodes[0]('knex_migrations').count({ n: '*' }).first();
      expect(Number(rows?.n)).toBe(Object.keys(migrations).length);
    } finally {
      await Promise.all(nodes.map((db) => db.destroy()));
      await scratch.drop();
    }
  }, 120_000);
});
