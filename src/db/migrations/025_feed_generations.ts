import type { Knex } from 'knex';
import { createChangeTriggers, dropChangeTriggers, REPORT_CHANGE_SOURCES } from '../report-change-triggers.js';

/**
 * Feed generations: a sync writes the records that are new to a feed straight into the live tables, under the
 * feed's next generation, and its switch publishes them by raising `vuln_feeds.generation`; readers see only rows
 * whose generation is at most their feed's. `pending_generation` is set while a sync has such rows unpublished, so
 * the next sync of the feed knows to clear what a crashed one left. The matcher's covering index carries the
 * generation; the report change log of the records table logs only rows that are visible (the switch logs the
 * rows it publishes).
 */
const VULNERABILITY_SOURCE = REPORT_CHANGE_SOURCES.filter((s) => s.table === 'vulnerabilities');

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('vuln_feeds', (t) => {
    t.integer('generation').notNullable().defaultTo(0);
    t.integer('pending_generation').nullable();
  });
  for (const table of ['vulnerabilities', 'vulnerability_affected'])
    await knex.schema.alterTable(table, (t) => {
      t.integer('generation').notNullable().defaultTo(0);
    });
  await knex.schema.alterTable('vulnerability_affected', (t) => {
    t.dropIndex([], 'vulnerability_affected_lookup');
    t.index(['ecosystem', 'package_name', 'release', 'feed', 'vuln_id', 'grp', 'row_id', 'generation'], 'vulnerability_affected_lookup');
  });
  await dropChangeTriggers(knex, VULNERABILITY_SOURCE);
  await createChangeTriggers(
    knex,
    VULNERABILITY_SOURCE.map((s) => ({ ...s, onlyIf: 'r.generation <= (SELECT f.generation FROM vuln_feeds f WHERE f.name = r.feed)' })),
  );
}

export async function down(knex: Knex): Promise<void> {
  await dropChangeTriggers(knex, VULNERABILITY_SOURCE);
  await createChangeTriggers(knex, VULNERABILITY_SOURCE);
  await knex.schema.alterTable('vulnerability_affected', (t) => {
    t.dropIndex([], 'vulnerability_affected_lookup');
    t.index(['ecosystem', 'package_name', 'release', 'feed', 'vuln_id', 'grp', 'row_id'], 'vulnerability_affected_lookup');
  });
  for (const table of ['vulnerabilities', 'vulnerability_affected'])
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('generation');
    });
  await knex.schema.alterTable('vuln_feeds', (t) => {
    t.dropColumn('generation');
    t.dropColumn('pending_generation');
  });
}
