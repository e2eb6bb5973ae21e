import type { Knex } from 'knex';

/**
 * The analysis archive (src/archive/): one record per archived image analysis of an account (its tags and
 * metadata, for listing without opening the archive) whose content is a stored upload (purpose
 * `analysis-archive`, src/uploads/stored-uploads.ts), and the archive transition rules the periodic job applies.
 * A system-global rule belongs to the admin account and applies to every account.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('analysis_archive', (t) => {
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('image_digest', 80).notNullable();
    t.string('parent_digest', 80).nullable();
    t.string('status', 16).notNullable();
    /** JSON: the annotations of the image when it was archived. */
    t.text('annotations').notNullable();
    /** JSON: the image's tag mappings (TagEntry) when it was archived. */
    t.text('image_detail').notNullable();
    t.string('upload_id', 36).notNullable();
    t.integer('tag_count').notNullable();
    t.bigInteger('archive_size_bytes').notNullable();
    t.string('analyzed_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.primary(['account_name', 'image_digest']);
  });
  await knex.schema.createTable('analysis_archive_rules', (t) => {
    t.string('rule_id', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('transition', 16).notNullable();
    /** JSON ImageSelector. */
    t.text('selector').notNullable();
    t.integer('tag_versions_newer').notNullable();
    t.integer('analysis_age_days').notNullable();
    t.boolean('system_global').notNullable();
    /** JSON AnalysisArchiveTransitionRuleExclude, or null. */
    t.text('exclude').nullable();
    t.integer('max_images_per_account').nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.index(['account_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('analysis_archive_rules');
  await knex.schema.dropTableIfExists('analysis_archive');
}
