import type { Knex } from 'knex';

/**
 * Notifications: endpoint kinds (enabled or not), per-account endpoint configurations with their selectors,
 * the outbox of notifications waiting for or past delivery, and a receipt per delivery attempt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_endpoints', (t) => {
    t.string('name', 16).primary();
    t.boolean('enabled').notNullable();
    t.string('last_updated', 30).notNullable();
  });
  const now = new Date().toISOString();
  await knex('notification_endpoints').insert(['webhook', 'slack', 'teams', 'smtp'].map((name) => ({ name, enabled: true, last_updated: now })));

  await knex.schema.createTable('notification_configurations', (t) => {
    t.string('uuid', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('endpoint', 16).notNullable().references('name').inTable('notification_endpoints');
    t.string('description', 1024).nullable();
    t.boolean('verify_tls').notNullable();
    t.integer('timeout_seconds').notNullable();
    /** Fields that are not secret (host, port, from, username, ...), as JSON. */
    t.text('settings').notNullable();
    /** Secret fields (url, password, signing secret), as JSON sealed with the SecretBox. */
    t.text('secrets').notNullable();
    /** The URL as responses show it (scheme and host only), so listing never has to unseal. */
    t.string('url_shown', 300).nullable();
    t.string('status', 16).notNullable();
    t.string('last_attempt_at', 30).nullable();
    t.text('last_error').nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.index(['account_name', 'endpoint']);
  });

  await knex.schema.createTable('notification_selectors', (t) => {
    t.string('uuid', 36).primary();
    t.string('configuration_uuid', 36).notNullable().references('uuid').inTable('notification_configurations').onDelete('CASCADE');
    t.string('account_name', 128).notNullable();
    t.string('scope', 16).notNullable();
    t.string('level', 8).notNullable();
    t.string('resource_type', 128).notNullable();
    t.string('type', 255).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.index(['scope', 'account_name']);
    t.index(['configuration_uuid']);
  });

  await knex.schema.createTable('notifications', (t) => {
    t.string('id', 36).primary();
    t.string('configuration_uuid', 36).notNullable().references('uuid').inTable('notification_configurations').onDelete('CASCADE');
    t.string('endpoint', 16).notNullable();
    /** The account whose event it was (a global selector's configuration belongs to admin). */
    t.string('account_name', 128).notNullable();
    t.string('notification_type', 32).notNullable();
    t.string('event_id', 36).nullable();
    t.string('event_type', 255).notNullable();
    /** The NotificationMessage as JSON: built once, delivered the same on every try. */
    t.text('message').notNullable();
    t.string('state', 16).notNullable();
    t.integer('tries').notNullable();
    t.integer('max_tries').notNullable();
    t.integer('replays').notNullable().defaultTo(0);
    t.string('next_attempt_at', 30).nullable();
    /** A claim by a dispatcher: until then no other dispatcher takes it; after it (a crash), it is due again. */
    t.string('claimed_by', 128).nullable();
    t.string('claimed_until', 30).nullable();
    t.text('last_error').nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.string('delivered_at', 30).nullable();
    t.index(['state', 'next_attempt_at']);
    t.index(['configuration_uuid', 'created_at']);
  });

  await knex.schema.createTable('notification_receipts', (t) => {
    t.string('id', 36).primary();
    t.string('notification_id', 36).notNullable().references('id').inTable('notifications').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.string('attempted_at', 30).notNullable();
    t.integer('latency_ms').notNullable();
    t.boolean('success').notNullable();
    t.integer('http_status').nullable();
    t.text('smtp_response').nullable();
    t.text('response').notNullable();
    t.text('error').nullable();
    t.index(['notification_id', 'attempted_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['notification_receipts', 'notifications', 'notification_selectors', 'notification_configurations', 'notification_endpoints'])
    await knex.schema.dropTableIfExists(table);
}
