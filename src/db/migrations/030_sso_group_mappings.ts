import type { Knex } from 'knex';

/**
 * Single sign-on group mappings: which user groups an identity provider may put its users in. Keyed by the
 * provider's protocol and name (a SAML IdP and an OpenID Connect provider may share a name), so one table serves
 * both; deleting a provider deletes its rows in code, deleting a group cascades. user_group_members.sso_granted
 * marks memberships a sign-in made, the only ones a later sign-in may take away.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sso_group_mappings', (t) => {
    t.string('provider_source', 16).notNullable();
    t.string('provider_name', 64).notNullable();
    t.string('group_uuid', 36).notNullable().references('group_uuid').inTable('user_groups').onDelete('CASCADE');
    t.string('created_at', 30).notNullable();
    t.primary(['provider_source', 'provider_name', 'group_uuid']);
    t.index(['group_uuid']);
  });
  await knex.schema.alterTable('user_group_members', (t) => {
    t.boolean('sso_granted').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('user_group_members', (t) => {
    t.dropColumn('sso_granted');
  });
  await knex.schema.dropTableIfExists('sso_group_mappings');
}
