import type { Knex } from 'knex';

/**
 * vuln_nvd: NVD's CVSS per CVE (from NVD 2.0 JSON feeds), read with a record's CVE aliases to fill `nvd_data` and
 * the severity of records that carry none. `data` is the NvdDataObject list as the API shows it (JSON); `severity`
 * the rating of the preferred metric, kept as a column so it is not re-derived on every read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vuln_nvd', (t) => {
    t.string('cve_id', 32).primary();
    t.string('feed', 64).notNullable().references('name').inTable('vuln_feeds').onDelete('CASCADE');
    t.string('severity', 16).notNullable();
    t.text('data').notNullable();
    t.index(['feed']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('vuln_nvd');
}
