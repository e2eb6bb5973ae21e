/**
 * The WAL checkpointer thread (src/db/wal-checkpointer.ts): it copies committed pages into the database file while
 * the writing connection never checkpoints, starts by itself once the WAL grows, and stops cleanly. SQLite only,
 * whichever database the suite targets: the thread exists for SQLite files.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDb, letWalRewind } from '../../../src/db/index.js';
import { REWIND_AT_BYTES, watchWalCheckpoints, type WalCheckpointer } from '../../../src/db/wal-checkpointer.js';

let dir: string;
let file: string;
let conn: Database.Database;
let checkpointer: WalCheckpointer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-wal-'));
  file = join(dir, 'test.sqlite');
  conn = new Database(file);
  conn.pragma('journal_mode = WAL');
  // Only the thread may checkpoint: what reaches the database file is its work.
  conn.pragma('wal_autocheckpoint = 0');
  conn.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
});

afterEach(async () => {
  await checkpointer?.stop();
  checkpointer = undefined;
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Commits about `mib` MiB of rows, a transaction per MiB. */
function write(mib: number): void {
  const insert = conn.prepare('INSERT INTO blobs (body) VALUES (?)');
  const body = Buffer.alloc(1024, 7);
  for (let m = 0; m < mib; m++) conn.transaction(() => { for (let i = 0; i < 1024; i++) insert.run(body); })();
}

describe('WAL checkpointer thread', () => {
  it('copies committed pages into the database file while the writer never checkpoints', async () => {
    write(2);
    const before = statSync(file).size;
    checkpointer = watchWalCheckpoints(file, { startNow: true, intervalMs: 10 });
    await vi.waitFor(() => expect(checkpointer?.report?.framesCopied ?? 0).toBeGreaterThan(500), { timeout: 10_000, interval: 20 });
    expect(statSync(file).size).toBeGreaterThan(before + 2 * 1024 * 1024);
    const report = await checkpointer.stop();
    expect(report?.checkpoints).toBeGreaterThan(0);
    expect(checkpointer.running).toBe(false);
    expect((conn.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n).toBe(2048);
  });

  it('starts by itself once the WAL grows past 4 MiB, and not before', async () => {
    checkpointer = watchWalCheckpoints(file, { intervalMs: 10 });
    write(1);
    expect(checkpointer.running).toBe(false);
    write(5);
    await vi.waitFor(() => expect(checkpointer?.report?.framesCopied ?? 0).toBeGreaterThan(0), { timeout: 10_000, interval: 50 });
    expect(checkpointer.running).toBe(true);
  });

  it("lets the next write rewind a WAL it has copied whole, which cuts the file back to the connection's limit", async () => {
    // The application's connection keeps a WAL of up to its backstop and relies on this to give the disk back.
    conn.pragma('journal_size_limit = 1048576');
    write(6);
    const grown = statSync(`${file}-wal`).size;
    expect(grown).toBeGreaterThan(6 * 1024 * 1024);
    checkpointer = watchWalCheckpoints(file, { startNow: true, intervalMs: 10 });
    const frames = Math.floor(grown / (4096 + 24));
    await vi.waitFor(() => expect(checkpointer?.report?.framesCopied ?? 0).toBeGreaterThanOrEqual(frames), { timeout: 10_000, interval: 20 });
    write(1);
    expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect((conn.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n).toBe(7 * 1024);
  });

  it('copies the whole WAL when asked to drain, before its schedule would, so the next write rewinds it', async () => {
    conn.pragma('journal_size_limit = 1048576');
    // A schedule that would not checkpoint for a minute: what is copied is the drain's work.
    checkpointer = watchWalCheckpoints(file, { intervalMs: 60_000, maxDelayMs: 60_000 });
    write(6);
    expect(checkpointer.running).toBe(false);
    // Draining starts the thread if the WAL has not yet been looked at.
    expect(await checkpointer.drain()).toBe(true);
    expect(checkpointer.running).toBe(true);
    write(1);
    expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(2 * 1024 * 1024);
    // With a reader holding the old snapshot, the copy cannot finish, and says so.
    write(2);
    const reader = new Database(file, { readonly: true });
    const read = reader.prepare('SELECT id FROM blobs').iterate();
    read.next();
    write(1);
    expect(await checkpointer.drain()).toBe(false);
    read.return?.();
    reader.close();
    expect(await checkpointer.drain()).toBe(true);
    await checkpointer.stop();
    expect(await checkpointer.drain()).toBe(false);
    expect((conn.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n).toBe(10 * 1024);
  });

  it("keeps a long writer's WAL near REWIND_AT_BYTES when the writer lets it rewind between transactions", async () => {
    const dataDir = join(dir, 'vigil');
    const db = createDb({ databaseUrl: null, dataDir });
    try {
      await db.schema.createTable('rows', (t) => {
        t.increments('id');
        t.binary('body');
      });
      const body = Buffer.alloc(1024, 1);
      const mib = Math.ceil((3 * REWIND_AT_BYTES) / (1024 * 1024));
      let largest = 0;
      for (let m = 0; m < mib; m++) {
        await db.transaction(async (trx) => trx.batchInsert('rows', Array.from({ length: 1024 }, () => ({ body })), 200));
        largest = Math.max(largest, statSync(join(dataDir, 'vigil.sqlite-wal')).size);
        await letWalRewind(db);
      }
      // Three times the threshold written; the WAL never held much more than the threshold and one transaction.
      expect(largest).toBeLessThan(REWIND_AT_BYTES + 4 * 1024 * 1024);
      expect(Number((await db('rows').count({ n: '*' }))[0]!.n)).toBe(mib * 1024);
    } finally {
      await db.destroy();
    }
  });

  it('stop() before the thread started answers at once', async () => {
    checkpointer = watchWalCheckpoints(file);
    expect(await checkpointer.stop()).toBeUndefined();
  });

  it('is stopped by the database handle, whose close then removes the WAL', async () => {
    const dataDir = join(dir, 'vigil');
    const db = createDb({ databaseUrl: null, dataDir });
    await db.schema.createTable('rows', (t) => {
      t.increments('id');
      t.binary('body');
    });
    const body = Buffer.alloc(1024, 1);
    for (let m = 0; m < 6; m++) await db.transaction(async (trx) => trx.batchInsert('rows', Array.from({ length: 1024 }, () => ({ body })), 200));
    await db.destroy();
    expect(() => statSync(join(dataDir, 'vigil.sqlite-wal'))).toThrow();
    const check = new Database(join(dataDir, 'vigil.sqlite'), { readonly: true });
    expect((check.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n).toBe(6 * 1024);
    check.close();
  });
});
