import type { Knex } from 'knex';

/**
 * Index keys whose advisories a feed sync changed, written in the transaction that makes the sync's data live and
 * removed once the images holding them were re-matched: a re-match that did not happen (a crash, a failure) is
 * still owed on the next sync, and a large sync's keys never have to fit in memory at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vuln_rematch_keys', (t) => {
    t.increments('id').primary();
    t.string('sync_id', 36).notNullable();
    t.string('ecosystem', 64).notNullable();
    /** '' for none: the key must be unique, and a unique index treats NULLs as all different. */
    t.string('release', 64).notNullable();
    t.string('package_name', 512).notNullable();
    t.unique(['sync_id', 'ecosystem', 'release', 'package_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('vuln_rematch_keys');
}
