import { gunzipSync } from 'node:zlib';
import type { Knex } from 'knex';
import { topChainId } from '../../images/ancestry-chain.js';

/**
 * images.chain_id: the OCI ChainID of the image's whole layer stack. An image is an ancestor of another when its
 * chain id is the chain id of one of the other's layer prefixes, which one indexed lookup answers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('images', (t) => {
    t.string('chain_id', 71).nullable();
    t.index(['account_name', 'chain_id']);
  });
  // Images analyzed before: their chain id from the stored layer list.
  const docs: { account_name: string; image_digest: string; content: Buffer }[] = await knex('image_documents').where({ kind: 'layers' }).select('account_name', 'image_digest', 'content');
  for (const doc of docs) {
    const layers = JSON.parse(gunzipSync(doc.content).toString('utf8')) as { diff_id?: string | null }[];
    const chainId = topChainId(layers.map((l) => l.diff_id ?? ''));
    if (chainId) await knex('images').where({ account_name: doc.account_name, image_digest: doc.image_digest }).update({ chain_id: chainId });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('images', (t) => {
    t.dropIndex(['account_name', 'chain_id']);
    t.dropColumn('chain_id');
  });
}
