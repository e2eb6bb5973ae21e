/**
 * Matching packages against vulnerability data: the entries filed under each package's lookup names, read from a
 * VulnerabilityProvider in one call per run (the database: vulnerability-repository.ts), then OSV range evaluation
 * with the ecosystem's comparator. Withdrawn advisories and disabled feeds or groups never match.
 */
import type { DistroInfo } from '../ecosystems/model.js';
import type { LookupTarget, MatchablePackage } from '../ecosystems/shared/lookup.js';
import { lookupTarget } from './ecosystems.js';
import { matchedByOf, suppressionOf, type MatchedBy, type SuppressedCandidate } from './match-explain.js';
import { isAffected, type AffectedVerdict } from './osv/ranges.js';
import { sameModularity } from './rpm-modules.js';
import type { VersionComparator } from '../ecosystems/shared/comparator.js';
import type { OsvAffected } from './osv/types.js';
import type { AffectedEntry, MatchExclusions, VulnerabilityProvider } from './vulnerability-provider.js';

export type { MatchExclusions, VulnerabilityProvider } from './vulnerability-provider.js';

export type FixState = 'fixed' | 'not-fixed' | 'wont-fix';

export interface PackageMatch {
  vulnId: string;
  feed: string;
  /** The advisory's feed group (namespace), e.g. debian:12 or pypi. */
  group: string;
  /** The name the advisory used: the package itself or its source package. */
  matchedName: string;
  /** Why it matched (match-explain.ts). */
  matchedBy: MatchedBy;
  fixState: FixState;
  fixedIn: string[];
}

/** Values the feed may use to say a vulnerability will not be fixed in this release. */
const WONT_FIX_MARKERS = new Set(['wont-fix', 'will-not-fix', 'will_not_fix', "won't fix"]);

/**
 * OSV has no field for "the distribution decided not to fix this". Distro converters put the tracker's verdict in
 * `ecosystem_specific` or `database_specific`; Vigil reads `fix_state` (grype's vocabulary) or `status` there.
 */
function markedWontFix(affected: OsvAffected): boolean {
  for (const extra of [affected.ecosystemSpecific, affected.databaseSpecific]) {
    for (const field of ['fix_state', 'status']) {
      const value = extra?.[field];
      if (typeof value === 'string' && WONT_FIX_MARKERS.has(value.toLowerCase())) return true;
    }
  }
  return false;
}

/**
 * Matching compares the same installed versions with the same bounds over and over, within a run and across runs
 * (images share most packages); each pair is compared once and the result kept, per version format, up to
 * MEMO_LIMIT pairs (then the memo starts over: a few tens of MB at most).
 */
const MEMO_LIMIT = 250_000;
const memos = new Map<VersionComparator, VersionComparator>();

function memoized(comparator: VersionComparator): VersionComparator {
  let memo = memos.get(comparator);
  if (memo) return memo;
  const results = new Map<string, Map<string, number>>();
  const validity = new Map<string, boolean>();
  let pairs = 0;
  memo = {
    name: comparator.name,
    isValid(v) {
      let ok = validity.get(v);
      if (ok === undefined) {
        if (validity.size >= MEMO_LIMIT) validity.clear();
        validity.set(v, (ok = comparator.isValid(v)));
      }
      return ok;
    },
    compare(a, b) {
      let row = results.get(a);
      if (!row) {
        if (pairs >= MEMO_LIMIT) {
          results.clear();
          pairs = 0;
        }
        results.set(a, (row = new Map()));
      }
      let r = row.get(b);
      if (r === undefined) {
        row.set(b, (r = comparator.compare(a, b)));
        pairs++;
      }
      return r;
    },
  };
  memos.set(comparator, memo);
  return memo;
}

/**
 * Verdicts by entry and installed version: images share most packages at the same versions, and kept entries are
 * matched again and again. Held weakly by the parsed entry (they go when the entry cache drops it), at most
 * VERDICTS_PER_ENTRY versions each. Shared between matches: never modify one.
 */
const VERDICTS_PER_ENTRY = 32;
const verdicts = new Map<VersionComparator, WeakMap<OsvAffected, Map<string, AffectedVerdict>>>();

function verdictFor(version: string, affected: OsvAffected, comparator: VersionComparator): AffectedVerdict {
  let byEntry = verdicts.get(comparator);
  if (!byEntry) verdicts.set(comparator, (byEntry = new WeakMap()));
  let byVersion = byEntry.get(affected);
  if (!byVersion) byEntry.set(affected, (byVersion = new Map()));
  let verdict = byVersion.get(version);
  if (!verdict) {
    if (byVersion.size >= VERDICTS_PER_ENTRY) byVersion.clear();
    byVersion.set(version, (verdict = isAffected(version, affected, comparator)));
  }
  return verdict;
}

/**
 * The matches of one package. Candidates the version ranges call affected pass the candidate rules
 * (match-explain.ts); those a rule drops go to `suppressed` when the caller wants them.
 */
function matchOne(
  pkg: MatchablePackage,
  target: LookupTarget,
  rows: Map<string, AffectedEntry[]>,
  exclusions: MatchExclusions,
  suppressed?: SuppressedCandidate[],
): PackageMatch[] {
  const matches = new Map<string, PackageMatch>();
  const dropped = new Map<string, SuppressedCandidate>();
  const excluding = exclusions.feeds.size > 0 || exclusions.groups.size > 0;
  // The first name is the package's own (ecosystems.ts); any other is its source package's.
  const ownName = target.names[0];
  for (const name of target.names) {
    for (const row of rows.get(name) ?? []) {
      if (matches.has(row.vuln_id)) continue;
      if (excluding && (exclusions.feeds.has(row.feed) || exclusions.groups.has(`${row.feed}\u0000${row.grp}`))) continue;
      const affected = row.affected;
      // Advisories filed under the source package carry source versions (they differ for binNMUs and some renames).
      const version = name !== pkg.name && name === pkg.origin && pkg.sourceVersion ? pkg.sourceVersion : pkg.version;
      if (!sameModularity(target.ecosystem, version, affected)) continue;
      const verdict = verdictFor(version, affected, target.comparator);
      if (!verdict.affected) continue;
      const suppression = suppressionOf({ pkg, affected, matchedName: row.package_name });
      if (suppression) {
        if (suppressed && !dropped.has(row.vuln_id)) dropped.set(row.vuln_id, { vulnId: row.vuln_id, feed: row.feed, group: row.grp, matchedName: row.package_name, ...suppression });
        continue;
      }
      const fixedIn = verdict.fixedIn ?? [];
      matches.set(row.vuln_id, {
        vulnId: row.vuln_id,
        feed: row.feed,
        group: row.grp,
        matchedName: row.package_name,
        matchedBy: matchedByOf(pkg, affected, name === ownName),
        fixState: fixedIn.length ? 'fixed' : markedWontFix(affected) ? 'wont-fix' : 'not-fixed',
        fixedIn,
      });
    }
  }
  // A candidate dropped under one entry but matched under another (another release line, the source's name) matched.
  if (suppressed) for (const [id, candidate] of dropped) if (!matches.has(id)) suppressed.push(candidate);
  return [...matches.values()].sort(byVulnId);
}

function byVulnId(a: { vulnId: string }, b: { vulnId: string }): number {
  return a.vulnId < b.vulnId ? -1 : a.vulnId > b.vulnId ? 1 : 0;
}

/**
 * Matches for each package, in the order given (an empty list where none apply or no feed covers the package).
 * With `suppressed`, its content is replaced by the candidates a rule dropped, one list per package (the debug view).
 */
export async function matchPackages(
  provider: VulnerabilityProvider,
  packages: readonly MatchablePackage[],
  distro: DistroInfo | undefined,
  exclusions?: MatchExclusions,
  suppressed?: SuppressedCandidate[][],
): Promise<PackageMatch[][]> {
  const excluded = exclusions ?? (await provider.exclusions());
  if (suppressed) suppressed.length = 0;
  const targets = packages.map((p) => lookupTarget(p, distro));
  // One search per (ecosystem, release) over the union of names, all in one call.
  const groups = new Map<string, { ecosystem: string; release?: string; names: Set<string> }>();
  for (const t of targets) {
    if (!t) continue;
    const id = `${t.ecosystem}\u0000${t.release ?? ''}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { ecosystem: t.ecosystem, release: t.release, names: new Set() }));
    for (const n of t.names) g.names.add(n);
  }
  const searches = [...groups.values()].map((g) => ({ ecosystem: g.ecosystem, release: g.release, names: [...g.names] }));
  const found = await provider.findAffected(searches);
  const rowsByGroup = new Map([...groups.keys()].map((id, i) => [id, found[i]!]));
  return packages.map((pkg, i) => {
    const t = targets[i];
    if (suppressed) suppressed[i] = [];
    if (!t) return [];
    return matchOne(pkg, { ...t, comparator: memoized(t.comparator) }, rowsByGroup.get(`${t.ecosystem}\u0000${t.release ?? ''}`)!, excluded, suppressed?.[i]);
  });
}

/** Matches for one package. */
export async function matchPackage(provider: VulnerabilityProvider, pkg: MatchablePackage, distro: DistroInfo | undefined): Promise<PackageMatch[]> {
  return (await matchPackages(provider, [pkg], distro))[0]!;
}
