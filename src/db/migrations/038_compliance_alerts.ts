import type { Knex } from 'knex';

/**
 * Compliance-violation alerts: one row per failing episode of a tag with an active `alerts` subscription. It is
 * opened by a STOP evaluation, follows the tag's later STOP evaluations (digest, evaluation, triggers), and is
 * closed by the next passing one (`cleared`: the episode ended) or by a user. No foreign key to the image: an
 * alert outlives the deletion of the image it was raised for.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('compliance_alerts', (t) => {
    t.string('uuid', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('state', 8).notNullable();
    t.string('image_tag', 1100).notNullable();
    t.string('registry', 255).notNullable();
    t.string('repository', 512).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('policy_id', 128).notNullable();
    t.string('evaluation_id', 64).notNullable();
    t.string('evaluated_at', 30).notNullable();
    t.string('compliance_status_reason', 32).notNullable();
    t.integer('violations_count').notNullable();
    /** JSON array of the STOP triggers ({gate, trigger, trigger_id, rule_id}), at most 100. */
    t.text('triggers').notNullable();
    t.string('closed_by', 128).nullable();
    t.string('closed_reason', 255).nullable();
    /** A passing evaluation ended the episode: the next STOP opens a new alert. */
    t.boolean('cleared').notNullable().defaultTo(false);
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.index(['account_name', 'state', 'created_at']);
    t.index(['account_name', 'image_tag']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('compliance_alerts');
}
