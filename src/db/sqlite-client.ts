/**
 * Knex's better-sqlite3 client, with two changes: the WAL is checkpointed in a thread of its own
 * (wal-checkpointer.ts), stopped when the client is destroyed; and each connection keeps its prepared statements
 * by SQL text. Knex prepares every query anew; SQLite's prepare (parsing, planning, compiling triggers and
 * foreign-key checks into the statement) cost more than running many of the small queries a refresh or re-match
 * repeats per image (bench:match: about a tenth of a re-match was spent in prepare). Knex builds the same text for the same query
 * shape, so a repeated query finds its statement; the bindings change, the plan does not.
 *
 * better-sqlite3 runs a statement to completion in `all`/`run` (knex never leaves one iterating), so one prepared
 * statement can serve every later use on its connection. SQLite re-prepares a kept statement itself after a
 * schema change (migrations). The cache is bounded per connection, least recently used first out.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { watchWalCheckpoints, type WalCheckpointer } from './wal-checkpointer.js';

const require = createRequire(import.meta.url);
// Knex publishes its dialects' classes only by path; this is the class `client: 'better-sqlite3'` names.
const KnexBetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as new (config: SqliteClientConfig) => {
  destroy(callback?: (err?: unknown) => void): Promise<void>;
};

interface SqliteClientConfig {
  connection: { filename: string };
}

/** Statements kept per connection: more than the distinct query shapes of any hot path. */
export const STATEMENTS_PER_CONNECTION = 256;
/** Longer texts are one-off (large IN lists, multi-row inserts of odd sizes): prepared, used and dropped. */
const MAX_KEPT_SQL_LENGTH = 16_384;

const kept = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

/** The connection's prepared statement for `sql`, kept for the next use when it is worth keeping. */
export function preparedStatement(connection: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  if (sql.length > MAX_KEPT_SQL_LENGTH) return connection.prepare(sql);
  let statements = kept.get(connection);
  if (!statements) kept.set(connection, (statements = new Map()));
  const found = statements.get(sql);
  if (found) {
    // Re-inserted, so the Map's order stays least recently used first.
    statements.delete(sql);
    statements.set(sql, found);
    return found;
  }
  const statement = connection.prepare(sql);
  statements.set(sql, statement);
  if (statements.size > STATEMENTS_PER_CONNECTION) statements.delete(statements.keys().next().value!);
  return statement;
}

interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: unknown;
  response?: unknown;
  context?: { lastID: number | bigint; changes: number };
}

interface KnexClientInternals {
  _optSafeIntegers(options: unknown): boolean | undefined;
  _formatBindings(bindings: unknown[] | undefined): unknown[];
}

/** Pass as knex's `client` (db/index.ts). */
export class SqliteClient extends KnexBetterSqlite3Client {
  private readonly checkpoints: WalCheckpointer;

  constructor(config: SqliteClientConfig) {
    super(config);
    this.checkpoints = watchWalCheckpoints(config.connection.filename);
  }

  /** Lets the WAL rewind between the transactions of a long write (WalCheckpointer.letRewind). */
  letWalRewind(): Promise<void> {
    return this.checkpoints.letRewind();
  }

  /** The checkpointer's connection closes first, so the last one to close checkpoints and removes the WAL. */
  override async destroy(callback?: (err?: unknown) => void): Promise<void> {
    await this.checkpoints.stop();
    return super.destroy(callback);
  }

  async _query(connection: BetterSqlite3.Database, obj: QueryObject): Promise<QueryObject> {
    if (!obj.sql) throw new Error('The query is empty');
    if (!connection) throw new Error('No connection provided');
    const self = this as unknown as KnexClientInternals;
    const safeIntegers = self._optSafeIntegers(obj.options);
    // A per-query integer mode would stay set on a kept statement: such a query gets a statement of its own.
    const statement = safeIntegers === undefined ? preparedStatement(connection, obj.sql) : connection.prepare(obj.sql).safeIntegers(safeIntegers);
    const bindings = self._formatBindings(obj.bindings);
    if (statement.reader) {
      obj.response = statement.all(bindings);
      return obj;
    }
    const response = statement.run(bindings);
    obj.response = response;
    obj.context = { lastID: response.lastInsertRowid, changes: response.changes };
    return obj;
  }
}
