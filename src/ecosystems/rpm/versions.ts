/**
 * RPM version ordering, ported from rpm 4.18: rpmvercmp() in rpmio/rpmvercmp.c orders one version or release
 * string; parseEVR() in lib/rpmver.c splits `[epoch:]version[-release]`.
 *
 * rpm itself combines the parts in two ways, and both are exported:
 * - compareRpmVersions() (the comparator's compare) follows rpm's dependency-range matching (rpmverOverlap(),
 *   behind `Requires: foo >= 1.2.3`): the release takes part only when BOTH sides have a non-empty one, so
 *   `1.2.3` equals `1.2.3-5.el9`. This is the rule RHEL-style matchers need: a range bound written without a
 *   release (`< 1.2.3`) compares the version only, and every build 1.2.3-N counts as equal to it. The price
 *   is that equality is not transitive across mixed forms (`1.0-1` = `1.0` = `1.0-2` while `1.0-1` <
 *   `1.0-2`), so sort with the strict order below.
 * - compareRpmVersionsStrict() is rpmverCmp(), what `rpm.vercmp()` returns: a missing release sorts before any
 *   release (`1.0` < `1.0-` < `1.0-0`), which keeps it consistent for sorting.
 * In both, a missing epoch counts as 0, so `1.0` equals `0:1.0`.
 *
 * Nothing is rejected: rpm orders any string, so comparing never throws, and isValid() only says whether the
 * string looks like an EVR that rpmbuild would produce.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { isAsciiAlnum, isAsciiAlpha, isAsciiDigit } from '../shared/ascii-text.js';
import { compareCodeUnits, compareDigitStrings } from '../shared/compare-primitives.js';

export interface RpmVersion {
  /** undefined when the string has no `N:` prefix; '' never occurs (rpm reads `:1.0` as epoch 0). */
  readonly epoch: string | undefined;
  readonly version: string;
  /** undefined when there is no hyphen; '' for a trailing hyphen. */
  readonly release: string | undefined;
}

const TILDE = 0x7e;
const CARET = 0x5e;
const COLON = 0x3a;

/**
 * parseEVR(): the epoch is the leading run of digits when a colon follows it directly; the release is whatever
 * follows the last hyphen.
 */
export function parseRpmVersion(evr: string): RpmVersion {
  let digitsEnd = 0;
  while (digitsEnd < evr.length && isAsciiDigit(evr.charCodeAt(digitsEnd))) digitsEnd++;
  const hasEpoch = evr.charCodeAt(digitsEnd) === COLON;
  const epoch = hasEpoch ? evr.slice(0, digitsEnd) || '0' : undefined;
  // The digits before digitsEnd cannot hold a hyphen, so the last hyphen of the string is rpm's strrchr(s, '-').
  const hyphen = evr.lastIndexOf('-');
  const versionStart = hasEpoch ? digitsEnd + 1 : 0;
  return {
    epoch,
    version: hyphen >= 0 ? evr.slice(versionStart, hyphen) : evr.slice(versionStart),
    release: hyphen >= 0 ? evr.slice(hyphen + 1) : undefined,
  };
}

/**
 * Negative, zero or positive as `a` sorts before, equal to or after `b` under rpm's range-matching rule:
 * epoch, then version, then release only when both have one. Never throws.
 */
export function compareRpmVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseRpmVersion(a);
  const y = parseRpmVersion(b);
  const byEpochAndVersion = compareEpochAndVersion(x, y);
  if (byEpochAndVersion !== 0 || !x.release || !y.release) return byEpochAndVersion;
  return rpmvercmp(x.release, y.release);
}

/** As rpm.vercmp(): like compareRpmVersions, except that a missing release sorts before any release. */
export function compareRpmVersionsStrict(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseRpmVersion(a);
  const y = parseRpmVersion(b);
  const byEpochAndVersion = compareEpochAndVersion(x, y);
  if (byEpochAndVersion !== 0) return byEpochAndVersion;
  if (x.release === undefined || y.release === undefined) {
    return x.release === y.release ? 0 : x.release === undefined ? -1 : 1;
  }
  return rpmvercmp(x.release, y.release);
}

function compareEpochAndVersion(x: RpmVersion, y: RpmVersion): number {
  return rpmvercmp(x.epoch ?? '0', y.epoch ?? '0') || rpmvercmp(x.version, y.version);
}

/** Characters rpmbuild allows in Version and Release (its ALLOWED_CHARS_VERREL without the macro syntax). */
const EVR_SHAPE = /^(?:\d+:)?[A-Za-z0-9._+~^]+(?:-[A-Za-z0-9._+~^]+)?$/;

/**
 * Whether the string is a well-formed EVR: an optional numeric epoch, a version and an optional release made of
 * rpmbuild's allowed characters, each with something to order (an alphanumeric) and without the `..` that
 * rpmbuild refuses.
 */
export function isValidRpmVersion(evr: string): boolean {
  if (!EVR_SHAPE.test(evr) || evr.includes('..')) return false;
  const { version, release } = parseRpmVersion(evr);
  return /[A-Za-z0-9]/.test(version) && (release === undefined || /[A-Za-z0-9]/.test(release));
}

export const rpmComparator: VersionComparator = {
  name: 'rpm',
  compare: compareRpmVersions,
  isValid: isValidRpmVersion,
};

/**
 * rpmvercmp(): compare one version (or release) string segment by segment. Characters other than ASCII
 * letters, digits, `~` and `^` only separate segments, and which separator it was never matters. A segment is
 * a maximal run of digits (compared as a number) or of letters (compared byte-wise); when the two sides offer
 * different kinds, the numeric one is newer. `~` sorts before anything, even the end of the string
 * (1.0~rc1 < 1.0); `^` sorts after the end but before any further segment (1.0 < 1.0^git1 < 1.0.1).
 * Otherwise, the side with segments left over is newer.
 */
export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && isSeparator(a.charCodeAt(i))) i++;
    while (j < b.length && isSeparator(b.charCodeAt(j))) j++;
    const ca = codeAt(a, i);
    const cb = codeAt(b, j);

    if (ca === TILDE || cb === TILDE) {
      if (ca !== TILDE) return 1;
      if (cb !== TILDE) return -1;
      i++;
      j++;
      continue;
    }
    if (ca === CARET || cb === CARET) {
      if (ca === 0) return -1;
      if (cb === 0) return 1;
      if (ca !== CARET) return 1;
      if (cb !== CARET) return -1;
      i++;
      j++;
      continue;
    }
    if (ca === 0 || cb === 0) break;

    // Both segments are read with the kind of a's segment; b's may come out empty if it is the other kind.
    const numeric = isAsciiDigit(ca);
    const inSegment = numeric ? isAsciiDigit : isAsciiAlpha;
    let iEnd = i;
    while (iEnd < a.length && inSegment(a.charCodeAt(iEnd))) iEnd++;
    let jEnd = j;
    while (jEnd < b.length && inSegment(b.charCodeAt(jEnd))) jEnd++;
    if (jEnd === j) return numeric ? 1 : -1;

    const segmentA = a.slice(i, iEnd);
    const segmentB = b.slice(j, jEnd);
    const bySegment = numeric ? compareDigitStrings(segmentA, segmentB) : compareCodeUnits(segmentA, segmentB);
    if (bySegment !== 0) return bySegment;
    i = iEnd;
    j = jEnd;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i < a.length ? 1 : -1;
}

function isSeparator(code: number): boolean {
  return !isAsciiAlnum(code) && code !== TILDE && code !== CARET;
}

/** The character code at index i, or 0 (C's terminator) past the end. */
function codeAt(text: string, i: number): number {
  return i < text.length ? text.charCodeAt(i) : 0;
}
