import { describe, expect, it } from 'vitest';
import { vectorChecks, allPairs, shuffled } from '../shared/testdata/vector-checks.js';
import { comparePep440, parsePep440, pep440Comparator } from '../../../../src/ecosystems/python/versions.js';

const cmp = comparePep440;
const { misordered, unequal } = vectorChecks(cmp);

/** PEP 440, "Summary of permitted suffixes and relative ordering". */
const PEP_EXAMPLE_ORDER = [
  '1.dev0',
  '1.0.dev456',
  '1.0a1',
  '1.0a2.dev456',
  '1.0a12.dev456',
  '1.0a12',
  '1.0b1.dev456',
  '1.0b2',
  '1.0b2.post345.dev456',
  '1.0b2.post345',
  '1.0rc1.dev456',
  '1.0rc1',
  '1.0',
  '1.0+abc.5',
  '1.0+abc.7',
  '1.0+5',
  '1.0.post456.dev34',
  '1.0.post456',
  '1.0.15',
  '1.1.dev1',
];

/** The ordering list of the `packaging` library's test suite (non-normalised spellings included), both epochs. */
const PACKAGING_ORDER_EPOCH_0 = [
  '1.0.dev456',
  '1.0a1',
  '1.0a2.dev456',
  '1.0a12.dev456',
  '1.0a12',
  '1.0b1.dev456',
  '1.0b2',
  '1.0b2.post345.dev456',
  '1.0b2.post345',
  '1.0b2-346',
  '1.0c1.dev456',
  '1.0c1',
  '1.0rc2',
  '1.0c3',
  '1.0',
  '1.0.post456.dev34',
  '1.0.post456',
  '1.1.dev1',
  '1.2+123abc',
  '1.2+123abc456',
  '1.2+abc',
  '1.2+abc123',
  '1.2+abc123def',
  '1.2+1234.abc',
  '1.2+123456',
  '1.2.r32+123456',
  '1.2.rev33+123456',
];
const PACKAGING_ORDER = [...PACKAGING_ORDER_EPOCH_0, ...PACKAGING_ORDER_EPOCH_0.map((v) => `1!${v}`)];

// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  // release segments, numerically, any length
  ['1.0', '1.1'],
  ['1.1', '1.2'],
  ['1.9', '1.10'],
  ['1.0.9', '1.0.10'],
  ['0.9', '1.0'],
  ['1.0', '1.0.1'],
  ['1.0.0', '1.0.0.1'],
  ['1', '1.0.0.0.1'],
  ['2.0', '10.0'],
  ['1.2.3', '1.2.3.4'],
  ['2020.1', '2021.1'],
  ['0.0.1', '0.1'],
  ['1.0', '2'],
  ['1.99999999999999999999', '1.100000000000000000000'],
  // epochs outrank everything
  ['9999', '1!0'],
  ['1!1.0', '2!0.1'],
  ['1.0', '1!0.0.1'],
  ['0!2.0', '1!1.0'],
  ['2020.1', '1!1.0'],
  ['1!1.0.dev0', '1!1.0'],
  ['1!2.0.post5', '2!1.0.dev0'],
  // pre-releases: a < b < rc < release
  ['1.0a1', '1.0a2'],
  ['1.0a2', '1.0a10'],
  ['1.0a9', '1.0b1'],
  ['1.0b9', '1.0rc1'],
  ['1.0rc9', '1.0'],
  ['1.0a1', '1.0'],
  ['1.0b1', '1.0'],
  ['1.0rc1', '1.0'],
  ['1.0a0', '1.0a1'],
  ['1.0a', '1.0a1'],
  ['1.0alpha1', '1.0beta1'],
  ['1.0beta2', '1.0c1'],
  ['1.0c1', '1.0rc2'],
  ['1.0pre1', '1.0rc2'],
  ['1.0preview1', '1.0rc2'],
  ['1.0-alpha.1', '1.0-beta.1'],
  ['1.0_ALPHA_1', '1.0a2'],
  ['1.0RC1', '1.0'],
  ['0.9', '1.0a1'],
  ['1.0', '1.0.1a1'],
  ['1.0.1a1', '1.0.1'],
  ['1.0rc1', '1.0.post1'],
  ['1.0b1', '1.0rc1.dev0'],
  // post-releases
  ['1.0', '1.0.post0'],
  ['1.0.post0', '1.0.post1'],
  ['1.0.post1', '1.0.post2'],
  ['1.0.post9', '1.0.post10'],
  ['1.0-1', '1.0-2'],
  ['1.0', '1.0-1'],
  ['1.0.post1', '1.0.1'],
  ['1.0.post999', '1.0.1.dev0'],
  ['1.0-r1', '1.0.rev2'],
  ['1.0.post', '1.0.post1'],
  ['1.0rc1', '1.0rc1.post1'],
  ['1.0rc1.post1', '1.0rc2'],
  ['1.0a1.post1', '1.0a2.dev0'],
  ['1.0b2.post345', '1.0b2-346'],
  ['1.0rc1.post1', '1.0'],
  // dev releases
  ['1.0.dev0', '1.0.dev1'],
  ['1.0.dev1', '1.0.dev10'],
  ['1.0.dev0', '1.0a1'],
  ['1.0.dev456', '1.0a0'],
  ['1.0.dev0', '1.0'],
  ['1.0.dev99', '1.0a1.dev0'],
  ['1.0a1.dev0', '1.0a1'],
  ['1.0a1.dev456', '1.0a1'],
  ['1.0.post1.dev0', '1.0.post1'],
  ['1.0', '1.0.post1.dev0'],
  ['1.0.post0.dev5', '1.0.post0'],
  ['1.0rc1.dev5', '1.0rc1'],
  ['1.0b2.dev1', '1.0b2'],
  ['1.0.dev', '1.0.dev1'],
  ['1.0.DEV2', '1.0.dev3'],
  ['0.9.post1', '1.0.dev0'],
  ['1.0.dev0', '1.0.0a0'],
  ['1.0.dev9999999999999999999999', '1.0a0'],
  // local versions: after the public version, numeric segments above alphanumeric ones
  ['1.0', '1.0+local'],
  ['1.0+abc.5', '1.0+abc.7'],
  ['1.0+abc.7', '1.0+5'],
  ['1.0+5', '1.0.post456.dev34'],
  ['1.0+abc', '1.0+abc.1'],
  ['1.0+a', '1.0+b'],
  ['1.0+1', '1.0+2'],
  ['1.0+9', '1.0+10'],
  ['1.0+z', '1.0+0'],
  ['1.0+ubuntu.1', '1.0+ubuntu.2'],
  ['1.0+ubuntu-1', '1.0+ubuntu.2'],
  ['1.0+cpu', '1.0+cu118'],
  ['2.1.0+cu118', '2.1.0+cu121'],
  ['2.1.0+cpu', '2.1.1'],
  ['1.0+local', '1.0.post1'],
  ['1.0a1+local', '1.0a2'],
  ['1.0+1.a', '1.0+1.1'],
  ['1.0+ABC', '1.0+abd'],
  ['1.0.dev1+local', '1.0.dev2'],
  // normalised spellings
  ['v1.0', '1.1'],
  ['V1.0', '1.0.1'],
  [' 1.0 ', '1.1'],
  ['1.0-dev1', '1.0a1'],
  ['1.0_post1', '1.0.post2'],
  ['1.0-1', '1.0.post2'],
  // shapes from PyPI advisories
  ['2.31.0', '2.32.0'],
  ['3.2.18', '3.2.19'],
  ['4.2', '4.2.1'],
  ['1.26.17', '1.26.18'],
  ['2.0.0a1', '2.0.0'],
  ['1.24.0rc1', '1.24.0'],
  ['0.9.0', '0.10.0'],
  ['22.0.4', '23.0'],
  ['41.0.6', '41.0.7'],
  ['2023.7.22', '2023.11.17'],
  ['9.5.0', '10.0.0'],
  ['1.10.0', '1.10.0.post1'],
  ['2.0.0b3', '2.0.0rc1'],
  // garbage sorts first
  ['french toast', '0'],
  ['1.0-SNAPSHOT', '0.0.dev0'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  ['1.0', '1.0.0'],
  ['1.0', '1.0.0.0'],
  ['1', '1.0'],
  ['0!1.0', '1.0'],
  ['v1.0', '1.0'],
  ['V1.0', '1.0'],
  [' 1.0\n', '1.0'],
  ['1.0a', '1.0a0'],
  ['1.0alpha1', '1.0a1'],
  ['1.0-alpha-1', '1.0a1'],
  ['1.0.a.1', '1.0a1'],
  ['1.0A1', '1.0a1'],
  ['1.0beta2', '1.0b2'],
  ['1.0c1', '1.0rc1'],
  ['1.0pre1', '1.0rc1'],
  ['1.0preview1', '1.0rc1'],
  ['1.0RC1', '1.0rc1'],
  ['1.0-1', '1.0.post1'],
  ['1.0-r1', '1.0.post1'],
  ['1.0rev1', '1.0.post1'],
  ['1.0.post', '1.0.post0'],
  ['1.0post1', '1.0.post1'],
  ['1.0_post_1', '1.0.post1'],
  ['1.0-dev', '1.0.dev0'],
  ['1.0dev', '1.0.dev0'],
  ['1.0_dev2', '1.0.dev2'],
  ['1.0.DEV2', '1.0.dev2'],
  ['1.0+ubuntu-1', '1.0+ubuntu.1'],
  ['1.0+ubuntu_1', '1.0+ubuntu.1'],
  ['1.0+UBUNTU.1', '1.0+ubuntu.1'],
  ['1.0+01', '1.0+1'],
  ['1.0.0+abc', '1.0+abc'],
  ['01.00', '1.0'],
  ['1.0a01', '1.0a1'],
  ['1.0.post01', '1.0.post1'],
  ['1.0a1-1', '1.0a1.post1'],
  ['1!1.0', '1!1.0.0'],
];

const VALID = [
  '1.0.dev456',
  '1.0a1',
  '1.0a2.dev456',
  '1.0b2.post345.dev456',
  '1.0rc1',
  '1.0',
  '1.0.post456.dev34',
  '1.0+abc.5',
  '1!1.0',
  '1.0-1',
  '1.0-r4',
  '1.0.rev4',
  '1.0post',
  '1.0-dev',
  '1.0_dev2',
  'v1.0',
  '  1.0  ',
  '1.0+ubuntu-1',
  '1.0.0.0.0.0',
  '2012.10',
  '1.0a.1',
  '1.0-ALPHA-1',
  '2.1.0+cu121',
];

/** From `packaging`'s invalid-version tests, plus semver-isms seen in the wild. */
const GARBAGE = [
  '',
  ' ',
  'french toast',
  '1.0+a+',
  '1.0++',
  '1.0+_foobar',
  '1.0+foo&asd',
  '1.0+1+1',
  '1.0-',
  '1.0+',
  '1.0.',
  '.1.0',
  '1..0',
  '1.0.post1.post2',
  '1.0a1a2',
  '1.0a1b1',
  '1!',
  '!1.0',
  '1.0.dev1a1',
  '1.0.dev1.post1',
  '1.0 beta',
  '1.0.0-beta.2.3',
  '1.0.0-SNAPSHOT',
  '1.0.x',
  'dev',
  '1.0+local version',
  '\u0661.0',
  '==1.0',
  '>=1.0,<2.0',
];

describe('comparePep440', () => {
  it(`orders ${ORDERED.length} hand-written pairs both ways`, () => {
    expect(ORDERED.length).toBeGreaterThanOrEqual(100);
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal both ways (normalisation, trailing zeros)`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it.each([
    ['PEP 440 summary', PEP_EXAMPLE_ORDER],
    ['packaging test-suite', PACKAGING_ORDER],
  ])('orders every pair of the %s sequence', (_label, sequence) => {
    expect(misordered(allPairs(sequence))).toEqual([]);
  });

  it.each([1, 5, 31, 2024])('sorting shuffled sequences (seed %i) gives the canonical order', (seed) => {
    expect(shuffled(PEP_EXAMPLE_ORDER, seed).sort(cmp)).toEqual(PEP_EXAMPLE_ORDER);
    expect(shuffled(PACKAGING_ORDER, seed).sort(cmp)).toEqual(PACKAGING_ORDER);
  });
});

describe('pep440Comparator.isValid', () => {
  it('is named pep440', () => {
    expect(pep440Comparator.name).toBe('pep440');
    expect(pep440Comparator.compare).toBe(comparePep440);
  });

  it.each(VALID)('accepts %j', (v) => {
    expect(pep440Comparator.isValid(v)).toBe(true);
  });

  it('normalises the parts it reads', () => {
    expect(parsePep440('V2!1.0-ALPHA_3.REV.4-Dev5+Ubuntu-1_b')).toEqual({
      epoch: '2',
      release: ['1', '0'],
      pre: { label: 'a', number: '3' },
      post: '4',
      dev: '5',
      local: ['ubuntu', '1', 'b'],
    });
    expect(parsePep440('1.0')).toEqual({
      epoch: '0',
      release: ['1', '0'],
      pre: null,
      post: null,
      dev: null,
      local: null,
    });
  });

  it.each(GARBAGE)('rejects %j, never throws, and sorts it before every version', (v) => {
    expect(pep440Comparator.isValid(v)).toBe(false);
    expect(parsePep440(v)).toBeNull();
    expect(cmp(v, v)).toBe(0);
    expect(cmp(v, '0.dev0')).toBe(-1);
    expect(cmp('0.dev0', v)).toBe(1);
  });

  it('survives non-string input from untyped feeds', () => {
    for (const v of [undefined, null, 1.5, {}] as unknown as string[]) {
      expect(pep440Comparator.isValid(v)).toBe(false);
      expect(() => cmp(v, '1.0')).not.toThrow();
    }
  });
});

describe('comparePep440 on random input', () => {
  it('never throws, is antisymmetric, and sorts consistently', () => {
    const alphabet = '0123456789.!+-_abcrdevpost';
    let s = 11;
    const rand = (n: number): number => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return Math.floor((s / 2147483648) * n);
    };
    const inputs = Array.from({ length: 400 }, () =>
      Array.from({ length: rand(12) }, () => alphabet[rand(alphabet.length)]).join(''),
    );
    inputs.push(...PACKAGING_ORDER, ...GARBAGE);
    for (let i = 0; i < inputs.length; i += 3)
      for (let j = 0; j < inputs.length; j += 7)
        expect(Math.sign(cmp(inputs[i], inputs[j]))).toBe(-Math.sign(cmp(inputs[j], inputs[i])) || 0);
    const sorted = [...inputs].sort(cmp);
    for (let i = 0; i < sorted.length; i += 5)
      for (let j = i + 1; j < sorted.length; j += 11) expect(cmp(sorted[i], sorted[j])).toBeLessThanOrEqual(0);
  });
});
