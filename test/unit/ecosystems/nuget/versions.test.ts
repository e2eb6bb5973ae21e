import { describe, expect, it } from 'vitest';
import { allPairs, shuffled, vectorChecks } from '../shared/testdata/vector-checks.js';
import { antisymmetryViolations, reflexivityViolations, transitivityViolations } from '../shared/testdata/ordering-properties.js';
import { compareNuGetVersions, nugetComparator, parseNuGetVersion } from '../../../../src/ecosystems/nuget/versions.js';
import { comparatorForEcosystem } from '../../../../src/ecosystems/registry.js';

const cmp = compareNuGetVersions;
const { misordered, unequal } = vectorChecks(cmp);

// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  ['1.0.0', '1.0.1'],
  ['1.0.9', '1.0.10'],
  ['4.1.10311', '6.1.3'],
  // a fourth (revision) part counts
  ['1.0.0', '1.0.0.1'],
  ['1.0.0.9', '1.0.0.10'],
  ['1.0.0.1', '1.0.1'],
  ['2.2.0.0-beta', '2.2.0.1'],
  // pre-releases sort below their release, labels left to right, numeric labels as numbers
  ['1.0.1-beta', '1.0.1'],
  ['1.0.1-alpha', '1.0.1-beta'],
  ['1.0.1-rc.2', '1.0.1-rc.10'],
  ['1.0.1-alpha10', '1.0.1-alpha2'],
  ['1.0.1-rc', '1.0.1-rc.1'],
  ['1.0.1-1', '1.0.1-alpha'],
  ['6.2.0-beta1', '6.2.0'],
  // NuGet's documented precedence example, each neighbour pair
  ['1.0.1-aaa', '1.0.1-alpha10'],
  ['1.0.1-alpha2', '1.0.1-beta'],
  ['1.0.1-open', '1.0.1-rc.2'],
  ['1.0.1-rc.10', '1.0.1-zzz'],
  ['1.0.1-zzz', '1.0.1'],
  // big numbers stay exact
  ['1.0.99999999999999999999', '1.0.100000000000000000000'],
  // unparseable strings sort first
  ['not-a-version', '0.0.1'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  ['1.0', '1.0.0'],
  ['1.0.0', '1.0.0.0'],
  ['1.01.1', '1.1.1'],
  ['1.00.0.1', '1.0.0.1'],
  ['1.0.7+r3456', '1.0.7'],
  ['2.0.0-alpha+build', '2.0.0-alpha'],
  // labels compare case-insensitively
  ['1.0.0-RC.1', '1.0.0-rc.1'],
  ['1.0.0-Beta2', '1.0.0-beta2'],
];

// NuGet's documented order, highest first, reversed.
const CANONICAL = ['1.0.1-aaa', '1.0.1-alpha10', '1.0.1-alpha2', '1.0.1-beta', '1.0.1-open', '1.0.1-rc.2', '1.0.1-rc.10', '1.0.1-zzz', '1.0.1', '1.0.1.1', '1.0.2'];

describe('compareNuGetVersions', () => {
  it(`orders ${ORDERED.length} pairs both ways`, () => {
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal (missing parts, leading zeros, metadata, label case)`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it('sorts the documented precedence list from any starting order', () => {
    expect(misordered(allPairs(CANONICAL))).toEqual([]);
    expect(shuffled(CANONICAL, 7).sort(cmp)).toEqual(CANONICAL);
  });

  it('is a consistent ordering over mixed input', () => {
    const sample = [...CANONICAL, ...EQUAL.flat(), 'garbage', '', '1.0.0-RC.1'];
    expect(reflexivityViolations(cmp, sample)).toEqual([]);
    expect(antisymmetryViolations(cmp, allPairs(sample))).toEqual([]);
    expect(transitivityViolations(cmp, sample)).toEqual([]);
  });

  it('reads up to four parts and the labels', () => {
    expect(parseNuGetVersion('1.2')).toEqual({ numbers: ['1', '2', '0', '0'], labels: [] });
    expect(parseNuGetVersion('8.0.0.1-preview.7.23375.6')).toEqual({ numbers: ['8', '0', '0', '1'], labels: ['preview', '7', '23375', '6'] });
    expect(parseNuGetVersion('1.2.3.4.5')).toBeNull();
    expect(parseNuGetVersion('1.0.0-')).toBeNull();
  });
});

describe('nugetComparator', () => {
  it('is the comparator of the NuGet ecosystem, any spelling', () => {
    expect(nugetComparator.name).toBe('nuget');
    expect(comparatorForEcosystem('NuGet')).toBe(nugetComparator);
    expect(nugetComparator.isValid('13.0.1')).toBe(true);
    expect(nugetComparator.isValid('v13.0.1')).toBe(false);
  });
});
