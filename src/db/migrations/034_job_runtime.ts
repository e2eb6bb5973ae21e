import type { Knex } from 'knex';

/**
 * The job runtime's records (src/jobs/): a de-duplication key (one waiting job per key, enforced by a partial
 * unique index, so two nodes queuing the same work at once still leave one), and a run record on every job: when
 * its last try started and ended and which worker ran it (locked_by is cleared when a try ends).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.string('dedup_key', 255).nullable();
    t.string('started_at', 30).nullable();
    t.string('finished_at', 30).nullable();
    t.string('ran_on', 128).nullable();
    t.index(['status', 'finished_at'], 'jobs_status_finished');
  });
  await knex.raw(`CREATE UNIQUE INDEX jobs_waiting_dedup ON jobs (dedup_key) WHERE status = 'queued' AND dedup_key IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS jobs_waiting_dedup');
  await knex.schema.alterTable('jobs', (t) => {
    t.dropIndex(['status', 'finished_at'], 'jobs_status_finished');
    t.dropColumn('dedup_key');
    t.dropColumn('started_at');
    t.dropColumn('finished_at');
    t.dropColumn('ran_on');
  });
}
