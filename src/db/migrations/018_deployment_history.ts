import type { Knex } from 'knex';

/**
 * deployment_history: each distinct (Vigil version, database schema version) the database has been started with,
 * written at start-up after the migrations (GET /v2/system/deployment-history). `transition` is unique, so nodes
 * starting together record a change once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deployment_history', (t) => {
    t.string('deployment_id', 36).primary();
    /** The migration batch that ran at this start, when one did. */
    t.string('upgrade_id', 64).nullable();
    t.string('from_system_version', 64).nullable();
    t.string('to_system_version', 64).notNullable();
    t.string('from_database_version', 128).nullable();
    t.string('to_database_version', 128).notNullable();
    /** success | failure */
    t.string('outcome', 16).notNullable();
    /** Seconds the migrations took, when this start ran any. */
    t.double('db_upgrade_duration').nullable();
    t.string('created_at', 30).notNullable();
    t.string('transition', 600).notNullable().unique();
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('deployment_history');
}
