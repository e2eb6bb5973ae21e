/**
 * "Is version V affected?" for one OSV `affected[]` entry, following the schema's evaluation pseudocode
 * (https://ossf.github.io/osv-schema/#evaluation): V is affected when it is listed in `versions[]` or lies inside
 * any ECOSYSTEM/SEMVER range. Each range's events are sorted and walked in order (`introduced` turns the state on
 * when V >= it, `fixed` turns it off when V >= it, `last_affected` when V > it), and a range with `limit` events
 * only applies below one of them. GIT ranges hold commit hashes, which have no order without the repository's
 * commit graph, so they are skipped; records carrying them also list the affected versions explicitly.
 */
import type { VersionComparator } from '../../ecosystems/shared/comparator.js';
import type { OsvAffected, OsvEvent, OsvEventKind, OsvRange } from './types.js';

/** The stretch of one range that contains the version, for showing why it matched. */
export interface AffectedWindow {
  /** Index into `affected.ranges`. */
  rangeIndex: number;
  rangeType: 'ECOSYSTEM' | 'SEMVER';
  /** Inclusive lower bound; `'0'` means from the first version. */
  introduced: string;
  /** Exclusive upper bound: the release that fixes this window. */
  fixed?: string;
  /** Inclusive upper bound, when the record knows only the last affected version (so no fix is known). */
  lastAffected?: string;
  /** The range's `limit` events, which cap it from above (exclusive); absent when it has none. */
  limits?: string[];
}

export interface AffectedVerdict {
  affected: boolean;
  /** How an affected version matched: inside a range window (then `window` is set), or only by `versions[]`. */
  matchedBy?: 'range' | 'versions';
  /**
   * The fix for the window(s) containing the version, ascending; absent when no fix is known (not yet fixed, or
   * bounded by `last_affected`). For a `versions[]`-only match it is the lowest `fixed` above the version, if any.
   */
  fixedIn?: string[];
  /** The first range window containing the version. */
  window?: AffectedWindow;
  /**
   * The installed version and/or range bounds the comparator reports as invalid for its format (affected
   * verdicts only). The verdict was still computed with the comparator's fallback ordering; callers decide
   * whether to trust it.
   */
  unorderable?: string[];
}

/** Order among events at the same version: closing before opening, so adjoining windows [a,b) [b,c) cover b. */
const TIE_RANK: Record<OsvEventKind, number> = { fixed: 0, last_affected: 1, introduced: 2, limit: 3 };

export function isAffected(version: string, affected: OsvAffected, comparator: VersionComparator): AffectedVerdict {
  // Plain loops on this path: it runs for every entry of every matched package, and per-call closures showed in
  // the match profile.
  const windows: AffectedWindow[] = [];
  for (let index = 0; index < affected.ranges.length; index++) {
    const range = affected.ranges[index]!;
    if (range.type === 'GIT') continue;
    const window = windowContaining(version, range, index, comparator);
    if (window) windows.push(window);
  }
  if (windows.length > 0) {
    const fixes = sortUnique(windows.flatMap((w) => (w.fixed !== undefined ? [w.fixed] : [])), comparator);
    return { affected: true, matchedBy: 'range', window: windows[0]!, ...(fixes.length > 0 ? { fixedIn: fixes } : {}), ...unorderableOf(version, affected, comparator) };
  }
  if (isListed(version, affected.versions, comparator)) {
    // The explicit list carries no fix information; the lowest fix above the version is the best hint for
    // "upgrade to", and saying nothing would read as "no fix available".
    const next = lowestFixAbove(version, affected.ranges, comparator);
    return { affected: true, matchedBy: 'versions', ...(next !== undefined ? { fixedIn: [next] } : {}), ...unorderableOf(version, affected, comparator) };
  }
  return { affected: false };
}

/**
 * Only affected verdicts name unorderable strings: checking every bound of every non-matching entry is the
 * matcher's main cost otherwise.
 */
function unorderableOf(version: string, affected: OsvAffected, comparator: VersionComparator): { unorderable?: string[] } {
  const unorderable = unorderableVersions(version, affected, comparator);
  return unorderable.length > 0 ? { unorderable } : {};
}

/** The schema's walk over one range's sorted events, remembering which `introduced` opened the current window. */
function windowContaining(
  version: string,
  range: OsvRange,
  rangeIndex: number,
  comparator: VersionComparator,
): AffectedWindow | undefined {
  if (range.type === 'GIT' || !beforeLimits(version, range, comparator)) return undefined;
  const events = sortRangeEvents(range.events, comparator);
  let vulnerable = false;
  let opened = -1;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.kind === 'introduced') {
      if (isIntroducedAt(version, event.version, comparator)) {
        if (!vulnerable) opened = i;
        vulnerable = true;
      }
    } else if (event.kind === 'fixed') {
      if (comparator.compare(version, event.version) >= 0) vulnerable = false;
    } else if (event.kind === 'last_affected') {
      if (comparator.compare(version, event.version) > 0) vulnerable = false;
    }
  }
  if (!vulnerable) return undefined;

  // Every closing event between the opening one and the version would have closed the window, so the first
  // closing event after the opening one is this window's upper bound.
  const closing = events.slice(opened + 1).find((e) => e.kind === 'fixed' || e.kind === 'last_affected');
  const limits = range.events.filter((e) => e.kind === 'limit' && !isInfiniteLimit(e.version)).map((e) => e.version);
  return {
    rangeIndex,
    rangeType: range.type,
    introduced: events[opened]!.version,
    ...(closing?.kind === 'fixed' ? { fixed: closing.version } : {}),
    ...(closing?.kind === 'last_affected' ? { lastAffected: closing.version } : {}),
    ...(limits.length > 0 ? { limits } : {}),
  };
}

/**
 * The range's introduced/fixed/last_affected events in evaluation order: by version, `introduced: "0"` first,
 * ties broken by TIE_RANK (the schema leaves ties open; real feeds write adjoining windows such as
 * `introduced 0.12.2, fixed 0.13.0, introduced 0.13.0`, which must cover 0.13.0). `limit` events are not walked.
 */
export function sortRangeEvents(events: readonly OsvEvent[], comparator: VersionComparator): OsvEvent[] {
  // Parsed entries are kept between matching runs, so their sorted events are too (per version format).
  let byFormat = sortedEvents.get(events);
  if (!byFormat) sortedEvents.set(events, (byFormat = new Map()));
  let sorted = byFormat.get(comparator.name);
  if (!sorted) byFormat.set(comparator.name, (sorted = sortEvents(events, comparator)));
  return sorted;
}

const sortedEvents = new WeakMap<readonly OsvEvent[], Map<string, OsvEvent[]>>();

function sortEvents(events: readonly OsvEvent[], comparator: VersionComparator): OsvEvent[] {
  return events
    .filter((e) => e.kind !== 'limit')
    .sort((a, b) => {
      const aZero = isZeroIntroduced(a);
      const bZero = isZeroIntroduced(b);
      if (aZero || bZero) return aZero === bZero ? 0 : aZero ? -1 : 1;
      return Math.sign(comparator.compare(a.version, b.version)) || TIE_RANK[a.kind] - TIE_RANK[b.kind];
    });
}

function isZeroIntroduced(event: OsvEvent): boolean {
  return event.kind === 'introduced' && event.version === '0';
}

/** `introduced: "0"` sorts before every version, whatever the format's own ordering says about "0". */
function isIntroducedAt(version: string, introduced: string, comparator: VersionComparator): boolean {
  return introduced === '0' || comparator.compare(version, introduced) >= 0;
}

/** The schema's BeforeLimits: no limits means an implicit `*`; otherwise V must be below at least one. */
function beforeLimits(version: string, range: OsvRange, comparator: VersionComparator): boolean {
  let limited = false;
  for (const e of range.events) {
    if (e.kind !== 'limit') continue;
    if (isInfiniteLimit(e.version) || comparator.compare(version, e.version) < 0) return true;
    limited = true;
  }
  return !limited;
}

/** The schema lets a limit containing `*` stand for infinity. */
function isInfiniteLimit(limit: string): boolean {
  return limit.includes('*');
}

/**
 * Listed in `versions[]`: the same string, or equal in the format's own sense (PEP 440 `1.0` == `1.0.0`) when
 * the comparator can read both, since the list is written in the ecosystem's syntax.
 */
function isListed(version: string, versions: readonly string[], comparator: VersionComparator): boolean {
  if (versions.includes(version)) return true;
  if (versions.length === 0 || !comparator.isValid(version)) return false;
  return versions.some((listed) => comparator.isValid(listed) && comparator.compare(version, listed) === 0);
}

function lowestFixAbove(version: string, ranges: readonly OsvRange[], comparator: VersionComparator): string | undefined {
  const fixes = ranges
    .filter((r) => r.type !== 'GIT')
    .flatMap((r) => r.events)
    .filter((e) => e.kind === 'fixed' && comparator.compare(e.version, version) > 0)
    .map((e) => e.version);
  return sortUnique(fixes, comparator)[0];
}

function unorderableVersions(version: string, affected: OsvAffected, comparator: VersionComparator): string[] {
  const out = new Set<string>();
  if (!comparator.isValid(version)) out.add(version);
  for (const range of affected.ranges) {
    if (range.type === 'GIT') continue;
    for (const event of range.events) {
      if (isZeroIntroduced(event) || (event.kind === 'limit' && isInfiniteLimit(event.version))) continue;
      if (!comparator.isValid(event.version)) out.add(event.version);
    }
  }
  return [...out];
}

function sortUnique(versions: string[], comparator: VersionComparator): string[] {
  return [...new Set(versions)].sort((a, b) => comparator.compare(a, b));
}
