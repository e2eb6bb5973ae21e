/**
 * Alpine (apk) version ordering, ported from apk_version_compare() in apk-tools' src/version.c in its
 * token-based form (apk-tools 2.14 and 3.x; this port follows 3.x); the tokens come from apk-tokens.ts.
 *
 * Versions look like `1.2.3a_rc1_p2~1a2b3c-r4`. They compare token by token while both sides have a token of
 * the same kind:
 * - the first number, suffix numbers and the `-rN` revision numerically;
 * - later dot-separated numbers numerically, except that when either starts with `0` both compare as strings
 *   (Gentoo's rule for fractional parts: 1.01 < 1.1, 1.05 < 1.4, 1.0 < 1.00);
 * - letters by character, suffixes by rank (_alpha < _beta < _pre < _rc < release < _cvs < _svn < _git < _hg
 *   < _p), commit hashes as strings.
 * When one side runs out of same-kind tokens first, a pre-release suffix on either side loses; otherwise the
 * side whose next token comes earlier in the grammar is newer: 1.2 < 1.2a < 1.2.1 (a further number outranks
 * a letter) and 1.2 < 1.2-r1 < 1.2_p1 (the revision comes last in the grammar).
 *
 * Where this port knowingly differs from apk-tools:
 * - numbers are compared exactly at any length; apk reads them into 64-bit integers that wrap past 2^64;
 * - a suffix or `~hash` ends at the first non-ASCII character, which makes the string invalid; apk lets bytes
 *   >= 0x80 into those spans, so it would call `1.0~` + non-ASCII text a valid hash;
 * - apk-tools 2.14 has no `~hash` and accepts `-r` without a number and an empty `_` suffix (as no suffix);
 *   3.x and this port call those invalid;
 * - older apk-tools (before 2.14; also the basis of several Go ports) differ when two fractional parts both
 *   start with `0`: they counted the leading zeros (more zeros sorts lower) and compared the remaining digits
 *   as a number, so `1.010` > `1.09` and `1.00` < `1.0` there, where current apk and this port compare the
 *   strings (`1.010` < `1.09`, `1.0` < `1.00`); they also accepted a number after a letter (`1.2a3`), which
 *   current apk treats as invalid.
 *
 * Invalid strings are ordered as apk orders them, never thrown on: reading stops at the first character that
 * does not fit, that point sorts after pre-release suffixes but before the end of a valid version and before
 * any further valid token (`1.0_rc1 < 1.0-foo < 1.0`), and two strings invalid at the same point are equal.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { ApkTokenReader, SuffixRank, TokenKind } from './version-tokens.js';
import { compareCodeUnits, compareDigitStrings } from '../shared/compare-primitives.js';

/** Negative, zero or positive as `a` sorts before, equal to or after `b` in apk's order. Never throws. */
export function compareApkVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = new ApkTokenReader(a);
  const y = new ApkTokenReader(b);
  while (x.kind === y.kind && x.kind < TokenKind.End) {
    const byToken = compareTokens(x, y);
    if (byToken !== 0) return byToken;
    x.advance();
    y.advance();
  }
  if (x.kind === y.kind) return 0;
  if (x.kind === TokenKind.Suffix && x.suffix < SuffixRank.None) return -1;
  if (y.kind === TokenKind.Suffix && y.suffix < SuffixRank.None) return 1;
  return x.kind > y.kind ? -1 : 1;
}

/** apk_version_validate(): the whole string reads as tokens up to the end. */
export function isValidApkVersion(version: string): boolean {
  const reader = new ApkTokenReader(version);
  while (reader.kind < TokenKind.End) reader.advance();
  return reader.kind === TokenKind.End;
}

export const apkComparator: VersionComparator = {
  name: 'apk',
  compare: compareApkVersions,
  isValid: isValidApkVersion,
};

/** token_cmp(): two tokens of the same kind. */
function compareTokens(x: ApkTokenReader, y: ApkTokenReader): number {
  switch (x.kind) {
    case TokenKind.Digit:
      if (x.text.startsWith('0') || y.text.startsWith('0')) return compareCodeUnits(x.text, y.text);
      return compareDigitStrings(x.text, y.text);
    case TokenKind.InitialDigit:
    case TokenKind.SuffixNumber:
    case TokenKind.RevisionNumber:
      return compareDigitStrings(x.text, y.text);
    case TokenKind.Letter:
      return compareCodeUnits(x.text, y.text);
    case TokenKind.Suffix:
      return Math.sign(x.suffix - y.suffix);
    default:
      return compareCodeUnits(x.text, y.text);
  }
}
