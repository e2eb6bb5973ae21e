/**
 * An image's ancestors: the analyzed images of the same account whose whole layer stack is a proper prefix of its
 * own (found by OCI ChainID, see ancestry-chain.ts), nearest first. The base image is the nearest ancestor a user
 * marked as a base (annotation `anchore.user/marked_base_image: "true"`), or else the nearest ancestor.
 */
import type { Db } from '../db/index.js';
import { layerChainIds } from './ancestry-chain.js';
import { readDocument } from './store.js';

export const MARKED_BASE_ANNOTATION = 'anchore.user/marked_base_image';

export interface ImageAncestor {
  image_digest: string;
  parent_digest: string | null;
  /** The ancestor's current tags. */
  tags: string[];
  /** The ancestor's layer digests, bottom first. */
  layers: string[];
  user_marked_base: boolean;
  chosen_base_image: boolean;
}

interface StoredLayer {
  digest: string;
  diff_id?: string | null;
}

function markedAsBase(annotations: string): boolean {
  try {
    const parsed = JSON.parse(annotations) as Record<string, unknown>;
    return String(parsed[MARKED_BASE_ANNOTATION] ?? '').toLowerCase() === 'true';
  } catch {
    return false;
  }
}

export async function imageAncestors(db: Db, accountName: string, digest: string): Promise<ImageAncestor[]> {
  const layers = (await readDocument<StoredLayer[]>(db, accountName, digest, 'layers')) ?? [];
  return ancestorsOfLayers(db, accountName, layers.map((l) => l.diff_id ?? ''), digest);
}

/** The ancestors of a stack of layers (their diff_ids, bottom first), e.g. of an image known only by its SBOM. */
export async function ancestorsOfLayers(db: Db, accountName: string, diffIds: readonly string[], digest: string): Promise<ImageAncestor[]> {
  const prefixes = layerChainIds(diffIds).slice(0, -1);
  if (prefixes.length === 0) return [];
  const depth = new Map(prefixes.map((chainId, i) => [chainId, i]));
  const rows: { image_digest: string; parent_digest: string | null; annotations: string; chain_id: string }[] = await db('images')
    .where({ account_name: accountName, analysis_status: 'analyzed', image_status: 'active' })
    .whereIn('chain_id', prefixes)
    .whereNot('image_digest', digest)
    .select('image_digest', 'parent_digest', 'annotations', 'chain_id');
  rows.sort((a, b) => depth.get(b.chain_id)! - depth.get(a.chain_id)! || (a.image_digest < b.image_digest ? -1 : 1));

  const tags: { image_digest: string; full_tag: string }[] = await db('image_tags')
    .where({ account_name: accountName, current: true })
    .whereIn('image_digest', rows.map((r) => r.image_digest))
    .orderBy('full_tag')
    .select('image_digest', 'full_tag');
  const ancestors = await Promise.all(
    rows.map(async (row): Promise<ImageAncestor> => ({
      image_digest: row.image_digest,
      parent_digest: row.parent_digest,
      tags: tags.filter((t) => t.image_digest === row.image_digest).map((t) => t.full_tag),
      layers: ((await readDocument<StoredLayer[]>(db, accountName, row.image_digest, 'layers')) ?? []).map((l) => l.digest),
      user_marked_base: markedAsBase(row.annotations),
      chosen_base_image: false,
    })),
  );
  const base = ancestors.find((a) => a.user_marked_base) ?? ancestors[0];
  if (base) base.chosen_base_image = true;
  return ancestors;
}
