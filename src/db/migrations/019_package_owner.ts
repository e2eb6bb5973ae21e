import type { Knex } from 'knex';

/**
 * image_packages.owner: for a language package installed by the OS package manager, the owning OS package as JSON
 * `{"type","name","version"}` (images/ownership.ts). A column rather than a metadata field because matching reads
 * it for every package and never needs the metadata.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('image_packages', (t) => {
    t.text('owner').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('image_packages', (t) => {
    t.dropColumn('owner');
  });
}
