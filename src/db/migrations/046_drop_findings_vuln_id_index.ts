import type { Knex } from 'knex';

/**
 * Drops the findings tables' index on `vuln_id`. No query reads findings by vulnerability alone: reads go by subject
 * (the unique key and the by-package index of migration 045), and questions by vulnerability are answered by the
 * reporting read model (`report_findings`). The index cost every inserted finding a write to a page picked at
 * random by its vulnerability id, about a tenth of a re-match that adds 43 487 findings (docs/benchmarks.md).
 */
const FINDING_TABLES = ['image_vulnerabilities', 'source_vulnerabilities'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of FINDING_TABLES) await knex.schema.alterTable(table, (t) => t.dropIndex(['vuln_id']));
}

export async function down(knex: Knex): Promise<void> {
  for (const table of FINDING_TABLES) await knex.schema.alterTable(table, (t) => t.index(['vuln_id']));
}
