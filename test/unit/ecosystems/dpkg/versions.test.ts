import { beforeAll, describe, expect, it } from 'vitest';
import { missingTools } from '../../../support/tools.js';
import {
  compareDebianVersions,
  dpkgComparator,
  isValidDebianVersion,
  parseDebianVersion,
} from '../../../../src/ecosystems/dpkg/versions.js';
import {
  DEBIAN_INVALID,
  DEBIAN_REAL_WORLD,
  DEBIAN_UPSTREAM_ATOMS,
  DEBIAN_VALID_EDGES,
  debianGrid,
  debianVectors,
} from './testdata/version-vectors.js';
import { antisymmetryViolations, reflexivityViolations, transitivityViolations } from '../shared/testdata/ordering-properties.js';
import { dpkgCompareAll, dpkgValidateAll, type ToolOrder } from '../shared/testdata/reference-tools.js';

const { pairs, strings } = debianVectors();

describe.skipIf(missingTools('dpkg'))('compareDebianVersions against dpkg --compare-versions', () => {
  let answers: ToolOrder[];
  beforeAll(async () => {
    answers = await dpkgCompareAll(pairs);
  }, 180_000);

  it(`orders every pair dpkg can compare exactly as dpkg does (${pairs.length} generated pairs)`, () => {
    const mismatches: string[] = [];
    let compared = 0;
    pairs.forEach(([a, b], i) => {
      const dpkg = answers[i];
      if (dpkg === 'error') return;
      compared++;
      const ours = Math.sign(compareDebianVersions(a, b));
      if (ours !== dpkg) mismatches.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: dpkg ${dpkg}, ours ${ours}`);
    });
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(3000);
  });

  it('covers every ordering outcome, including equal strings that differ in text', () => {
    const outcomes = new Set(answers);
    expect([...outcomes].sort()).toEqual([-1, 0, 1, 'error'].sort());
    const equalButDifferent = pairs.filter(([a, b], i) => answers[i] === 0 && a !== b);
    expect(equalButDifferent.length).toBeGreaterThan(20);
  });

  it('calls invalid every string in a pair dpkg refuses to compare, and still orders it without throwing', () => {
    const refused = pairs.filter((_, i) => answers[i] === 'error');
    expect(refused.length).toBeGreaterThan(10);
    for (const [a, b] of refused) {
      expect(isValidDebianVersion(a) && isValidDebianVersion(b), `${a} / ${b}`).toBe(false);
      expect(Number.isFinite(compareDebianVersions(a, b))).toBe(true);
    }
  });
});

describe.skipIf(missingTools('dpkg'))('isValidDebianVersion against dpkg --validate-version', () => {
  it(`accepts exactly what dpkg accepts (${strings.length} strings)`, async () => {
    const dpkg = await dpkgValidateAll(strings);
    const mismatches = strings.filter((text, i) => isValidDebianVersion(text) !== dpkg[i]).map((text, i) => `${JSON.stringify(text)}: dpkg ${dpkg[i]}`);
    expect(mismatches).toEqual([]);
    expect(dpkg.filter(Boolean).length).toBeGreaterThan(500);
    expect(dpkg.filter((valid) => !valid).length).toBeGreaterThan(30);
  }, 180_000);

  it('rejects the invalid list and accepts the edge list', () => {
    expect(DEBIAN_INVALID.filter(isValidDebianVersion)).toEqual([]);
    expect(DEBIAN_VALID_EDGES.filter((text) => !isValidDebianVersion(text))).toEqual([]);
  });
});

describe('Debian policy ordering, spelled out', () => {
  it.each([
    ['1.0~rc1', '1.0', -1, '~ sorts before the end of the string'],
    ['1.0~~', '1.0~', -1, 'a second ~ sorts before the first'],
    ['1.0~rc1', '1.0~rc1+b1', -1, '~ part still continues normally'],
    ['1.0', '1.0+b1', -1, 'a longer string wins once the rest is equal'],
    ['1.0a', '1.0+', -1, 'letters sort before non-letters'],
    ['1.0A', '1.0a', -1, 'upper case before lower case (ASCII)'],
    ['1.0.', '1.0+', 1, 'non-letters by ASCII value: + (43) before . (46)'],
    ['1.2', '1.10', -1, 'digit runs compare numerically'],
    ['1.01', '1.1', 0, 'leading zeros do not count'],
    ['1:1.0', '2.0', 1, 'the epoch decides first'],
    ['0:1.0', '1.0', 0, 'a missing epoch is 0'],
    ['01:1.0', '1:1.0', 0, 'the epoch is a number'],
    ['1.0-1', '1.0-1.1', -1, 'the revision decides when upstream ties'],
    ['1.0', '1.0-0', 0, 'no revision is the same as revision 0'],
    ['1.0-1-2', '1.0-1-10', -1, 'the revision follows the last hyphen'],
    ['2.36-9+deb12u4', '2.36-9+deb12u10', -1, 'security update numbering'],
    ['3.0.11-1~deb12u2', '3.0.11-1', -1, 'a backport sorts before the version it backports'],
    ['1:1.2.13.dfsg-1', '1.3-1', 1, 'epoch outranks a newer upstream'],
  ])('%s vs %s -> %i (%s)', (a, b, expected) => {
    expect(Math.sign(compareDebianVersions(a, b))).toBe(expected);
    expect(Math.sign(compareDebianVersions(b, a))).toBe(expected === 0 ? 0 : -expected);
  });

  it('splits epoch, upstream and revision as parseversion() does', () => {
    expect(parseDebianVersion('1:2.3-4-5')).toEqual({ epoch: 1n, upstream: '2.3-4', revision: '5' });
    expect(parseDebianVersion('2.3')).toEqual({ epoch: 0n, upstream: '2.3', revision: '' });
    expect(parseDebianVersion('1:2:3')).toEqual({ epoch: 1n, upstream: '2:3', revision: '' });
    expect(parseDebianVersion(' 7.0 ')).toEqual({ epoch: 0n, upstream: '7.0', revision: '' });
    expect(parseDebianVersion('a:1.0').problem).toBe('epoch in version is not number');
    expect(parseDebianVersion('1.0_1').problem).toBe('invalid character in version number');
  });

  it('orders absurd epochs exactly instead of overflowing', () => {
    expect(compareDebianVersions('99999999999999999999:1', '99999999999999999998:2')).toBe(1);
    expect(isValidDebianVersion('99999999999999999999:1')).toBe(false);
  });
});

describe('dpkgComparator as an ordering', () => {
  const sample = [...DEBIAN_REAL_WORLD.slice(0, 30), ...DEBIAN_UPSTREAM_ATOMS.slice(0, 25), ...debianGrid().filter((_, i) => i % 9 === 0)];

  it('is named dpkg and delegates to the functions', () => {
    expect(dpkgComparator.name).toBe('dpkg');
    expect(dpkgComparator.compare('1.0', '1.1')).toBeLessThan(0);
    expect(dpkgComparator.isValid('1.0-1')).toBe(true);
    expect(dpkgComparator.isValid('a1.0')).toBe(false);
  });

  it('compares every string equal to itself', () => {
    expect(reflexivityViolations(compareDebianVersions, strings)).toEqual([]);
  });

  it('flips the sign when the arguments swap', () => {
    expect(antisymmetryViolations(compareDebianVersions, pairs)).toEqual([]);
  });

  it(`is transitive over every triple of a ${sample.length}-version sample`, () => {
    expect(transitivityViolations(compareDebianVersions, sample)).toEqual([]);
  });

  it('never throws on garbage and calls it invalid', () => {
    const garbage = [...DEBIAN_INVALID, '\0', '1\u00001', '😀', '1.0😀', 'x'.repeat(10_000), '9'.repeat(10_000) + '_', '~'.repeat(100), '::::', '-----'];
    for (const a of garbage) {
      expect(isValidDebianVersion(a), JSON.stringify(a)).toBe(false);
      for (const b of [...garbage.slice(0, 12), '1.0', '']) {
        expect(Number.isFinite(compareDebianVersions(a, b))).toBe(true);
      }
    }
  });
});
