import type { Knex } from 'knex';

/** The job queue: work items claimed with a lease, so a crashed worker's jobs are picked up again. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('jobs', (t) => {
    t.increments('id').primary();
    t.string('kind', 64).notNullable();
    t.text('payload').notNullable();
    t.string('account_name', 128).nullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('status', 16).notNullable(); // queued | running | done | failed
    t.string('run_at', 30).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable();
    t.string('locked_by', 128).nullable();
    t.string('locked_until', 30).nullable();
    t.text('last_error').nullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.index(['status', 'run_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('jobs');
}
