import type { Knex } from 'knex';

/**
 * Distro release keys changed (vulns/osv/ecosystem.ts): Red Hat's mainline streams are keyed by major release,
 * SUSE and openSUSE products by release, Ubuntu Pro services apart from plain releases. Index rows written before
 * keep the old keys, and a sync rewrites only records whose content changed, so the records holding such entries get
 * an empty content digest: the next sync of their feed rewrites them under the new keys (and queues the re-match of
 * the images holding their packages), as it would a changed record.
 */
const REKEYED_ECOSYSTEMS = ['red hat', 'suse', 'opensuse', 'rocky linux', 'almalinux', 'mageia'];

export async function up(knex: Knex): Promise<void> {
  const holding = knex('vulnerability_affected')
    .distinct('feed', 'vuln_id')
    .where((w) => w.whereIn('ecosystem', REKEYED_ECOSYSTEMS).orWhere((u) => u.where('ecosystem', 'ubuntu').andWhere('affected', 'like', '%"pro":true%')));
  await knex('vulnerabilities').whereIn(['feed', 'id'], holding).update({ content_digest: '' });
}

export async function down(): Promise<void> {
  // Nothing to undo: an emptied digest only makes the next sync rewrite the record.
}
