import { describe, expect, it } from 'vitest';
import { isAffected, sortRangeEvents } from '../../../../src/vulns/osv/ranges.js';
import type { OsvAffected, OsvEvent, OsvEventKind, OsvRange } from '../../../../src/vulns/osv/types.js';
import type { VersionComparator } from '../../../../src/ecosystems/shared/comparator.js';

// Two stand-in comparators, so these tests pin the OSV walk and not any real version format.

/** Dot-separated numbers compared numerically, missing parts as 0 ("1.0" == "1.0.0"); other parts lexically. */
const numeric: VersionComparator = {
  name: 'test-numeric',
  isValid: (v) => /^\d+(\.\d+)*$/.test(v),
  compare(a, b) {
    const pa = a.split('.');
    const pb = b.split('.');
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const x = pa[i] ?? '0';
      const y = pb[i] ?? '0';
      const c = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
      if (c !== 0) return Math.sign(c);
    }
    return 0;
  },
};

/** SemVer 2.0 precedence: major.minor.patch, a pre-release sorts below its release, build metadata ignored. */
const SEMVER_RE = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
function comparePrerelease(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Math.sign(Number(x) - Number(y));
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(pa.length - pb.length);
}
const semverLike: VersionComparator = {
  name: 'test-semver',
  isValid: (v) => SEMVER_RE.test(v),
  compare(a, b) {
    const ma = SEMVER_RE.exec(a);
    const mb = SEMVER_RE.exec(b);
    if (!ma || !mb) return a < b ? -1 : a > b ? 1 : 0;
    for (let i = 1; i <= 3; i++) {
      const c = Number(ma[i] ?? 0) - Number(mb[i] ?? 0);
      if (c !== 0) return Math.sign(c);
    }
    return comparePrerelease(ma[4], mb[4]);
  },
};

type EventSpec = [OsvEventKind, string];
const ev = (kind: OsvEventKind, version: string): OsvEvent => ({ kind, version });
function range(type: OsvRange['type'], ...events: EventSpec[]): OsvRange {
  return { type, events: events.map(([k, v]) => ev(k, v)), ...(type === 'GIT' ? { repo: 'https://example.test/repo' } : {}) };
}
function affectedBy(ranges: OsvRange[], versions: string[] = []): OsvAffected {
  return { severity: [], ranges, versions };
}
const affectedSet = (a: OsvAffected, versions: string[], cmp: VersionComparator) =>
  versions.filter((v) => isAffected(v, a, cmp).affected);

describe('isAffected: single window', () => {
  const a = affectedBy([range('SEMVER', ['introduced', '1.2.0'], ['fixed', '1.4.1'])]);

  it('includes introduced, excludes fixed', () => {
    expect(affectedSet(a, ['1.1.9', '1.2.0', '1.3.5', '1.4.0', '1.4.1', '2.0.0'], semverLike)).toEqual(['1.2.0', '1.3.5', '1.4.0']);
  });

  it('reports the window and its fix', () => {
    expect(isAffected('1.3.5', a, semverLike)).toEqual({
      affected: true,
      matchedBy: 'range',
      fixedIn: ['1.4.1'],
      window: { rangeIndex: 0, rangeType: 'SEMVER', introduced: '1.2.0', fixed: '1.4.1' },
    });
    expect(isAffected('1.4.1', a, semverLike)).toEqual({ affected: false });
  });

  it('orders pre-releases below their release (fixed in an rc)', () => {
    const rc = affectedBy([range('SEMVER', ['introduced', '1.0.0'], ['fixed', '1.0.1-rc.1'])]);
    expect(affectedSet(rc, ['1.0.0', '1.0.1-beta.2', '1.0.1-rc.1', '1.0.1'], semverLike)).toEqual(['1.0.0', '1.0.1-beta.2']);
  });
});

describe('isAffected: introduced "0"', () => {
  it('covers everything below the fix', () => {
    const a = affectedBy([range('ECOSYSTEM', ['introduced', '0'], ['fixed', '2.0'])]);
    expect(affectedSet(a, ['0', '0.0.1', '1.9.9', '2.0', '2.1'], numeric)).toEqual(['0', '0.0.1', '1.9.9']);
  });

  it('is below every version even where the format would order "0" higher (0.0.0-alpha < 0.0.0)', () => {
    const a = affectedBy([range('SEMVER', ['introduced', '0'], ['fixed', '1.0.0'])]);
    expect(semverLike.compare('0.0.0-alpha', '0')).toBeLessThan(0);
    expect(isAffected('0.0.0-alpha', a, semverLike).affected).toBe(true);
  });

  it('with no closing event means every version, with no fix', () => {
    const a = affectedBy([range('SEMVER', ['introduced', '0'])]);
    expect(isAffected('99.0.0', a, semverLike)).toEqual({
      affected: true,
      matchedBy: 'range',
      window: { rangeIndex: 0, rangeType: 'SEMVER', introduced: '0' },
    });
  });
});

describe('isAffected: last_affected', () => {
  const a = affectedBy([range('ECOSYSTEM', ['introduced', '0'], ['last_affected', '2.1.214'])]);

  it('is inclusive, and later versions are unaffected', () => {
    expect(affectedSet(a, ['1.0', '2.1.213', '2.1.214', '2.1.215', '3.0'], numeric)).toEqual(['1.0', '2.1.213', '2.1.214']);
  });

  it('reports the bound but no fix', () => {
    const verdict = isAffected('2.1.214', a, numeric);
    expect(verdict.fixedIn).toBeUndefined();
    expect(verdict.window).toEqual({ rangeIndex: 0, rangeType: 'ECOSYSTEM', introduced: '0', lastAffected: '2.1.214' });
  });
});

describe('isAffected: limit', () => {
  it('caps a range from above (exclusive)', () => {
    const a = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['limit', '2.0'])]);
    expect(affectedSet(a, ['0.9', '1.0', '1.9', '2.0', '2.1'], numeric)).toEqual(['1.0', '1.9']);
    expect(isAffected('1.5', a, numeric).window).toEqual({
      rangeIndex: 0, rangeType: 'ECOSYSTEM', introduced: '1.0', limits: ['2.0'],
    });
  });

  it('also caps a window that has a later fix', () => {
    const a = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['fixed', '3.0'], ['limit', '2.0'])]);
    expect(affectedSet(a, ['1.5', '2.0', '2.5', '3.0'], numeric)).toEqual(['1.5']);
  });

  it('applies below any one of several limits, and "*" is infinity', () => {
    const several = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['limit', '1.5'], ['limit', '3.0'])]);
    expect(affectedSet(several, ['1.2', '2.0', '3.0'], numeric)).toEqual(['1.2', '2.0']);
    const star = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['limit', '*'])]);
    expect(affectedSet(star, ['0.5', '1.0', '999'], numeric)).toEqual(['1.0', '999']);
    expect(isAffected('999', star, numeric).window?.limits).toBeUndefined();
  });
});

describe('isAffected: several windows in one events list', () => {
  const events: EventSpec[] = [['introduced', '1.0'], ['fixed', '1.5'], ['introduced', '2.0'], ['fixed', '2.3']];
  const a = affectedBy([range('ECOSYSTEM', ...events)]);

  it('matches inside each window only', () => {
    expect(affectedSet(a, ['0.9', '1.0', '1.4.9', '1.5', '1.9', '2.0', '2.2', '2.3', '3.0'], numeric))
      .toEqual(['1.0', '1.4.9', '2.0', '2.2']);
  });

  it('reports the fix of the window the version is in', () => {
    expect(isAffected('1.2', a, numeric).fixedIn).toEqual(['1.5']);
    expect(isAffected('2.1', a, numeric).fixedIn).toEqual(['2.3']);
    expect(isAffected('2.1', a, numeric).window).toMatchObject({ introduced: '2.0', fixed: '2.3' });
  });

  it('gives the same answers for unsorted events', () => {
    const shuffled = affectedBy([range('ECOSYSTEM', events[3]!, events[0]!, events[2]!, events[1]!)]);
    for (const v of ['0.9', '1.0', '1.2', '1.5', '1.9', '2.0', '2.2', '2.3']) {
      expect(isAffected(v, shuffled, numeric)).toEqual(isAffected(v, a, numeric));
    }
  });

  it('keeps an unfixed last window open (Go-style branch lines)', () => {
    const go = affectedBy([range('SEMVER', ['introduced', '0'], ['fixed', '1.4.13'], ['introduced', '1.5.0'], ['fixed', '1.5.10'], ['introduced', '1.6.0'])]);
    expect(affectedSet(go, ['1.4.12', '1.4.13', '1.5.0', '1.5.9', '1.5.10', '1.6.0', '1.7.2'], semverLike))
      .toEqual(['1.4.12', '1.5.0', '1.5.9', '1.6.0', '1.7.2']);
    expect(isAffected('1.7.2', go, semverLike).fixedIn).toBeUndefined();
  });

  it('treats adjoining windows as covering the shared bound (fixed sorts before introduced at one version)', () => {
    // Shaped like a real PyPI record: the windows [0.12.2, 0.13.0) and [0.13.0, 0.14.0) meet at 0.13.0.
    const adjoining = affectedBy([range('ECOSYSTEM', ['introduced', '0.13.0'], ['fixed', '0.14.0'], ['introduced', '0.12.2'], ['fixed', '0.13.0'])]);
    expect(affectedSet(adjoining, ['0.12.1', '0.12.2', '0.13.0', '0.13.5', '0.14.0'], numeric)).toEqual(['0.12.2', '0.13.0', '0.13.5']);
    expect(isAffected('0.13.0', adjoining, numeric).fixedIn).toEqual(['0.14.0']);
    expect(sortRangeEvents(adjoining.ranges[0]!.events, numeric).map((e) => `${e.kind}:${e.version}`))
      .toEqual(['introduced:0.12.2', 'fixed:0.13.0', 'introduced:0.13.0', 'fixed:0.14.0']);
  });

  it('merges overlapping introduced events into one window', () => {
    const overlap = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['introduced', '1.2'], ['fixed', '1.5'])]);
    expect(isAffected('1.3', overlap, numeric).window).toMatchObject({ introduced: '1.0', fixed: '1.5' });
  });
});

describe('isAffected: several ranges', () => {
  it('is affected when any range matches, and lists every matching fix in order', () => {
    const a = affectedBy([
      range('ECOSYSTEM', ['introduced', '2.0'], ['fixed', '2.6']),
      range('SEMVER', ['introduced', '1.0.0'], ['fixed', '3.0.0']),
      range('SEMVER', ['introduced', '5.0.0'], ['fixed', '5.1.0']),
    ]);
    expect(affectedSet(a, ['0.9.0', '1.0.0', '2.5.0', '2.9.0', '3.0.0', '5.0.1'], semverLike)).toEqual(['1.0.0', '2.5.0', '2.9.0', '5.0.1']);
    const both = isAffected('2.5.0', a, semverLike);
    expect(both.fixedIn).toEqual(['2.6', '3.0.0']);
    expect(both.window).toMatchObject({ rangeIndex: 0, introduced: '2.0', fixed: '2.6' });
    expect(isAffected('5.0.1', a, semverLike).window).toMatchObject({ rangeIndex: 2 });
  });
});

describe('isAffected: explicit versions[]', () => {
  it('affects a listed version without any range', () => {
    const a = affectedBy([], ['0.5', '0.6.1']);
    expect(isAffected('0.6.1', a, numeric)).toEqual({ affected: true, matchedBy: 'versions' });
    expect(isAffected('0.6', a, numeric)).toEqual({ affected: false });
  });

  it('matches a listed version equal in the format but spelled differently', () => {
    expect(isAffected('0.5.0', affectedBy([], ['0.5']), numeric).affected).toBe(true);
  });

  it('adds a listed version the ranges miss, with the next fix above it as the hint', () => {
    const a = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['fixed', '1.2'], ['introduced', '2.0'], ['fixed', '2.4'])], ['1.9.9']);
    expect(isAffected('1.9.9', a, numeric)).toEqual({ affected: true, matchedBy: 'versions', fixedIn: ['2.4'] });
  });

  it('prefers the range explanation when both match', () => {
    const a = affectedBy([range('ECOSYSTEM', ['introduced', '1.0'], ['fixed', '1.2'])], ['1.0', '1.1']);
    expect(isAffected('1.1', a, numeric)).toMatchObject({ matchedBy: 'range', fixedIn: ['1.2'] });
  });
});

describe('isAffected: GIT ranges', () => {
  const commitA = 'a'.repeat(40);
  const commitB = 'b'.repeat(40);

  it('skips them (no commit graph to order hashes)', () => {
    const a = affectedBy([range('GIT', ['introduced', '0'], ['fixed', commitB])]);
    expect(isAffected('1.0', a, numeric)).toEqual({ affected: false });
    expect(isAffected(commitA, a, numeric).affected).toBe(false);
  });

  it('still uses versions[] and the other ranges of the same entry', () => {
    const a = affectedBy(
      [range('GIT', ['introduced', commitA], ['fixed', commitB]), range('ECOSYSTEM', ['introduced', '2.1'], ['fixed', '2.6'])],
      ['2.1', '2.2', '2.5'],
    );
    expect(isAffected('2.2', a, numeric)).toMatchObject({ affected: true, matchedBy: 'range', fixedIn: ['2.6'] });
    expect(isAffected('2.2', a, numeric).window?.rangeIndex).toBe(1);
    expect(isAffected('2.6', a, numeric).affected).toBe(false);
    // Commit hashes of the GIT range are not reported as unorderable: they are never compared.
    expect(isAffected('2.2', a, numeric).unorderable).toBeUndefined();
  });
});

describe('isAffected: versions the comparator cannot read', () => {
  it('still answers, and names the unorderable strings', () => {
    const a = affectedBy([range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.0-final'])]);
    const verdict = isAffected('0.9.x', a, numeric);
    expect(verdict.unorderable).toEqual(['0.9.x', '1.0-final']);
    expect(isAffected('0.5', a, numeric).unorderable).toEqual(['1.0-final']);
  });
});

describe('isAffected agrees with the schema pseudocode', () => {
  // A literal transcription of IncludedInRanges/BeforeLimits from the OSV schema, for tie-free event lists.
  function specIncludedInRanges(v: string, ranges: OsvRange[], cmp: VersionComparator): boolean {
    for (const r of ranges) {
      if (r.type === 'GIT') continue;
      const limits = r.events.filter((e) => e.kind === 'limit');
      const beforeLimits = limits.length === 0 || limits.some((e) => e.version.includes('*') || cmp.compare(v, e.version) < 0);
      if (!beforeLimits) continue;
      const sorted = [...r.events].sort((x, y) =>
        x.kind === 'introduced' && x.version === '0' ? -1 : y.kind === 'introduced' && y.version === '0' ? 1 : cmp.compare(x.version, y.version));
      let vulnerable = false;
      for (const e of sorted) {
        if (e.kind === 'introduced' && (e.version === '0' || cmp.compare(v, e.version) >= 0)) vulnerable = true;
        else if (e.kind === 'fixed' && cmp.compare(v, e.version) >= 0) vulnerable = false;
        else if (e.kind === 'last_affected' && cmp.compare(v, e.version) > 0) vulnerable = false;
      }
      if (vulnerable) return true;
    }
    return false;
  }

  const cases: EventSpec[][] = [
    [['introduced', '0'], ['fixed', '1.2.0']],
    [['fixed', '2.3.0'], ['introduced', '1.1.0'], ['fixed', '1.4.0'], ['introduced', '2.0.0']],
    [['introduced', '1.0.0'], ['last_affected', '1.3.0']],
    [['introduced', '0.1.0'], ['limit', '1.1.0'], ['fixed', '2.0.0']],
    [['introduced', '3.1.0'], ['introduced', '0'], ['fixed', '0.3.0'], ['fixed', '3.2.0'], ['introduced', '1.0.0-rc.1'], ['fixed', '1.0.1']],
    [['introduced', '1.0.0'], ['introduced', '2.0.0'], ['fixed', '2.1.0']],
  ];
  const versions: string[] = [];
  for (let major = 0; major <= 3; major++) {
    for (let minor = 0; minor <= 4; minor++) {
      for (let patch = 0; patch <= 2; patch++) versions.push(`${major}.${minor}.${patch}`);
    }
    versions.push(`${major}.0.0-rc.1`, `${major}.0.1-alpha`);
  }

  it.each(cases.map((c, i) => [i, c] as const))('case %i', (_i, events) => {
    const a = affectedBy([range('SEMVER', ...events)]);
    for (const v of versions) {
      expect([v, isAffected(v, a, semverLike).affected]).toEqual([v, specIncludedInRanges(v, a.ranges, semverLike)]);
    }
  });
});
