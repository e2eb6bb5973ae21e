import type { Knex } from 'knex';

/** Accounts, users, credentials, API keys, roles and memberships, revoked tokens, settings. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.string('name', 128).primary();
    t.string('email', 320).nullable();
    t.string('type', 16).notNullable();
    t.string('state', 16).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
  });
  await knex.schema.createTable('users', (t) => {
    t.string('username', 128).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('type', 16).notNullable();
    t.string('source', 32).notNullable();
    t.string('state', 16).notNullable().defaultTo('enabled');
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.string('password_last_updated', 30).nullable();
    t.index(['account_name']);
  });
  await knex.schema.createTable('credentials', (t) => {
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('username', 128).notNullable().references('username').inTable('users').onDelete('CASCADE');
    t.string('type', 16).notNullable();
    t.text('value_hash').notNullable();
    t.string('created_at', 30).notNullable();
    t.primary(['username', 'type']);
  });
  await knex.schema.createTable('api_keys', (t) => {
    // key_id is the public half of the key value; the secret half is stored only as a hash.
    t.string('key_id', 32).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('username', 128).notNullable().references('username').inTable('users').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    t.text('description').nullable();
    t.string('secret_hash', 128).notNullable();
    t.string('expires_at', 30).notNullable();
    t.string('revoked_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.unique(['username', 'name']);
  });
  await knex.schema.createTable('roles', (t) => {
    t.string('name', 64).primary();
    t.text('description').notNullable();
    t.boolean('immutable').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
  });
  await knex.schema.createTable('role_permissions', (t) => {
    t.string('role_name', 64).notNullable().references('name').inTable('roles').onDelete('CASCADE');
    t.string('action', 128).notNullable();
    t.string('target', 128).notNullable();
    t.primary(['role_name', 'action', 'target']);
  });
  await knex.schema.createTable('role_members', (t) => {
    t.string('role_name', 64).notNullable().references('name').inTable('roles').onDelete('CASCADE');
    t.string('username', 128).notNullable().references('username').inTable('users').onDelete('CASCADE');
    // The account the role applies to (domain); the user may belong to another account.
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('created_at', 30).notNullable();
    t.primary(['role_name', 'username', 'account_name']);
    t.index(['username', 'account_name']);
  });
  await knex.schema.createTable('revoked_tokens', (t) => {
    t.string('jti', 64).primary();
    t.string('expires_at', 30).notNullable();
  });
  await knex.schema.createTable('settings', (t) => {
    t.string('key', 64).primary();
    t.text('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['settings', 'revoked_tokens', 'role_members', 'role_permissions', 'roles', 'api_keys', 'credentials', 'users', 'accounts'])
    await knex.schema.dropTableIfExists(table);
}
