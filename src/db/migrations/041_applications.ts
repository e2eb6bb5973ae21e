import type { Knex } from 'knex';

/**
 * Applications (src/applications/): an account's applications, their versions, and the artifacts (images by
 * digest, sources by id) associated with a version. An association names its artifact by `artifact_id` without a
 * foreign key, because images are keyed by account and digest and sources by id; reads join the artifact's table,
 * so an association whose artifact was deleted drops out of every answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('applications', (t) => {
    t.string('application_id', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('name', 256).notNullable();
    t.text('description').nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.unique(['account_name', 'name']);
  });
  await knex.schema.createTable('application_versions', (t) => {
    t.string('application_version_id', 36).primary();
    t.string('application_id', 36).notNullable().references('application_id').inTable('applications').onDelete('CASCADE');
    t.string('version_name', 256).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.unique(['application_id', 'version_name']);
  });
  await knex.schema.createTable('application_artifacts', (t) => {
    t.string('association_id', 36).primary();
    t.string('application_version_id', 36).notNullable().references('application_version_id').inTable('application_versions').onDelete('CASCADE');
    t.string('account_name', 128).notNullable();
    t.string('artifact_type', 16).notNullable();
    t.string('artifact_id', 128).notNullable();
    t.string('created_at', 30).notNullable();
    t.unique(['application_version_id', 'artifact_type', 'artifact_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['application_artifacts', 'application_versions', 'applications']) await knex.schema.dropTableIfExists(table);
}
