import type { Knex } from 'knex';

/**
 * OpenID Connect single sign-on: provider configurations (with the discovery document fetched when stored, and
 * the client secret sealed), pending browser logins (state, nonce and PKCE verifier, each usable once), and device
 * grants the CLI polls through Vigil. users.oidc_provider ties an OIDC user to its provider (users.idp_name is a
 * foreign key to saml_idps, so it cannot name an OIDC provider); deleting the provider deletes its users, as for SAML.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oidc_providers', (t) => {
    t.string('name', 64).primary();
    t.boolean('enabled').notNullable();
    t.string('issuer', 1024).notNullable();
    t.text('discovery').notNullable();
    t.string('client_id', 512).notNullable();
    t.text('client_secret_sealed').nullable();
    t.string('redirect_uri', 1024).notNullable();
    t.string('scopes', 1024).notNullable();
    t.string('username_claim', 256).notNullable();
    t.string('account_claim', 256).nullable();
    t.string('role_claim', 256).nullable();
    t.string('groups_claim', 256).nullable();
    t.string('default_account', 128).nullable();
    t.string('default_role', 64).nullable();
    t.boolean('require_existing_users').notNullable();
    t.boolean('allow_api_keys').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
  });
  await knex.schema.createTable('oidc_logins', (t) => {
    // The state parameter's SHA-256: the state itself travels in URLs and logs.
    t.string('state_hash', 64).primary();
    t.string('provider_name', 64).notNullable().references('name').inTable('oidc_providers').onDelete('CASCADE');
    t.string('code_verifier', 128).notNullable();
    t.string('nonce', 128).notNullable();
    t.string('expires_at', 30).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.createTable('oidc_device_grants', (t) => {
    // The Vigil handle's SHA-256: whoever holds the handle may collect the sign-in.
    t.string('handle_hash', 64).primary();
    t.string('provider_name', 64).notNullable().references('name').inTable('oidc_providers').onDelete('CASCADE');
    t.text('device_code').notNullable();
    t.integer('interval_seconds').notNullable();
    t.string('next_poll_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.alterTable('users', (t) => {
    t.string('oidc_provider', 64).nullable().references('name').inTable('oidc_providers').onDelete('CASCADE');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropForeign(['oidc_provider']);
    t.dropColumn('oidc_provider');
  });
  for (const table of ['oidc_device_grants', 'oidc_logins', 'oidc_providers']) await knex.schema.dropTableIfExists(table);
}
