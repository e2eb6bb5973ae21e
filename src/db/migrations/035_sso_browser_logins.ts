import type { Knex } from 'knex';

/**
 * Single sign-on logins the web interface starts: each is bound to the browser that started it (the hash of an
 * HttpOnly cookie's value) and ends with a one-time code for that browser, never the token in a URL. Logins are
 * keyed by the hash of the OIDC state or of the SAML RelayState Vigil made; codes by their own hash. Both expire
 * within minutes and are used once; no foreign key, as a login names a provider of either protocol.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sso_browser_logins', (t) => {
    t.string('login_hash', 64).primary();
    t.string('protocol', 8).notNullable();
    t.string('provider_name', 64).notNullable();
    t.string('browser_hash', 64).notNullable();
    t.string('return_to', 512).notNullable();
    t.string('expires_at', 30).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.createTable('sso_codes', (t) => {
    t.string('code_hash', 64).primary();
    t.string('browser_hash', 64).notNullable();
    t.string('username', 128).notNullable();
    t.string('account_name', 128).notNullable();
    t.integer('generation').notNullable();
    t.string('expires_at', 30).notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sso_codes', 'sso_browser_logins']) await knex.schema.dropTableIfExists(table);
}
