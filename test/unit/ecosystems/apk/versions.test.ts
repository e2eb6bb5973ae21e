import { describe, expect, it } from 'vitest';
import { apkComparator, compareApkVersions, isValidApkVersion } from '../../../../src/ecosystems/apk/versions.js';
import { APK_INVALID, APK_VALID, APK_VECTORS } from './testdata/version-vectors.js';
import { antisymmetryViolations, reflexivityViolations, transitivityViolations } from '../shared/testdata/ordering-properties.js';
import { SeededRandom } from '../shared/testdata/seeded-random.js';

describe('compareApkVersions against the hand-written apk-tools table', () => {
  it(`has at least 100 vectors (${APK_VECTORS.length})`, () => {
    expect(APK_VECTORS.length).toBeGreaterThanOrEqual(100);
  });

  it.each(APK_VECTORS.map((vector) => [vector.line, vector] as const))('%s', (_, { a, b, expected }) => {
    expect(Math.sign(compareApkVersions(a, b))).toBe(expected);
    expect(Math.sign(compareApkVersions(b, a))).toBe(expected === 0 ? 0 : -expected);
  });

  it('includes the examples every apk port is expected to get right', () => {
    const lines = new Set(APK_VECTORS.map((vector) => vector.line));
    for (const line of ['1.2.3_rc1 < 1.2.3', '1.2.3 < 1.2.3_p1', '1.2.3-r1 < 1.2.3-r2', '1.2.3a < 1.2.3b', '0.2.0 < 0.10.0']) {
      expect(lines, line).toContain(line);
    }
  });
});

describe('isValidApkVersion (apk_version_validate)', () => {
  it.each(APK_VALID)('accepts %j', (version) => {
    expect(isValidApkVersion(version)).toBe(true);
  });

  it.each(APK_INVALID)('rejects %j', (version) => {
    expect(isValidApkVersion(version)).toBe(false);
  });
});

/** Random well-formed apk versions: numbers, maybe a letter, suffixes, maybe a hash, maybe a revision. */
function randomApkVersion(random: SeededRandom): string {
  const numbers = ['0', '1', '2', '9', '10', '01', '00', '001', '05', '20240101'];
  let version = random.pick(numbers);
  for (let n = random.int(0, 3); n > 0; n--) version += `.${random.pick(numbers)}`;
  if (random.chance(0.25)) version += random.pick(['a', 'b', 'z']);
  for (let n = random.int(0, 2); n > 0; n--) {
    version += `_${random.pick(['alpha', 'beta', 'pre', 'rc', 'cvs', 'svn', 'git', 'hg', 'p'])}`;
    if (random.chance(0.6)) version += random.pick(['0', '1', '2', '10', '20240101']);
  }
  if (random.chance(0.1)) version += `~${random.pick(['0a1', 'abc', 'abd', 'ff'])}`;
  if (random.chance(0.5)) version += `-r${random.pick(['0', '1', '2', '10'])}`;
  return version;
}

describe('apkComparator as an ordering', () => {
  const random = new SeededRandom(0x5eed_a1b2);
  const generated = Array.from({ length: 70 }, () => randomApkVersion(random));
  const invalidSample = ['1.0-foo', '1.0_foo', '1.0bc', 'abc', '', '1..0', '1.0-r', '1.0a1'];
  const sample = [...new Set([...APK_VECTORS.flatMap((vector) => [vector.a, vector.b]), ...generated])];

  it('is named apk and delegates to the functions', () => {
    expect(apkComparator.name).toBe('apk');
    expect(apkComparator.compare('1.0-r1', '1.0-r2')).toBeLessThan(0);
    expect(apkComparator.isValid('1.0_rc1-r2')).toBe(true);
    expect(apkComparator.isValid('1.0-foo')).toBe(false);
  });

  it('generates valid versions for the property checks', () => {
    expect(generated.filter((version) => !isValidApkVersion(version))).toEqual([]);
  });

  it('compares every string equal to itself', () => {
    expect(reflexivityViolations(compareApkVersions, [...sample, ...invalidSample])).toEqual([]);
  });

  it('flips the sign when the arguments swap', () => {
    const pairs = sample.flatMap((a, i) => sample.slice(i + 1).map((b) => [a, b] as const));
    expect(antisymmetryViolations(compareApkVersions, pairs)).toEqual([]);
  });

  it(`is transitive over every triple of a ${sample.length + invalidSample.length}-version sample, invalid strings included`, () => {
    expect(transitivityViolations(compareApkVersions, [...sample, ...invalidSample])).toEqual([]);
  });

  it('never throws on garbage and calls it invalid', () => {
    const garbage = ['', ' ', '-', '_', '~', '.', 'a', 'A', '\0', '😀', '1.0😀', '1_😀', '1~😀', 'x'.repeat(10_000), `${'9'.repeat(10_000)}_`, '1.0-r-r', '1-r1-r1'];
    for (const a of garbage) {
      expect(isValidApkVersion(a), JSON.stringify(a)).toBe(false);
      for (const b of [...garbage, '1.0', '1.0_rc1']) expect(Number.isFinite(compareApkVersions(a, b))).toBe(true);
    }
  });
});
