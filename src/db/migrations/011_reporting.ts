import type { Knex } from 'knex';
import { createChangeTriggers, dropChangeTriggers, REPORT_CHANGE_SOURCES } from '../report-change-triggers.js';

/**
 * Reporting: runtime inventory items, the change log that feeds the reporting read model, the report_* tables
 * the GraphQL queries read, collected metrics, and scheduled queries with their stored results.
 */
export async function up(knex: Knex): Promise<void> {
  // Images seen running (Kubernetes or ECS), one row per (context, image); expired by a TTL on last_seen.
  await knex.schema.createTable('inventory_items', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    /** kubernetes | ecs */
    t.string('inventory_type', 16).notNullable();
    /** The cluster name (Kubernetes) or cluster ARN (ECS) the report came from. */
    t.string('cluster', 512).notNullable();
    /** Where it runs: `<cluster>/<namespace>` for Kubernetes, the cluster ARN for ECS. */
    t.string('context', 1100).notNullable();
    t.string('image_tag', 1100).notNullable();
    /** Empty when the reporter did not know the digest. */
    t.string('image_digest', 80).notNullable().defaultTo('');
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.string('last_seen', 30).notNullable();
    t.unique(['account_name', 'inventory_type', 'context', 'image_tag', 'image_digest']);
    t.index(['account_name', 'image_digest']);
    t.index(['last_seen']);
  });

  // The reason of an evaluation (allowlisted, denylisted or the rules) in its own column: reports filter on it,
  // and it cannot be read reliably from the stored result (details come first and can be megabytes).
  await knex.schema.alterTable('policy_evaluations', (t) => t.string('final_action_reason', 32).nullable());
  for (let after = 0; ; ) {
    const rows: { id: number; result: string }[] = await knex('policy_evaluations').where('id', '>', after).orderBy('id').limit(500).select('id', 'result');
    if (!rows.length) break;
    for (const r of rows) {
      const reason = (JSON.parse(r.result) as { final_action_reason?: string }).final_action_reason ?? 'policy_evaluation';
      await knex('policy_evaluations').where({ id: r.id }).update({ final_action_reason: reason });
    }
    after = rows[rows.length - 1].id;
  }
  // The refresh reads an image's tag mappings; without this it read all of the account's.
  await knex.schema.alterTable('image_tags', (t) => t.index(['account_name', 'image_digest'], 'image_tags_by_image'));

  // Every change to a source table appends (kind, account, ref) here through triggers, so no write path can
  // forget to tell the reporting refresh; the refresh consumes and deletes the rows it has applied.
  await knex.schema.createTable('report_changes', (t) => {
    t.bigIncrements('id').primary();
    /** image | inventory | vulnerability | policy */
    t.string('kind', 16).notNullable();
    t.string('account_name', 128).notNullable();
    /** The image digest, `<feed> <vuln id>` or '' for account-wide kinds. */
    t.string('ref', 200).notNullable();
  });
  await createChangeTriggers(knex, REPORT_CHANGE_SOURCES);
  // Data that exists before this migration reaches the read model through the first refresh like any change.
  await knex.raw(`INSERT INTO report_changes (kind, account_name, ref) SELECT 'vulnerability', '', feed || ' ' || id FROM vulnerabilities`);
  await knex.raw(`INSERT INTO report_changes (kind, account_name, ref) SELECT 'image', account_name, image_digest FROM images`);
  await knex.raw(`INSERT INTO report_changes (kind, account_name, ref) SELECT DISTINCT 'policy', account_name, '' FROM policies`);

  await knex.schema.createTable('report_images', (t) => {
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('analysis_status', 20).notNullable();
    t.string('analyzed_at', 30).nullable();
    t.string('distro', 64).nullable();
    t.string('distro_version', 64).nullable();
    t.string('refreshed_at', 30).notNullable();
    t.primary(['account_name', 'image_digest']);
  });
  await knex.schema.createTable('report_tags', (t) => {
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('registry', 256).notNullable();
    t.string('repository', 512).notNullable();
    t.string('tag', 256).notNullable();
    t.string('full_tag', 1100).notNullable();
    t.string('detected_at', 30).notNullable();
    t.boolean('current').notNullable();
    t.primary(['account_name', 'registry', 'repository', 'tag', 'image_digest']);
    t.index(['account_name', 'image_digest']);
    t.index(['account_name', 'full_tag']);
  });
  await knex.schema.createTable('report_findings', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('vuln_id', 128).notNullable();
    t.string('feed', 64).notNullable();
    /** Copied from report_vulnerabilities and kept in step when the record's severity changes. */
    t.string('severity', 16).notNullable();
    t.string('package_name', 512).notNullable();
    t.string('package_version', 256).notNullable();
    t.string('package_type', 16).notNullable();
    t.text('package_path').nullable();
    /** The feed group the match came from (debian:12, pypi, ...). */
    t.string('namespace', 96).notNullable();
    /** Versions that fix it, comma-separated; null when there is no fix. */
    t.text('fixed_in').nullable();
    t.string('fix_observed_at', 30).nullable();
    t.string('detected_at', 30).notNullable();
    /**
     * The image's tag mappings: 2 = at least one current, 1 = historic only, 0 = none. Rewritten with the image's
     * rows whenever its tags change, it spares the default filters (current tags) a lookup per finding.
     */
    t.smallint('tag_state').notNullable();
    // Keyset scans by vulnerability (all severities) and by severity then vulnerability. They cover what the
    // image reports read (image, severity, tag state), and by vulnerability also what the artifact report reads
    // (package name, version, type, namespace), so a page of those is read from the index alone.
    t.index(
      ['account_name', 'vuln_id', 'image_digest', 'severity', 'tag_state', 'package_name', 'package_version', 'package_type', 'namespace'],
      'report_findings_by_vuln',
    );
    t.index(['account_name', 'severity', 'vuln_id', 'image_digest', 'tag_state'], 'report_findings_by_severity');
    t.index(['account_name', 'image_digest'], 'report_findings_by_image');
    t.index(['feed', 'vuln_id'], 'report_findings_by_record');
  });
  await knex.schema.createTable('report_vulnerabilities', (t) => {
    t.string('feed', 64).notNullable();
    t.string('vuln_id', 128).notNullable();
    t.string('severity', 16).notNullable();
    t.string('cve', 128).nullable();
    /** JSON array of URLs: the advisory first, then the record's other references. */
    t.text('links').notNullable();
    t.primary(['feed', 'vuln_id']);
    t.index(['vuln_id']);
  });
  await knex.schema.createTable('report_policy_evaluations', (t) => {
    /** policy_evaluations.id: evaluations are immutable apart from their latest flag. */
    t.integer('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('full_tag', 1100).notNullable();
    t.string('policy_id', 128).notNullable();
    t.string('policy_digest', 64).notNullable();
    /** pass | fail */
    t.string('result', 8).notNullable();
    /** policy_evaluation | allowlisted | denylisted */
    t.string('reason', 32).notNullable();
    t.string('evaluated_at', 30).notNullable();
    t.boolean('latest').notNullable();
    t.index(['account_name', 'image_digest', 'full_tag']);
  });
  await knex.schema.createTable('report_active_policies', (t) => {
    t.string('account_name', 128).primary();
    t.string('policy_id', 128).notNullable();
  });
  await knex.schema.createTable('report_inventory', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('inventory_type', 16).notNullable();
    t.string('context', 1100).notNullable();
    t.string('image_tag', 1100).notNullable();
    /** The reported digest, else the digest the tag currently maps to; null when neither is known. */
    t.string('image_digest', 80).nullable();
    t.string('last_seen', 30).notNullable();
    t.index(['account_name', 'image_digest']);
  });
  // Named singletons: the refresh lease and its last completion, the metrics collection slot.
  await knex.schema.createTable('report_state', (t) => {
    t.string('name', 64).primary();
    t.text('value').nullable();
    t.string('locked_by', 256).nullable();
    t.string('locked_until', 30).nullable();
  });

  await knex.schema.createTable('report_metric_data', (t) => {
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('metric_id', 128).notNullable();
    t.string('collected_at', 30).notNullable();
    t.double('value').notNullable();
    t.primary(['account_name', 'metric_id', 'collected_at']);
    t.index(['account_name', 'collected_at']);
  });

  await knex.schema.createTable('scheduled_queries', (t) => {
    t.string('uuid', 36).primary();
    /** account | global (created through the administrators' global endpoint) */
    t.string('scope', 8).notNullable();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('name', 256).notNullable();
    t.text('description').nullable();
    t.string('cron_schedule', 128).notNullable();
    t.text('query').notNullable();
    /** JSON object of the query's variables. */
    t.text('variables').notNullable();
    t.boolean('enabled').notNullable();
    /** When the scheduler runs it next; a node claims a run by moving this forward (compare-and-set). */
    t.string('next_run_at', 30).nullable();
    t.string('created_by', 128).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.index(['account_name', 'scope', 'created_at']);
    t.index(['enabled', 'next_run_at']);
  });
  await knex.schema.createTable('scheduled_query_executions', (t) => {
    t.string('uuid', 36).primary();
    t.string('query_uuid', 36).notNullable().references('uuid').inTable('scheduled_queries').onDelete('CASCADE');
    t.string('account_name', 128).notNullable();
    t.string('scope', 8).notNullable();
    /** schedule | manual */
    t.string('trigger', 16).notNullable();
    /** queued | running | complete | failed */
    t.string('status', 16).notNullable();
    /** The report kind (root field) the result is keyed by. */
    t.string('report_kind', 64).nullable();
    t.integer('result_count').notNullable().defaultTo(0);
    t.integer('page_count').notNullable().defaultTo(0);
    t.text('error').nullable();
    t.string('created_at', 30).notNullable();
    t.string('started_at', 30).nullable();
    t.string('finished_at', 30).nullable();
    t.index(['query_uuid', 'created_at']);
  });
  await knex.schema.createTable('scheduled_query_result_pages', (t) => {
    t.string('execution_uuid', 36).notNullable().references('uuid').inTable('scheduled_query_executions').onDelete('CASCADE');
    t.integer('page').notNullable();
    /** The page's result elements, gzipped JSON array. */
    t.binary('content').notNullable();
    t.primary(['execution_uuid', 'page']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await dropChangeTriggers(knex, REPORT_CHANGE_SOURCES);
  await knex.schema.alterTable('image_tags', (t) => t.dropIndex(['account_name', 'image_digest'], 'image_tags_by_image'));
  await knex.schema.alterTable('policy_evaluations', (t) => t.dropColumn('final_action_reason'));
  for (const table of [
    'scheduled_query_result_pages',
    'scheduled_query_executions',
    'scheduled_queries',
    'report_metric_data',
    'report_state',
    'report_inventory',
    'report_active_policies',
    'report_policy_evaluations',
    'report_vulnerabilities',
    'report_findings',
    'report_tags',
    'report_images',
    'report_changes',
    'inventory_items',
  ])
    await knex.schema.dropTableIfExists(table);
}
