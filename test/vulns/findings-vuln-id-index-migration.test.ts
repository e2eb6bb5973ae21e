/**
 * Migration 046 drops the findings tables' index on vuln_id alone (no query reads findings by vulnerability; every
 * inserted finding paid for it). Its down puts the index back, and findings keep their other keys either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKind, type Db } from '../../src/db/index.js';
import * as m046 from '../../src/db/migrations/046_drop_findings_vuln_id_index.js';
import { createTestDb } from '../support/db.js';

let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await createTestDb());
});
afterAll(async () => {
  await close?.();
});

/** Each index of a table as its comma-joined column list. */
async function indexedColumns(table: string): Promise<string[]> {
  if (databaseKind(db) === 'postgres') {
    const res = await db.raw<{ rows: { indexdef: string }[] }>('select indexdef from pg_indexes where schemaname = current_schema() and tablename = ?', [table]);
    return res.rows.map((r) => /\(([^)]*)\)/.exec(r.indexdef)![1]!.replace(/"/g, '').replace(/\s+/g, ''));
  }
  const indexes: { name: string }[] = await db.raw('select name from pragma_index_list(?)', [table]);
  const out: string[] = [];
  for (const { name } of indexes) {
    const cols: { name: string }[] = await db.raw('select name from pragma_index_info(?) order by seqno', [name]);
    out.push(cols.map((c) => c.name).join(','));
  }
  return out;
}

const TABLES = [
  ['image_vulnerabilities', 'image_digest'],
  ['source_vulnerabilities', 'source_id'],
] as const;

describe('migration 046_drop_findings_vuln_id_index', () => {
  it.each(TABLES)('leaves %s without an index on vuln_id, keyed by subject and by package', async (table, subject) => {
    const indexes = await indexedColumns(table);
    expect(indexes).not.toContain('vuln_id');
    expect(indexes).toEqual(expect.arrayContaining([`account_name,${subject},finding_key`, `account_name,${subject},package_name`]));
  });

  it('puts the indexes back on down and drops them again on up', async () => {
    await m046.down(db);
    for (const [table] of TABLES) expect(await indexedColumns(table)).toContain('vuln_id');
    await m046.up(db);
    for (const [table] of TABLES) expect(await indexedColumns(table)).not.toContain('vuln_id');
  });
});
