/**
 * SemVer 2.0.0 precedence (semver.org §11) over already-parsed versions. Shared by the SemVer comparator
 * (npm, crates.io, OSV SEMVER ranges) and the Go comparator, which differ only in what they accept as input; NuGet
 * orders its pre-release labels the same way, ignoring case.
 */
import { compareCodeUnits, compareDigitStrings } from './compare-primitives.js';

/** The parts of a version that take part in precedence; build metadata never does, so it is not kept. */
export interface SemverPrecedence {
  /** Digit strings, not numbers: components may exceed 2^53. */
  readonly major: string;
  readonly minor: string;
  readonly patch: string;
  /** Dot-separated pre-release identifiers; empty for a release. */
  readonly prerelease: readonly string[];
}

export function compareSemverPrecedence(a: SemverPrecedence, b: SemverPrecedence): number {
  return (
    compareDigitStrings(a.major, b.major) ||
    compareDigitStrings(a.minor, b.minor) ||
    compareDigitStrings(a.patch, b.patch) ||
    comparePrerelease(a.prerelease, b.prerelease)
  );
}

/**
 * §11.3-11.4: a release outranks its pre-releases; otherwise identifiers left to right, then the longer wins.
 * `compareText` orders two alphanumeric identifiers: ASCII order for SemVer (NuGet ignores case).
 */
export function comparePrerelease(a: readonly string[], b: readonly string[], compareText: (x: string, y: string) => number = compareCodeUnits): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const c = compareIdentifier(a[i], b[i], compareText);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const NUMERIC_IDENTIFIER = /^[0-9]+$/;

/** Numeric identifiers compare as numbers and rank below alphanumeric ones, which compare by `compareText`. */
function compareIdentifier(a: string, b: string, compareText: (x: string, y: string) => number): number {
  const aNumeric = NUMERIC_IDENTIFIER.test(a);
  const bNumeric = NUMERIC_IDENTIFIER.test(b);
  if (aNumeric && bNumeric) return compareDigitStrings(a, b);
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return compareText(a, b);
}
