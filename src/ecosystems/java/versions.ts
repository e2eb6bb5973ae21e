/**
 * Maven versions, ordered as maven-artifact 3.9.x's ComparableVersion orders them (MNG-5568, MNG-6572, MNG-6964
 * and MNG-7644 included). maven-items.ts builds the item tree; this module orders two trees.
 *
 * Qualifiers rank alpha < beta < milestone < rc (= cr) < snapshot < "" (= ga = final = release) < sp, then unknown
 * qualifiers in lexical order. Across kinds: a number outranks a nested list, which outranks a qualifier
 * (`1-sp < 1-1 < 1.1`). Case never matters.
 *
 * Maven orders every string, so compare never falls back; isValid only says whether the string looks like
 * something a release would be called.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { compareCodeUnits, compareDigitStrings, isZeroDigits, sign } from '../shared/compare-primitives.js';
import { parseMavenItems, type MavenItem, type MavenList } from './version-items.js';

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];

/**
 * ComparableVersion.comparableQualifier: known qualifiers become their rank as a string, unknown ones
 * "7-<name>", and the results compare as strings, which puts every unknown qualifier after `sp`.
 */
function qualifierKey(value: string): string {
  const rank = QUALIFIERS.indexOf(value);
  return rank === -1 ? `${QUALIFIERS.length}-${value}` : String(rank);
}

const RELEASE_KEY = qualifierKey('');

/**
 * Maven holds a number in an int (up to 9 digits), a long (up to 18) or a BigInteger, and orders the types before
 * the values. With leading zeros stripped that is the numeric order, except for a run of 10+ zeros, which is a
 * long and so outranks every int (`1.0000000000.5 > 1.5.5` in Maven 3.9.6); reproduced for fidelity.
 */
function compareNumbers(a: string, b: string): number {
  return numberWidth(a) - numberWidth(b) || compareDigitStrings(a, b);
}

function numberWidth(digits: string): number {
  return digits.length <= 9 ? 0 : digits.length <= 18 ? 1 : 2;
}

/** Item.compareTo; `other` null means "the other version has no item here". */
function compareItem(item: MavenItem, other: MavenItem | null): number {
  switch (item.kind) {
    case 'number':
      if (other === null) return isZeroDigits(item.digits) ? 0 : 1; // 1.0 == 1, 1.1 > 1
      return other.kind === 'number' ? compareNumbers(item.digits, other.digits) : 1; // 1.1 > 1-sp, 1.1 > 1-1
    case 'qualifier':
      if (other === null) return compareCodeUnits(qualifierKey(item.value), RELEASE_KEY); // 1-rc < 1 < 1-sp
      if (other.kind === 'qualifier') return compareCodeUnits(qualifierKey(item.value), qualifierKey(other.value));
      return -1; // 1-sp < 1.1, 1-sp < 1-1
    case 'list':
      if (other === null) return compareListWithNothing(item);
      if (other.kind === 'list') return compareLists(item, other);
      return other.kind === 'number' ? -1 : 1; // 1-1 < 1.1, 1-1 > 1-sp
  }
}

/** MNG-6964: the whole list decides against a missing item, not just its first element (`1-0.alpha` < `1`). */
function compareListWithNothing(list: MavenList): number {
  for (const i of list.items) {
    const c = compareItem(i, null);
    if (c !== 0) return c;
  }
  return 0;
}

function compareLists(a: MavenList, b: MavenList): number {
  const n = Math.max(a.items.length, b.items.length);
  for (let i = 0; i < n; i++) {
    const left = a.items[i] ?? null;
    const right = b.items[i] ?? null;
    const c = left === null ? (right === null ? 0 : -compareItem(right, null)) : compareItem(left, right);
    if (c !== 0) return c;
  }
  return 0;
}

export function compareMavenVersions(a: string, b: string): number {
  return sign(compareLists(parseMavenItems(String(a ?? '')), parseMavenItems(String(b ?? ''))));
}

/**
 * Looks like a version: starts with a letter or digit, contains a digit, and uses only letters, digits and the
 * separators seen in real Maven versions. Rejects metaversions (`LATEST`, `RELEASE`), ranges (`[1.0,2.0)`) and
 * blanks, all of which ComparableVersion would still order.
 */
export function isMavenVersion(version: string): boolean {
  return typeof version === 'string' && /^[0-9A-Za-z][0-9A-Za-z._+~-]*$/.test(version) && /[0-9]/.test(version);
}

export const mavenComparator: VersionComparator = {
  name: 'maven',
  compare: compareMavenVersions,
  isValid: isMavenVersion,
};
