/**
 * Triggers that append to report_changes whenever a table the reporting read model copies from changes.
 * SQLite gets row-level triggers; Postgres gets statement-level triggers over transition tables, so a bulk
 * statement logs each (account, image) once instead of once per row.
 */
import type { Knex } from 'knex';

export interface ChangeSource {
  table: string;
  kind: 'image' | 'inventory' | 'vulnerability' | 'policy';
  /** SQL expressions over a row alias `r`. */
  account: string;
  ref: string;
  /** A condition over `r`: rows that do not meet it are not logged. */
  onlyIf?: string;
}

export const REPORT_CHANGE_SOURCES: readonly ChangeSource[] = [
  { table: 'images', kind: 'image', account: 'r.account_name', ref: 'r.image_digest' },
  { table: 'image_tags', kind: 'image', account: 'r.account_name', ref: 'r.image_digest' },
  { table: 'image_vulnerabilities', kind: 'image', account: 'r.account_name', ref: 'r.image_digest' },
  { table: 'policy_evaluations', kind: 'image', account: 'r.account_name', ref: 'r.image_digest' },
  { table: 'inventory_items', kind: 'inventory', account: 'r.account_name', ref: "''" },
  { table: 'vulnerabilities', kind: 'vulnerability', account: "''", ref: "r.feed || ' ' || r.id" },
  { table: 'policies', kind: 'policy', account: 'r.account_name', ref: "''" },
];

const EVENTS = [
  { event: 'INSERT', rows: 'NEW', suffix: 'ins' },
  { event: 'UPDATE', rows: 'NEW', suffix: 'upd' },
  { event: 'DELETE', rows: 'OLD', suffix: 'del' },
] as const;

const isPg = (knex: Knex) => knex.client.config.client === 'pg';
const nameOf = (s: ChangeSource, suffix: string) => `report_changes_${s.table}_${suffix}`;

export async function createChangeTriggers(knex: Knex, sources: readonly ChangeSource[]): Promise<void> {
  for (const s of sources)
    for (const e of EVENTS) {
      const name = nameOf(s, e.suffix);
      if (isPg(knex)) {
        const transition = e.rows === 'NEW' ? 'changed_new' : 'changed_old';
        await knex.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_changes (kind, account_name, ref)
    SELECT DISTINCT '${s.kind}', ${s.account}, ${s.ref} FROM ${transition} r${s.onlyIf ? ` WHERE ${s.onlyIf}` : ''};
  RETURN NULL;
END $$`);
        await knex.raw(
          `CREATE TRIGGER ${name} AFTER ${e.event} ON ${s.table} REFERENCING ${e.rows} TABLE AS ${transition} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
        );
      } else {
        const row = (expr: string) => expr.replaceAll('r.', `${e.rows}.`);
        await knex.raw(
          `CREATE TRIGGER ${name} AFTER ${e.event} ON ${s.table} FOR EACH ROW${s.onlyIf ? ` WHEN ${row(s.onlyIf)}` : ''} BEGIN
  INSERT INTO report_changes (kind, account_name, ref) VALUES ('${s.kind}', ${row(s.account)}, ${row(s.ref)});
END`,
        );
      }
    }
}

export async function dropChangeTriggers(knex: Knex, sources: readonly ChangeSource[]): Promise<void> {
  for (const s of sources)
    for (const e of EVENTS) {
      const name = nameOf(s, e.suffix);
      if (isPg(knex)) {
        await knex.raw(`DROP TRIGGER IF EXISTS ${name} ON ${s.table}`);
        await knex.raw(`DROP FUNCTION IF EXISTS ${name}()`);
      } else {
        await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
      }
    }
}
