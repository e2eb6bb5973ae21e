import type { Knex } from 'knex';

/**
 * system_services.node_roles: the Vigil process roles (VIGIL_ROLES) of the node that wrote the registration, comma
 * separated, so GET /v2/system/services shows which node runs what. Rows written before this migration have none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('system_services', (t) => {
    t.string('node_roles', 128).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('system_services', (t) => {
    t.dropColumn('node_roles');
  });
}
