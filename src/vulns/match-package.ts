/**
 * Matching packages against the vulnerability index: lookups by (ecosystem, name) — batched, one query per few
 * hundred names, never a scan of the feed — then OSV range evaluation with the ecosystem's comparator. Withdrawn
 * advisories and disabled feeds or groups never match.
 */
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import type { DistroInfo } from '../images/model.js';
import { lookupTarget, type LookupTarget, type MatchablePackage } from './ecosystems.js';
import { matchedByOf, suppressionOf, type MatchedBy, type SuppressedCandidate } from './match-explain.js';
import { isAffected } from './osv/ranges.js';
import { sameModularity } from './rpm-modules.js';
import type { VersionComparator } from './versions/comparator.js';
import type { OsvAffected } from './osv/types.js';

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

interface AffectedRow {
  row_id: number;
  feed: string;
  vuln_id: string;
  grp: string;
  package_name: string;
}

/** Feeds and groups an administrator switched off; loaded once per matching run. */
export interface MatchExclusions {
  feeds: Set<string>;
  groups: Set<string>;
}

export async function loadExclusions(db: Db): Promise<MatchExclusions> {
  const feeds = (await db('vuln_feeds').select('name', 'enabled')).filter((f: { enabled: unknown }) => !toBool(f.enabled));
  const groups = (await db('vuln_feed_groups').select('feed', 'name', 'enabled')).filter((g: { enabled: unknown }) => !toBool(g.enabled));
  return {
    feeds: new Set(feeds.map((f: { name: string }) => f.name)),
    groups: new Set(groups.map((g: { feed: string; name: string }) => `${g.feed}\u0000${g.name}`)),
  };
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

const NAME_CHUNK = 400;

/** Index rows for a set of names in one ecosystem (and release), grouped by normalised name. */
/**
 * Parsed index entries by row id. A row's content never changes (a sync replaces rows, with new ids), so entries
 * stay valid; the cache is simply dropped when it grows large.
 */
const parsedEntries = new Map<number, OsvAffected>();
const PARSED_CACHE_LIMIT = 200_000;

/** Reads and parses the entries not in memory yet. */
async function loadEntries(db: Db, rowIds: number[]): Promise<void> {
  let missing = rowIds.filter((id) => !parsedEntries.has(id));
  if (parsedEntries.size + missing.length > PARSED_CACHE_LIMIT) {
    parsedEntries.clear();
    missing = rowIds;
  }
  for (let i = 0; i < missing.length; i += NAME_CHUNK) {
    const rows: { row_id: number; affected: string }[] = await db('vulnerability_affected').whereIn('row_id', missing.slice(i, i + NAME_CHUNK)).select('row_id', 'affected');
    for (const r of rows) parsedEntries.set(r.row_id, JSON.parse(r.affected) as OsvAffected);
  }
}

/**
 * Index entries for a set of names in one ecosystem (and release), grouped by normalised name, with their parsed
 * OSV entries loaded. The first query is answered from the covering index alone.
 */
async function lookupRows(db: Db, ecosystem: string, release: string | undefined, names: string[]): Promise<Map<string, AffectedRow[]>> {
  const byName = new Map<string, AffectedRow[]>();
  const ids: number[] = [];
  for (let i = 0; i < names.length; i += NAME_CHUNK) {
    // Withdrawn records have no index entries (feed-sync leaves them out), so no join with the records is needed.
    const q = db<AffectedRow>('vulnerability_affected')
      .where('ecosystem', ecosystem)
      .whereIn('package_name', names.slice(i, i + NAME_CHUNK))
      .select('row_id', 'feed', 'vuln_id', 'grp', 'package_name');
    // Distro advisories apply to their release only; language advisories carry no release.
    if (release !== undefined) q.andWhere('release', release);
    else q.whereNull('release');
    for (const row of await q) {
      ids.push(row.row_id);
      const list = byName.get(row.package_name);
      if (list) list.push(row);
      else byName.set(row.package_name, [row]);
    }
  }
  await loadEntries(db, ids);
  return byName;
}

/** Empties the parsed-entry cache (benchmarks measure a cold matcher with it). */
export function clearParsedEntries(): void {
  parsedEntries.clear();
}

function parsedEntry(row: AffectedRow): OsvAffected {
  return parsedEntries.get(row.row_id)!;
}

/** One matching run compares the same installed version with the same bounds many times; parse each pair once. */
function memoized(comparator: VersionComparator): VersionComparator {
  const results = new Map<string, Map<string, number>>();
  const validity = new Map<string, boolean>();
  return {
    name: comparator.name,
    isValid(v) {
      let ok = validity.get(v);
      if (ok === undefined) validity.set(v, (ok = comparator.isValid(v)));
      return ok;
    },
    compare(a, b) {
      let row = results.get(a);
      if (!row) results.set(a, (row = new Map()));
      let r = row.get(b);
      if (r === undefined) row.set(b, (r = comparator.compare(a, b)));
      return r;
    },
  };
}

/**
 * The matches of one package. Candidates the version ranges call affected pass the candidate rules
 * (match-explain.ts); those a rule drops go to `suppressed` when the caller wants them.
 */
function matchOne(
  pkg: MatchablePackage,
  target: LookupTarget,
  rows: Map<string, AffectedRow[]>,
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
      const affected = parsedEntry(row);
      // Advisories filed under the source package carry source versions (they differ for binNMUs and some renames).
      const version = name !== pkg.name && name === pkg.origin && pkg.sourceVersion ? pkg.sourceVersion : pkg.version;
      if (!sameModularity(target.ecosystem, version, affected)) continue;
      const verdict = isAffected(version, affected, target.comparator);
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
  db: Db,
  packages: readonly MatchablePackage[],
  distro: DistroInfo | undefined,
  exclusions?: MatchExclusions,
  suppressed?: SuppressedCandidate[][],
): Promise<PackageMatch[][]> {
  const excluded = exclusions ?? (await loadExclusions(db));
  if (suppressed) suppressed.length = 0;
  const targets = packages.map((p) => lookupTarget(p, distro));
  // One lookup per (ecosystem, release) over the union of names.
  const groups = new Map<string, { ecosystem: string; release?: string; names: Set<string> }>();
  for (const t of targets) {
    if (!t) continue;
    const id = `${t.ecosystem}\u0000${t.release ?? ''}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { ecosystem: t.ecosystem, release: t.release, names: new Set() }));
    for (const n of t.names) g.names.add(n);
  }
  const rowsByGroup = new Map<string, Map<string, AffectedRow[]>>();
  for (const [id, g] of groups) rowsByGroup.set(id, await lookupRows(db, g.ecosystem, g.release, [...g.names]));
  const comparators = new Map<VersionComparator, VersionComparator>();
  return packages.map((pkg, i) => {
    const t = targets[i];
    if (suppressed) suppressed[i] = [];
    if (!t) return [];
    let comparator = comparators.get(t.comparator);
    if (!comparator) comparators.set(t.comparator, (comparator = memoized(t.comparator)));
    return matchOne(pkg, { ...t, comparator }, rowsByGroup.get(`${t.ecosystem}\u0000${t.release ?? ''}`)!, excluded, suppressed?.[i]);
  });
}

/** Matches for one package. */
export async function matchPackage(db: Db, pkg: MatchablePackage, distro: DistroInfo | undefined): Promise<PackageMatch[]> {
  return (await matchPackages(db, [pkg], distro))[0]!;
}
