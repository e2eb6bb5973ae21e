import type { Knex } from 'knex';

/** Policy documents per account; exactly one is active (enforced by a partial unique index and in code). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('policies', (t) => {
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('policy_id', 128).notNullable();
    t.string('name', 256).notNullable();
    t.text('description').nullable();
    t.boolean('active').notNullable();
    t.string('policy_source', 32).notNullable();
    /** The validated policy document, JSON. */
    t.text('document').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.primary(['account_name', 'policy_id']);
  });
  const activeTrue = knex.client.config.client === 'pg' ? 'active' : 'active = 1';
  await knex.raw(`CREATE UNIQUE INDEX policies_one_active ON policies (account_name) WHERE ${activeTrue}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('policies');
}
