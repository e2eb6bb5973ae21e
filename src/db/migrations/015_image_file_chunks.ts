import { gunzipSync, gzipSync } from 'node:zlib';
import type { Knex } from 'knex';
import { writeFileList } from '../../images/file-list.js';
import type { FileRecord } from '../../images/model.js';

/**
 * image_file_chunks: an image's file list in chunks (src/images/file-list.ts) instead of one `files` document, so
 * listing a page of files or streaming them reads only what it needs. Images analyzed before are converted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('image_file_chunks', (t) => {
    t.string('account_name', 128).notNullable();
    t.string('image_digest', 80).notNullable();
    /** Position of the chunk's first file in the path-ordered list. */
    t.integer('first_index').notNullable();
    t.integer('file_count').notNullable();
    t.binary('content').notNullable();
    t.foreign(['account_name', 'image_digest']).references(['account_name', 'image_digest']).inTable('images').onDelete('CASCADE');
    t.primary(['account_name', 'image_digest', 'first_index']);
  });
  // One document at a time: each may be large.
  const keys: { account_name: string; image_digest: string }[] = await knex('image_documents').where({ kind: 'files' }).select('account_name', 'image_digest');
  for (const key of keys) {
    const row = await knex('image_documents').where({ ...key, kind: 'files' }).first('content');
    const files = JSON.parse(gunzipSync(row.content).toString('utf8')) as FileRecord[];
    await writeFileList(knex, key.account_name, key.image_digest, files);
    await knex('image_documents').where({ ...key, kind: 'files' }).delete();
  }
}

export async function down(knex: Knex): Promise<void> {
  const keys: { account_name: string; image_digest: string }[] = await knex('image_file_chunks').distinct('account_name', 'image_digest');
  for (const key of keys) {
    const chunks: { content: Buffer }[] = await knex('image_file_chunks').where(key).orderBy('first_index').select('content');
    const files = chunks.flatMap((c) => JSON.parse(gunzipSync(c.content).toString('utf8')) as FileRecord[]);
    await knex('image_documents').insert({ ...key, kind: 'files', content: gzipSync(JSON.stringify(files)) });
  }
  await knex.schema.dropTableIfExists('image_file_chunks');
}
