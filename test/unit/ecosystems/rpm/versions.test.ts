import { beforeAll, describe, expect, it } from 'vitest';
import { missingTools } from '../../../support/tools.js';
import {
  compareRpmVersions,
  compareRpmVersionsStrict,
  isValidRpmVersion,
  parseRpmVersion,
  rpmComparator,
  rpmvercmp,
} from '../../../../src/ecosystems/rpm/versions.js';
import { RPM_INVALID, RPM_REAL_WORLD, RPM_SEGMENT_ATOMS, rpmVectors } from './testdata/version-vectors.js';
import { antisymmetryViolations, reflexivityViolations, transitivityViolations } from '../shared/testdata/ordering-properties.js';
import { rpmVercmpAll, type ToolOrder } from '../shared/testdata/reference-tools.js';

const pairs = rpmVectors();

/**
 * The EVR with its release replaced by `0`. Giving both sides the same release makes rpm.vercmp compare
 * epoch and version only, which is the range rule's answer when a release is missing; merely dropping the
 * release would not do, since rpm would read a hyphen inside the version as a new release separator.
 */
function withSameRelease(evr: string): string {
  const hyphen = evr.lastIndexOf('-');
  return `${hyphen >= 0 ? evr.slice(0, hyphen) : evr}-0`;
}

/** Whether the range rule ignores the release for this pair: one side has none (or an empty one). */
function releaseIgnored(a: string, b: string): boolean {
  return !parseRpmVersion(a).release || !parseRpmVersion(b).release;
}

describe.skipIf(missingTools('rpm'))('rpm ordering against rpm.vercmp()', () => {
  /** rpm's answer for each pair, and for each pair with both releases set to 0 (the range rule's reference). */
  let answers: ToolOrder[];
  let strippedAnswers: ToolOrder[];
  beforeAll(() => {
    const all = rpmVercmpAll([...pairs, ...pairs.map(([a, b]): [string, string] => [withSameRelease(a), withSameRelease(b)])]);
    answers = all.slice(0, pairs.length);
    strippedAnswers = all.slice(pairs.length);
  }, 120_000);

  it(`compareRpmVersionsStrict equals rpm.vercmp on every pair (${pairs.length} generated pairs, one rpm call)`, () => {
    const mismatches: string[] = [];
    let compared = 0;
    pairs.forEach(([a, b], i) => {
      const rpm = answers[i];
      if (rpm === 'error') return;
      compared++;
      const ours = Math.sign(compareRpmVersionsStrict(a, b));
      if (ours !== rpm) mismatches.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: rpm ${rpm}, ours ${ours}`);
    });
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(5000);
  });

  it('compareRpmVersions equals rpm.vercmp when both or neither side has a release, and rpm.vercmp on epoch and version otherwise', () => {
    const mismatches: string[] = [];
    let ignoredReleases = 0;
    pairs.forEach(([a, b], i) => {
      const ignored = releaseIgnored(a, b);
      const rpm = ignored ? strippedAnswers[i] : answers[i];
      if (rpm === 'error') return;
      if (ignored && parseRpmVersion(a).release !== parseRpmVersion(b).release) ignoredReleases++;
      const ours = Math.sign(compareRpmVersions(a, b));
      if (ours !== rpm) mismatches.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: rpm ${rpm}, ours ${ours}`);
    });
    expect(mismatches).toEqual([]);
    expect(ignoredReleases).toBeGreaterThan(300);
  });

  it('covers every outcome, and rpm refuses only the empty string', () => {
    expect(new Set(answers)).toEqual(new Set([-1, 0, 1, 'error']));
    const refused = pairs.filter((_, i) => answers[i] === 'error');
    for (const [a, b] of refused) expect(a === '' || b === '', `${a} / ${b}`).toBe(true);
    expect(pairs.filter(([a, b], i) => answers[i] === 0 && a !== b).length).toBeGreaterThan(50);
  });
});

describe('rpmvercmp rules, spelled out', () => {
  it.each([
    ['1.0', '1.0.1', -1, 'more segments win'],
    ['1.2', '1.10', -1, 'numeric segments compare as numbers'],
    ['1.01', '1.1', 0, 'leading zeros do not count'],
    ['1.0', '1_0', 0, 'which separator it is never matters'],
    ['1..0', '1.0', 0, 'nor how many'],
    ['1.0a', '1.0', 1, 'a leftover letter segment still wins over the end'],
    ['1.0a', '1.0.1', -1, 'numeric beats alpha'],
    ['1.0A', '1.0a', -1, 'letters compare as ASCII'],
    ['1.0~rc1', '1.0', -1, '~ sorts before the end'],
    ['1.0~rc1', '1.0~rc2', -1, 'and continues after it'],
    ['1.0~~', '1.0~', -1, 'a second ~ sorts before the first'],
    ['1.0^', '1.0', 1, '^ sorts after the end'],
    ['1.0^git1', '1.0.1', -1, 'but before any further segment'],
    ['1.0^git1', '1.0~rc1', 1, 'and after ~'],
    ['12345678901234567890', '12345678901234567891', -1, 'numbers of any length'],
  ])('rpmvercmp(%s, %s) = %i (%s)', (a, b, expected) => {
    expect(rpmvercmp(a, b)).toBe(expected);
    expect(rpmvercmp(b, a)).toBe(expected === 0 ? 0 : -expected);
  });
});

describe('EVR handling', () => {
  it('splits epoch, version and release as parseEVR() does', () => {
    expect(parseRpmVersion('1:2.3-4.el9')).toEqual({ epoch: '1', version: '2.3', release: '4.el9' });
    expect(parseRpmVersion('2.3')).toEqual({ epoch: undefined, version: '2.3', release: undefined });
    expect(parseRpmVersion(':2.3')).toEqual({ epoch: '0', version: '2.3', release: undefined });
    expect(parseRpmVersion('2.3-4-5')).toEqual({ epoch: undefined, version: '2.3-4', release: '5' });
    expect(parseRpmVersion('a:1')).toEqual({ epoch: undefined, version: 'a:1', release: undefined });
  });

  it.each([
    ['1:1.0', '2.0', 1, 1],
    ['0:1.0', '1.0', 0, 0],
    ['1.0', '1.0-1', 0, -1],
    ['1.0-', '1.0-1', 0, -1],
    ['1.0', '1.0-', 0, -1],
    ['1.0-1', '1.0-2', -1, -1],
    ['5.14.0-362.8.1.el9_3', '5.14.0-362.13.1.el9_3', -1, -1],
    ['1.1.1k-9.el8_7', '1:1.1.1k-7.el8_6', -1, -1],
    ['1.2.3', '1.2.3-1.el9', 0, -1],
    ['1.2.4', '1.2.3-99.el9', 1, 1],
  ])('%s vs %s: range rule %i, strict %i', (a, b, rangeRule, strict) => {
    expect(compareRpmVersions(a, b)).toBe(rangeRule);
    expect(compareRpmVersionsStrict(a, b)).toBe(strict);
  });

  it('is not transitive across a missing release under the range rule, by design', () => {
    expect(compareRpmVersions('1.0-1', '1.0')).toBe(0);
    expect(compareRpmVersions('1.0', '1.0-2')).toBe(0);
    expect(compareRpmVersions('1.0-1', '1.0-2')).toBe(-1);
  });

  it('calls well-formed EVRs valid and the rest invalid', () => {
    const valid = [...RPM_REAL_WORLD.filter((evr) => evr !== '1.0-'), '1.0~rc1', '1.0^git1', '1.0+1', '0:1', '1.0_1'];
    expect(valid.filter((evr) => !isValidRpmVersion(evr))).toEqual([]);
    expect(RPM_INVALID.filter(isValidRpmVersion)).toEqual([]);
  });
});

describe('rpmComparator as an ordering', () => {
  const withRelease = RPM_REAL_WORLD.filter((evr) => parseRpmVersion(evr).release);
  const withoutReleases = RPM_SEGMENT_ATOMS.filter((evr) => parseRpmVersion(evr).release === undefined);

  it('is named rpm and uses the range rule', () => {
    expect(rpmComparator.name).toBe('rpm');
    expect(rpmComparator.compare('1.0', '1.0-1')).toBe(0);
    expect(rpmComparator.isValid('1.0-1.el9')).toBe(true);
    expect(rpmComparator.isValid('1.0 1')).toBe(false);
  });

  it('compares every string equal to itself', () => {
    const strings = [...new Set(pairs.flat())];
    expect(reflexivityViolations(compareRpmVersions, strings)).toEqual([]);
    expect(reflexivityViolations(compareRpmVersionsStrict, strings)).toEqual([]);
  });

  it('flips the sign when the arguments swap', () => {
    expect(antisymmetryViolations(compareRpmVersions, pairs)).toEqual([]);
    expect(antisymmetryViolations(compareRpmVersionsStrict, pairs)).toEqual([]);
  });

  it(`is transitive over every triple of same-shape samples (${withRelease.length} with release, ${withoutReleases.length} without)`, () => {
    expect(transitivityViolations(compareRpmVersions, withRelease)).toEqual([]);
    expect(transitivityViolations(compareRpmVersions, withoutReleases)).toEqual([]);
  });

  it('is transitive in the strict order over a mixed sample', () => {
    const mixed = [...RPM_REAL_WORLD, ...RPM_SEGMENT_ATOMS.slice(0, 30)];
    expect(transitivityViolations(compareRpmVersionsStrict, mixed)).toEqual([]);
  });

  it('never throws on garbage', () => {
    const garbage = [...RPM_INVALID, '\0', '1\u00001', '😀', '1.0😀', 'x'.repeat(10_000), '9'.repeat(10_000), '~'.repeat(100), '^'.repeat(100)];
    for (const a of garbage) {
      for (const b of [...garbage.slice(0, 12), '1.0', '']) {
        expect(Number.isFinite(compareRpmVersions(a, b))).toBe(true);
        expect(Number.isFinite(compareRpmVersionsStrict(a, b))).toBe(true);
      }
      expect(typeof isValidRpmVersion(a)).toBe('boolean');
    }
  });
});
