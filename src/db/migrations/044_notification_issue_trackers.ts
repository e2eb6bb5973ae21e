import type { Knex } from 'knex';

/**
 * The GitHub and Jira notification endpoint kinds (src/notifications/channels/github.ts, jira.ts). Their
 * configurations, selectors, outbox rows and receipts live in the tables of migration 013 like every kind's; a
 * kind only needs its row here, which the administrator's switch (PUT /notifications/endpoints/{name}) turns on
 * and off.
 */
const KINDS = ['github', 'jira'];

export async function up(knex: Knex): Promise<void> {
  const now = new Date().toISOString();
  await knex('notification_endpoints').insert(KINDS.map((name) => ({ name, enabled: true, last_updated: now })));
}

export async function down(knex: Knex): Promise<void> {
  // Their configurations go first (selectors, notifications and receipts follow by cascade), then the kinds.
  const configurations = knex('notification_configurations').whereIn('endpoint', KINDS).select('uuid');
  await knex('notifications').whereIn('configuration_uuid', configurations).delete();
  await knex('notification_configurations').whereIn('endpoint', KINDS).delete();
  await knex('notification_endpoints').whereIn('name', KINDS).delete();
}
