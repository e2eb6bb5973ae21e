import type { Knex } from 'knex';

/**
 * Indexes for the re-match after a feed sync (vulns/rematch.ts), which bench:match showed reading whole rows:
 * - the package tables' name index also carries type and origin, so listing every distinct (type, name, origin)
 *   to map lookup names back to stored names reads the index alone instead of every package row;
 * - the findings tables get (account, subject, package_name), so reading a subject's findings of the packages in
 *   scope reads those rows, not all of the subject's findings.
 */
const PACKAGE_TABLES = [
  { table: 'image_packages', old: 'image_packages_name_index', index: 'image_packages_lookup_names' },
  { table: 'source_packages', old: 'source_packages_name_index', index: 'source_packages_lookup_names' },
] as const;
const FINDING_TABLES = [
  { table: 'image_vulnerabilities', subject: 'image_digest', index: 'image_vulnerabilities_by_package' },
  { table: 'source_vulnerabilities', subject: 'source_id', index: 'source_vulnerabilities_by_package' },
] as const;

export async function up(knex: Knex): Promise<void> {
  for (const p of PACKAGE_TABLES)
    await knex.schema.alterTable(p.table, (t) => {
      t.index(['name', 'type', 'origin'], p.index);
      t.dropIndex([], p.old);
    });
  for (const f of FINDING_TABLES) await knex.schema.alterTable(f.table, (t) => t.index(['account_name', f.subject, 'package_name'], f.index));
}

export async function down(knex: Knex): Promise<void> {
  for (const f of FINDING_TABLES) await knex.schema.alterTable(f.table, (t) => t.dropIndex([], f.index));
  for (const p of PACKAGE_TABLES)
    await knex.schema.alterTable(p.table, (t) => {
      t.index(['name'], p.old);
      t.dropIndex([], p.index);
    });
}
