/**
 * Bulk inserts as plain multi-row `INSERT … VALUES (…), (…)`, on both databases. Knex builds a multi-row insert
 * for SQLite as `SELECT … UNION ALL SELECT …`, which SQLite parses and plans as a compound query: for 200 rows of
 * findings that cost more than inserting them (bench:match). Rows go in full chunks and the rest in power-of-two
 * chunks, so a table sees at most eight statement texts on SQLite, whose client keeps their prepared statements
 * (sqlite-client.ts).
 */
import { databaseKind, type Db } from './index.js';

export type RowValue = string | number | boolean | Buffer | null;

/**
 * Rows per statement on SQLite, whose kept statements' texts stay short; Postgres, a round trip per statement,
 * takes up to 1 000 rows (fewer for wide rows: its limit is 65 535 parameters). Smaller chunks are powers of two.
 */
const SQLITE_CHUNK_ROWS = 128;
const POSTGRES_CHUNK_ROWS = 1000;
const POSTGRES_MAX_PARAMETERS = 60_000;

/** Inserts `rows` (values in `columns` order); `suffix` follows each statement (an ON CONFLICT clause). */
export async function insertRows(db: Db, table: string, columns: readonly string[], rows: readonly (readonly RowValue[])[], suffix = ''): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  const chunkRows = databaseKind(db) === 'postgres' ? Math.min(POSTGRES_CHUNK_ROWS, Math.floor(POSTGRES_MAX_PARAMETERS / columns.length)) : SQLITE_CHUNK_ROWS;
  for (let i = 0; i < rows.length; ) {
    const left = rows.length - i;
    const size = left >= chunkRows ? chunkRows : 2 ** Math.floor(Math.log2(left));
    const chunk = rows.slice(i, i + size);
    await db.raw(`${head}${Array.from({ length: size }, () => tuple).join(', ')}${suffix}`, chunk.flat() as RowValue[]);
    i += size;
  }
}

/** insertRows for rows as objects: the columns are every key any row has; a row without one inserts null. */
export async function insertObjects(db: Db, table: string, rows: readonly Record<string, RowValue | undefined>[]): Promise<void> {
  if (rows.length === 0) return;
  const keys = new Set<string>();
  for (const r of rows) for (const k in r) keys.add(k);
  const columns = [...keys];
  await insertRows(
    db,
    table,
    columns,
    rows.map((r) => columns.map((c) => r[c] ?? null)),
  );
}
