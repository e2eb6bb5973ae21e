import type { Knex } from 'knex';

/**
 * SAML single sign-on: identity provider configurations, the AuthnRequest ids of pending SP-initiated logins
 * (InResponseTo must name one), and the ids of assertions already used (each signs in once). users.idp_name ties a
 * saml user to its identity provider; deleting the provider deletes its users, as upstream does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('saml_idps', (t) => {
    t.string('name', 64).primary();
    t.boolean('enabled').notNullable();
    t.string('sp_entity_id', 1024).notNullable();
    t.string('acs_url', 1024).notNullable();
    t.string('idp_metadata_url', 1024).nullable();
    t.text('idp_metadata_xml').nullable();
    t.text('idp_certificate').nullable();
    t.string('idp_sso_url', 1024).nullable();
    t.string('default_account', 128).nullable();
    t.string('default_role', 64).nullable();
    t.string('idp_username_attribute', 256).nullable();
    t.string('idp_account_attribute', 256).nullable();
    t.string('idp_role_attribute', 256).nullable();
    t.string('idp_groups_attribute', 256).nullable();
    t.boolean('require_signed_assertions').notNullable();
    t.boolean('require_signed_response').notNullable();
    t.boolean('require_existing_users').notNullable();
    t.boolean('allow_api_keys').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
  });
  await knex.schema.createTable('saml_requests', (t) => {
    t.string('id', 128).primary();
    t.string('idp_name', 64).notNullable().references('name').inTable('saml_idps').onDelete('CASCADE');
    t.string('expires_at', 30).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.createTable('saml_used_assertions', (t) => {
    // Unique per identity provider: the id is the IdP's, another IdP may reuse it.
    t.string('idp_name', 64).notNullable().references('name').inTable('saml_idps').onDelete('CASCADE');
    t.string('assertion_id', 256).notNullable();
    t.string('expires_at', 30).notNullable();
    t.primary(['idp_name', 'assertion_id']);
    t.index(['expires_at']);
  });
  await knex.schema.alterTable('users', (t) => {
    t.string('idp_name', 64).nullable().references('name').inTable('saml_idps').onDelete('CASCADE');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropForeign(['idp_name']);
    t.dropColumn('idp_name');
  });
  for (const table of ['saml_used_assertions', 'saml_requests', 'saml_idps']) await knex.schema.dropTableIfExists(table);
}
