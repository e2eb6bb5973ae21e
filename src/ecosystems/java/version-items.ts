/**
 * Maven's version tokeniser: turns a version string into ComparableVersion's item tree (maven-artifact 3.9.x,
 * checked against 3.9.6). maven.ts orders the trees.
 *
 * The tree: `.` separates items in the current list; `-` opens a nested list, as does a digit/letter transition;
 * and since MNG-7644 a qualifier introduced by `.` is nested as if introduced by `-` (so `2.0.a` == `2-a`).
 * Trailing "null" items (0, the release qualifier, empty lists) are trimmed from every list, which is what makes
 * `1.0.0` == `1` and `1-ga` == `1`.
 */

import { isZeroDigits } from '../shared/compare-primitives.js';

export type MavenItem = MavenNumber | MavenQualifier | MavenList;

export interface MavenNumber {
  readonly kind: 'number';
  /**
   * Digits with leading zeros stripped as Maven strips them (`007` -> `7`), except that an all-zero run is kept
   * whole. Its length decides Maven's int/long/BigInteger typing, which maven.ts reproduces.
   */
  readonly digits: string;
}

export interface MavenQualifier {
  readonly kind: 'qualifier';
  /** Lower case, with aliases resolved: `ga`/`final`/`release` -> '', `cr` -> `rc`, `a1` -> `alpha`. */
  readonly value: string;
}

export interface MavenList {
  readonly kind: 'list';
  readonly items: MavenItem[];
}

const ZERO: MavenNumber = { kind: 'number', digits: '0' };

const ALIASES: Readonly<Record<string, string>> = { ga: '', final: '', release: '', cr: 'rc' };

/** One-letter shorthands, honoured only when a digit follows (`1.0-a1` is alpha 1; `1.0-a` is the unknown "a"). */
const SHORTHANDS: Readonly<Record<string, string>> = { a: 'alpha', b: 'beta', m: 'milestone' };

function qualifier(text: string, followedByDigit: boolean): MavenQualifier {
  const expanded = followedByDigit ? (SHORTHANDS[text] ?? text) : text;
  return { kind: 'qualifier', value: ALIASES[expanded] ?? expanded };
}

function item(isDigit: boolean, text: string): MavenItem {
  return isDigit ? { kind: 'number', digits: stripLeadingZeroes(text) } : qualifier(text, false);
}

/** ComparableVersion.stripLeadingZeroes: `007` -> `7`, but `000` stays `000`. */
function stripLeadingZeroes(digits: string): string {
  const first = digits.search(/[^0]/);
  return first === -1 ? digits : digits.slice(first);
}

function isAsciiDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** Maven's "null" items are the ones that change nothing when appended: 0, the release qualifier, an empty list. */
export function isNullItem(i: MavenItem): boolean {
  switch (i.kind) {
    case 'number':
      return isZeroDigits(i.digits);
    case 'qualifier':
      return i.value === '';
    case 'list':
      return i.items.length === 0;
  }
}

/** Drops null items from the end, looking through (but keeping) trailing non-empty sub-lists, as Maven does. */
function normalize(list: MavenList): void {
  for (let i = list.items.length - 1; i >= 0; i--) {
    const last = list.items[i];
    if (isNullItem(last)) list.items.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}

/** ComparableVersion.parseVersion, step for step. Accepts any string. */
export function parseMavenItems(version: string): MavenList {
  const v = version.toLowerCase();
  const root: MavenList = { kind: 'list', items: [] };
  const stack: MavenList[] = [root];
  let list = root;
  const nest = (): void => {
    const sub: MavenList = { kind: 'list', items: [] };
    list.items.push(sub);
    list = sub;
    stack.push(sub);
  };

  let isDigit = false;
  let start = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (c === '.' || c === '-') {
      list.items.push(i === start ? ZERO : item(isDigit, v.slice(start, i)));
      start = i + 1;
      if (c === '-') nest();
    } else if (isAsciiDigit(c)) {
      if (!isDigit && i > start) {
        // letters then digits: the letters are a qualifier (MNG-7644: nested even after a '.').
        if (list.items.length > 0) nest();
        list.items.push(qualifier(v.slice(start, i), true));
        start = i;
        nest();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        // digits then letters: the letters start a nested list.
        list.items.push(item(true, v.slice(start, i)));
        start = i;
        nest();
      }
      isDigit = false;
    }
  }
  if (v.length > start) {
    // A trailing '.'-introduced qualifier is nested like a '-'-introduced one (MNG-7644).
    if (!isDigit && list.items.length > 0) nest();
    list.items.push(item(isDigit, v.slice(start)));
  }

  // Innermost lists first, so an emptied sub-list is itself trimmed from its parent.
  for (let l = stack.pop(); l !== undefined; l = stack.pop()) normalize(l);
  return root;
}
