import type { Knex } from 'knex';

/** SBOM import operations and their uploaded parts (packages, manifest, config, ...). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('import_operations', (t) => {
    t.string('uuid', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.index(['account_name', 'created_at']);
  });
  await knex.schema.createTable('import_contents', (t) => {
    t.string('operation_uuid', 36).notNullable().references('uuid').inTable('import_operations').onDelete('CASCADE');
    t.string('kind', 32).notNullable();
    t.string('digest', 80).notNullable();
    t.binary('content').notNullable();
    t.string('created_at', 30).notNullable();
    t.primary(['operation_uuid', 'kind', 'digest']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('import_contents');
  await knex.schema.dropTableIfExists('import_operations');
}
