import type { Knex } from 'knex';

/**
 * Uploads kept in the database instead of a node's data directory, so any node can read what another received:
 * image archives (until their analysis has finished) and feed files (as the feed's source). The bytes are stored
 * in chunks of a few MiB, written as the request streams in, so no node holds a whole upload in memory.
 * state: receiving (chunks still arriving) | stored (complete, not yet claimed) | held (an image or feed uses it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stored_uploads', (t) => {
    t.string('id', 36).primary();
    t.string('purpose', 16).notNullable(); // image-archive | feed
    t.string('state', 16).notNullable();
    t.bigInteger('size').notNullable();
    t.string('sha256', 64).nullable();
    t.string('file_name', 255).nullable();
    // What holds it: an image (account and digest) or a feed (name).
    t.string('account_name', 128).nullable();
    t.string('image_digest', 128).nullable();
    t.string('feed', 128).nullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.index(['state', 'updated_at']);
  });
  await knex.schema.createTable('stored_upload_chunks', (t) => {
    t.string('upload_id', 36).notNullable().references('id').inTable('stored_uploads').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.binary('bytes').notNullable();
    t.primary(['upload_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stored_upload_chunks');
  await knex.schema.dropTable('stored_uploads');
}
