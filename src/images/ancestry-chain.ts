/**
 * OCI ChainIDs (image-spec config.md): the identity of a stack of layers, from their uncompressed digests
 * (diff_ids). ChainID(L0) = DiffID(L0); ChainID(L0..n) = sha256 of "ChainID(L0..n-1) DiffID(Ln)". Two images share
 * a base exactly when they share the chain id of its stack, whatever compression their registries used.
 */
import { createHash } from 'node:crypto';

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The chain id of every prefix of the stack (index i: layers 0..i); empty when a diff_id is missing or malformed. */
export function layerChainIds(diffIds: readonly string[]): string[] {
  if (diffIds.some((d) => !DIGEST.test(d))) return [];
  const chain: string[] = [];
  for (const diffId of diffIds) {
    const previous = chain.at(-1);
    chain.push(previous === undefined ? diffId : `sha256:${createHash('sha256').update(`${previous} ${diffId}`).digest('hex')}`);
  }
  return chain;
}

/** The chain id of the whole stack, or null when it has none. */
export function topChainId(diffIds: readonly string[]): string | null {
  return layerChainIds(diffIds).at(-1) ?? null;
}
