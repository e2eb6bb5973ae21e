import type { Knex } from 'knex';

/**
 * users.token_generation: bumped whenever a user's sign-in rights shrink (password set or removed, user disabled,
 * a role removed). Every token carries the generation it was issued under and stops working once it is stale,
 * so earlier refresh and access tokens die with the change instead of living out their lifetime.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.integer('token_generation').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('token_generation');
  });
}
