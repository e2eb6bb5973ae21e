/**
 * The SQLite client keeps prepared statements per connection (src/db/sqlite-client.ts): a repeated query reuses
 * its statement, the cache stays bounded, and a kept statement still answers correctly after the schema changed
 * under it; and connections open with the settings db/index.ts gives them. These run against SQLite whichever
 * database the suite targets: the client is SQLite's alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../src/db/index.js';
import { preparedStatement, STATEMENTS_PER_CONNECTION } from '../../../src/db/sqlite-client.js';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, JOURNAL_SIZE_LIMIT_BYTES } from '../../../src/db/wal-checkpointer.js';

let dir: string;
let db: Db;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-sqlite-client-'));
  db = createDb({ databaseUrl: null, dataDir: dir });
  await db.schema.createTable('things', (t) => {
    t.increments('id');
    t.string('name').notNullable();
  });
});

afterEach(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function connectionOf(handle: Db): Promise<BetterSqlite3.Database> {
  const conn = (await handle.client.acquireConnection()) as BetterSqlite3.Database;
  await handle.client.releaseConnection(conn);
  return conn;
}

describe('statement-caching SQLite client', () => {
  it('reuses the prepared statement of a repeated query text, with fresh bindings each time', async () => {
    const conn = await connectionOf(db);
    await db('things').insert([{ name: 'a' }, { name: 'b' }]);
    const first = await db('things').where({ name: 'a' }).select('name');
    const again = await db('things').where({ name: 'b' }).select('name');
    expect(first).toEqual([{ name: 'a' }]);
    expect(again).toEqual([{ name: 'b' }]);
    const sql = db('things').where({ name: 'x' }).select('name').toSQL().sql;
    expect(preparedStatement(conn, sql)).toBe(preparedStatement(conn, sql));
  });

  it('keeps at most STATEMENTS_PER_CONNECTION statements, dropping the least recently used', async () => {
    const conn = await connectionOf(db);
    const oldest = preparedStatement(conn, 'SELECT 0 AS n');
    const recent = preparedStatement(conn, 'SELECT 1 AS n');
    for (let i = 2; i < STATEMENTS_PER_CONNECTION; i++) preparedStatement(conn, `SELECT ${i} AS n`);
    // Used again, so it is no longer the least recently used.
    expect(preparedStatement(conn, 'SELECT 0 AS n')).toBe(oldest);
    preparedStatement(conn, `SELECT ${STATEMENTS_PER_CONNECTION} AS n`);
    expect(preparedStatement(conn, 'SELECT 0 AS n')).toBe(oldest);
    expect(preparedStatement(conn, 'SELECT 1 AS n')).not.toBe(recent);
  });

  it('does not keep one-off long statements', async () => {
    const conn = await connectionOf(db);
    const long = `SELECT 1 AS n WHERE 1 IN (${Array.from({ length: 4000 }, (_, i) => i).join(', ')})`;
    expect(preparedStatement(conn, long)).not.toBe(preparedStatement(conn, long));
  });

  it('answers with the new shape after the schema changed under a kept statement', async () => {
    await db('things').insert({ name: 'a' });
    expect(await db('things').select('*')).toEqual([{ id: 1, name: 'a' }]);
    await db.schema.alterTable('things', (t) => t.string('colour').nullable());
    await db('things').update({ colour: 'red' });
    expect(await db('things').select('*')).toEqual([{ id: 1, name: 'a', colour: 'red' }]);
    await db.schema.dropTable('things');
    await expect(db('things').select('*')).rejects.toThrow(/no such table/);
  });

  it('reports inserted row ids and changed-row counts as knex expects', async () => {
    const [id] = await db('things').insert({ name: 'a' });
    const [id2] = await db('things').insert({ name: 'b' });
    expect([id, id2]).toEqual([1, 2]);
    expect(await db('things').where('id', '>', 0).update({ name: 'c' })).toBe(2);
    expect(await db('things').where({ id: 1 }).delete()).toBe(1);
  });

  it('rolls back a failed transaction whose statements are kept', async () => {
    await db('things').insert({ name: 'kept' });
    await expect(
      db.transaction(async (trx) => {
        await trx('things').insert({ name: 'lost' });
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    await db.transaction(async (trx) => trx('things').insert({ name: 'second' }));
    expect((await db('things').orderBy('id').select('name')).map((r) => r.name)).toEqual(['kept', 'second']);
  });

  it('opens connections in WAL mode with foreign keys on, a memory map as large as SQLite allows and a high checkpoint backstop', async () => {
    const conn = await connectionOf(db);
    expect(conn.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(conn.pragma('foreign_keys', { simple: true })).toBe(1);
    // SQLite clamps the request to its compile-time SQLITE_MAX_MMAP_SIZE (about 2 GiB): the whole of most
    // databases, not the 256 MiB the re-match outgrew.
    expect(conn.pragma('mmap_size', { simple: true }) as number).toBeGreaterThan(1024 ** 3);
    // The checkpointer thread copies the WAL; this connection does only past the backstop, and a rewound WAL is cut back.
    expect(conn.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
    expect(conn.pragma('journal_size_limit', { simple: true })).toBe(JOURNAL_SIZE_LIMIT_BYTES);
  });
});
