import { describe, expect, it } from 'vitest';
import { vectorChecks, allPairs, shuffled } from '../shared/testdata/vector-checks.js';
import {
  compareGemVersions,
  gemComparator,
  isGemVersion,
  parseGemVersion,
} from '../../../../src/ecosystems/gem/versions.js';

const cmp = compareGemVersions;
const { misordered, unequal } = vectorChecks(cmp);

// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  // RubyGems' test_gem_version.rb, test_spaceship
  ['1.0.a', '1.0'],
  ['0.0.0', '1.8.2'],
  ['1.8.2.a', '1.8.2'],
  ['1.8.2.a', '1.8.2.b'],
  ['1.8.2.a9', '1.8.2.a10'],
  ['0.0.beta', '0.0.beta.1'],
  ['0.0.beta', '0.beta.1'],
  ['5.a', '5.0.0.rc2'],
  ['5.0.0.rc2', '5.x'],
  ['1.9.2.99', '1.9.3'],
  ['1.9.3', '1.9.3.1'],
  // numeric segments, any length
  ['1', '2'],
  ['1.0', '1.1'],
  ['1.1', '1.10'],
  ['1.9', '1.10'],
  ['1.2.3', '1.2.4'],
  ['1.2.3', '1.3'],
  ['1.2.9', '1.2.10'],
  ['0.9.9', '1.0'],
  ['1.0', '1.0.0.1'],
  ['1', '1.0.0.0.1'],
  ['2.0.0', '10.0.0'],
  ['1.99999999999999999999', '1.100000000000000000000'],
  ['01.2', '1.3'],
  // letter segments make a pre-release; letters compare byte-wise
  ['1.0.a', '1.0.b'],
  ['1.0.a1', '1.0.a2'],
  ['1.0.a2', '1.0.a10'],
  ['1.0.alpha', '1.0.beta'],
  ['1.0.beta', '1.0.rc'],
  ['1.0.rc1', '1.0'],
  ['1.0.rc', '1.0.rc1'],
  ['1.0.pre', '1.0.rc'],
  ['1.0.a', '1.0.a.1'],
  ['1.0.a.1', '1.0.a.2'],
  ['1.0.a.9', '1.0.a.10'],
  ['1.0.A', '1.0.a'],
  ['1.0.RC1', '1.0.rc1'],
  ['1.0.a.2', '1.0.b1'],
  ['1.0.b1', '1.0.b.2'],
  // a letter sorts below a number, including a missing one
  ['1.a', '1.0'],
  ['1.0.a', '1.0.0'],
  ['1.a', '1.0.1'],
  ['1.9.a', '1.9'],
  ['1.9', '1.10.a'],
  ['1.0.0.a', '1.0.1.a'],
  ['5.x', '5'],
  ['0.beta.1', '0.1'],
  // a hyphen reads as ".pre."
  ['1.0.0-1', '1.0.0'],
  ['1.0.0-alpha', '1.0.0-beta'],
  ['1.0.0-rc1', '1.0.0-rc2'],
  ['1.0.0-1', '1.0.0-2'],
  ['1.0.0.pre', '1.0.0-1'],
  ['1.0.0-a', '1.0.0.rc'],
  ['1.0.0-rc1', '1.0.0.rc1'],
  ['0.9', '1.0.0-1'],
  // Rails, Nokogiri and friends
  ['5.2.4.rc1', '5.2.4'],
  ['5.2.4', '5.2.4.1'],
  ['5.2.4.1', '5.2.4.2'],
  ['6.0.0.beta1', '6.0.0.beta2'],
  ['6.0.0.beta3', '6.0.0.rc1'],
  ['6.0.0.rc2', '6.0.0'],
  ['7.0.8', '7.0.8.1'],
  ['7.1.0.beta1', '7.1.0.rc1'],
  ['6.1.7.6', '6.1.7.7'],
  ['1.13.10', '1.14.0.rc1'],
  ['1.14.0.rc1', '1.14.0'],
  ['1.16.5', '1.16.6'],
  ['3.0.0.pre', '3.0.0'],
  ['2.0.0.pre.1', '2.0.0.pre.2'],
  ['2.2.33', '2.2.33.1'],
  // garbage sorts first
  ['junk', '0'],
  ['v1.0', '0.a'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  ['1.0', '1.0.0'],
  ['1', '1.0.0.0'],
  ['0.beta.1', '0.0.beta.1'],
  ['1.0.a', '1.a'],
  ['1.0.a.0', '1.a'],
  ['1.0.a.0.0', '1.0.a'],
  ['1.0.0-1', '1.0.0.pre.1'],
  ['1.0b1', '1.0.b.1'],
  ['1.0.b1', '1.0b.1'],
  [' 1.0 ', '1.0'],
  ['\t1.0\n', '1.0'],
  ['01', '1'],
  ['1.01', '1.1'],
  ['0', '0.0.0'],
  // RubyGems reads a blank string as "0"
  ['', '0'],
  ['  ', '0.0'],
];

const CANONICAL_ORDER = [
  '0.0.beta',
  '0.beta.1',
  '0.1',
  '1.0.A',
  '1.0.a',
  '1.0.a.1',
  '1.0.a2',
  '1.0.a10',
  '1.0.b1',
  '1.0.pre',
  '1.0.rc1',
  '1.0',
  '1.0.1',
  '1.1',
  '1.9',
  '1.10.a',
  '1.10',
  '5.a',
  '5.0.0.rc2',
  '5.x',
  '5',
  '5.0.1',
  '10',
];

const VALID = [
  ...['1', '1.0', '1.0.0', '1.0.a', '1.0.0.rc1', '5.2.4.1', '1.0.0-1', '1.0.0-alpha.1'],
  ...[' 1.0 ', '0', '1.0b1', '1.0.a-b'],
];

/** RubyGems' test_initialize_invalid (CVE-2013-4287's string included) and other near-misses. */
const GARBAGE = [
  'junk',
  '1.0\n2.0',
  '1..2',
  '1.2 3.4',
  '2.3422222.222.222222222.22222.ads0as.dasd0.ddd2222.2.qd3e.',
  'v1.0',
  '1.0-',
  '-1',
  '.1',
  '1.',
  'a.1',
  '1.0+build',
  '1_0',
  '1.0 beta',
  '>= 1.0',
  '~> 1.0',
  '1.0\u00a0',
];

describe('compareGemVersions', () => {
  it(`orders ${ORDERED.length} hand-written pairs both ways`, () => {
    expect(ORDERED.length).toBeGreaterThanOrEqual(60);
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal both ways (trailing zeros, spelling)`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it('orders every pair of the canonical sequence', () => {
    expect(misordered(allPairs(CANONICAL_ORDER))).toEqual([]);
  });

  it.each([1, 2, 77, 1000])('sorting a shuffled list (seed %i) gives the canonical order', (seed) => {
    expect(shuffled(CANONICAL_ORDER, seed).sort(cmp)).toEqual(CANONICAL_ORDER);
  });

  it('reads segments as RubyGems does', () => {
    expect(parseGemVersion('1.0.b1')).toEqual([{ digits: '1' }, { letters: 'b' }, { digits: '1' }]);
    expect(parseGemVersion('1.0.0-rc.1')).toEqual([
      { digits: '1' },
      { letters: 'pre' },
      { letters: 'rc' },
      { digits: '1' },
    ]);
    expect(parseGemVersion('1.0.a.0')).toEqual([{ digits: '1' }, { letters: 'a' }]);
  });
});

describe('gemComparator.isValid', () => {
  it('is named gem', () => {
    expect(gemComparator.name).toBe('gem');
    expect(gemComparator.compare).toBe(compareGemVersions);
  });

  it.each(VALID)('accepts %j', (v) => {
    expect(gemComparator.isValid(v)).toBe(true);
    expect(isGemVersion(v)).toBe(true);
  });

  it('does not call a blank string a version, though it orders as "0"', () => {
    expect(gemComparator.isValid('')).toBe(false);
    expect(gemComparator.isValid(' \t')).toBe(false);
    expect(cmp('', '0.a')).toBe(1);
  });

  it.each(GARBAGE)('rejects %j, never throws, and sorts it before every version', (v) => {
    expect(gemComparator.isValid(v)).toBe(false);
    expect(parseGemVersion(v)).toBeNull();
    expect(cmp(v, v)).toBe(0);
    expect(cmp(v, '0.a')).toBe(-1);
    expect(cmp('0.a', v)).toBe(1);
  });

  it('rejects the CVE-2013-4287 string quickly (no catastrophic backtracking)', () => {
    const evil = `1${'.1a'.repeat(5000)}.`;
    const started = performance.now();
    expect(gemComparator.isValid(evil)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('survives non-string input from untyped feeds', () => {
    for (const v of [undefined, null, 2, {}] as unknown as string[]) {
      expect(gemComparator.isValid(v)).toBe(false);
      expect(() => cmp(v, '1.0')).not.toThrow();
    }
  });
});

describe('compareGemVersions on random input', () => {
  it('never throws, is antisymmetric, and sorts consistently', () => {
    const alphabet = '0123456789..--abpreRC ';
    let s = 13;
    const rand = (n: number): number => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return Math.floor((s / 2147483648) * n);
    };
    const inputs = Array.from({ length: 400 }, () =>
      Array.from({ length: rand(10) }, () => alphabet[rand(alphabet.length)]).join(''),
    );
    inputs.push(...CANONICAL_ORDER, ...GARBAGE);
    for (let i = 0; i < inputs.length; i += 3)
      for (let j = 0; j < inputs.length; j += 7)
        expect(Math.sign(cmp(inputs[i], inputs[j]))).toBe(-Math.sign(cmp(inputs[j], inputs[i])) || 0);
    const sorted = [...inputs].sort(cmp);
    for (let i = 0; i < sorted.length; i += 5)
      for (let j = i + 1; j < sorted.length; j += 11) expect(cmp(sorted[i], sorted[j])).toBeLessThanOrEqual(0);
  });
});
