import { describe, expect, it } from 'vitest';
import { ancestryGate } from '../../../../src/policy/gates/ancestry.js';

describe('ancestry', () => {
  it('has no evaluate: the analysis does not record base-image ancestry', () => {
    expect(ancestryGate.triggers.map((t) => [t.name, t.evaluate])).toEqual([
      ['allowed_base_image_digest', undefined],
      ['denylist_ancestor_image_digest', undefined],
    ]);
  });
});
