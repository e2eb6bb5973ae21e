import { describe, expect, it } from 'vitest';
import { vectorChecks, allPairs, shuffled } from '../shared/testdata/vector-checks.js';
import { compareGoVersions, goComparator, parseGoVersion } from '../../../../src/ecosystems/go/versions.js';

const cmp = compareGoVersions;
const { misordered, unequal } = vectorChecks(cmp);

/**
 * golang.org/x/mod/semver's own test table, valid entries, ascending; versions in one group are equal
 * (shorthands and build metadata).
 */
const X_MOD_SEMVER_GROUPS: readonly (readonly string[])[] = [
  ['v1.0.0-alpha'],
  ['v1.0.0-alpha.1'],
  ['v1.0.0-alpha.beta'],
  ['v1.0.0-beta'],
  ['v1.0.0-beta.2'],
  ['v1.0.0-beta.11'],
  ['v1.0.0-rc.1'],
  ['v1', 'v1.0', 'v1.0.0'],
  ['v1.2', 'v1.2.0'],
  ['v1.2.3-456'],
  ['v1.2.3-456.789'],
  ['v1.2.3-456-789'],
  ['v1.2.3-456a'],
  ['v1.2.3-pre', 'v1.2.3-pre+meta'],
  ['v1.2.3-pre.1'],
  ['v1.2.3-zzz'],
  ['v1.2.3', 'v1.2.3+meta', 'v1.2.3+meta-pre', 'v1.2.3+meta-pre.sha.256a'],
];

// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  // plain module versions
  ['v0.0.1', 'v0.0.2'],
  ['v0.9.0', 'v0.10.0'],
  ['v1.9.9', 'v1.10.0'],
  ['v1.2.3', 'v1.2.10'],
  ['v1.99.0', 'v2.0.0'],
  ['v2.0.0', 'v10.0.0'],
  ['v0.1.0', 'v1.0.0'],
  ['v1.0.0-rc.1', 'v1.0.0'],
  ['v1.0.0-rc.9', 'v1.0.0-rc.10'],
  ['v1.0.0-alpha', 'v1.0.0-alpha.0'],
  // pseudo-versions: vX.0.0-yyyymmddhhmmss-abcdefabcdef (no base version)
  ['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.1'],
  ['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.0'],
  ['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.0-20191109021932-000000000000'],
  ['v0.0.0-20190101000000-ffffffffffff', 'v0.0.0-20191231235959-000000000000'],
  ['v0.0.0-20191231235959-ffffffffffff', 'v0.0.0-20200101000000-000000000000'],
  ['v0.0.0-20191109021931-aaaaaaaaaaaa', 'v0.0.0-20191109021931-bbbbbbbbbbbb'],
  ['v0.0.0-20210101000000-abcdefabcdef', 'v0.1.0-rc.1'],
  ['v0.0.0-20180101000000-abcdefabcdef', 'v0.0.0-20180101000001-abcdefabcdef'],
  // vX.Y.(Z+1)-0.yyyymmddhhmmss-abcdefabcdef (base is a release vX.Y.Z)
  ['v1.2.3', 'v1.2.4-0.20191109021931-daa7c04131f5'],
  ['v1.2.4-0.20191109021931-daa7c04131f5', 'v1.2.4'],
  ['v1.2.4-0.20191109021931-daa7c04131f5', 'v1.2.4-0.20200101000000-daa7c04131f5'],
  ['v1.2.4-0', 'v1.2.4-0.20191109021931-daa7c04131f5'],
  ['v1.2.4-0.20191109021931-daa7c04131f5', 'v1.2.4-alpha'],
  ['v1.2.4-0.20191109021931-daa7c04131f5', 'v1.2.4-1'],
  ['v0.1.0', 'v0.1.1-0.20200101000000-abcdefabcdef'],
  // vX.Y.Z-pre.0.yyyymmddhhmmss-abcdefabcdef (base is a pre-release vX.Y.Z-pre)
  ['v1.2.4-pre', 'v1.2.4-pre.0.20191109021931-daa7c04131f5'],
  ['v1.2.4-pre.0.20191109021931-daa7c04131f5', 'v1.2.4-pre.1'],
  ['v1.2.4-pre.0.20191109021931-daa7c04131f5', 'v1.2.4'],
  ['v1.2.4-pre.0.20191109021931-daa7c04131f5', 'v1.2.4-pre.0.20191109021932-daa7c04131f5'],
  ['v1.2.4-rc.1.0.20200101000000-abcdefabcdef', 'v1.2.4-rc.2'],
  ['v1.2.4-rc.1', 'v1.2.4-rc.1.0.20200101000000-abcdefabcdef'],
  // +incompatible is build metadata
  ['v2.0.0+incompatible', 'v2.0.1'],
  ['v1.9.9', 'v2.0.0+incompatible'],
  ['v2.3.0+incompatible', 'v2.10.0+incompatible'],
  ['v2.0.0-20180101000000-abcdefabcdef+incompatible', 'v2.0.0+incompatible'],
  ['v35.0.0+incompatible', 'v36.0.0+incompatible'],
  // OSV's Go ranges omit the v
  ['1.2.3', 'v1.2.4'],
  ['v1.2.3', '1.2.4'],
  ['0.0.0-20200101000000-abcdefabcdef', '0.1.0'],
  // Go release tags (package stdlib / toolchain)
  ['go1', 'go1.0.1'],
  ['go1.0.3', 'go1.1'],
  ['go1.4', 'go1.4.1'],
  ['go1.9', 'go1.10'],
  ['go1.9.7', 'go1.10beta1'],
  ['go1.10beta1', 'go1.10beta2'],
  ['go1.10beta2', 'go1.10rc1'],
  ['go1.10rc1', 'go1.10'],
  ['go1.8.4', 'go1.8.5rc4'],
  ['go1.8.5rc4', 'go1.8.5'],
  ['go1.19.13', 'go1.20'],
  ['go1.20', 'go1.20.1'],
  ['go1.20.14', 'go1.21rc1'],
  ['go1.21rc1', 'go1.21rc2'],
  ['go1.21rc2', 'go1.21.0'],
  ['go1.21rc2', 'v1.21.0'],
  ['go1.21.0', 'go1.21.1'],
  ['go1.21.9', 'go1.21.10'],
  ['go1.21.13', 'go1.22.0'],
  ['go1.21.5', '1.21.6'],
  ['1.21.5', 'go1.22rc1'],
  ['1.21rc1', '1.21.0'],
  ['go1.22.0-bigcorp', 'go1.22.1'],
  ['go1.22.1 X:boringcrypto', 'go1.22.2'],
  ['go1.99.99', 'go2'],
  // garbage sorts first
  ['bad', 'v0.0.0'],
  ['v1-pre', 'v0.0.0-0'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  ['v2.0.0+incompatible', 'v2.0.0'],
  ['v3.2.1+incompatible', 'v3.2.1'],
  ['1.2.3', 'v1.2.3'],
  ['v1.2', '1.2.0'],
  ['v1', '1.0.0'],
  ['go1.21.5', '1.21.5'],
  ['go1.21.5', 'v1.21.5'],
  ['go1.20', '1.20.0'],
  ['go1.20', 'go1.20.0'],
  ['go1.21rc2', '1.21.0-rc.2'],
  ['go1.21rc2', 'v1.21.0-rc.2'],
  ['1.21rc2', 'go1.21rc2'],
  ['go1', '1.0.0'],
  ['go1.9beta2', '1.9.0-beta.2'],
  ['go1.21.0-bigcorp', 'go1.21.0'],
  ['go1.21.5 X:boringcrypto', 'go1.21.5'],
  ['go1.22.0 X:nocoverageredesign,rangefunc', 'go1.22.0'],
  ['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.0-20191109021931-daa7c04131f5+incompatible'],
];

const MODULE_SEQUENCE = [
  'v0.0.0-20191109021931-daa7c04131f5',
  'v0.0.0-20200101000000-aaaaaaaaaaaa',
  'v0.0.1',
  'v0.1.0-rc.1',
  'v0.1.0',
  'v0.1.1-0.20200101000000-abcdefabcdef',
  'v1.0.0-alpha',
  'v1.0.0-alpha.1',
  'v1.0.0-alpha.beta',
  'v1.0.0-beta',
  'v1.0.0-beta.2',
  'v1.0.0-beta.11',
  'v1.0.0-rc.1',
  'v1.0.0',
  'v1.2.3',
  'v1.2.4-0.20191109021931-daa7c04131f5',
  'v1.2.4-pre',
  'v1.2.4-pre.0.20191109021931-daa7c04131f5',
  'v1.2.4-pre.1',
  'v1.2.4',
  'v1.10.0',
  'v2.0.0+incompatible',
  'v2.1.0+incompatible',
  'v10.0.0',
];

const STDLIB_SEQUENCE = [
  'go1',
  'go1.0.3',
  'go1.1',
  'go1.9beta2',
  'go1.9rc1',
  'go1.9',
  'go1.9.7',
  'go1.10beta1',
  'go1.10',
  'go1.19.13',
  'go1.20rc1',
  'go1.20',
  'go1.20.14',
  'go1.21rc2',
  'go1.21.0',
  'go1.21.5',
  'go1.21.10',
  'go1.22.0',
];

const VALID = [
  'v1.2.3',
  '1.2.3',
  'v1',
  'v1.2',
  'v0.0.0-20191109021931-daa7c04131f5',
  'v1.2.4-0.20191109021931-daa7c04131f5',
  'v1.2.4-pre.0.20191109021931-daa7c04131f5',
  'v2.0.0+incompatible',
  'go1',
  'go1.20',
  'go1.21.5',
  'go1.21rc2',
  '1.21rc2',
  'go1.9beta2',
  'go1.21.0-bigcorp',
];

/** x/mod/semver's rejects plus stdlib-shaped garbage. */
const GARBAGE = [
  '',
  'bad',
  'v1-alpha.beta.gamma',
  'v1-pre',
  'v1+meta',
  'v1-pre+meta',
  'v1.2-pre',
  'v1.2+meta',
  'v1.2-pre+meta',
  'v01.2.3',
  'v1.02.3',
  'v1.2.03',
  'v1.2.3-01',
  'v1.2.3-',
  'v1.2.3+',
  'v1.2.3-alpha..1',
  'V1.2.3',
  'vv1.2.3',
  'v1.2.3.4',
  ' v1.2.3',
  'go',
  'go1.21.x',
  'go1.21.',
  'golang1.21',
  'go01.21',
  'go1.021',
  'go1.21rc',
  'go1.21.5.1',
  'devel go1.22-abcdef Tue Jan 2 15:04:05 2024',
  'latest',
  '*',
];

describe('compareGoVersions', () => {
  it(`orders ${ORDERED.length} hand-written pairs both ways`, () => {
    expect(ORDERED.length).toBeGreaterThanOrEqual(60);
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal both ways`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it("agrees with x/mod/semver's test table: groups ascending, equal within a group", () => {
    const pairs: [string, string][] = [];
    const same: [string, string][] = [];
    X_MOD_SEMVER_GROUPS.forEach((group, g) => {
      for (const v of group) {
        for (const w of group) same.push([v, w]);
        for (const later of X_MOD_SEMVER_GROUPS.slice(g + 1)) for (const w of later) pairs.push([v, w]);
      }
    });
    expect(misordered(pairs)).toEqual([]);
    expect(unequal(same)).toEqual([]);
  });

  it.each([
    ['module versions', MODULE_SEQUENCE],
    ['Go release tags', STDLIB_SEQUENCE],
  ])('orders every pair of the %s sequence', (_label, sequence) => {
    expect(misordered(allPairs(sequence))).toEqual([]);
  });

  it.each([1, 7, 99])('sorting shuffled sequences (seed %i) gives the canonical order', (seed) => {
    expect(shuffled(MODULE_SEQUENCE, seed).sort(cmp)).toEqual(MODULE_SEQUENCE);
    expect(shuffled(STDLIB_SEQUENCE, seed).sort(cmp)).toEqual(STDLIB_SEQUENCE);
  });
});

describe('goComparator.isValid', () => {
  it('is named go', () => {
    expect(goComparator.name).toBe('go');
    expect(goComparator.compare).toBe(compareGoVersions);
  });

  it.each(VALID)('accepts %j', (v) => {
    expect(goComparator.isValid(v)).toBe(true);
  });

  it.each(GARBAGE)('rejects %j, never throws, and sorts it before every version', (v) => {
    expect(goComparator.isValid(v)).toBe(false);
    expect(parseGoVersion(v)).toBeNull();
    expect(cmp(v, v)).toBe(0);
    expect(cmp(v, 'v0.0.0-0')).toBe(-1);
    expect(cmp('go1', v)).toBe(1);
  });

  it('orders two invalid strings deterministically by their text', () => {
    expect(cmp('bad', 'worse')).toBe(-1);
    expect(cmp('worse', 'bad')).toBe(1);
  });

  it('survives non-string input from untyped feeds', () => {
    for (const v of [undefined, null, 3, []] as unknown as string[]) {
      expect(goComparator.isValid(v)).toBe(false);
      expect(() => cmp(v, 'v1.0.0')).not.toThrow();
    }
  });
});
