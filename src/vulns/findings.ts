/**
 * Findings: the vulnerabilities matched to an image's packages, stored per image so they survive feed changes
 * with their history (`detected_at`, `fix_observed_at`). A refresh matches the packages again, compares with what
 * is stored and writes only the difference; the difference is what a `vuln_update` notification carries.
 * Imported source repositories (sources/) keep packages and findings in tables of the same columns, so the one
 * refresh serves both kinds of subject (FindingsSubjectKind).
 */
import { hash } from 'node:crypto';
import { databaseKind, type Db } from '../db/index.js';
import { insertRows, type RowValue } from '../db/insert-rows.js';
import type { DistroInfo } from '../ecosystems/model.js';
import { nowIso } from '../util/time.js';
import type { MatchablePackage } from '../ecosystems/shared/lookup.js';
import { lookupTarget } from './ecosystems.js';
import type { MatchedBy } from './match-explain.js';
import { matchPackages, type FixState, type MatchExclusions, type PackageMatch, type VulnerabilityProvider } from './match-package.js';
import { recordKey, type RecordRef } from './vulnerability-provider.js';
import type { OsvRecord } from './osv/types.js';
import { knexVulnerabilityProvider } from './vulnerability-repository.js';
import { matchKeyId } from './records.js';
import { refineGoMatches, type Confidence, type ConfidentMatch } from './go-reachability.js';
import { goSymbolReader } from '../images/store.js';
import { appendAll } from '../util/arrays.js';
import { correctPackages, type CorrectionProvider } from './corrections/apply.js';
import { knexCorrectionProvider } from './corrections/store.js';

/**
 * What findings belong to: an analyzed image, or a source repository imported from an SBOM. Each keeps its packages
 * and findings in tables of the same columns, keyed by the account and the subject's id column; its own row holds
 * the distro and analyzed_at and is locked during a refresh.
 */
export interface FindingsSubjectKind {
  table: 'images' | 'sources';
  idColumn: 'image_digest' | 'source_id';
  packagesTable: 'image_packages' | 'source_packages';
  findingsTable: 'image_vulnerabilities' | 'source_vulnerabilities';
  /** Whether its Go packages may carry a binary's symbol index (a source tree has no binaries). */
  goSymbols: boolean;
}

export const IMAGE_FINDINGS: FindingsSubjectKind = {
  table: 'images',
  idColumn: 'image_digest',
  packagesTable: 'image_packages',
  findingsTable: 'image_vulnerabilities',
  goSymbols: true,
};

export const SOURCE_FINDINGS: FindingsSubjectKind = {
  table: 'sources',
  idColumn: 'source_id',
  packagesTable: 'source_packages',
  findingsTable: 'source_vulnerabilities',
  goSymbols: false,
};

/** The rows of one subject: its account and id. */
export type SubjectScope = Record<string, string>;

export function subjectScope(kind: FindingsSubjectKind, accountName: string, id: string): SubjectScope {
  return { account_name: accountName, [kind.idColumn]: id };
}

/** A package as stored for an image, with what matching and findings need. */
export interface ImagePackage extends MatchablePackage {
  path: string | null;
  purl: string | null;
}

export interface FindingRow {
  finding_key: string;
  vuln_id: string;
  feed: string;
  feed_group: string;
  package_type: string;
  package_name: string;
  package_version: string;
  package_path: string | null;
  package_purl: string | null;
  matched_name: string;
  matched_by: MatchedBy;
  fix_state: FixState;
  fixed_in: string;
  /** `low` for findings from advisories their publisher has not reviewed (vulns/go-reachability.ts). */
  confidence: Confidence;
  detected_at: string;
  fix_observed_at: string | null;
  last_updated: string;
}

/** One entry of a findings diff, in the upstream notification's terms. */
export interface FindingChange {
  vuln: string;
  package: string;
  package_name: string;
  package_version: string;
  package_type: string;
  package_path: string | null;
  feed: string;
  feed_group: string;
  fix: string;
  will_not_fix: boolean;
}

export interface FindingsDiff {
  added: FindingChange[];
  updated: FindingChange[];
  removed: FindingChange[];
}

export function isEmptyDiff(diff: FindingsDiff): boolean {
  return diff.added.length === 0 && diff.updated.length === 0 && diff.removed.length === 0;
}

/**
 * Shares results between the images of one run: images built on the same base share most packages, and their Go
 * modules the advisories whose whole records the reachability step reads.
 */
export interface MatchCache {
  /** Match results by cacheKey. */
  matches: Map<string, PackageMatch[]>;
  /** Whole records by recordKey (null: not published), at most MAX_RUN_RECORDS; the rest are read each time. */
  records: Map<string, OsvRecord | null>;
}

/** Records one run keeps: a Go record decodes to a few kilobytes. */
const MAX_RUN_RECORDS = 10_000;

export function newMatchCache(): MatchCache {
  return { matches: new Map(), records: new Map() };
}

/** `provider`, with the records it reads kept in `kept` (up to `max` of them) for the rest of the run. */
export function keepingRecords(provider: VulnerabilityProvider, kept: Map<string, OsvRecord | null>, max = MAX_RUN_RECORDS): VulnerabilityProvider {
  return {
    findAffected: (searches) => provider.findAffected(searches),
    exclusions: () => provider.exclusions(),
    async records(refs) {
      const out = new Map<string, OsvRecord>();
      const missing: RecordRef[] = [];
      for (const ref of refs) {
        const key = recordKey(ref);
        const record = kept.get(key);
        if (record) out.set(key, record);
        else if (record === undefined) missing.push(ref);
      }
      if (missing.length === 0) return out;
      const fresh = await provider.records(missing);
      for (const ref of missing) {
        const key = recordKey(ref);
        const record = fresh.get(key);
        if (record) out.set(key, record);
        if (kept.size < max) kept.set(key, record ?? null);
      }
      return out;
    },
  };
}

export interface RefreshOptions {
  exclusions?: MatchExclusions;
  /** Re-match only packages looked up under one of these keys (matchKeyId); others keep their findings. */
  onlyKeys?: ReadonlySet<string>;
  /** With onlyKeys: the raw package names (or source names) that can hit them, to read only those packages. */
  candidateNames?: readonly string[];
  /** The candidate packages, already read (a re-match reads them for all images at once), as of `packagesAsOf`. */
  packages?: ImagePackage[];
  /** The image's analyzed_at when `packages` were read; a re-analysis since then makes them stale. */
  packagesAsOf?: string | null;
  cache?: MatchCache;
  /** Package corrections to apply before matching (corrections/apply.ts); the database's when absent. */
  corrections?: CorrectionProvider;
  now?: string;
}

/** What a diff compares (and what a removal reports). */
const FINDING_COLUMNS = ['finding_key', 'vuln_id', 'feed', 'feed_group', 'package_type', 'package_name', 'package_version', 'package_path', 'matched_name', 'matched_by', 'fix_state', 'fixed_in', 'fix_observed_at', 'confidence'];

function packageIdentity(p: { type: string; name: string; version: string; path: string | null }): string {
  return `${p.type}\u0000${p.name}\u0000${p.version}\u0000${p.path ?? ''}`;
}

function findingKey(vulnId: string, p: ImagePackage): string {
  return hash('sha256', `${vulnId}\u0000${packageIdentity(p)}`, 'hex');
}

function fixText(fixState: FixState, fixedIn: string[]): string {
  return fixState === 'fixed' ? fixedIn.join(',') : 'None';
}

function changeOf(row: Pick<FindingRow, 'vuln_id' | 'package_type' | 'package_name' | 'package_version' | 'package_path' | 'feed' | 'feed_group' | 'fix_state' | 'fixed_in'>): FindingChange {
  return {
    vuln: row.vuln_id,
    package: `${row.package_name}-${row.package_version}`,
    package_name: row.package_name,
    package_version: row.package_version,
    package_type: row.package_type,
    package_path: row.package_path,
    feed: row.feed,
    feed_group: row.feed_group,
    fix: fixText(row.fix_state, JSON.parse(row.fixed_in) as string[]),
    will_not_fix: row.fix_state === 'wont-fix',
  };
}

export function distroOf(image: { distro: string | null; distro_version: string | null; distro_like?: string | null }): DistroInfo | undefined {
  if (!image.distro) return undefined;
  return { name: image.distro, version: image.distro_version ?? '', like: image.distro_like ? image.distro_like.split(',').filter(Boolean) : [] };
}

export async function loadImagePackages(db: Db, accountName: string, digest: string, names?: readonly string[]): Promise<ImagePackage[]> {
  return loadSubjectPackages(db, IMAGE_FINDINGS, accountName, digest, names);
}

export async function loadSubjectPackages(db: Db, kind: FindingsSubjectKind, accountName: string, id: string, names?: readonly string[]): Promise<ImagePackage[]> {
  const q = db(kind.packagesTable).where(subjectScope(kind, accountName, id)).select(...PACKAGE_COLUMNS);
  if (names) {
    if (names.length === 0) return [];
    q.where((w) => w.whereIn('name', names).orWhereIn('origin', names));
  }
  return (await q).map(imagePackageOf);
}

export interface PackageRowFields {
  type: string;
  name: string;
  version: string;
  origin: string | null;
  source_version: string | null;
  locations: string;
  purl: string;
  /** JSON of the owning OS package, for language packages the OS package manager installed. */
  owner: string | null;
}

export const PACKAGE_COLUMNS = ['type', 'name', 'version', 'origin', 'source_version', 'locations', 'purl', 'owner'] as const;

export function imagePackageOf(r: PackageRowFields): ImagePackage {
  return {
    type: r.type,
    name: r.name,
    version: r.version,
    origin: r.origin,
    sourceVersion: r.source_version,
    path: (JSON.parse(r.locations) as string[])[0] ?? null,
    purl: r.purl || null,
    ...(r.owner ? { owner: JSON.parse(r.owner) as unknown } : {}),
  };
}

/** Whether a package is looked up under any of the keys. */
export function packageHitsKeys(pkg: MatchablePackage, distro: DistroInfo | undefined, keys: ReadonlySet<string>): boolean {
  const target = lookupTarget(pkg, distro);
  if (!target) return false;
  return target.names.some((packageName) => keys.has(matchKeyId({ ecosystem: target.ecosystem, release: target.release ?? null, packageName })));
}

/**
 * The answers of packageHitsKeys per key set, by the package's match identity (cacheKey: everything a lookup
 * reads). A re-match asks it for every candidate package of every image with one key set, and images share most
 * of their packages; the answers go when the set does.
 */
const hitsByKeySet = new WeakMap<ReadonlySet<string>, Map<string, boolean>>();

function packageHitsKeysOnce(pkg: MatchablePackage, distro: DistroInfo | undefined, keys: ReadonlySet<string>): boolean {
  let answers = hitsByKeySet.get(keys);
  if (!answers) hitsByKeySet.set(keys, (answers = new Map()));
  const identity = cacheKey(distro, pkg);
  let hit = answers.get(identity);
  if (hit === undefined) answers.set(identity, (hit = packageHitsKeys(pkg, distro, keys)));
  return hit;
}

function cacheKey(distro: DistroInfo | undefined, p: MatchablePackage): string {
  // Owned and unowned copies of one project and version match differently (ownership.ts).
  return [distro?.name, distro?.version, distro?.like.join(','), p.type, p.name, p.version, p.origin, p.sourceVersion, p.owner ? 'owned' : ''].join('\u0000');
}

async function matchWithCache(provider: VulnerabilityProvider, packages: ImagePackage[], distro: DistroInfo | undefined, exclusions: MatchExclusions, cache?: MatchCache): Promise<PackageMatch[][]> {
  if (!cache) return matchPackages(provider, packages, distro, exclusions);
  const keys = packages.map((p) => cacheKey(distro, p));
  const missing = packages.filter((_, i) => !cache.matches.has(keys[i]!));
  const fresh = await matchPackages(provider, missing, distro, exclusions);
  missing.forEach((p, i) => cache.matches.set(cacheKey(distro, p), fresh[i]!));
  return keys.map((key) => cache.matches.get(key)!);
}

/**
 * The findings a subject's packages should have now, keyed by finding key. `looked` is each package as matching sees
 * it (corrected, corrections/apply.ts); findings are about the package as analysed. Go matches pass the
 * reachability and confidence step after the shared cache: what it decides depends on the image's binary.
 */
async function desiredFindings(
  db: Db,
  provider: VulnerabilityProvider,
  subject: { kind: FindingsSubjectKind; accountName: string; id: string },
  packages: { analysed: ImagePackage[]; looked: ImagePackage[] },
  distro: DistroInfo | undefined,
  exclusions: MatchExclusions,
  cache?: MatchCache,
) {
  const raw = await matchWithCache(provider, packages.looked, distro, exclusions, cache);
  const reader = subject.kind.goSymbols ? goSymbolReader(db, subject.accountName, subject.id) : undefined;
  const symbols = async (pkg: MatchablePackage) => reader?.(pkg as ImagePackage);
  const { matches } = await refineGoMatches(cache ? keepingRecords(provider, cache.records) : provider, packages.looked, raw, symbols);
  const desired = new Map<string, { pkg: ImagePackage; match: ConfidentMatch }>();
  packages.analysed.forEach((pkg, i) => {
    for (const match of matches[i]!) desired.set(findingKey(match.vulnId, pkg), { pkg, match });
  });
  return desired;
}

/**
 * Re-matches an image (or, with `onlyKeys`, the packages whose advisories changed) and stores the difference.
 * Call it inside a transaction (it locks the image row); that also makes it part of a larger write, so analysis
 * results and their findings land together.
 */
export async function refreshImageFindings(db: Db, accountName: string, digest: string, options: RefreshOptions = {}): Promise<FindingsDiff> {
  return refreshFindings(db, IMAGE_FINDINGS, accountName, digest, options);
}

/** refreshImageFindings for either kind of subject (an image's digest, a source's id). */
export async function refreshFindings(db: Db, kind: FindingsSubjectKind, accountName: string, id: string, options: RefreshOptions = {}): Promise<FindingsDiff> {
  const scope = subjectScope(kind, accountName, id);
  const lookup = db(kind.table).where(scope);
  // Two refreshes of one image (a re-match job and a force_refresh request) must not interleave their diffs:
  // on Postgres the row lock serialises them; SQLite has one writer anyway.
  if (databaseKind(db) === 'postgres') lookup.forUpdate();
  const image = await lookup.first('distro', 'distro_version', 'distro_like', 'analyzed_at');
  if (!image) return { added: [], updated: [], removed: [] };
  const distro = distroOf(image);
  const provider = knexVulnerabilityProvider(db);
  const exclusions = options.exclusions ?? (await provider.exclusions());
  const fresh = options.packages !== undefined && options.packagesAsOf === image.analyzed_at;
  let packages = fresh ? options.packages! : await loadSubjectPackages(db, kind, accountName, id, options.onlyKeys ? options.candidateNames : undefined);
  let looked = await correctPackages(options.corrections ?? knexCorrectionProvider(db), packages);
  if (options.onlyKeys) {
    // A corrected package is looked up under its corrected names; its own may still hold findings to drop.
    const keys = options.onlyKeys;
    const hit = looked.map((p, i) => packageHitsKeysOnce(p, distro, keys) || (p !== packages[i] && packageHitsKeysOnce(packages[i]!, distro, keys)));
    packages = packages.filter((_, i) => hit[i]);
    looked = looked.filter((_, i) => hit[i]);
  }
  const desired = await desiredFindings(db, provider, { kind, accountName, id }, { analysed: packages, looked }, distro, exclusions, options.cache);

  let existing: FindingRow[];
  if (options.onlyKeys) {
    const inScope = new Set(packages.map(packageIdentity));
    const names = [...new Set(packages.map((p) => p.name))];
    existing = [];
    for (let i = 0; i < names.length; i += 400)
      appendAll(existing, await db(kind.findingsTable).where(scope).whereIn('package_name', names.slice(i, i + 400)).select(FINDING_COLUMNS));
    existing = existing.filter((f) => inScope.has(packageIdentity({ type: f.package_type, name: f.package_name, version: f.package_version, path: f.package_path })));
  } else existing = await db(kind.findingsTable).where(scope).select(FINDING_COLUMNS);
  return writeDiff(db, kind.findingsTable, scope, existing, desired, options.now ?? nowIso());
}

/** A new finding's columns after its subject's (account and id), in the order writeDiff lists their values. */
const INSERTED_COLUMNS = [
  'finding_key',
  'vuln_id',
  'feed',
  'feed_group',
  'package_type',
  'package_name',
  'package_version',
  'package_path',
  'package_purl',
  'matched_name',
  'matched_by',
  'fix_state',
  'fixed_in',
  'confidence',
  'detected_at',
  'fix_observed_at',
  'last_updated',
] as const;

async function writeDiff(
  db: Db,
  table: FindingsSubjectKind['findingsTable'],
  scope: SubjectScope,
  existing: FindingRow[],
  desired: Map<string, { pkg: ImagePackage; match: ConfidentMatch }>,
  now: string,
): Promise<FindingsDiff> {
  const diff: FindingsDiff = { added: [], updated: [], removed: [] };
  const byKey = new Map(existing.map((f) => [f.finding_key, f]));
  // New findings as value lists in INSERTED_COLUMNS order after the scope's: building 500 000 rows as spread
  // objects cost the first findings of 1 000 images about a sixth of their time (bench:match profile).
  const scopeValues = Object.values(scope);
  const inserts: RowValue[][] = [];
  for (const [key, { pkg, match }] of desired) {
    const row = {
      vuln_id: match.vulnId,
      feed: match.feed,
      feed_group: match.group,
      package_type: pkg.type,
      package_name: pkg.name,
      package_version: pkg.version,
      package_path: pkg.path,
      package_purl: pkg.purl,
      matched_name: match.matchedName,
      matched_by: match.matchedBy,
      fix_state: match.fixState,
      fixed_in: JSON.stringify(match.fixedIn),
      confidence: match.confidence,
    };
    const before = byKey.get(key);
    if (!before) {
      inserts.push([
        ...scopeValues,
        key,
        row.vuln_id,
        row.feed,
        row.feed_group,
        row.package_type,
        row.package_name,
        row.package_version,
        row.package_path,
        row.package_purl,
        row.matched_name,
        row.matched_by,
        row.fix_state,
        row.fixed_in,
        row.confidence,
        now,
        match.fixState === 'fixed' ? now : null,
        now,
      ]);
      diff.added.push(changeOf(row));
    } else if (before.fix_state !== row.fix_state || before.fixed_in !== row.fixed_in || before.feed !== row.feed || before.feed_group !== row.feed_group) {
      const fixObserved = before.fix_observed_at ?? (row.fix_state === 'fixed' ? now : null);
      await db(table).where({ ...scope, finding_key: key }).update({ ...row, fix_observed_at: fixObserved, last_updated: now });
      diff.updated.push(changeOf(row));
    } else if (before.matched_by !== row.matched_by || before.matched_name !== row.matched_name || before.confidence !== row.confidence) {
      // How it matched, and a record reviewed since (or un-reviewed), explain a finding: neither is a change
      // upstream's vuln_update notification can express, so subscribers are not told.
      await db(table)
        .where({ ...scope, finding_key: key })
        .update({ matched_name: row.matched_name, matched_by: row.matched_by, confidence: row.confidence, last_updated: now });
    }
  }
  const gone = existing.filter((f) => !desired.has(f.finding_key));
  for (let i = 0; i < gone.length; i += 400)
    await db(table).where(scope).whereIn('finding_key', gone.slice(i, i + 400).map((f) => f.finding_key)).delete();
  diff.removed = gone.map(changeOf);
  await insertRows(db, table, [...Object.keys(scope), ...INSERTED_COLUMNS], inserts);
  return diff;
}

/** Findings of an image as stored, ordered by vulnerability and package. */
export async function storedFindings(db: Db, accountName: string, digest: string): Promise<FindingRow[]> {
  return storedSubjectFindings(db, IMAGE_FINDINGS, accountName, digest);
}

export async function storedSubjectFindings(db: Db, kind: FindingsSubjectKind, accountName: string, id: string): Promise<FindingRow[]> {
  return db(kind.findingsTable)
    .where(subjectScope(kind, accountName, id))
    .orderBy(['vuln_id', 'package_name', 'package_version', 'finding_key'])
    .select('*');
}

