import type { Knex } from 'knex';

/**
 * action_plans: remediation plans recorded per image of an account (POST /v2/actions). Not tied to the images row:
 * a plan is a record of what was decided, kept when the image is deleted; gone with the account.
 * system_configurations: runtime settings stored through /v2/system/configurations, one row per key set; a key
 * without a row has the default the node's environment gives. The value is JSON text.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('action_plans', (t) => {
    t.string('uuid', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('type', 64).nullable();
    t.string('image_digest', 80).notNullable();
    t.string('image_tag', 1100).nullable();
    t.string('policy_id', 128).nullable();
    /** The resolutions as JSON: [{trigger_ids, content}]. */
    t.text('resolutions').notNullable();
    t.string('endpoint', 64).nullable();
    t.string('configuration_id', 64).nullable();
    t.string('subject', 1024).nullable();
    t.text('message').nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.index(['account_name', 'created_at']);
    t.index(['account_name', 'image_digest']);
  });
  await knex.schema.createTable('system_configurations', (t) => {
    t.string('key', 128).primary();
    t.string('uuid', 36).notNullable();
    t.text('value').notNullable();
    t.string('updated_by', 128).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('system_configurations');
  await knex.schema.dropTableIfExists('action_plans');
}
