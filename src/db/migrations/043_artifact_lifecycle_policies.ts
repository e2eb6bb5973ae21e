import type { Knex } from 'knex';

/**
 * Artifact lifecycle policies (src/lifecycle/): system-wide, so no account column. The policy row holds what is
 * current (name, action, enabled, the current conditions version); every version of the conditions is its own
 * row, so an update adds one and never rewrites history. Deleting a policy stamps `deleted_at` (its versions stay
 * for the run events that name them); only policies that are not deleted hold their name.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('artifact_lifecycle_policies', (t) => {
    t.string('uuid', 36).primary();
    t.string('name', 256).notNullable();
    t.text('description').nullable();
    t.string('action', 16).notNullable();
    t.boolean('enabled').notNullable();
    t.integer('current_version').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.string('deleted_at', 30).nullable();
  });
  await knex.raw(`CREATE UNIQUE INDEX artifact_lifecycle_policies_live_name ON artifact_lifecycle_policies (name) WHERE deleted_at IS NULL`);
  await knex.schema.createTable('artifact_lifecycle_policy_versions', (t) => {
    t.string('policy_uuid', 36).notNullable().references('uuid').inTable('artifact_lifecycle_policies').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.text('conditions_json').notNullable();
    t.string('created_at', 30).notNullable();
    t.primary(['policy_uuid', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('artifact_lifecycle_policy_versions');
  await knex.raw('DROP INDEX IF EXISTS artifact_lifecycle_policies_live_name');
  await knex.schema.dropTableIfExists('artifact_lifecycle_policies');
}
