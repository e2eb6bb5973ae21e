import type { Knex } from 'knex';

/** Stored policy evaluations: the newest per (image, tag, policy) is flagged latest; earlier ones are history. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('policy_evaluations', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('tag', 1100).notNullable();
    t.string('policy_id', 128).notNullable();
    /** sha256 of the policy document evaluated, so a result names exactly what produced it. */
    t.string('policy_digest', 64).notNullable();
    t.string('status', 8).notNullable();
    t.string('final_action', 8).notNullable();
    t.boolean('latest').notNullable();
    /** The PolicyEvaluationResult with details, JSON. */
    t.text('result').notNullable();
    t.string('evaluation_time', 30).notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.index(['account_name', 'image_digest', 'tag', 'policy_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('policy_evaluations');
}
