import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { layerChainIds, topChainId } from '../../../../src/images/ancestry-chain.js';
import { ancestryGate } from '../../../../src/policy/gates/ancestry.js';
import { fakeContext, run } from './fake-context.js';

const d = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const ANCESTORS = [
  { digest: d(2), chosenBase: true },
  { digest: d(1), chosenBase: false },
];

describe('layerChainIds (OCI ChainID)', () => {
  it('is the diff_id for one layer and a sha256 of "parent diff" above it', () => {
    const chain = layerChainIds([d(10), d(11), d(12)]);
    expect(chain[0]).toBe(d(10));
    expect(chain[1]).toBe('sha256:' + createHash('sha256').update(`${d(10)} ${d(11)}`).digest('hex'));
    expect(layerChainIds([d(10), d(11)])).toEqual(chain.slice(0, 2));
    expect(topChainId([d(10), d(11), d(12)])).toBe(chain[2]);
  });

  it('has no chain for a missing or malformed diff_id, or no layers', () => {
    expect(layerChainIds([d(1), ''])).toEqual([]);
    expect(topChainId(['sha256:nothex'])).toBeNull();
    expect(topChainId([])).toBeNull();
  });
});

describe('ancestry', () => {
  it('allowed_base_image_digest fires when the base image is not approved, or unknown', async () => {
    expect(await run(ancestryGate, 'allowed_base_image_digest', fakeContext({ ancestors: ANCESTORS }), { base_digest: `${d(9)},${d(2)}` })).toEqual([]);
    // Only the chosen base counts: an approved ancestor further down does not make the base approved.
    expect((await run(ancestryGate, 'allowed_base_image_digest', fakeContext({ ancestors: ANCESTORS }), { base_digest: d(1) })).map((f) => f.message)).toEqual([
      `Base image ${d(2)} is not one of the approved base images`,
    ]);
    expect(await run(ancestryGate, 'allowed_base_image_digest', fakeContext(), { base_digest: d(1) })).toHaveLength(1);
  });

  it('denylist_ancestor_image_digest fires per denylisted ancestor', async () => {
    expect((await run(ancestryGate, 'denylist_ancestor_image_digest', fakeContext({ ancestors: ANCESTORS }), { ancestor_digest: `${d(1)},${d(7)}` })).map((f) => f.message)).toEqual([
      `Ancestor image ${d(1)} is denylisted`,
    ]);
    expect(await run(ancestryGate, 'denylist_ancestor_image_digest', fakeContext({ ancestors: ANCESTORS }), { ancestor_digest: d(7) })).toEqual([]);
    expect(await run(ancestryGate, 'denylist_ancestor_image_digest', fakeContext(), { ancestor_digest: d(1) })).toEqual([]);
  });
});
