/**
 * Debian package version ordering (Debian Policy §5.6.12), ported from dpkg itself so that results agree with
 * `dpkg --compare-versions`: parseversion() in lib/dpkg/parsehelp.c splits the string, verrevcmp() and
 * dpkg_version_compare() in lib/dpkg/version.c order it.
 *
 * A version is `[epoch:]upstream[-revision]`: the epoch is an integer before the first colon (default 0), the
 * revision follows the last hyphen (no hyphen, no revision). Epochs compare numerically; upstream and revision
 * compare as alternating runs of non-digits (character by character, letters before non-letters, `~` before
 * everything including the end of the string) and digits (numerically).
 *
 * Strings dpkg refuses are still ordered, never thrown on: dpkg's own reading is kept wherever it gets that
 * far (a warning such as "does not start with digit" still compares, exactly as dpkg does), and otherwise a
 * fixed fallback applies (see parseDebianVersion). isValid is false for all of them.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { CHAR_0, isAsciiAlpha, isAsciiDigit } from '../shared/ascii-text.js';

export interface DebianVersion {
  /** bigint so an absurd epoch still orders exactly instead of overflowing. */
  readonly epoch: bigint;
  readonly upstream: string;
  /** '' when there is no revision, which dpkg treats the same as an empty one. */
  readonly revision: string;
  /** dpkg's complaint about the string (error or warning), or undefined when dpkg accepts it silently. */
  readonly problem?: string;
}

/** dpkg rejects epochs above INT_MAX. */
const MAX_EPOCH = 2147483647n;

/** What strtol(3) reads before a colon: optional leading whitespace and sign, then decimal digits. */
const EPOCH_NUMBER = /^[ \t\n\v\f\r]*([+-]?\d+)$/;

/**
 * Splits a version the way parseversion() does, recording the first problem dpkg would report. Fallbacks where
 * dpkg gives up: an epoch that is not a number counts as 0 (the text after the colon is still the version); a
 * negative or too-large epoch keeps its value; blanks inside the string stay part of it.
 */
export function parseDebianVersion(input: string): DebianVersion {
  let problem: string | undefined;
  const report = (message: string): void => {
    problem ??= message;
  };

  if (input === '') report('version string is empty');
  // dpkg trims blanks (space and tab only) at both ends; a blank left inside is an error.
  const text = input.replace(/^[ \t]+|[ \t]+$/g, '');
  if (/[ \t]/.test(text)) report('version string has embedded spaces');

  let epoch = 0n;
  let rest = text;
  const colon = text.indexOf(':');
  if (colon >= 0) {
    const number = EPOCH_NUMBER.exec(text.slice(0, colon));
    if (number) {
      epoch = BigInt(number[1]!);
      if (epoch < 0n) report('epoch in version is negative');
      if (epoch > MAX_EPOCH) report('epoch in version is too big');
    } else {
      report(/^[ \t\n\v\f\r]*[+-]?$/.test(text.slice(0, colon)) ? 'epoch in version is empty' : 'epoch in version is not number');
    }
    rest = text.slice(colon + 1);
    if (rest === '') report('nothing after colon in version number');
  }

  const hyphen = rest.lastIndexOf('-');
  const upstream = hyphen >= 0 ? rest.slice(0, hyphen) : rest;
  const revision = hyphen >= 0 ? rest.slice(hyphen + 1) : '';
  if (hyphen >= 0 && revision === '') report('revision number is empty');
  if (upstream === '') report('version number is empty');
  else if (!isAsciiDigit(upstream.charCodeAt(0))) report('version number does not start with digit');
  else if (/[^0-9A-Za-z.+~:-]/.test(upstream)) report('invalid character in version number');
  if (/[^0-9A-Za-z.+~]/.test(revision)) report('invalid character in revision number');

  return problem === undefined ? { epoch, upstream, revision } : { epoch, upstream, revision, problem };
}

/** Whether dpkg accepts the version without error or warning (what `dpkg --validate-version` checks). */
export function isValidDebianVersion(version: string): boolean {
  return parseDebianVersion(version).problem === undefined;
}

/** Negative, zero or positive as `a` sorts before, equal to or after `b` in dpkg's order. Never throws. */
export function compareDebianVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseDebianVersion(a);
  const y = parseDebianVersion(b);
  if (x.epoch !== y.epoch) return x.epoch < y.epoch ? -1 : 1;
  return Math.sign(verrevcmp(x.upstream, y.upstream)) || Math.sign(verrevcmp(x.revision, y.revision));
}

export const dpkgComparator: VersionComparator = {
  name: 'dpkg',
  compare: compareDebianVersions,
  isValid: isValidDebianVersion,
};

/**
 * verrevcmp(): walk both strings in step, comparing a run of non-digits by weight() character by character,
 * then a run of digits numerically (leading zeros skipped, the longer run wins, else the first differing
 * digit). A missing run counts as empty, which is what makes `~` sort before the end of the string.
 */
function verrevcmp(aText: string, bText: string): number {
  // dpkg compares bytes; past the ASCII range that is the UTF-8 encoding.
  const a = toBytes(aText);
  const b = toBytes(bText);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isAsciiDigit(a[i]!)) || (j < b.length && !isAsciiDigit(b[j]!))) {
      const difference = weight(at(a, i)) - weight(at(b, j));
      if (difference !== 0) return difference;
      i++;
      j++;
    }
    while (at(a, i) === CHAR_0) i++;
    while (at(b, j) === CHAR_0) j++;
    let firstDifference = 0;
    while (isAsciiDigit(at(a, i)) && isAsciiDigit(at(b, j))) {
      if (firstDifference === 0) firstDifference = at(a, i) - at(b, j);
      i++;
      j++;
    }
    if (isAsciiDigit(at(a, i))) return 1;
    if (isAsciiDigit(at(b, j))) return -1;
    if (firstDifference !== 0) return firstDifference;
  }
  return 0;
}

/** The byte at index i, or 0 (C's terminator) past the end, so the port reads like the C it follows. */
function at(bytes: Uint8Array, i: number): number {
  return i < bytes.length ? bytes[i]! : 0;
}

/**
 * dpkg's order(): the end of the string and digits weigh 0 (a digit ends the non-digit run), `~` weighs -1 so
 * it sorts before even the end, letters weigh their code, and other characters weigh code + 256 so every
 * letter sorts before them. Bytes 0x80-0xFF are negative as amd64's signed char and so weigh their plain
 * value: between the letters and the ASCII punctuation.
 */
function weight(byte: number): number {
  if (byte === 0 || isAsciiDigit(byte)) return 0;
  if (isAsciiAlpha(byte)) return byte;
  if (byte === 0x7e) return -1;
  if (byte >= 0x80) return byte;
  return byte + 256;
}

const encoder = new TextEncoder();

function toBytes(text: string): Uint8Array {
  return encoder.encode(text);
}
