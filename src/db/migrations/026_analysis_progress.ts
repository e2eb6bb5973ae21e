import type { Knex } from 'knex';

/** images.analysis_progress: how far a running analysis is (JSON: stage, layers, blob bytes), kept only while it runs. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('images', (t) => {
    t.text('analysis_progress').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('images', (t) => {
    t.dropColumn('analysis_progress');
  });
}
