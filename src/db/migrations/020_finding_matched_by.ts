import type { Knex } from 'knex';

/**
 * image_vulnerabilities.matched_by: how the finding matched (vulns/match-explain.ts): `package` when the advisory
 * names the package itself (or lists it among the binaries it affects), `source-package` when it names only the
 * package's source package. Rows written before this column matched without the binaries rule, so a distro
 * finding whose advisory used another name than the package's was matched by its source package.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('image_vulnerabilities', (t) => {
    t.string('matched_by', 32).notNullable().defaultTo('package');
  });
  await knex('image_vulnerabilities')
    .whereIn('package_type', ['dpkg', 'apk', 'rpm'])
    .whereRaw('matched_name <> package_name')
    .update({ matched_by: 'source-package' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('image_vulnerabilities', (t) => {
    t.dropColumn('matched_by');
  });
}
