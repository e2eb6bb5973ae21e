/**
 * The matching debug view (GET /v2/images/{digest}/vuln-debug): an image's packages matched against the current
 * data now, with how each finding matched and every candidate a precision rule suppressed, counted by reason.
 * Nothing is stored; the stored findings are what `.../vuln/{type}` answers.
 */
import type { Db } from '../db/index.js';
import { distroOf, loadImagePackages, type ImagePackage } from './findings.js';
import { OWNED_BY_OS_PACKAGE, suppressionReasons, type MatchedBy, type SuppressedCandidate, type SuppressionReason } from './match-explain.js';
import { correctPackages } from './corrections/apply.js';
import { knexCorrectionProvider } from './corrections/store.js';
import { matchPackages, type PackageMatch } from './match-package.js';
import { knexVulnerabilityProvider } from './vulnerability-repository.js';
import { OS_PACKAGE_TYPES } from './image-report.js';
import { NOT_REACHABLE, refineGoMatches } from './go-reachability.js';
import { goSymbolReader } from '../images/store.js';

export interface MatchDebugEntry {
  vuln: string;
  feed: string;
  feed_group: string;
  package_name: string;
  package_version: string;
  package_type: string;
  package_path: string | null;
  matched_name: string;
  matched_by?: MatchedBy;
  reason?: string;
  detail?: string;
}

export interface MatchDebugReport {
  image_digest: string;
  matched_count: number;
  matched_by: Record<string, number>;
  suppressed_count: number;
  suppressed_by_reason: Record<string, number>;
  reasons: SuppressionReason[];
  matches: MatchDebugEntry[];
  suppressed: MatchDebugEntry[];
}

function packageFields(p: ImagePackage) {
  return { package_name: p.name, package_version: p.version, package_type: p.type, package_path: p.path };
}

function matchEntry(p: ImagePackage, m: PackageMatch): MatchDebugEntry {
  return { vuln: m.vulnId, feed: m.feed, feed_group: m.group, ...packageFields(p), matched_name: m.matchedName, matched_by: m.matchedBy };
}

function suppressedEntry(p: ImagePackage, s: SuppressedCandidate): MatchDebugEntry {
  return { vuln: s.vulnId, feed: s.feed, feed_group: s.group, ...packageFields(p), matched_name: s.matchedName, reason: s.reason, detail: s.detail };
}

function ownerText(owner: unknown): string {
  const o = owner as { type?: unknown; name?: unknown; version?: unknown };
  return [o.type, o.name, o.version].filter((x) => typeof x === 'string' && x).join(' ');
}

const byVulnThenPackage = (a: MatchDebugEntry, b: MatchDebugEntry) =>
  a.vuln.localeCompare(b.vuln) || a.package_name.localeCompare(b.package_name) || a.package_version.localeCompare(b.package_version) || (a.package_path ?? '').localeCompare(b.package_path ?? '');

/** The debug view of an analyzed image (the caller checked that it is). */
export async function imageMatchDebug(db: Db, accountName: string, digest: string): Promise<MatchDebugReport> {
  const image = await db('images').where({ account_name: accountName, image_digest: digest }).first('distro', 'distro_version', 'distro_like');
  const distro = image ? distroOf(image) : undefined;
  const packages = await loadImagePackages(db, accountName, digest);
  const provider = knexVulnerabilityProvider(db);
  const exclusions = await provider.exclusions();

  // Packages as matching sees them, corrected as findings.ts does; entries name the packages as analysed.
  const looked = await correctPackages(knexCorrectionProvider(db), packages);
  const suppressedLists: SuppressedCandidate[][] = [];
  const candidates = await matchPackages(provider, looked, distro, exclusions, suppressedLists);
  // The Go step after matching, as findings.ts runs it: matches whose named symbols the binary lacks drop out.
  const symbolsOf = goSymbolReader(db, accountName, digest);
  const refined = await refineGoMatches(provider, looked, candidates, (pkg) => symbolsOf(pkg as ImagePackage));
  const matches: MatchDebugEntry[] = [];
  const suppressed: MatchDebugEntry[] = [];
  packages.forEach((p, i) => {
    for (const m of refined.matches[i]!) matches.push(matchEntry(p, m));
    for (const s of suppressedLists[i]!) suppressed.push(suppressedEntry(p, s));
  });
  for (const s of refined.suppressed) {
    const m = candidates[s.packageIndex]!.find((c) => c.vulnId === s.vulnId && c.feed === s.feed)!;
    const detail = 'none of the packages and symbols the advisory names is in the binary';
    suppressed.push(suppressedEntry(packages[s.packageIndex]!, { vulnId: m.vulnId, feed: m.feed, group: m.group, matchedName: m.matchedName, reason: NOT_REACHABLE.reason, detail }));
  }

  // Owned language packages are not looked up in their feed at all; look them up here, as if nobody owned them.
  const owned = packages.filter((p) => p.owner && !OS_PACKAGE_TYPES.has(p.type));
  const unownedMatches = await matchPackages(provider, owned.map((p) => ({ ...p, owner: undefined })), distro, exclusions);
  owned.forEach((p, i) => {
    const detail = `owned by ${ownerText(p.owner)}; matched through that package against the distribution data`;
    for (const m of unownedMatches[i]!)
      suppressed.push(suppressedEntry(p, { vulnId: m.vulnId, feed: m.feed, group: m.group, matchedName: m.matchedName, reason: OWNED_BY_OS_PACKAGE.reason, detail }));
  });

  const reasons = suppressionReasons();
  const suppressedByReason: Record<string, number> = Object.fromEntries(reasons.map((r) => [r.reason, 0]));
  for (const s of suppressed) suppressedByReason[s.reason!] = (suppressedByReason[s.reason!] ?? 0) + 1;
  const matchedBy: Record<string, number> = {};
  for (const m of matches) matchedBy[m.matched_by!] = (matchedBy[m.matched_by!] ?? 0) + 1;
  return {
    image_digest: digest,
    matched_count: matches.length,
    matched_by: matchedBy,
    suppressed_count: suppressed.length,
    suppressed_by_reason: suppressedByReason,
    reasons,
    matches: matches.sort(byVulnThenPackage),
    suppressed: suppressed.sort(byVulnThenPackage),
  };
}
