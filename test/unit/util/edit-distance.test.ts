import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../../../src/util/edit-distance.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('VIGIL_FEED_SOURCE', 'VIGIL_FEED_SOURCES')).toBe(1);
    expect(editDistance('VIGIL_PROT', 'VIGIL_PORT')).toBe(2);
  });
});

describe('closestName', () => {
  const names = ['VIGIL_PORT', 'VIGIL_HOST', 'VIGIL_FEED_SOURCES', 'VIGIL_FEED_SOURCES_FILE'];
  it('suggests the nearest name when it is a likely typo', () => {
    expect(closestName('VIGIL_FEED_SOURCE', names)).toBe('VIGIL_FEED_SOURCES');
    expect(closestName('VIGIL_FEED_SOURCE_FILE', names)).toBe('VIGIL_FEED_SOURCES_FILE');
    expect(closestName('VIGIL_PROT', names)).toBe('VIGIL_PORT');
  });
  it('suggests nothing when no name is near', () => {
    expect(closestName('VIGIL_SOMETHING_ELSE_ENTIRELY', names)).toBeNull();
    expect(closestName(`VIGIL_${'X'.repeat(300)}`, names)).toBeNull();
  });
});
