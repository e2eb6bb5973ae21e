/**
 * Bulk inserts (src/db/insert-rows.ts) on the suite's database: every row lands once, in order, whatever the count
 * (full chunks, then power-of-two chunks), with nulls, numbers, booleans and blobs intact, and an ON CONFLICT
 * suffix applies to every chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../src/db/index.js';
import { insertObjects, insertRows } from '../../../src/db/insert-rows.js';
import { createScratchDatabase, type ScratchDatabase } from '../../support/db.js';

let scratch: ScratchDatabase;
let db: Db;

beforeAll(async () => {
  scratch = await createScratchDatabase();
  db = createDb({ databaseUrl: scratch.url, dataDir: scratch.dataDir });
  await db.schema.createTable('bulk', (t) => {
    t.integer('n').primary();
    t.string('label').nullable();
    t.boolean('flag').notNullable();
    t.binary('body').nullable();
  });
});

afterAll(async () => {
  await db.destroy();
  await scratch.drop();
});

describe('insertRows', () => {
  it.each([0, 1, 7, 128, 300, 1000])('inserts %i rows, each once and intact', async (count) => {
    await db('bulk').delete();
    const rows = Array.from({ length: count }, (_, n) => [n, n % 5 === 0 ? null : `row ${n}`, n % 2 === 0, n % 3 === 0 ? Buffer.from([n % 256, 1]) : null]);
    await insertRows(db, 'bulk', ['n', 'label', 'flag', 'body'], rows);
    const stored = await db('bulk').orderBy('n').select('n', 'label', 'flag', 'body');
    expect(stored).toHaveLength(count);
    stored.forEach((r: { n: number; label: string | null; flag: boolean | number; body: Buffer | null }, i) => {
      expect(Number(r.n)).toBe(i);
      expect(r.label).toBe(rows[i]![1]);
      expect(Boolean(r.flag)).toBe(rows[i]![2]);
      expect(r.body === null ? null : Buffer.from(r.body)).toEqual(rows[i]![3]);
    });
  });

  it('applies its suffix to every chunk', async () => {
    await db('bulk').delete();
    const rows = Array.from({ length: 200 }, (_, n) => [n, 'first', true, null]);
    await insertRows(db, 'bulk', ['n', 'label', 'flag', 'body'], rows);
    await insertRows(db, 'bulk', ['n', 'label', 'flag', 'body'], rows.map((r) => [r[0]!, 'again', false, null]), ' ON CONFLICT (n) DO NOTHING');
    const labels = await db('bulk').distinct('label');
    expect(labels).toEqual([{ label: 'first' }]);
  });
});

describe('insertObjects', () => {
  it('takes the columns every row names, a missing one as null', async () => {
    await db('bulk').delete();
    await insertObjects(db, 'bulk', [
      { n: 1, flag: true },
      { n: 2, label: 'two', flag: false },
    ]);
    expect(await db('bulk').orderBy('n').select('n', 'label')).toEqual([
      { n: 1, label: null },
      { n: 2, label: 'two' },
    ]);
  });

  it('does nothing for no rows', async () => {
    await db('bulk').delete();
    await insertObjects(db, 'bulk', []);
    expect(Number((await db('bulk').count({ c: '*' }).first())?.c)).toBe(0);
  });
});
