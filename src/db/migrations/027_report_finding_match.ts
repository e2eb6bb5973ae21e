import type { Knex } from 'knex';

/**
 * The reporting read model learns how each finding matched (issue 16: a finding says why it matched, in every
 * view): report_findings.matched_by and .confidence, copied from image_vulnerabilities by the refresher. Existing
 * rows get the defaults, and every image is logged as changed so that the next refresh rewrites its rows with the
 * real values (the read model is derived; nothing is lost meanwhile).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('report_findings', (t) => {
    t.string('matched_by', 32).notNullable().defaultTo('package');
    t.string('confidence', 8).notNullable().defaultTo('high');
  });
  await knex.raw(`INSERT INTO report_changes (kind, account_name, ref) SELECT 'image', account_name, image_digest FROM images`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('report_findings', (t) => {
    t.dropColumn('confidence');
    t.dropColumn('matched_by');
  });
}
