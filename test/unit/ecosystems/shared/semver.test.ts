import { describe, expect, it } from 'vitest';
import { vectorChecks, shuffled } from './testdata/vector-checks.js';
import { compareSemver, isStrictSemver, parseSemver, semverComparator } from '../../../../src/ecosystems/shared/semver.js';

const cmp = compareSemver;
const { misordered, unequal } = vectorChecks(cmp);

/** Every pair must order both ways (a < b and b > a); returns the ones that do not, for a readable failure. */
/** Deterministic Fisher-Yates with a small LCG, so a failing shuffle reproduces. */
// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  // semver.org §11.2: 1.0.0 < 2.0.0 < 2.1.0 < 2.1.1
  ['1.0.0', '2.0.0'],
  ['2.0.0', '2.1.0'],
  ['2.1.0', '2.1.1'],
  ['1.0.0', '2.1.1'],
  // §11.3: a pre-release is lower than its release
  ['1.0.0-alpha', '1.0.0'],
  // §11.4 example chain, adjacent and skipping
  ['1.0.0-alpha', '1.0.0-alpha.1'],
  ['1.0.0-alpha.1', '1.0.0-alpha.beta'],
  ['1.0.0-alpha.beta', '1.0.0-beta'],
  ['1.0.0-beta', '1.0.0-beta.2'],
  ['1.0.0-beta.2', '1.0.0-beta.11'],
  ['1.0.0-beta.11', '1.0.0-rc.1'],
  ['1.0.0-rc.1', '1.0.0'],
  ['1.0.0-alpha', '1.0.0-rc.1'],
  ['1.0.0-alpha.1', '1.0.0-beta.11'],
  ['1.0.0-alpha.beta', '1.0.0'],
  // numeric, not lexical, core comparison
  ['1.9.0', '1.10.0'],
  ['1.10.0', '1.11.0'],
  ['0.0.9', '0.0.10'],
  ['0.9.9', '1.0.0'],
  ['9.9.9', '10.0.0'],
  ['1.2.3', '1.2.4'],
  ['1.2.3', '1.3.0'],
  ['1.2.3', '2.0.0'],
  ['0.0.0', '0.0.1'],
  ['0.0.1', '0.1.0'],
  ['0.1.0', '1.0.0'],
  ['1.99.99', '2.0.0'],
  ['2.0.0', '2.0.1'],
  ['1.2.9', '1.2.10'],
  ['1.2.10', '1.2.100'],
  ['2.10.0', '10.2.0'],
  ['0.9.99', '0.10.0'],
  // beyond 2^53
  ['9007199254740991.0.0', '9007199254740992.0.0'],
  ['1.0.18446744073709551615', '1.0.18446744073709551616'],
  ['99999999999999999999.0.0', '100000000000000000000.0.0'],
  // numeric pre-release identifiers compare as numbers
  ['1.0.0-0', '1.0.0-1'],
  ['1.0.0-1', '1.0.0-2'],
  ['1.0.0-2', '1.0.0-10'],
  ['1.0.0-9', '1.0.0-10'],
  ['1.0.0-alpha.9', '1.0.0-alpha.10'],
  ['1.0.0-rc.2', '1.0.0-rc.10'],
  ['1.0.0-beta.99999999999999999998', '1.0.0-beta.99999999999999999999'],
  // numeric identifiers rank below alphanumeric ones
  ['1.0.0-10', '1.0.0-a'],
  ['1.0.0-999', '1.0.0-0a'],
  ['1.0.0-1', '1.0.0--'],
  ['1.0.0-alpha.10', '1.0.0-alpha.a'],
  ['1.0.0-x-y-z.0', '1.0.0-x-y-z.-'],
  ['1.0.0-99999', '1.0.0-A'],
  // alphanumeric identifiers compare in ASCII order
  ['1.0.0-A', '1.0.0-a'],
  ['1.0.0-Z', '1.0.0-a'],
  ['1.0.0-RC.1', '1.0.0-alpha'],
  ['1.0.0-alpha', '1.0.0-beta'],
  ['1.0.0-beta', '1.0.0-rc'],
  ['1.0.0-rc1', '1.0.0-rc2'],
  ['1.0.0-rc10', '1.0.0-rc2'],
  ['1.0.0-alpha', '1.0.0-alpha-1'],
  ['1.0.0-alpha.1', '1.0.0-alpha-1'],
  ['1.0.0-rc.1', '1.0.0-rc1'],
  ['1.0.0--', '1.0.0-0a'],
  ['1.0.0-a.b', '1.0.0-a-b'],
  // fewer identifiers rank lower when the shared ones are equal
  ['1.0.0-alpha', '1.0.0-alpha.0'],
  ['1.0.0-alpha.0', '1.0.0-alpha.1'],
  ['1.0.0-alpha.1', '1.0.0-alpha.1.1'],
  ['1.0.0-alpha.1.1', '1.0.0-alpha.2'],
  ['1.0.0-beta', '1.0.0-beta.0'],
  ['1.0.0-0', '1.0.0-0.0'],
  ['1.0.0-x.7.z.92', '1.0.0-x.7.z.93'],
  ['1.0.0-x.7.z', '1.0.0-x.7.z.92'],
  // pre-releases sit between their release and the previous one
  ['1.0.0', '1.0.1-alpha'],
  ['1.0.1-alpha', '1.0.1'],
  ['1.9.9', '2.0.0-0'],
  ['2.0.0-0', '2.0.0'],
  ['0.0.0-0', '0.0.0'],
  ['0.0.0', '0.0.1-0'],
  ['1.0.0-rc.1', '1.0.1-alpha'],
  ['1.2.3-zzzzz', '1.2.3'],
  ['1.2.2', '1.2.3-0'],
  // build metadata never decides
  ['1.0.0+build.9', '1.0.1+build.1'],
  ['1.0.0-alpha+zzz', '1.0.0-beta+aaa'],
  ['1.0.0-rc.1+build.1', '1.0.0+build.0'],
  ['1.0.0+999', '1.0.1'],
  ['1.0.0-alpha+001', '1.0.0-alpha.1'],
  // lenient spellings order as the version they mean (npm / crates metadata)
  ['v1.0.0', 'v1.0.1'],
  ['v1.2', '1.2.1'],
  ['1', '1.0.1'],
  ['1.2', '1.10'],
  ['v2', 'v10'],
  ['=1.2.3', '1.2.4'],
  ['1.2.3beta', '1.2.3'],
  ['1.2.3alpha', '1.2.3beta'],
  ['1.2-rc.1', '1.2'],
  ['01.2.3', '1.2.4'],
  [' 1.2.3 ', '1.2.4'],
  ['1.0.0-01', '1.0.0-2'],
  ['V1.0.0-rc.1', 'v1.0.0'],
  // shapes seen in npm and crates.io advisories
  ['4.17.20', '4.17.21'],
  ['0.3.0-beta.1', '0.3.0'],
  ['1.0.0-beta.0', '1.0.0-beta.1'],
  ['6.0.0-rc.0', '6.0.0'],
  ['0.2.31', '0.2.32'],
  ['2.6.6', '2.6.7'],
  ['3.0.0-next.1', '3.0.0-next.12'],
  ['7.0.0-alpha.0', '7.0.0-beta.0'],
  ['1.0.0-canary.3', '1.0.0-canary.21'],
  ['12.3.4-canary.9', '12.3.4'],
  ['0.1.0-alpha.1', '0.1.0-alpha.1.post'],
  // garbage orders before every version
  ['not-a-version', '0.0.0'],
  ['', '0.0.0-0'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  ['1.0.0', '1.0.0'],
  ['1.0.0+build', '1.0.0'],
  ['1.0.0+a', '1.0.0+b'],
  ['1.0.0-rc.1+a', '1.0.0-rc.1+b.2'],
  ['1.0.0+0.build.1-rc.10000aaa-kk-0.1', '1.0.0'],
  ['v1.0.0', '1.0.0'],
  ['V1.0.0', '1.0.0'],
  ['1', '1.0.0'],
  ['1.2', '1.2.0'],
  ['v1.2', '1.2.0'],
  ['=1.2.3', '1.2.3'],
  ['01.02.03', '1.2.3'],
  [' 1.2.3 ', '1.2.3'],
  ['1.2.3beta', '1.2.3-beta'],
  ['1.0.0-01', '1.0.0-1'],
  ['1.0.0-alpha.01', '1.0.0-alpha.1'],
  ['99999999999999999999.0.0', '99999999999999999999.0.0+x'],
  ['garbage', 'garbage'],
];

/** Strictly increasing; used for the sorted-sequence and transitivity checks. */
const CANONICAL_ORDER = [
  '0.0.0-0',
  '0.0.0',
  '0.0.1',
  '0.1.0-alpha',
  '0.1.0',
  '0.9.0',
  '0.10.0',
  '1.0.0-0',
  '1.0.0-1',
  '1.0.0-10',
  '1.0.0-alpha',
  '1.0.0-alpha.1',
  '1.0.0-alpha.beta',
  '1.0.0-beta',
  '1.0.0-beta.2',
  '1.0.0-beta.11',
  '1.0.0-rc.1',
  '1.0.0',
  '1.0.1-0',
  '1.0.1',
  '1.2.0',
  '1.10.0-rc.1',
  '1.10.0',
  '2.0.0',
  '10.0.0',
  '18446744073709551616.0.0',
];

// From semver.org's suggested-regex test lists.
const STRICTLY_VALID = [
  '0.0.4',
  '1.2.3',
  '10.20.30',
  '1.1.2-prerelease+meta',
  '1.1.2+meta',
  '1.1.2+meta-valid',
  '1.0.0-alpha',
  '1.0.0-beta',
  '1.0.0-alpha.beta',
  '1.0.0-alpha.beta.1',
  '1.0.0-alpha.1',
  '1.0.0-alpha0.valid',
  '1.0.0-alpha.0valid',
  '1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay',
  '1.0.0-rc.1+build.1',
  '2.0.0-rc.1+build.123',
  '1.2.3-beta',
  '10.2.3-DEV-SNAPSHOT',
  '1.2.3-SNAPSHOT-123',
  '2.0.0+build.1848',
  '2.0.1-alpha.1227',
  '1.0.0-alpha+beta',
  '1.2.3----RC-SNAPSHOT.12.9.1--.12+788',
  '1.2.3----R-S.12.9.1--.12+meta',
  '1.2.3----RC-SNAPSHOT.12.9.1--.12',
  '1.0.0+0.build.1-rc.10000aaa-kk-0.1',
  '99999999999999999999999.999999999999999999.99999999999999999',
  '1.0.0-0A.is.legal',
];

/** Not SemVer 2.0.0, but ordered leniently (isValid false, compare still meaningful). */
const LENIENT_ONLY = [
  ...['v1.2.3', '1.2', '1', '01.1.1', '1.01.1', '1.1.01'],
  ...['1.2.3-0123', '1.2.3beta', ' 1.2.3', '=1.2.3'],
];

/** Neither: isValid false, and compare puts them before every version without throwing. */
const GARBAGE = [
  '',
  ' ',
  'alpha',
  'alpha.beta',
  'alpha.beta.1',
  'alpha+beta',
  'alpha_beta',
  'not a version',
  '1.2.3.4',
  '1.2.3.DEV',
  '1.0.0-alpha..1',
  '1.0.0-alpha_beta',
  '1.0.0-',
  '1.0.0+',
  '1.1.2+.123',
  '+invalid',
  '-invalid',
  '-1.0.3-gamma+b7718',
  '+justmeta',
  '9.8.7+meta+meta',
  '9.8.7-whatever+meta+meta',
  'x.y.z',
  '1.x',
  '*',
  '>=1.0.0',
  '^1.2.3',
  '~1.2',
  '1.2.3 - 2.0.0',
  '1..2',
  '.1.2',
  'latest',
  'ü1.0.0',
  '\u0000',
  '1.0.0\n1.0.1',
];

describe('compareSemver', () => {
  it(`orders ${ORDERED.length} hand-written pairs both ways`, () => {
    expect(ORDERED.length).toBeGreaterThanOrEqual(100);
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal both ways (build metadata, lenient spellings)`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it('orders every pair of the canonical sequence (transitivity)', () => {
    const pairs: [string, string][] = [];
    for (let i = 0; i < CANONICAL_ORDER.length; i++)
      for (let j = i + 1; j < CANONICAL_ORDER.length; j++) pairs.push([CANONICAL_ORDER[i], CANONICAL_ORDER[j]]);
    expect(misordered(pairs)).toEqual([]);
  });

  it.each([1, 2, 3, 42, 2024])('sorting a shuffled list (seed %i) gives the canonical order', (seed) => {
    expect(shuffled(CANONICAL_ORDER, seed).sort(cmp)).toEqual(CANONICAL_ORDER);
  });

  it('returns -1, 0 or 1', () => {
    expect(cmp('1.0.0', '5.0.0')).toBe(-1);
    expect(cmp('5.0.0', '1.0.0')).toBe(1);
    expect(cmp('1.0.0', '1.0.0+x')).toBe(0);
  });
});

describe('semverComparator.isValid', () => {
  it('is named semver', () => {
    expect(semverComparator.name).toBe('semver');
    expect(semverComparator.compare).toBe(compareSemver);
  });

  it.each(STRICTLY_VALID)('accepts %j', (v) => {
    expect(semverComparator.isValid(v)).toBe(true);
    expect(isStrictSemver(v)).toBe(true);
  });

  it.each(LENIENT_ONLY)('rejects the lenient-only %j yet still orders it', (v) => {
    expect(semverComparator.isValid(v)).toBe(false);
    expect(parseSemver(v)).not.toBeNull();
    expect(cmp(v, '999.0.0')).toBeLessThan(0);
  });

  it.each(GARBAGE)('rejects %j, never throws, and sorts it before every version', (v) => {
    expect(semverComparator.isValid(v)).toBe(false);
    expect(parseSemver(v)).toBeNull();
    expect(cmp(v, v)).toBe(0);
    expect(cmp(v, '0.0.0-0')).toBe(-1);
    expect(cmp('0.0.0-0', v)).toBe(1);
  });

  it('survives non-string input from untyped feeds', () => {
    const bad = [undefined, null, 1, {}] as unknown as string[];
    for (const v of bad) {
      expect(semverComparator.isValid(v)).toBe(false);
      expect(() => cmp(v, '1.0.0')).not.toThrow();
    }
  });
});

describe('compareSemver on random input', () => {
  it('never throws, is antisymmetric, and sorts consistently', () => {
    const alphabet = '0123456789..--+vV abrc';
    let s = 7;
    const rand = (n: number): number => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return Math.floor((s / 2147483648) * n);
    };
    const inputs = Array.from({ length: 400 }, () =>
      Array.from({ length: rand(12) }, () => alphabet[rand(alphabet.length)]).join(''),
    );
    inputs.push(...CANONICAL_ORDER, ...GARBAGE);
    for (let i = 0; i < inputs.length; i += 3)
      for (let j = 0; j < inputs.length; j += 7) {
        expect(Math.sign(cmp(inputs[i], inputs[j]))).toBe(-Math.sign(cmp(inputs[j], inputs[i])) || 0);
      }
    const sorted = [...inputs].sort(cmp);
    for (let i = 0; i < sorted.length; i += 5)
      for (let j = i + 1; j < sorted.length; j += 11) expect(cmp(sorted[i], sorted[j])).toBeLessThanOrEqual(0);
  });
});
