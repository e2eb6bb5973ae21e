/**
 * Composer (Packagist) versions, ordered as Composer orders them: its VersionParser normalises a version, then PHP's
 * version_compare orders the normal forms.
 *
 *  - A `v` prefix and build metadata (`+...`) are dropped; up to four numeric parts, missing ones 0
 *    (`v1.2` -> `1.2.0.0`).
 *  - A stability suffix (`-alpha2`, `.beta.1`, `RC1`, `-p3`; `a`, `b`, `pl` and `p` are short for alpha, beta and
 *    patch) orders dev < alpha < beta < RC < (release) < patch, then by its number (none sorts below any).
 *  - A trailing `-dev` (`1.0.0-beta2-dev`, or the branch alias `1.2.x-dev`, read as 1.2.9999999.9999999-dev like
 *    Composer does) sorts just below the same version without it.
 *
 * Branch names (`dev-main`) name no point in the release order; they are invalid here, like date-only versions.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { compareDigitStrings, compareParsedOrInvalidFirst } from '../shared/compare-primitives.js';

interface ComposerVersion {
  /** Four digit strings. */
  readonly numbers: readonly string[];
  /** Index into STABILITIES. */
  readonly stability: number;
  readonly stabilityNumbers: readonly string[];
  readonly dev: boolean;
}

const STABILITIES = ['dev', 'alpha', 'beta', 'rc', '', 'patch'];
const RELEASE = STABILITIES.indexOf('');
const ALIASES: Record<string, string> = { a: 'alpha', b: 'beta', p: 'patch', pl: 'patch', stable: '' };
/** Composer's alias for the newest commit of a numbered branch, e.g. `1.2.x-dev`. */
const BRANCH_ALIAS = '9999999';

const NUMBER = '(?:\\.([0-9]+|[xX*]))?';
const COMPOSER_VERSION = new RegExp(
  `^[vV]?([0-9]+)${NUMBER}${NUMBER}${NUMBER}` +
    '(?:[._-]?(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?[0-9]+)*))?' +
    '([.-]?dev)?$',
  'i',
);

export function parseComposerVersion(version: string): ComposerVersion | null {
  if (typeof version !== 'string') return null;
  const m = COMPOSER_VERSION.exec(version.trim().replace(/\+[0-9A-Za-z.-]+$/, ''));
  if (m === null) return null;
  const dev = m[7] !== undefined;
  const parts = [m[1]!, m[2], m[3], m[4]];
  // A wildcard part is only a branch alias (`1.x-dev`); from it on, every part is the alias number.
  const wildcard = parts.findIndex((p) => p !== undefined && /^[xX*]$/.test(p));
  if (wildcard >= 0 && (!dev || m[5] !== undefined)) return null;
  const numbers = parts.map((p, i) => (wildcard >= 0 && i >= wildcard ? BRANCH_ALIAS : p ?? '0'));
  const suffix = m[5]?.toLowerCase();
  // A bare `-dev` is the dev stability itself (1.0.0-dev < 1.0.0-alpha); after a suffix it lowers that suffix.
  if (suffix === undefined) return { numbers, stability: dev && wildcard < 0 ? 0 : RELEASE, stabilityNumbers: [], dev: dev && wildcard >= 0 };
  return {
    numbers,
    stability: STABILITIES.indexOf(ALIASES[suffix] ?? suffix),
    stabilityNumbers: m[6]?.match(/[0-9]+/g) ?? [],
    dev,
  };
}

function compareParsed(a: ComposerVersion, b: ComposerVersion): number {
  for (let i = 0; i < 4; i++) {
    const c = compareDigitStrings(a.numbers[i]!, b.numbers[i]!);
    if (c !== 0) return c;
  }
  if (a.stability !== b.stability) return a.stability - b.stability;
  const shared = Math.min(a.stabilityNumbers.length, b.stabilityNumbers.length);
  for (let i = 0; i < shared; i++) {
    const c = compareDigitStrings(a.stabilityNumbers[i]!, b.stabilityNumbers[i]!);
    if (c !== 0) return c;
  }
  if (a.stabilityNumbers.length !== b.stabilityNumbers.length) return a.stabilityNumbers.length - b.stabilityNumbers.length;
  return a.dev === b.dev ? 0 : a.dev ? -1 : 1;
}

export function compareComposerVersions(a: string, b: string): number {
  return compareParsedOrInvalidFirst(a, b, parseComposerVersion, compareParsed);
}

export const composerComparator: VersionComparator = {
  name: 'composer',
  compare: compareComposerVersions,
  isValid: (version) => parseComposerVersion(version) !== null,
};
