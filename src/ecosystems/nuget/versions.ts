/**
 * NuGet versions, ordered as NuGet.Versioning's VersionComparer does: SemVer 2.0.0 with NuGet's extensions.
 *
 *  - Up to four numeric parts (`Major.Minor.Patch.Revision`); missing ones are 0, so `1.0` == `1.0.0` ==
 *    `1.0.0.0`, and leading zeros do not count (`1.01` == `1.1`).
 *  - A release outranks its pre-releases; pre-release labels compare left to right, numeric labels as numbers and
 *    below alphanumeric ones, alphanumeric labels case-insensitively (`1.0.0-RC.1` == `1.0.0-rc.1`); with equal
 *    labels the longer list wins.
 *  - Build metadata (`+...`) does not take part.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { compareCodeUnits, compareDigitStrings, compareParsedOrInvalidFirst } from '../shared/compare-primitives.js';
import { comparePrerelease } from '../shared/semver-precedence.js';

interface NuGetVersion {
  /** Four digit strings. */
  readonly numbers: readonly string[];
  readonly labels: readonly string[];
}

const LABEL = '[0-9A-Za-z-]+';
const NUGET_VERSION = new RegExp(`^([0-9]+)(?:\\.([0-9]+))?(?:\\.([0-9]+))?(?:\\.([0-9]+))?(?:-(${LABEL}(?:\\.${LABEL})*))?(?:\\+${LABEL}(?:\\.${LABEL})*)?$`);

export function parseNuGetVersion(version: string): NuGetVersion | null {
  if (typeof version !== 'string') return null;
  const m = NUGET_VERSION.exec(version.trim());
  if (m === null) return null;
  return { numbers: [m[1]!, m[2] ?? '0', m[3] ?? '0', m[4] ?? '0'], labels: m[5] === undefined ? [] : m[5].split('.') };
}

/** Ordinal ignoring case, as StringComparer.OrdinalIgnoreCase compares (upper-cased code units). */
function compareIgnoringCase(a: string, b: string): number {
  return compareCodeUnits(a.toUpperCase(), b.toUpperCase());
}

function compareParsed(a: NuGetVersion, b: NuGetVersion): number {
  for (let i = 0; i < 4; i++) {
    const c = compareDigitStrings(a.numbers[i]!, b.numbers[i]!);
    if (c !== 0) return c;
  }
  return comparePrerelease(a.labels, b.labels, compareIgnoringCase);
}

export function compareNuGetVersions(a: string, b: string): number {
  return compareParsedOrInvalidFirst(a, b, parseNuGetVersion, compareParsed);
}

export const nugetComparator: VersionComparator = {
  name: 'nuget',
  compare: compareNuGetVersions,
  isValid: (version) => parseNuGetVersion(version) !== null,
};
