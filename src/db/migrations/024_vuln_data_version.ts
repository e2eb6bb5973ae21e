import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * vuln_data_version: one row whose `stamp` is replaced (with a random token) in every transaction that changes the
 * affected-package index. Matching keeps index entries in memory and reads the stamp once per run to know they are
 * still current, on this node and on every other node sharing the database (vulnerability-repository.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vuln_data_version', (t) => {
    t.integer('id').primary();
    t.string('stamp', 36).notNullable();
  });
  await knex('vuln_data_version').insert({ id: 1, stamp: randomUUID() });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('vuln_data_version');
}
