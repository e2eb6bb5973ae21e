import type { Knex } from 'knex';

/**
 * system_services: the service registry. Every node registers one row per service role it runs (apiext,
 * analyzer, ...) at start-up and refreshes `heartbeat_at` every `heartbeat_seconds`; a row is live while its
 * heartbeat is fresh and it has not been stopped. Nodes sharing a database see each other here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('system_services', (t) => {
    t.string('service_name', 64).notNullable();
    t.string('host_id', 256).notNullable();
    t.string('base_url', 600).notNullable();
    t.string('version', 64).notNullable();
    t.string('db_version', 128).notNullable();
    /** The process that holds the row (host id, pid and a random token): a restart on the same host replaces it. */
    t.string('instance_id', 128).notNullable();
    t.string('started_at', 30).notNullable();
    t.string('heartbeat_at', 30).notNullable();
    t.integer('heartbeat_seconds').notNullable();
    /** Set by a graceful stop; null while the process runs. */
    t.string('stopped_at', 30).nullable();
    /** Whether the role was at capacity at the last heartbeat (the analyzer: every job slot taken). */
    t.boolean('busy').notNullable().defaultTo(false);
    t.string('logging_level', 16).notNullable();
    t.primary(['service_name', 'host_id']);
    t.index(['host_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('system_services');
}
