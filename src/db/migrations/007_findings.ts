import type { Knex } from 'knex';

/**
 * Feed data keyed per feed (two feeds may carry the same advisory id), staging tables for syncs, KEV and EPSS,
 * feed groups with their enabled flag, per-image findings and vulnerability annotations.
 *
 * The 006 feed tables are dropped and rebuilt rather than altered: feed data is a cache of the configured
 * sources and the next sync fills it again, while SQLite cannot change a primary key in place.
 */
function feedRecordColumns(t: Knex.CreateTableBuilder): void {
  t.string('feed', 64).notNullable();
  t.string('id', 128).notNullable();
  t.string('modified', 40).notNullable();
  t.string('published', 40).nullable();
  t.string('withdrawn', 40).nullable();
  t.text('summary').nullable();
  t.string('severity_label', 32).nullable();
  t.text('severity').notNullable();
  t.text('aliases').notNullable();
  /** sha256 of the record without `modified`: what change detection compares (some feeds never bump modified). */
  t.string('content_digest', 64).notNullable();
  /** The normalised OSV record, deflated JSON. */
  t.binary('record').notNullable();
  t.string('updated_at', 30).notNullable();
}

function affectedColumns(t: Knex.CreateTableBuilder): void {
  t.string('feed', 64).notNullable();
  t.string('vuln_id', 128).notNullable();
  /** Feed group (namespace) the entry belongs to: `debian:12`, `alpine:3.18`, `pypi`. */
  t.string('grp', 96).notNullable();
  /** Lower-case base ecosystem (debian, alpine, pypi, npm, go, maven, rubygems, ...). */
  t.string('ecosystem', 64).notNullable();
  /** Distribution release (12, 3.18, 22.04), or null for language ecosystems. */
  t.string('release', 64).nullable();
  /** Name normalised per ecosystem (PEP 503 for PyPI, ...), as the matcher looks it up. */
  t.string('package_name', 512).notNullable();
  /** The OSV affected entry (ranges, versions), JSON. */
  t.text('affected').notNullable();
}

export async function up(knex: Knex): Promise<void> {
  for (const table of ['vulnerability_affected', 'vulnerabilities', 'vuln_feeds']) await knex.schema.dropTableIfExists(table);

  await knex.schema.createTable('vuln_feeds', (t) => {
    t.string('name', 64).primary();
    /** osv | alpine-secdb | kev | epss, detected from the source. */
    t.string('kind', 16).nullable();
    /** Where the last sync read from: a path, a URL (credentials removed) or an uploaded file. */
    t.text('source').nullable();
    t.string('source_etag', 512).nullable();
    /** Upload metadata (air-gapped deployments): the dataset version, build time and checksum the uploader gave. */
    t.string('version', 128).nullable();
    t.string('built_at', 40).nullable();
    t.string('checksum', 128).nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('created_at', 30).notNullable();
    t.string('last_sync_at', 30).nullable();
    t.string('last_success_at', 30).nullable();
    t.string('last_sync_status', 16).nullable();
    t.text('last_sync_error').nullable();
    t.text('last_sync_stats').nullable();
  });
  await knex.schema.createTable('vuln_feed_groups', (t) => {
    t.string('feed', 64).notNullable().references('name').inTable('vuln_feeds').onDelete('CASCADE');
    t.string('name', 96).notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.integer('record_count').notNullable().defaultTo(0);
    t.string('created_at', 30).notNullable();
    t.string('last_sync', 30).nullable();
    t.primary(['feed', 'name']);
  });
  await knex.schema.createTable('vulnerabilities', (t) => {
    feedRecordColumns(t);
    t.foreign('feed').references('name').inTable('vuln_feeds').onDelete('CASCADE');
    t.primary(['feed', 'id']);
    t.index(['id']);
  });
  await knex.schema.createTable('vulnerability_affected', (t) => {
    t.increments('row_id').primary();
    affectedColumns(t);
    t.foreign(['feed', 'vuln_id']).references(['feed', 'id']).inTable('vulnerabilities').onDelete('CASCADE');
    // Covers the matcher's first step (which entries exist for these names), so it never reads the table; the
    // entries' JSON is then read by row id only for those not already parsed in memory.
    t.index(['ecosystem', 'package_name', 'release', 'feed', 'vuln_id', 'grp', 'row_id'], 'vulnerability_affected_lookup');
    t.index(['feed', 'vuln_id']);
  });
  // A sync writes here in small transactions, then moves everything to the live tables in one short one.
  await knex.schema.createTable('vuln_sync_records', (t) => {
    t.string('sync_id', 36).notNullable();
    feedRecordColumns(t);
    t.index(['sync_id']);
  });
  await knex.schema.createTable('vuln_sync_affected', (t) => {
    t.string('sync_id', 36).notNullable();
    affectedColumns(t);
    t.index(['sync_id']);
  });
  await knex.schema.createTable('vuln_kev', (t) => {
    t.string('cve_id', 32).primary();
    t.string('feed', 64).notNullable().references('name').inTable('vuln_feeds').onDelete('CASCADE');
    t.string('vendor_project', 256).nullable();
    t.string('product', 256).nullable();
    t.text('vulnerability_name').nullable();
    t.string('date_added', 16).nullable();
    t.string('due_date', 16).nullable();
    t.string('known_ransomware_campaign_use', 32).nullable();
  });
  await knex.schema.createTable('vuln_epss', (t) => {
    t.string('cve_id', 32).primary();
    t.string('feed', 64).notNullable().references('name').inTable('vuln_feeds').onDelete('CASCADE');
    t.double('epss').notNullable();
    t.double('percentile').notNullable();
  });

  await knex.schema.alterTable('images', (t) => {
    /** os-release ID_LIKE, comma-separated: lets derivatives (rocky -> rhel) match their parent's feed. */
    t.string('distro_like', 256).nullable();
  });
  // Re-matching after a feed change finds the images holding a package by name.
  await knex.schema.alterTable('image_packages', (t) => t.index(['name'], 'image_packages_name_index'));

  await knex.schema.createTable('image_vulnerabilities', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    /** sha256 over (vuln, package type, name, version, path): one finding per vulnerability per installed package. */
    t.string('finding_key', 64).notNullable();
    t.string('vuln_id', 128).notNullable();
    t.string('feed', 64).notNullable();
    t.string('feed_group', 96).notNullable();
    t.string('package_type', 16).notNullable();
    t.string('package_name', 512).notNullable();
    t.string('package_version', 256).notNullable();
    t.text('package_path').nullable();
    t.text('package_purl').nullable();
    /** The name the advisory used (the package itself or its source package). */
    t.string('matched_name', 512).notNullable();
    /** fixed | not-fixed | wont-fix */
    t.string('fix_state', 16).notNullable();
    /** JSON array of versions that fix it. */
    t.text('fixed_in').notNullable();
    t.string('detected_at', 30).notNullable();
    t.string('fix_observed_at', 30).nullable();
    t.string('last_updated', 30).notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.unique(['account_name', 'image_digest', 'finding_key']);
    t.index(['vuln_id']);
  });

  await knex.schema.createTable('vuln_annotations', (t) => {
    t.string('uuid', 36).primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('vulnerability_id', 128).notNullable();
    t.string('package_name', 512).nullable();
    t.string('package_version', 256).nullable();
    t.string('package_type', 16).nullable();
    t.string('status', 32).notNullable();
    t.string('justification', 64).nullable();
    t.text('status_notes').nullable();
    t.text('impact_statement').nullable();
    t.text('action_statement').nullable();
    t.text('additional_details').nullable();
    t.string('author', 128).notNullable();
    t.integer('version').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.index(['account_name', 'image_digest']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'vuln_annotations',
    'image_vulnerabilities',
    'vuln_epss',
    'vuln_kev',
    'vuln_sync_affected',
    'vuln_sync_records',
    'vulnerability_affected',
    'vulnerabilities',
    'vuln_feed_groups',
    'vuln_feeds',
  ])
    await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('image_packages', (t) => t.dropIndex(['name'], 'image_packages_name_index'));
  await knex.schema.alterTable('images', (t) => t.dropColumn('distro_like'));
}
