import { describe, expect, it } from 'vitest';
import { vectorChecks, allPairs, shuffled } from '../shared/testdata/vector-checks.js';
import { compareMavenVersions, isMavenVersion, mavenComparator } from '../../../../src/ecosystems/java/versions.js';

const cmp = compareMavenVersions;
const { misordered, unequal } = vectorChecks(cmp);

// ComparableVersionTest (maven-artifact 3.9.x): VERSIONS_QUALIFIER and VERSIONS_NUMBER, each strictly ascending.
const VERSIONS_QUALIFIER = [
  '1-alpha2snapshot',
  '1-alpha2',
  '1-alpha-123',
  '1-beta-2',
  '1-beta123',
  '1-m2',
  '1-m11',
  '1-rc',
  '1-cr2',
  '1-rc123',
  '1-SNAPSHOT',
  '1',
  '1-sp',
  '1-sp2',
  '1-sp123',
  '1-abc',
  '1-def',
  '1-pom-1',
  '1-1-snapshot',
  '1-1',
  '1-2',
  '1-123',
];

const VERSIONS_NUMBER = [
  '2.0',
  '2.0.a',
  '2-1',
  '2.0.2',
  '2.0.123',
  '2.1.0',
  '2.1-a',
  '2.1b',
  '2.1-c',
  '2.1-1',
  '2.1.0.1',
  '2.2',
  '2.123',
  '11.a2',
  '11.a11',
  '11.b2',
  '11.b11',
  '11.m2',
  '11.m11',
  '11',
  '11.a',
  '11b',
  '11c',
  '11m',
];

/** Release lines as they appear in Maven Central, ascending. */
const REAL_WORLD_ORDER = [
  '1.0-alpha-1',
  '1.0-alpha-2',
  '1.0-beta-1',
  '1.0-M1',
  '1.0-M2',
  '1.0-RC1',
  '1.0-CR2',
  '1.0-SNAPSHOT',
  '1.0',
  '1.0-sp1',
  '1.0-jre',
  '1.0-1',
  '1.0.1-SNAPSHOT',
  '1.0.1',
  '1.1-beta9',
  '1.1',
  '1.10',
  '2.0.0.M1',
  '2.0.0.RC1',
  '2.0.0.RELEASE',
  '2.0.0.SP1',
  '2.0.1.Final',
  '10.0.0',
];

const MNG_7644_QUALIFIERS = ['abc', 'alpha', 'a', 'beta', 'b', 'def', 'milestone', 'm', 'RC'];

// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  // ComparableVersionTest.testVersionComparing
  ['1', '2'],
  ['1.5', '2'],
  ['1', '2.5'],
  ['1.0', '1.1'],
  ['1.1', '1.2'],
  ['1.0.0', '1.1'],
  ['1.0.1', '1.1'],
  ['1.1', '1.2.0'],
  ['1.0-alpha-1', '1.0'],
  ['1.0-alpha-1', '1.0-alpha-2'],
  ['1.0-alpha-1', '1.0-beta-1'],
  ['1.0-beta-1', '1.0-SNAPSHOT'],
  ['1.0-SNAPSHOT', '1.0'],
  ['1.0-alpha-1-SNAPSHOT', '1.0-alpha-1'],
  ['1.0', '1.0-1'],
  ['1.0-1', '1.0-2'],
  ['1.0.0', '1.0-1'],
  ['2.0-1', '2.0.1'],
  ['2.0.1-klm', '2.0.1-lmn'],
  ['2.0.1', '2.0.1-xyz'],
  ['2.0.1', '2.0.1-123'],
  ['2.0.1-xyz', '2.0.1-123'],
  // MNG-5568
  ['6.1.0rc3', '6.1.0'],
  ['6.1.0rc3', '6.1H.5-beta'],
  ['6.1.0', '6.1H.5-beta'],
  // MNG-6572: numbers past int and long
  ['20190126.230843', '1234567890.12345'],
  ['1234567890.12345', '123456789012345.1H.5-beta'],
  ['20190126.230843', '123456789012345.1H.5-beta'],
  ['123456789012345.1H.5-beta', '12345678901234567890.1H.5-beta'],
  ['1234567890.12345', '12345678901234567890.1H.5-beta'],
  ['20190126.230843', '12345678901234567890.1H.5-beta'],
  // MNG-6964
  ['1-0.alpha', '1'],
  ['1-0.beta', '1'],
  ['1-0.alpha', '1-0.beta'],
  // MNG-7644: 1.0.0.X1 < 1.0.0-X2
  ...MNG_7644_QUALIFIERS.map((x) => [`1.0.0.${x}1`, `1.0.0-${x}2`] as const),
  // qualifier ranks: alpha < beta < milestone < rc = cr < snapshot < release < sp < unknown (lexical)
  ['1.0-alpha', '1.0-beta'],
  ['1.0-beta', '1.0-milestone'],
  ['1.0-milestone', '1.0-rc'],
  ['1.0-rc', '1.0-snapshot'],
  ['1.0-cr', '1.0-snapshot'],
  ['1.0-snapshot', '1.0'],
  ['1.0', '1.0-sp'],
  ['1.0-sp', '1.0-foo'],
  ['1.0-abc', '1.0-abd'],
  ['1.0-jre', '1.0-redhat-1'],
  ['1.0-ALPHA', '1.0-beta'],
  ['1.0-Beta', '1.0-RC'],
  ['1.0-foo', '1.0-foo1'],
  ['1.0-a', '1.0-b'],
  ['1.0-a1', '1.0-a'],
  ['1.0-alpha1', '1.0-alpha2'],
  ['1.0-RC1', '1.0-RC2'],
  ['1.0-RC9', '1.0-RC10'],
  ['1.0.0-M1', '1.0.0-M2'],
  ['1.0.0-M9', '1.0.0-RC1'],
  ['1.0-beta-9', '1.0-beta-10'],
  ['1.0-sp', '1.0-sp1'],
  ['1.0-sp1', '1.0-sp2'],
  ['1.0.SP1', '1.0.SP2'],
  ['1.0', '1.0.SP1'],
  // numbers outrank sub-lists, which outrank qualifiers: 1-sp < 1-1 < 1.1
  ['1-sp', '1-1'],
  ['1-1', '1.1'],
  ['1-foo', '1-1'],
  ['1.0-1', '1.0.1'],
  ['1.0', '1.0.0.1'],
  ['1', '1.0.0.0.0.1'],
  ['1.0.0', '1.0.1'],
  ['1.9', '1.10'],
  ['1.4', '1.10'],
  // Maven knows nothing of timestamped snapshots: the timestamp is a sub-list after the release
  ['1.0', '1.0-20210101.120000-1'],
  ['1.0-20210101.120000-1', '1.0-20210101.120000-2'],
  // Spring
  ['5.3.0.RC1', '5.3.0'],
  ['5.2.9.RELEASE', '5.3.0-M1'],
  ['5.3.0-M1', '5.3.0-RC1'],
  ['5.3.0-RC1', '5.3.0.RELEASE'],
  ['5.3.0', '5.3.1'],
  ['5.3.9', '5.3.10'],
  // jackson-databind micro-patches
  ['2.12.7', '2.12.7.1'],
  ['2.12.7.1', '2.13.0'],
  ['2.13.4', '2.13.4.1'],
  ['2.13.4.1', '2.13.4.2'],
  // log4j
  ['2.14.1', '2.15.0'],
  ['2.15.0', '2.16.0'],
  ['2.0-beta9', '2.0-rc1'],
  ['2.0-rc2', '2.0'],
  ['1.2.17', '2.0-alpha1'],
  ['2.17.0', '2.17.1'],
  // Guava flavours
  ['30.1-jre', '30.1.1-jre'],
  ['31.1-android', '31.1-jre'],
  ['29.0-jre', '30.0-android'],
  ['r09', 'r10'],
  ['r09', '10.0'],
  // Hibernate / Netty / Jetty / Tomcat
  ['5.4.24.Final', '5.4.25.Final'],
  ['5.4.0.CR1', '5.4.0.Final'],
  ['5.6.15.Final', '6.0.0.Alpha1'],
  ['6.0.0.Alpha9', '6.0.0.Beta1'],
  ['6.0.0.CR1', '6.0.0.Final'],
  ['4.1.68.Final', '4.1.69.Final'],
  ['4.1.9.Final', '4.1.10.Final'],
  ['4.1.100.Final', '4.1.101.Final'],
  ['9.4.43.v20210629', '9.4.44.v20210927'],
  ['9.4.9.v20180320', '9.4.10.RC0'],
  ['9.0.0.M1', '9.0.0'],
  ['10.1.0-M17', '10.1.0'],
  ['8.5.99', '9.0.0.M1'],
  // a run of ten zeros is a Java long, which Maven ranks above every int
  ['1.5.5', '1.0000000000.5'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  // ComparableVersionTest.testVersionsEqual
  ['1', '1'],
  ['1', '1.0'],
  ['1', '1.0.0'],
  ['1.0', '1.0.0'],
  ['1', '1-0'],
  ['1', '1.0-0'],
  ['1.0', '1.0-0'],
  ['1a', '1-a'],
  ['1a', '1.0-a'],
  ['1a', '1.0.0-a'],
  ['1.0a', '1-a'],
  ['1.0.0a', '1-a'],
  ['1x', '1-x'],
  ['1x', '1.0-x'],
  ['1x', '1.0.0-x'],
  ['1.0x', '1-x'],
  ['1.0.0x', '1-x'],
  ['1ga', '1'],
  ['1release', '1'],
  ['1final', '1'],
  ['1cr', '1rc'],
  ['1a1', '1-alpha-1'],
  ['1b2', '1-beta-2'],
  ['1m3', '1-milestone-3'],
  ['1X', '1x'],
  ['1A', '1a'],
  ['1B', '1b'],
  ['1M', '1m'],
  ['1Ga', '1'],
  ['1GA', '1'],
  ['1RELEASE', '1'],
  ['1RELeaSE', '1'],
  ['1Final', '1'],
  ['1FinaL', '1'],
  ['1FINAL', '1'],
  ['1Cr', '1Rc'],
  ['1cR', '1rC'],
  ['1m3', '1Milestone3'],
  ['1m3', '1MileStone3'],
  ['1m3', '1MILESTONE3'],
  ['1-abcdefghijklmnopqrstuvwxyz', '1-ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  // MNG-7644: 2.0.X == 2-X == 2.0.0.X
  ...MNG_7644_QUALIFIERS.flatMap((x) => [
    [`2-${x}`, `2.0.${x}`] as const,
    [`2-${x}`, `2.0.0.${x}`] as const,
    [`2.0.${x}`, `2.0.0.${x}`] as const,
  ]),
  // release aliases in the wild
  ['1.0.0.RELEASE', '1'],
  ['1.0.Final', '1.0'],
  ['1.0.GA', '1'],
  ['5.3.0.RELEASE', '5.3.0'],
  ['4.1.68.Final', '4.1.68'],
  ['1.0-0.0', '1'],
  ['1.0.0-ga', '1'],
  ['1.0-CR1', '1.0-RC1'],
  ['1.0.0-a1', '1.0.0-alpha-1'],
  ['1.0.0-alpha1', '1.0.0-alpha-1'],
  ['1.0.0.alpha1', '1.0.0-alpha-1'],
  ['1.0.0-SNAPSHOT', '1-snapshot'],
  ['1.00', '1'],
];

/** testVersionEqualWithLeadingZeroes and testVersionZeroEqualWithLeadingZeroes: 1..19 digits. */
const LEADING_ZEROS = ['1', '0'].map((digit) => Array.from({ length: 19 }, (_, i) => digit.padStart(i + 1, '0')));

const VALID = [
  '1',
  '1.0',
  '1.0.0',
  '1.0-SNAPSHOT',
  '5.3.0.RELEASE',
  '4.1.68.Final',
  '30.1-jre',
  'r09',
  '9.4.44.v20210927',
  '2.0-beta9',
  '1.0~beta1',
  '17.0.5+8',
  '1.0_01',
];

const NOT_VERSIONS = [
  '',
  ' ',
  'LATEST',
  'RELEASE',
  '[1.0,2.0)',
  '(,1.0]',
  '1.0,2.0',
  '1.0 beta',
  '-1.0',
  '.1',
  'alpha',
  'ü1',
  '${project.version}',
  '1.0\n',
];

describe('compareMavenVersions', () => {
  it(`orders ${ORDERED.length} hand-written pairs both ways`, () => {
    expect(ORDERED.length).toBeGreaterThanOrEqual(100);
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal both ways (aliases, trailing nulls, case, MNG-7644)`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it('treats numbers with any count of leading zeros as equal', () => {
    for (const variants of LEADING_ZEROS) expect(unequal(allPairs(variants))).toEqual([]);
  });

  it.each([
    ['VERSIONS_QUALIFIER', VERSIONS_QUALIFIER],
    ['VERSIONS_NUMBER', VERSIONS_NUMBER],
    ['real-world', REAL_WORLD_ORDER],
  ])('orders every pair of the %s sequence', (_label, sequence) => {
    expect(misordered(allPairs(sequence))).toEqual([]);
  });

  it.each([1, 3, 17, 4096])('sorting shuffled sequences (seed %i) gives the canonical order', (seed) => {
    for (const sequence of [VERSIONS_QUALIFIER, VERSIONS_NUMBER, REAL_WORLD_ORDER])
      expect(shuffled(sequence, seed).sort(cmp)).toEqual(sequence);
  });

  it('returns -1, 0 or 1', () => {
    expect(cmp('1', '12345678901234567890')).toBe(-1);
    expect(cmp('2.0', '1.9')).toBe(1);
    expect(cmp('1.0.0', '1')).toBe(0);
  });
});

describe('mavenComparator.isValid', () => {
  it('is named maven', () => {
    expect(mavenComparator.name).toBe('maven');
    expect(mavenComparator.compare).toBe(compareMavenVersions);
  });

  it.each(VALID)('accepts %j', (v) => {
    expect(mavenComparator.isValid(v)).toBe(true);
    expect(isMavenVersion(v)).toBe(true);
  });

  // Maven orders any string, so these still compare; they are just not release versions.
  it.each(NOT_VERSIONS)('rejects %j and still compares it without throwing', (v) => {
    expect(mavenComparator.isValid(v)).toBe(false);
    expect(cmp(v, v)).toBe(0);
    expect(() => cmp(v, '1.0')).not.toThrow();
    expect(Math.sign(cmp(v, '1.0'))).toBe(-Math.sign(cmp('1.0', v)) || 0);
  });

  it('survives non-string input from untyped feeds', () => {
    for (const v of [undefined, null, 7, {}] as unknown as string[]) {
      expect(mavenComparator.isValid(v)).toBe(false);
      expect(() => cmp(v, '1.0')).not.toThrow();
    }
  });
});

describe('compareMavenVersions on random input', () => {
  // Maven's order has cycles on degenerate strings ("" < "A" < "0A0" < ""), so only antisymmetry holds in general.
  it('never throws and is antisymmetric', () => {
    const pieces = ['0', '1', '10', '00', '.', '-', '_', 'a', 'b', 'm', 'rc', 'cr', 'sp', 'ga', 'final', 'SNAPSHOT'];
    let s = 3;
    const rand = (n: number): number => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return Math.floor((s / 2147483648) * n);
    };
    const inputs = Array.from({ length: 300 }, () =>
      Array.from({ length: rand(8) }, () => pieces[rand(pieces.length)]).join(''),
    );
    for (let i = 0; i < inputs.length; i += 2)
      for (let j = 0; j < inputs.length; j += 5)
        expect(Math.sign(cmp(inputs[i], inputs[j]))).toBe(-Math.sign(cmp(inputs[j], inputs[i])) || 0);
  });

  it('reproduces the cycle Maven 3.9 has on degenerate input', () => {
    expect(cmp('', 'A')).toBe(-1);
    expect(cmp('A', '0A0')).toBe(-1);
    expect(cmp('0A0', '')).toBe(-1);
  });
});
