import type { Knex } from 'knex';

/** Vulnerability feeds, their records (OSV), and the affected-package index the matcher looks up by name. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vuln_feeds', (t) => {
    t.string('name', 64).primary();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('last_sync_at', 30).nullable();
    t.string('last_sync_status', 16).nullable();
    t.text('last_sync_error').nullable();
    t.text('last_sync_stats').nullable();
  });
  await knex.schema.createTable('vulnerabilities', (t) => {
    t.string('id', 128).primary();
    t.string('feed', 64).notNullable().references('name').inTable('vuln_feeds').onDelete('CASCADE');
    t.string('modified', 40).notNullable();
    t.string('published', 40).nullable();
    t.string('withdrawn', 40).nullable();
    t.text('summary').nullable();
    t.string('severity_label', 32).nullable();
    t.text('severity').notNullable();
    t.text('aliases').notNullable();
    /** The normalised OSV record, gzipped JSON. */
    t.binary('record').notNullable();
    t.string('updated_at', 30).notNullable();
    t.index(['feed']);
  });
  await knex.schema.createTable('vulnerability_affected', (t) => {
    t.increments('id').primary();
    t.string('vuln_id', 128).notNullable().references('id').inTable('vulnerabilities').onDelete('CASCADE');
    /** Lower-case base ecosystem (debian, alpine, pypi, npm, go, maven, rubygems, crates.io, ...). */
    t.string('ecosystem', 64).notNullable();
    /** Distribution release (12, 3.18, 22.04) or null for language ecosystems. */
    t.string('release', 64).nullable();
    /** Name normalised per ecosystem (PEP 503 for PyPI, ...), as the matcher looks it up. */
    t.string('package_name', 512).notNullable();
    /** The OSV affected entry (ranges, versions), JSON. */
    t.text('affected').notNullable();
    t.index(['ecosystem', 'package_name']);
    t.index(['vuln_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['vulnerability_affected', 'vulnerabilities', 'vuln_feeds']) await knex.schema.dropTableIfExists(table);
}
