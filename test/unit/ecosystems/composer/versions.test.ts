import { describe, expect, it } from 'vitest';
import { allPairs, shuffled, vectorChecks } from '../shared/testdata/vector-checks.js';
import { antisymmetryViolations, reflexivityViolations, transitivityViolations } from '../shared/testdata/ordering-properties.js';
import { comparatorForEcosystem } from '../../../../src/ecosystems/registry.js';
import { composerComparator, compareComposerVersions, parseComposerVersion } from '../../../../src/ecosystems/composer/versions.js';

const cmp = compareComposerVersions;
const { misordered, unequal } = vectorChecks(cmp);

// [lower, higher]
const ORDERED: readonly (readonly [string, string])[] = [
  ['1.0.0', '1.0.1'],
  ['v5.4.9', 'v5.4.10'],
  ['5.4.21', 'v6.0.0'],
  ['1.0.0', '1.0.0.1'],
  // stability: dev < alpha < beta < RC < release < patch, then by number
  ['1.0.0-dev', '1.0.0-alpha1'],
  ['1.0.0-alpha1', '1.0.0-beta1'],
  ['1.0.0-beta1', '1.0.0-RC1'],
  ['1.0.0-RC1', '1.0.0'],
  ['1.0.0', '1.0.0-p1'],
  ['1.0.0-pl1', '1.0.0-patch2'],
  ['1.0.0-beta2', '1.0.0-beta10'],
  ['1.0.0-beta', '1.0.0-beta1'],
  ['1.0.0-a1', '1.0.0-b1'],
  ['2.0.0-RC1', '2.0.0-rc2'],
  ['1.0.0-beta.1', '1.0.0-beta.1.1'],
  // a trailing -dev sorts just below the same version
  ['1.0.0-beta2-dev', '1.0.0-beta2'],
  ['1.0.0-beta1', '1.0.0-beta2-dev'],
  // branch aliases sit above every release of the branch
  ['1.2.999', '1.2.x-dev'],
  ['1.2.x-dev', '1.3.0'],
  // branch names are not in the release order: they sort first
  ['dev-main', '0.0.1'],
];

const EQUAL: readonly (readonly [string, string])[] = [
  ['v1.2.3', '1.2.3'],
  ['1.2', '1.2.0.0'],
  ['1.0.0-RC1', '1.0.0.0-rc1'],
  ['1.0.0-b2', '1.0.0-beta2'],
  ['1.0.0-pl3', '1.0.0-patch3'],
  ['1.0.0-stable', '1.0.0'],
  ['1.0.0+build.7', '1.0.0'],
  ['1.0.0.RC.1', '1.0.0-RC1'],
];

const CANONICAL = ['1.0.0-dev', '1.0.0-alpha', '1.0.0-alpha2', '1.0.0-beta1', '1.0.0-RC1', '1.0.0-RC2', '1.0.0', '1.0.0-p1', '1.0.1', 'v1.1.0', '1.1.x-dev', '2.0.0'];

describe('compareComposerVersions', () => {
  it(`orders ${ORDERED.length} pairs both ways`, () => {
    expect(misordered(ORDERED)).toEqual([]);
  });

  it(`treats ${EQUAL.length} pairs as equal (v prefix, missing parts, aliases, build metadata)`, () => {
    expect(unequal(EQUAL)).toEqual([]);
  });

  it('sorts a release line from any starting order', () => {
    expect(misordered(allPairs(CANONICAL))).toEqual([]);
    expect(shuffled(CANONICAL, 11).sort(cmp)).toEqual(CANONICAL);
  });

  it('is a consistent ordering over mixed input', () => {
    const sample = [...CANONICAL, ...EQUAL.flat(), 'dev-main', 'dev-feature/x', '', '1.x'];
    expect(reflexivityViolations(cmp, sample)).toEqual([]);
    expect(antisymmetryViolations(cmp, allPairs(sample))).toEqual([]);
    expect(transitivityViolations(cmp, sample)).toEqual([]);
  });

  it('normalises as Composer does', () => {
    expect(parseComposerVersion('v2.3')).toEqual({ numbers: ['2', '3', '0', '0'], stability: 4, stabilityNumbers: [], dev: false });
    expect(parseComposerVersion('1.2.x-dev')).toMatchObject({ numbers: ['1', '2', '9999999', '9999999'], dev: true });
    expect(parseComposerVersion('dev-main')).toBeNull();
    expect(parseComposerVersion('1.x')).toBeNull();
  });
});

describe('composerComparator', () => {
  it('is the comparator of the Packagist ecosystem', () => {
    expect(composerComparator.name).toBe('composer');
    expect(comparatorForEcosystem('Packagist')).toBe(composerComparator);
    expect(composerComparator.isValid('v6.4.0')).toBe(true);
    expect(composerComparator.isValid('dev-master')).toBe(false);
  });
});
