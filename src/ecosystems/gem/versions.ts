/**
 * RubyGems versions, ordered as Gem::Version#<=> orders them.
 *
 * A version is split into segments of digits or letters (`1.0.b1` -> 1, 0, "b", 1); a hyphen reads as `.pre.`
 * (`1.0-1` -> 1, 0, "pre", 1). Any letter makes the version a pre-release, and because a letter segment sorts
 * before a number (including a missing one, read as 0) it sorts before its release: `1.0.a < 1.0`. Trailing
 * zeros are dropped from the numeric prefix and from the part after the first letter segment, so
 * `1.0 == 1` and `1.0.a.0 == 1.a`. Letter segments compare byte-wise (case-sensitive, as Ruby does).
 */
import type { VersionComparator } from '../shared/comparator.js';
import {
  compareCodeUnits,
  compareDigitStrings,
  compareParsedOrInvalidFirst,
  isZeroDigits,
} from '../shared/compare-primitives.js';

/** Gem::Version::ANCHORED_VERSION_PATTERN; Ruby's \s is exactly these six characters. */
const GEM_VERSION = /^[ \t\r\n\f\v]*([0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)?[ \t\r\n\f\v]*$/;

type Segment = { readonly digits: string } | { readonly letters: string };

/** Gem::Version#canonical_segments; null when Gem::Version.new would raise "Malformed version number string". */
export function parseGemVersion(version: string): readonly Segment[] | null {
  if (typeof version !== 'string') return null;
  const m = GEM_VERSION.exec(version);
  if (m === null) return null;
  // A blank string is Gem::Version "0", whose canonical segments are empty.
  const text = (m[1] ?? '').replace(/-/g, '.pre.');
  const segments: Segment[] = (text.match(/[0-9]+|[a-zA-Z]+/g) ?? []).map((s) =>
    /^[0-9]/.test(s) ? { digits: s } : { letters: s },
  );
  const firstLetters = segments.findIndex((s) => 'letters' in s);
  if (firstLetters === -1) return dropTrailingZeros(segments);
  return [...dropTrailingZeros(segments.slice(0, firstLetters)), ...dropTrailingZeros(segments.slice(firstLetters))];
}

function dropTrailingZeros(segments: Segment[]): Segment[] {
  let end = segments.length;
  while (end > 0) {
    const last = segments[end - 1];
    if (!('digits' in last) || !isZeroDigits(last.digits)) break;
    end--;
  }
  return segments.slice(0, end);
}

const ZERO: Segment = { digits: '0' };

/** Gem::Version#<=>: segment by segment, a missing segment counting as 0; letters < numbers. */
function compareSegments(a: readonly Segment[], b: readonly Segment[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const l = a[i] ?? ZERO;
    const r = b[i] ?? ZERO;
    const c =
      'digits' in l
        ? 'digits' in r
          ? compareDigitStrings(l.digits, r.digits)
          : 1
        : 'letters' in r
          ? compareCodeUnits(l.letters, r.letters)
          : -1;
    if (c !== 0) return c;
  }
  return 0;
}

export function compareGemVersions(a: string, b: string): number {
  return compareParsedOrInvalidFirst(a, b, parseGemVersion, compareSegments);
}

/** Gem::Version.correct?, except that a blank string (which RubyGems reads as "0") is not called a version. */
export function isGemVersion(version: string): boolean {
  return typeof version === 'string' && GEM_VERSION.exec(version)?.[1] !== undefined;
}

export const gemComparator: VersionComparator = {
  name: 'gem',
  compare: compareGemVersions,
  isValid: isGemVersion,
};
