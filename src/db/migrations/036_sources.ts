import type { Knex } from 'knex';

/**
 * Source repositories imported from SBOMs (src/sources/). A source is one revision of one repository on one host;
 * importing the same revision again replaces its packages and adds a metadata record (CI workflow, branch,
 * author). Its packages and findings have the columns of the image tables, keyed by source_id instead of the
 * image digest, so matching (vulns/findings.ts) writes both through one code path.
 * import_operations.artifact_type keeps image and source import operations apart on the one shared table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('import_operations', (t) => {
    t.string('artifact_type', 16).notNullable().defaultTo('image');
  });
  await knex.schema.createTable('sources', (t) => {
    t.string('source_id', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('host', 256).notNullable();
    t.string('repository_name', 512).notNullable();
    t.string('revision', 128).notNullable();
    t.string('vcs_type', 16).notNullable();
    t.string('analysis_status', 20).notNullable();
    t.string('source_status', 16).notNullable();
    t.string('sbom_format', 16).notNullable();
    t.string('distro', 64).nullable();
    t.string('distro_version', 64).nullable();
    t.string('distro_like', 256).nullable();
    t.string('analyzed_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.unique(['account_name', 'host', 'repository_name', 'revision']);
    t.index(['account_name', 'created_at']);
  });
  await knex.schema.createTable('source_metadata_records', (t) => {
    t.string('uuid', 36).primary();
    t.string('source_id', 36).notNullable().references('source_id').inTable('sources').onDelete('CASCADE');
    t.string('ci_workflow_name', 256).nullable();
    t.string('ci_workflow_execution_time', 30).nullable();
    t.string('branch_name', 256).nullable();
    t.string('change_author', 256).nullable();
    t.string('created_at', 30).notNullable();
    t.index(['source_id', 'created_at']);
  });
  await knex.schema.createTable('source_packages', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('source_id', 36).notNullable().references('source_id').inTable('sources').onDelete('CASCADE');
    t.string('type', 16).notNullable();
    t.string('name', 512).notNullable();
    t.string('version', 256).notNullable();
    t.string('origin', 512).nullable();
    t.string('source_version', 256).nullable();
    t.bigInteger('size').nullable();
    t.text('licenses').notNullable();
    t.text('locations').notNullable();
    t.text('purl').notNullable();
    t.text('cpes').notNullable();
    t.text('metadata').notNullable();
    t.text('owner').nullable();
    t.index(['account_name', 'source_id', 'type']);
    // Re-matching after a feed change finds the sources holding a package by name.
    t.index(['name'], 'source_packages_name_index');
  });
  await knex.schema.createTable('source_vulnerabilities', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('source_id', 36).notNullable().references('source_id').inTable('sources').onDelete('CASCADE');
    t.string('finding_key', 64).notNullable();
    t.string('vuln_id', 128).notNullable();
    t.string('feed', 64).notNullable();
    t.string('feed_group', 96).notNullable();
    t.string('package_type', 16).notNullable();
    t.string('package_name', 512).notNullable();
    t.string('package_version', 256).notNullable();
    t.text('package_path').nullable();
    t.text('package_purl').nullable();
    t.string('matched_name', 512).notNullable();
    t.string('matched_by', 32).notNullable();
    t.string('fix_state', 16).notNullable();
    t.text('fixed_in').notNullable();
    t.string('confidence', 8).notNullable();
    t.string('detected_at', 30).notNullable();
    t.string('fix_observed_at', 30).nullable();
    t.string('last_updated', 30).notNullable();
    t.unique(['account_name', 'source_id', 'finding_key']);
    t.index(['vuln_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['source_vulnerabilities', 'source_packages', 'source_metadata_records', 'sources']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('import_operations', (t) => {
    t.dropColumn('artifact_type');
  });
}
