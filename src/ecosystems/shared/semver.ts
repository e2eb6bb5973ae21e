/**
 * SemVer 2.0.0 (https://semver.org) for npm, crates.io and OSV `SEMVER` ranges.
 *
 * Ordering is lenient because real package metadata is: a leading `v`/`=`, surrounding whitespace, a missing
 * minor or patch (`1.2` = `1.2.0`), leading zeros, and npm-loose pre-releases without the hyphen (`1.2.3beta`)
 * are all ordered as the version they obviously mean. isValid stays strict, so callers can tell a
 * spec-conforming version from one that was merely understood.
 */
import type { VersionComparator } from './comparator.js';
import { compareParsedOrInvalidFirst } from './compare-primitives.js';
import { compareSemverPrecedence, type SemverPrecedence } from './semver-precedence.js';

const NUMBER = '0|[1-9][0-9]*';
const PRERELEASE_ID = '0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*';
const BUILD_ID = '[0-9a-zA-Z-]+';

/** The grammar of semver.org §2-§10, exactly. */
const STRICT = new RegExp(
  `^(${NUMBER})\\.(${NUMBER})\\.(${NUMBER})` +
    `(?:-((?:${PRERELEASE_ID})(?:\\.(?:${PRERELEASE_ID}))*))?` +
    `(?:\\+${BUILD_ID}(?:\\.${BUILD_ID})*)?$`,
);

/**
 * What ordering accepts. A hyphen-less pre-release must start with a letter, otherwise `1.2.34` could be read
 * as patch 3, pre-release 4.
 */
const LENIENT = new RegExp(
  '^\\s*=?\\s*[vV]?([0-9]+)(?:\\.([0-9]+)(?:\\.([0-9]+))?)?' +
    '(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)|([A-Za-z][0-9A-Za-z-]*(?:\\.[0-9A-Za-z-]+)*))?' +
    '(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?\\s*$',
);

/** Parses leniently (see the module comment); null when the string is not a version even so. */
export function parseSemver(version: string): SemverPrecedence | null {
  if (typeof version !== 'string') return null;
  const m = LENIENT.exec(version);
  if (m === null) return null;
  const prerelease = m[4] ?? m[5];
  return {
    major: m[1],
    minor: m[2] ?? '0',
    patch: m[3] ?? '0',
    prerelease: prerelease === undefined ? [] : prerelease.split('.'),
  };
}

/** Whether the string is a SemVer 2.0.0 version exactly as the specification writes it (no `v`, all three parts). */
export function isStrictSemver(version: string): boolean {
  return typeof version === 'string' && STRICT.test(version);
}

/** SemVer precedence; build metadata is ignored, so `1.0.0+a` and `1.0.0+b` compare equal. */
export function compareSemver(a: string, b: string): number {
  return compareParsedOrInvalidFirst(a, b, parseSemver, compareSemverPrecedence);
}

export const semverComparator: VersionComparator = {
  name: 'semver',
  compare: compareSemver,
  isValid: isStrictSemver,
};
