import type { Knex } from 'knex';

/**
 * User groups: named sets of users holding account roles together. A member's effective roles are its own plus
 * its groups'. Every reference cascades, so deleting a group, a user, an account or a role leaves no orphan rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('user_groups', (t) => {
    t.string('group_uuid', 36).primary();
    t.string('name', 128).notNullable().unique();
    t.text('description').nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
  });
  await knex.schema.createTable('user_group_members', (t) => {
    t.string('group_uuid', 36).notNullable().references('group_uuid').inTable('user_groups').onDelete('CASCADE');
    t.string('username', 128).notNullable().references('username').inTable('users').onDelete('CASCADE');
    t.string('created_at', 30).notNullable();
    t.primary(['group_uuid', 'username']);
    // The per-request role lookup goes from the user to its groups.
    t.index(['username']);
  });
  await knex.schema.createTable('user_group_roles', (t) => {
    t.string('membership_id', 36).primary();
    t.string('group_uuid', 36).notNullable().references('group_uuid').inTable('user_groups').onDelete('CASCADE');
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('role_name', 64).notNullable().references('name').inTable('roles').onDelete('CASCADE');
    t.string('created_at', 30).notNullable();
    t.unique(['group_uuid', 'account_name', 'role_name']);
    t.index(['account_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['user_group_roles', 'user_group_members', 'user_groups']) await knex.schema.dropTableIfExists(table);
}
