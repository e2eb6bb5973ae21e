import type { Knex } from 'knex';

/** Subscriptions to changes of tags and repositories; tag_update and repo_update ones are also watches. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscriptions', (t) => {
    t.string('id', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('subscription_type', 32).notNullable();
    t.string('subscription_key', 1100).notNullable();
    t.text('subscription_value').nullable();
    t.boolean('active').notNullable();
    /** When a watcher last looked at the tag or repository; claims a check so several nodes do not repeat it. */
    t.string('last_checked_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.unique(['account_name', 'subscription_type', 'subscription_key']);
    t.index(['subscription_type', 'active', 'last_checked_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('subscriptions');
}
