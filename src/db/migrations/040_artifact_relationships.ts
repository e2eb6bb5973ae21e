import type { Knex } from 'knex';

/**
 * artifact_relationships: directed relationships between two artifacts of an account (src/relationships/), each
 * an image (by digest) or a source revision (by uuid). The artifacts live in two tables, so there is no foreign key
 * to them: a relationship outlives a deleted artifact, and its SBOM diff then answers 404 for it. The unique key
 * makes recording the same relationship twice a conflict, decided by the database.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('artifact_relationships', (t) => {
    t.string('uuid', 36).primary();
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
    t.string('source_type', 16).notNullable();
    t.string('source_id', 128).notNullable();
    t.string('target_type', 16).notNullable();
    t.string('target_id', 128).notNullable();
    t.string('relationship_type', 32).notNullable();
    t.text('comment').nullable();
    /** JSON object, or null. */
    t.text('user_metadata').nullable();
    t.string('created_at', 30).notNullable();
    t.unique(['account_name', 'source_type', 'source_id', 'target_type', 'target_id', 'relationship_type']);
    t.index(['account_name', 'created_at']);
    t.index(['account_name', 'target_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('artifact_relationships');
}
