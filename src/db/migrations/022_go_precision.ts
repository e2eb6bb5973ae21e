import type { Knex } from 'knex';

/**
 * Go matching precision (issue 16, class 2).
 * - image_packages.go_symbols: for a Go module package, the gzipped symbol index of the binary it was found in
 *   (ecosystems/go/symbols.ts), read only when an advisory names affected symbols; null elsewhere.
 * - image_vulnerabilities.confidence: `high`, or `low` for a finding from an advisory its publisher has not
 *   reviewed (vulns/go-reachability.ts). Existing findings were all matched by reviewed rules: `high`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('image_packages', (t) => {
    t.binary('go_symbols').nullable();
  });
  await knex.schema.alterTable('image_vulnerabilities', (t) => {
    t.string('confidence', 8).notNullable().defaultTo('high');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('image_vulnerabilities', (t) => {
    t.dropColumn('confidence');
  });
  await knex.schema.alterTable('image_packages', (t) => {
    t.dropColumn('go_symbols');
  });
}
