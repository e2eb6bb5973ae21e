import type { Knex } from 'knex';

/** Images, their tag mappings (current and historic), analysis results, registry credentials and events. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('images', (t) => {
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('image_digest', 80).notNullable();
    t.string('parent_digest', 80).nullable();
    t.string('image_id', 80).nullable();
    t.string('image_type', 16).notNullable();
    t.string('image_status', 16).notNullable();
    t.string('analysis_status', 20).notNullable();
    t.text('annotations').notNullable();
    /** How to fetch the image again: {kind: 'registry', pull_string, platform} or {kind: 'archive', path}. */
    t.text('source').notNullable();
    t.text('dockerfile').nullable();
    t.string('arch', 32).nullable();
    t.string('distro', 64).nullable();
    t.string('distro_version', 64).nullable();
    t.string('dockerfile_mode', 16).nullable();
    t.bigInteger('image_size').nullable();
    t.integer('layer_count').nullable();
    t.string('analyzed_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.primary(['account_name', 'image_digest']);
    t.index(['account_name', 'analysis_status']);
  });
  await knex.schema.createTable('image_tags', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('registry', 256).notNullable();
    t.string('repo', 512).notNullable();
    t.string('tag', 256).notNullable();
    t.string('full_tag', 1100).notNullable();
    t.string('tag_detected_at', 30).notNullable();
    t.boolean('current').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.unique(['account_name', 'full_tag', 'image_digest']);
    t.index(['account_name', 'full_tag', 'current']);
  });
  await knex.schema.createTable('image_status_history', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('from_status', 20).notNullable();
    t.string('to_status', 20).notNullable();
    t.text('detail').nullable();
    t.string('host_id', 256).notNullable();
    t.string('timestamp', 30).notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.index(['account_name', 'image_digest']);
  });
  await knex.schema.createTable('image_packages', (t) => {
    t.increments('id').primary();
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('type', 16).notNullable();
    t.string('name', 512).notNullable();
    t.string('version', 256).notNullable();
    t.string('origin', 512).nullable();
    t.string('source_version', 256).nullable();
    t.bigInteger('size').nullable();
    t.text('licenses').notNullable();
    t.text('locations').notNullable();
    t.text('purl').notNullable();
    t.text('cpes').notNullable();
    t.text('metadata').notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.index(['account_name', 'image_digest', 'type']);
    t.index(['account_name', 'name']);
  });
  // Large per-image documents (file list, manifest, config, history, dockerfile), stored gzipped as one row each.
  await knex.schema.createTable('image_documents', (t) => {
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    t.string('kind', 32).notNullable();
    t.binary('content').notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.primary(['account_name', 'image_digest', 'kind']);
  });
  await knex.schema.createTable('registries', (t) => {
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('registry', 512).notNullable();
    t.string('registry_name', 256).nullable();
    t.string('registry_user', 1024).nullable();
    t.text('registry_pass_encrypted').nullable();
    t.string('registry_type', 32).notNullable();
    t.boolean('registry_verify').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.primary(['account_name', 'registry']);
  });
  await knex.schema.createTable('events', (t) => {
    t.string('id', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('type', 128).notNullable();
    t.string('level', 8).notNullable();
    t.text('message').notNullable();
    t.string('resource_type', 64).notNullable();
    t.string('resource_id', 1024).notNullable();
    t.text('details').notNullable();
    t.string('host_id', 256).notNullable();
    t.string('timestamp', 30).notNullable();
    t.index(['account_name', 'timestamp']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['events', 'registries', 'image_documents', 'image_packages', 'image_status_history', 'image_tags', 'images'])
    await knex.schema.dropTableIfExists(table);
}
