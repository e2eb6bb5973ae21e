import type { Knex } from 'knex';

/**
 * Package corrections (false-positive management): shared by every account, so no account column. The match and
 * the replacements are kept as the JSON the API takes; matching reads the whole (bounded) list at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('corrections', (t) => {
    t.string('uuid', 36).primary();
    t.string('type', 16).notNullable();
    t.text('description').nullable();
    t.text('match_json').notNullable();
    t.text('replace_json').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('corrections');
}
