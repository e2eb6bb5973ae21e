/**
 * `npm run bench:match`: vulnerability matching at feed scale, in process against a scratch database.
 *
 * 1. Feed: the real OSV records of `<osv-dir>/Go/all.zip` and `<osv-dir>/PyPI/all.zip` (when present) plus
 *    generated OSV records up to --records in total (default 500 000): Debian:12 advisories on source package names
 *    (ECOSYSTEM ranges `introduced 0 / fixed X`, some with two windows, some unfixed or marked will-not-fix), npm
 *    and Go (SEMVER), PyPI (ECOSYSTEM with a `versions` list) and Maven (ECOSYSTEM) advisories, with aliases,
 *    CVSS_V3 vectors and references, spread over --names package names (about ten records per name). They are
 *    written as one zip per ecosystem (fflate zipSync) in a temp dir before anything is timed.
 * 2. The import ratio, over the real archives and the smallest generated one: three rounds, each a floor pass
 *    (reading and parsing, `readOsvPath`, nothing stored) and then the import of the same sources (one
 *    `syncOsvSource` each) into a fresh empty scratch database. Target: the fastest import takes at most
 *    --target-import-ratio (2) times the fastest floor pass. Both sides are the fastest of their rounds, so neither
 *    counts a first pass's write-back of the just-written zips or unoptimised code; the first round's ratio is
 *    reported beside it. Process CPU time (user + system) of both is reported beside the wall times; the import
 *    reads and parses in the feed reader thread while the main thread stages, so its CPU time counts both threads
 *    and can exceed its wall time. The target is on wall time. Then the import of every source, once, into the
 *    scratch database the rest of the run uses (records/s reported, no target).
 * 3. An SBOM of --sbom-packages packages (dpkg with source packages, npm, python, go, java) whose names hit the
 *    feed, some at vulnerable versions: `matchPackages` --warmup times, then --match-runs timed runs.
 *    Reports p50/p99 ms; target p50 < --target-match-p50 (20 ms). For comparison: the bare index lookup (the same
 *    SQL, no evaluation) for the same names.
 * 4. --images analyzed images (Debian 12) of about --image-packages packages each, built on ten shared bases plus
 *    a few hundred packages of their own, inserted directly (untimed); a first `refreshImageFindings` of each, in a
 *    transaction per image as analysis does: the first --uncached-refreshes without a cache (timed one by one), the
 *    rest sharing one match cache as a re-match does (timed, no target).
 * 5. A feed update touching --update-fraction of the records (1 %: later fixes, new affected windows, fixes for
 *    unfixed advisories), written as new zips; an incremental sync of every source (timed), then
 *    `rematchQueuedKeys(db)` over the keys it queued (timed; target < --target-rematch, 10 s). A few re-matched images are then
 *    refreshed in full, which must change nothing.
 *
 * Prints a table, ratios measured in this run and a markdown copy for docs/benchmarks.md; exits 1 when a target
 * is missed (after printing), 2 on errors.
 *
 * Options (flag, or environment variable; flags win):
 *   --records N          BENCH_RECORDS          feed size including the real records         (default 500000)
 *   --names N            BENCH_NAMES            generated package names                       (default 50000)
 *   --sbom-packages N    BENCH_SBOM_PACKAGES    packages in the matched SBOM                  (default 1000)
 *   --match-runs N       BENCH_MATCH_RUNS       timed matchPackages runs                      (default 100)
 *   --warmup N           BENCH_WARMUP           untimed runs first                            (default 5)
 *   --images N           BENCH_IMAGES           analyzed images                               (default 1000)
 *   --image-packages N   BENCH_IMAGE_PACKAGES   packages per image (about)                    (default 1000)
 *   --uncached-refreshes N BENCH_UNCACHED_REFRESHES first refreshes run without a match cache  (default 30)
 *   --update-fraction F  BENCH_UPDATE_FRACTION  share of records the feed update changes      (default 0.01)
 *   --target-import-ratio X BENCH_TARGET_IMPORT_RATIO maximum import time / floor time        (default 2)
 *   --target-match-p50 M BENCH_TARGET_MATCH_P50 maximum match p50, ms                         (default 20)
 *   --target-rematch S   BENCH_TARGET_REMATCH   maximum re-match time, s                      (default 10)
 *   --osv-dir DIR        BENCH_OSV_DIR          real OSV archives (DIR/Go/all.zip, DIR/PyPI/all.zip)
 *                                               (default /work/shared/data/osv; absent: generated records only)
 *   --seed N             BENCH_SEED             generator seed                                (default 1)
 *   --pg                                        PostgreSQL instead of SQLite: a scratch database created (and
 *                                               dropped) through VIGIL_DATABASE_URL, which must allow CREATE DATABASE
 *   --cpu-prof DIR                              CPU-profile each timed phase in process (node:inspector) into DIR and
 *                                               print the hottest functions; the timings then include the profiler
 *   --keep-data                                 leave the temp dir (zips, SQLite database) in place
 *   --query-stats                               print the database time of the first findings and of the re-match by
 *                                               statement shape (count, rows, time; the timings then include it)
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { strToU8, zipSync } from 'fflate';
import { databaseKind, type Db } from '../src/db/index.js';
import type { DistroInfo } from '../src/ecosystems/model.js';
import type { MatchablePackage } from '../src/ecosystems/shared/lookup.js';
import { lookupTarget } from '../src/vulns/ecosystems.js';
import { syncOsvSource, type SyncResult } from '../src/vulns/feed-sync.js';
import { newMatchCache, refreshImageFindings, type MatchCache } from '../src/vulns/findings.js';
import { matchPackages } from '../src/vulns/match-package.js';
import { readOsvPath } from '../src/vulns/osv/archive.js';
import type { OsvRecord } from '../src/vulns/osv/types.js';
import { rematchQueuedKeys } from '../src/vulns/rematch.js';
import { forgetCachedEntries, knexVulnerabilityProvider } from '../src/vulns/vulnerability-repository.js';
import { loadAverage, machine, median, numberOptions, percentile, phaseProfiler, queryStats, scratchDatabase, table, thousands, verdict, type ScratchDatabase } from './bench-support.js';

// ---------------------------------------------------------------------------------------------------------
// Options

const { values: flags } = parseArgs({
  options: {
    records: { type: 'string' },
    names: { type: 'string' },
    'sbom-packages': { type: 'string' },
    'match-runs': { type: 'string' },
    warmup: { type: 'string' },
    images: { type: 'string' },
    'image-packages': { type: 'string' },
    'uncached-refreshes': { type: 'string' },
    'update-fraction': { type: 'string' },
    'target-import-ratio': { type: 'string' },
    'target-match-p50': { type: 'string' },
    'target-rematch': { type: 'string' },
    'osv-dir': { type: 'string' },
    seed: { type: 'string' },
    pg: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
    'query-stats': { type: 'boolean', default: false },
  },
  strict: true,
});

const numberOption = numberOptions(flags);

const opts = {
  records: Math.floor(numberOption('records', 'BENCH_RECORDS', 500_000, 1)),
  names: Math.floor(numberOption('names', 'BENCH_NAMES', 50_000, 10)),
  sbomPackages: Math.floor(numberOption('sbom-packages', 'BENCH_SBOM_PACKAGES', 1000, 1)),
  matchRuns: Math.floor(numberOption('match-runs', 'BENCH_MATCH_RUNS', 100, 1)),
  warmup: Math.floor(numberOption('warmup', 'BENCH_WARMUP', 5, 0)),
  images: Math.floor(numberOption('images', 'BENCH_IMAGES', 1000, 1)),
  imagePackages: Math.floor(numberOption('image-packages', 'BENCH_IMAGE_PACKAGES', 1000, 20)),
  uncachedRefreshes: Math.floor(numberOption('uncached-refreshes', 'BENCH_UNCACHED_REFRESHES', 30, 0)),
  updateFraction: numberOption('update-fraction', 'BENCH_UPDATE_FRACTION', 0.01, 0, 1),
  targetImportRatio: numberOption('target-import-ratio', 'BENCH_TARGET_IMPORT_RATIO', 2, 0),
  targetMatchP50: numberOption('target-match-p50', 'BENCH_TARGET_MATCH_P50', 20, 0),
  targetRematch: numberOption('target-rematch', 'BENCH_TARGET_REMATCH', 10, 0),
  osvDir: resolve(flags['osv-dir'] ?? process.env.BENCH_OSV_DIR ?? '/work/shared/data/osv'),
  seed: Math.floor(numberOption('seed', 'BENCH_SEED', 1, 0)),
  pg: flags.pg ?? false,
  cpuProfDir: flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null,
  keepData: flags['keep-data'] ?? false,
  queryStats: flags['query-stats'] ?? false,
};
const { profiled, summaries: profileSummaries } = phaseProfiler(opts.cpuProfDir, 'bench-match', 500);

const t0 = Date.now();
const progress = (m: string) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);
const seconds = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e9;
/** Process CPU time (user + system) since `start` (a process.cpuUsage() reading), in seconds. */
const cpuSeconds = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};
const DISTRO: DistroInfo = { name: 'debian', version: '12', like: [] };

// ---------------------------------------------------------------------------------------------------------
// Deterministic randomness

function hash32(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p & 0xffff), 0x01000193);
    h = Math.imul(h ^ (p >>> 16), 0x01000193);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/** mulberry32: small, fast and good enough for shaping test data. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

// ---------------------------------------------------------------------------------------------------------
// The generated feed

type Eco = 'debian' | 'npm' | 'pypi' | 'go' | 'maven';
interface EcoSpec {
  eco: Eco;
  index: number;
  share: number;
  /** The OSV ecosystem string. */
  osv: string;
  rangeType: 'ECOSYSTEM' | 'SEMVER';
  feed: string;
  /** Records and names of this ecosystem (set once the sizes are known). */
  records: number;
  names: number;
}

const ECOS: EcoSpec[] = [
  { eco: 'debian', index: 0, share: 0.3, osv: 'Debian:12', rangeType: 'ECOSYSTEM', feed: 'bench-debian', records: 0, names: 0 },
  { eco: 'npm', index: 1, share: 0.25, osv: 'npm', rangeType: 'SEMVER', feed: 'bench-npm', records: 0, names: 0 },
  { eco: 'pypi', index: 2, share: 0.2, osv: 'PyPI', rangeType: 'ECOSYSTEM', feed: 'bench-pypi', records: 0, names: 0 },
  { eco: 'go', index: 3, share: 0.15, osv: 'Go', rangeType: 'SEMVER', feed: 'bench-go', records: 0, names: 0 },
  { eco: 'maven', index: 4, share: 0.1, osv: 'Maven', rangeType: 'ECOSYSTEM', feed: 'bench-maven', records: 0, names: 0 },
];

const SYLLABLES = [
  'ab', 'al', 'an', 'ar', 'ba', 'be', 'bo', 'ca', 'ce', 'co', 'da', 'de', 'do', 'el', 'en', 'er', 'fa', 'fe', 'fi', 'ga',
  'ge', 'go', 'ha', 'he', 'in', 'ja', 'ka', 'ke', 'ko', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'no',
  'or', 'pa', 'pe', 'po', 'qu', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'so', 'ta', 'te', 'ti', 'to', 'un', 'va', 've', 'vo',
  'xa', 'ya', 'za', 'zo',
];
const WORDS = [
  'parser', 'json', 'xml', 'http', 'client', 'server', 'crypto', 'auth', 'image', 'yaml', 'config', 'log', 'cache',
  'proxy', 'router', 'template', 'stream', 'archive', 'compress', 'sql', 'orm', 'queue', 'socket', 'cli', 'utils',
  'markdown', 'sanitize', 'session', 'token', 'upload', 'date', 'regex', 'path', 'url', 'mail', 'pdf', 'font', 'zip',
];
const ORGS = ['acme', 'contoso', 'initech', 'umbrella', 'hooli', 'globex', 'stark', 'wayne', 'tyrell', 'cyberdyne', 'soylent', 'vandelay'];

function syllables(n: number, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return s;
}

/** The name the feed files package n of an ecosystem under (unique per ecosystem). */
function feedName(e: EcoSpec, n: number): string {
  const id = n.toString(36);
  const w = WORDS[n % WORDS.length]!;
  switch (e.eco) {
    case 'debian':
      return `${syllables(n, 2)}${w}${id}`;
    case 'npm':
      return n % 7 === 0 ? `@${ORGS[n % ORGS.length]}/${w}-${syllables(n, 2)}${id}` : `${syllables(n, 2)}-${w}-${id}`;
    case 'pypi':
      // Some names as their authors spell them; the index stores and the matcher looks up PEP 503 forms.
      return n % 5 === 0 ? `Py${syllables(n, 1).toUpperCase()}_${w}${id}` : `${syllables(n, 2)}-${w}-${id}`;
    case 'go':
      return n % 9 === 0 ? `golang.org/x/${w}${id}` : `github.com/${ORGS[n % ORGS.length]}/${syllables(n, 2)}-${w}${id}`;
    case 'maven':
      return `org.${ORGS[n % ORGS.length]}.${w}:${syllables(n, 2)}-${w}-${id}`;
  }
}

/** How many records package n of the ecosystem has: the ecosystem's records spread round-robin over its names. */
function recordsOfName(e: EcoSpec, n: number): number {
  return Math.floor(e.records / e.names) + (n < e.records % e.names ? 1 : 0);
}

const major = (n: number) => 1 + (n % 7);

/** A version of package n on the generator's line: `major.minor.patch` in the ecosystem's spelling. */
function version(e: EcoSpec, n: number, minor: number, patch: number, installed = false): string {
  const v = `${major(n)}.${minor}.${patch}`;
  if (e.eco === 'debian') return installed ? `${v}-2` : `${v}-1`;
  if (e.eco === 'go' && installed) return `v${v}`;
  return v;
}

/**
 * Record j of a package fixes the package at minor j+1 (`M.(j+1).0`). An installed version at level v is
 * `M.v.1`, so records j >= v affect it; level = number of records means up to date.
 */
function installedVersion(e: EcoSpec, n: number, level: number): string {
  return version(e, n, level, 1, true);
}

/** Share of records without a fix: Debian's tracker lists many open (often minor) issues per source package. */
const unfixedShare = (e: EcoSpec) => (e.eco === 'debian' ? 0.012 : 0.005);

type Change = 'later-fix' | 'new-window' | 'fix-added';

interface GenRecord {
  json: Record<string, unknown>;
}

const CWES = ['CWE-79', 'CWE-89', 'CWE-20', 'CWE-22', 'CWE-400', 'CWE-502', 'CWE-787', 'CWE-125', 'CWE-190', 'CWE-352', 'CWE-611', 'CWE-918'];
const FLAWS = ['cross-site scripting', 'SQL injection', 'path traversal', 'denial of service', 'deserialization of untrusted data',
  'out-of-bounds write', 'out-of-bounds read', 'integer overflow', 'request forgery', 'XML external entity expansion', 'prototype pollution'];
const LOREM = ('an attacker able to supply crafted input can cause the affected component to read or write memory outside the ' +
  'intended buffer, consume excessive resources or execute arbitrary code with the privileges of the process; the issue ' +
  'was reported by an external researcher and fixed upstream by validating lengths and rejecting malformed sequences ' +
  'before they reach the vulnerable code path; users should upgrade, as no workaround is known').split(' ');

function cvssVector(r: () => number): string {
  return `CVSS:3.1/AV:${pick(r, ['N', 'A', 'L'])}/AC:${pick(r, ['L', 'H'])}/PR:${pick(r, ['N', 'L', 'H'])}/UI:${pick(r, ['N', 'R'])}` +
    `/S:${pick(r, ['U', 'C'])}/C:${pick(r, ['N', 'L', 'H'])}/I:${pick(r, ['N', 'L', 'H'])}/A:${pick(r, ['N', 'L', 'H'])}`;
}

const B20 = '23456789cfghjmpqrvwx';
function ghsa(i: number, salt: number): string {
  let out = '';
  let x = i;
  for (let k = 0; k < 8; k++) {
    out += B20[x % 20];
    x = Math.floor(x / 20);
  }
  const r = rng(hash32(i, salt, 77));
  for (let k = 0; k < 4; k++) out += B20[Math.floor(r() * 20)];
  return `GHSA-${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8, 12)}`;
}

function isoDate(r: () => number, fromYear: number, toYear: number): string {
  const d = new Date(Date.UTC(int(r, fromYear, toYear), int(r, 0, 11), int(r, 1, 28), int(r, 0, 23), int(r, 0, 59), int(r, 0, 59)));
  return d.toISOString().replace('.000Z', 'Z');
}

function purlOf(e: EcoSpec, name: string): string {
  switch (e.eco) {
    case 'debian':
      return `pkg:deb/debian/${name}?arch=source`;
    case 'npm':
      return `pkg:npm/${name.startsWith('@') ? `%40${name.slice(1)}` : name}`;
    case 'pypi':
      return `pkg:pypi/${name.toLowerCase().replace(/[-_.]+/g, '-')}`;
    case 'go':
      return `pkg:golang/${name}`;
    case 'maven':
      return `pkg:maven/${name.replace(':', '/')}`;
  }
}

/**
 * Record i of an ecosystem (its package is i mod names, its position on that package's line i div names), with
 * `change` applied for the feed update. Deterministic in (seed, ecosystem, i).
 */
function generateRecord(e: EcoSpec, i: number, change?: Change): GenRecord {
  const r = rng(hash32(opts.seed, e.index, i));
  const n = i % e.names;
  const j = Math.floor(i / e.names);
  const k = recordsOfName(e, n);
  const name = feedName(e, n);
  const year = 2016 + (i % 10);
  const cve = `CVE-${year}-${String(10_000 + Math.floor(i / 10)).padStart(5, '0')}${i % 10}`;
  const ghsaId = ghsa(i, e.index);
  const id =
    e.eco === 'debian' ? `DEBIAN-${cve}` : e.eco === 'pypi' ? `PYSEC-${year}-${i}` : e.eco === 'go' ? `GO-${year}-${String(i).padStart(4, '0')}` : ghsaId;
  const M = major(n);

  // The record's kind.
  const roll = r();
  const unfixed = roll < unfixedShare(e);
  const wontFix = e.eco === 'debian' && unfixed && r() < 0.35;
  const twoWindows = !unfixed && r() < 0.1;

  const events: Record<string, string>[] = [{ introduced: '0' }];
  let fixedMinor = j + 1;
  let fixedPatch = 0;
  if (change === 'later-fix' && !unfixed) fixedPatch = 2;
  if (unfixed && change !== 'fix-added') {
    if (e.eco !== 'debian') events.push({ last_affected: version(e, n, k + 3, 0) });
  } else {
    if (unfixed) fixedMinor = k + 1; // fix-added: the fix lands in a release above every installed level
    events.push({ fixed: version(e, n, fixedMinor, fixedPatch) });
  }
  if (twoWindows) events.push({ introduced: version(e, n, 0, 0).replace(/^\d+/, String(M + 10)) }, { fixed: version(e, n, j + 1, 0).replace(/^\d+/, String(M + 10)) });
  if (change === 'new-window') events.push({ introduced: version(e, n, k, 0) }, { fixed: version(e, n, k, 5) });

  const affected: Record<string, unknown> = {
    package: { ecosystem: e.osv, name, purl: purlOf(e, name) },
    ranges: [{ type: e.rangeType, events }],
  };
  if (e.eco === 'pypi') {
    const versions: string[] = [];
    const top = unfixed ? k + 2 : fixedMinor - 1;
    for (let x = Math.max(0, top - 9); x <= top; x++) versions.push(`${M}.${x}.0`, `${M}.${x}.1`);
    if (change === 'later-fix' && !unfixed) versions.push(`${M}.${fixedMinor}.0`, `${M}.${fixedMinor}.1`);
    if (change === 'new-window') versions.push(`${M}.${k}.0`, `${M}.${k}.1`);
    affected.versions = versions;
  }
  if (e.eco === 'debian') {
    affected.ecosystem_specific = { urgency: pick(r, ['unimportant', 'low', 'medium', 'high', 'not yet assigned']) };
    if (wontFix) affected.database_specific = { status: 'will-not-fix' };
  }
  if (e.eco === 'go') {
    affected.ecosystem_specific = { imports: [{ path: name, symbols: [`${pick(r, ['Parse', 'Decode', 'Serve', 'Read'])}${pick(r, WORDS)}`, 'Client.Do'] }] };
    affected.database_specific = { source: `https://vuln.go.dev/ID/${id}.json` };
  }
  const affectedList = [affected];
  // A few advisories name a second package (a fork or a sibling artifact), on its own line.
  if (r() < 0.05) {
    const n2 = (n + 1 + Math.floor(r() * 50)) % e.names;
    const name2 = feedName(e, n2);
    affectedList.push({
      package: { ecosystem: e.osv, name: name2, purl: purlOf(e, name2) },
      ranges: [{ type: e.rangeType, events: [{ introduced: '0' }, { fixed: version(e, n2, Math.min(j + 1, recordsOfName(e, n2)), 0) }] }],
    });
  }

  const flaw = pick(r, FLAWS);
  const detailWords = int(r, 25, 70);
  const start = int(r, 0, LOREM.length - 1);
  const details = Array.from({ length: detailWords }, (_, x) => LOREM[(start + x) % LOREM.length]).join(' ');
  const published = isoDate(r, year, year);
  const json: Record<string, unknown> = {
    schema_version: '1.6.0',
    id,
    modified: change ? '2026-11-21T09:00:00Z' : isoDate(r, 2025, 2026),
    published,
    aliases: e.eco === 'debian' ? [cve] : e.eco === 'npm' || e.eco === 'maven' ? [cve] : [cve, ghsaId],
    summary: `${flaw} in ${name}`,
    details: `${name} before ${version(e, n, fixedMinor, fixedPatch)} is affected by ${flaw}: ${details}.`,
    affected: affectedList,
    references: [
      { type: 'ADVISORY', url: `https://nvd.nist.gov/vuln/detail/${cve}` },
      ...(e.eco === 'debian' ? [{ type: 'WEB', url: `https://security-tracker.debian.org/tracker/${cve}` }] : [{ type: 'ADVISORY', url: `https://github.com/advisories/${ghsaId}` }]),
      { type: 'FIX', url: `https://github.com/${pick(r, ORGS)}/${syllables(n, 2)}/commit/${hash32(i, 1).toString(16).padStart(8, '0')}${hash32(i, 2).toString(16).padStart(8, '0')}` },
      ...(r() < 0.5 ? [{ type: 'WEB', url: `https://www.openwall.com/lists/oss-security/${year}/${int(r, 1, 12)}/${int(r, 1, 28)}/${int(r, 1, 9)}` }] : []),
    ],
  };
  if (e.eco !== 'debian' || r() < 0.5) json.severity = [{ type: 'CVSS_V3', score: cvssVector(r) }];
  if (e.eco === 'npm' || e.eco === 'maven' || e.eco === 'pypi') {
    json.database_specific = {
      severity: pick(r, ['LOW', 'MODERATE', 'HIGH', 'CRITICAL']),
      cwe_ids: [pick(r, CWES)],
      github_reviewed: true,
      github_reviewed_at: published,
      nvd_published_at: published,
    };
  }
  return { json };
}

/** The record ids the update changes, per ecosystem, with the change applied to each. */
function chooseUpdate(total: number): Map<Eco, Map<number, Change>> {
  const r = rng(hash32(opts.seed, 991));
  const generated = ECOS.reduce((s, e) => s + e.records, 0);
  const wanted = Math.min(generated, Math.round(total * opts.updateFraction));
  const out = new Map<Eco, Map<number, Change>>(ECOS.map((e) => [e.eco, new Map()]));
  let chosen = 0;
  while (chosen < wanted) {
    let x = Math.floor(r() * generated);
    const e = ECOS.find((c) => (x < c.records ? true : ((x -= c.records), false)))!;
    const changes = out.get(e.eco)!;
    if (changes.has(x)) continue;
    // Whether the record is unfixed is decided by its own generator stream; 'fix-added' applies to those.
    const roll = rng(hash32(opts.seed, e.index, x))();
    const unfixed = roll < unfixedShare(e);
    changes.set(x, unfixed ? 'fix-added' : r() < 0.6 ? 'later-fix' : 'new-window');
    chosen++;
  }
  return out;
}

/** Writes an ecosystem's records as one zip (one JSON file per record, as OSV's all.zip); returns bytes written. */
function writeEcosystemZip(e: EcoSpec, path: string, changes?: Map<number, Change>): number {
  const files: Record<string, Uint8Array> = {};
  for (let i = 0; i < e.records; i++) {
    const { json } = generateRecord(e, i, changes?.get(i));
    files[`${json.id as string}.json`] = strToU8(JSON.stringify(json));
  }
  const zip = zipSync(files, { level: 6 });
  writeFileSync(path, zip);
  return zip.length;
}

// ---------------------------------------------------------------------------------------------------------
// The real records

interface RealPackage {
  eco: 'pypi' | 'go';
  name: string;
  version: string;
}

/** Counts the real records and takes package names and versions from them that fall inside an affected range. */
async function readRealSources(paths: string[]): Promise<{ count: number; skipped: number; packages: RealPackage[] }> {
  let count = 0;
  let skipped = 0;
  const packages: RealPackage[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const read = readOsvPath(path);
    for await (const record of read.records) {
      count++;
      const pkg = realPackageOf(record);
      if (pkg && !seen.has(`${pkg.eco}\u0000${pkg.name}`) && count % 3 === 0) {
        seen.add(`${pkg.eco}\u0000${pkg.name}`);
        packages.push(pkg);
      }
    }
    skipped += read.stats.skipped;
  }
  return { count, skipped, packages };
}

function realPackageOf(record: OsvRecord): RealPackage | undefined {
  if (record.withdrawn) return undefined;
  const a = record.affected.find((x) => x.package && (x.package.ecosystem.ecosystem === 'PyPI' || x.package.ecosystem.ecosystem === 'Go'));
  if (!a?.package) return undefined;
  const eco = a.package.ecosystem.ecosystem === 'PyPI' ? 'pypi' : 'go';
  if (eco === 'go' && (a.package.name === 'stdlib' || a.package.name === 'toolchain')) return undefined;
  const introduced = a.ranges.flatMap((rg) => rg.events).find((ev) => ev.kind === 'introduced' && ev.version !== '0')?.version;
  const raw = a.versions[0] ?? introduced ?? '0.0.1';
  return { eco, name: a.package.name, version: eco === 'go' && !raw.startsWith('v') ? `v${raw}` : raw };
}

// ---------------------------------------------------------------------------------------------------------
// Packages: the SBOM and the images

interface Pkg extends MatchablePackage {
  purl: string;
  location: string;
}

const PKG_TYPE: Record<Eco, string> = { debian: 'dpkg', npm: 'npm', pypi: 'python', go: 'go', maven: 'java' };

/** An installed level for package n: mostly up to date, else one to three records behind. */
function levelFor(r: () => number, e: EcoSpec, n: number): number {
  const k = recordsOfName(e, n);
  return r() < 0.88 ? k : Math.max(0, k - int(r, 1, 3));
}

function generatedPackage(r: () => number, e: EcoSpec, n: number): Pkg {
  const name = feedName(e, n);
  const level = levelFor(r, e, n);
  const v = installedVersion(e, n, level);
  switch (e.eco) {
    case 'debian': {
      // Binary packages: the source's own name, or a library/common package built from it (matched by origin).
      const kind = n % 4;
      const binary = kind === 0 ? `lib${name}${major(n)}` : kind === 1 ? `${name}-common` : name;
      const binNmu = n % 23 === 0;
      return {
        type: 'dpkg',
        name: binary,
        version: binNmu ? `${v}+b1` : v,
        origin: binary === name ? null : name,
        sourceVersion: binary === name && !binNmu ? null : v,
        purl: `pkg:deb/debian/${binary}@${binNmu ? `${v}+b1` : v}?arch=amd64&distro=debian-12`,
        location: '/var/lib/dpkg/status',
      };
    }
    case 'npm':
      return { type: 'npm', name, version: v, purl: `${purlOf(e, name)}@${v}`, location: `/app/node_modules/${name}/package.json` };
    case 'pypi': {
      // As installed metadata spells it: sometimes with dots or underscores where the index has dashes.
      const spelled = n % 3 === 0 ? name.replace(/-/g, '_') : name;
      return { type: 'python', name: spelled, version: v, purl: `${purlOf(e, name)}@${v}`, location: `/usr/lib/python3/dist-packages/${spelled}-${v}.dist-info/METADATA` };
    }
    case 'go':
      return { type: 'go', name, version: v, purl: `${purlOf(e, name)}@${v}`, location: '/usr/local/bin/app' };
    case 'maven': {
      const [group, artifact] = name.split(':') as [string, string];
      return { type: 'java', name: artifact, origin: group, version: v, purl: `${purlOf(e, name)}@${v}`, location: `/opt/app/lib/${artifact}-${v}.jar` };
    }
  }
}

function realPackage(p: RealPackage): Pkg {
  return p.eco === 'go'
    ? { type: 'go', name: p.name, version: p.version, purl: `pkg:golang/${p.name}@${p.version}`, location: '/usr/local/bin/real' }
    : { type: 'python', name: p.name, version: p.version, purl: `pkg:pypi/${p.name.toLowerCase()}@${p.version}`, location: `/usr/lib/python3/dist-packages/${p.name}.dist-info/METADATA` };
}

const SBOM_MIX: [Eco, number][] = [['debian', 0.45], ['npm', 0.2], ['pypi', 0.15], ['go', 0.1], ['maven', 0.1]];

/** Distinct package names of an ecosystem, drawn at random. */
function drawNames(r: () => number, e: EcoSpec, count: number, taken: Set<number>): number[] {
  const out: number[] = [];
  let guard = 0;
  while (out.length < count && guard++ < count * 50) {
    const n = Math.floor(r() * e.names);
    if (taken.has(n)) continue;
    taken.add(n);
    out.push(n);
  }
  return out;
}

function spec(eco: Eco): EcoSpec {
  return ECOS.find((e) => e.eco === eco)!;
}

function buildSbom(count: number, real: RealPackage[]): Pkg[] {
  const r = rng(hash32(opts.seed, 4242));
  const realShare = real.length ? Math.min(real.length, Math.round(count * 0.05)) : 0;
  const out: Pkg[] = real.slice(0, realShare).map(realPackage);
  const rest = count - out.length;
  const taken = new Map<Eco, Set<number>>(ECOS.map((e) => [e.eco, new Set()]));
  SBOM_MIX.forEach(([eco, share], idx) => {
    const want = idx === SBOM_MIX.length - 1 ? count - out.length : Math.round(rest * share);
    for (const n of drawNames(r, spec(eco), want, taken.get(eco)!)) out.push(generatedPackage(r, spec(eco), n));
  });
  return out;
}

/**
 * Images: ten bases of 60 % of the packages (a shared Debian core plus each base's own dpkg and language
 * packages), and per image the remaining 40 % drawn from a pool of application packages.
 */
function buildImages(count: number, perImage: number, real: RealPackage[]): Pkg[][] {
  const r = rng(hash32(opts.seed, 777));
  const taken = new Map<Eco, Set<number>>(ECOS.map((e) => [e.eco, new Set()]));
  const coreSize = Math.round(perImage * 0.3);
  const baseOwn = Math.round(perImage * 0.3);
  const appCount = perImage - coreSize - baseOwn;
  const core = drawNames(r, spec('debian'), coreSize, taken.get('debian')!).map((n) => generatedPackage(r, spec('debian'), n));
  const bases: Pkg[][] = [];
  for (let b = 0; b < 10; b++) {
    const own: Pkg[] = [];
    const lang: Eco = (['pypi', 'npm', 'go', 'maven', 'pypi', 'npm', 'debian', 'pypi', 'npm', 'go'] as Eco[])[b]!;
    const dpkgShare = Math.round(baseOwn * 0.7);
    for (const n of drawNames(r, spec('debian'), dpkgShare, taken.get('debian')!)) own.push(generatedPackage(r, spec('debian'), n));
    for (const n of drawNames(r, spec(lang), baseOwn - dpkgShare, taken.get(lang)!)) own.push(generatedPackage(r, spec(lang), n));
    bases.push([...core, ...own]);
  }
  // The application pool: a package name may appear at two versions across images.
  const pool: Pkg[] = real.slice(Math.round(opts.sbomPackages * 0.05)).map(realPackage);
  const poolMix: [Eco, number][] = [['npm', 0.35], ['pypi', 0.25], ['go', 0.15], ['maven', 0.15], ['debian', 0.1]];
  const poolSize = Math.max(appCount * 20, 2000);
  for (const [eco, share] of poolMix) {
    for (const n of drawNames(r, spec(eco), Math.round(poolSize * share), taken.get(eco)!)) {
      pool.push(generatedPackage(r, spec(eco), n));
      if (r() < 0.2) pool.push(generatedPackage(r, spec(eco), n));
    }
  }
  const images: Pkg[][] = [];
  for (let i = 0; i < count; i++) {
    const chosen = new Set<Pkg>();
    while (chosen.size < appCount && chosen.size < pool.length) chosen.add(pool[Math.floor(r() * pool.length)]!);
    images.push([...bases[i % bases.length]!, ...chosen]);
  }
  return images;
}

// ---------------------------------------------------------------------------------------------------------
// Database

interface SqliteConnection {
  prepare(sql: string): { run(...params: unknown[]): unknown };
  transaction(fn: () => void): () => void;
}

async function insertRows(db: Db, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  if (databaseKind(db) === 'sqlite') {
    // Setup only: one prepared statement in one transaction on the raw connection, far faster than knex's
    // compound-SELECT inserts for a million rows.
    const columns = Object.keys(rows[0]!);
    const conn = (await db.client.acquireConnection()) as SqliteConnection;
    try {
      const stmt = conn.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      conn.transaction(() => {
        for (const row of rows) stmt.run(...columns.map((c) => row[c]));
      })();
    } finally {
      await db.client.releaseConnection(conn);
    }
    return;
  }
  const perInsert = Math.max(1, Math.floor(60_000 / Object.keys(rows[0]!).length));
  await db.transaction(async (trx) => {
    for (let i = 0; i < rows.length; i += perInsert) await trx(table).insert(rows.slice(i, i + perInsert));
  });
}

const ACCOUNT = 'bench';

async function insertImages(db: Db, images: Pkg[][]): Promise<string[]> {
  const now = new Date().toISOString();
  await insertRows(db, 'accounts', [{ name: ACCOUNT, email: null, type: 'user', state: 'enabled', created_at: now, last_updated: now }]);
  const digests = images.map((_, i) => `sha256:${hash32(opts.seed, i, 1).toString(16).padStart(8, '0')}${String(i).padStart(56, '0')}`);
  await insertRows(
    db,
    'images',
    digests.map((digest, i) => ({
      account_name: ACCOUNT,
      image_digest: digest,
      image_type: 'docker',
      image_status: 'active',
      analysis_status: 'analyzed',
      annotations: '{}',
      source: JSON.stringify({ kind: 'registry', pull_string: `registry.example/bench/app-${i}:latest`, platform: 'linux/amd64' }),
      arch: 'amd64',
      distro: 'debian',
      distro_version: '12',
      image_size: 100_000_000,
      layer_count: 5,
      analyzed_at: now,
      created_at: now,
      last_updated: now,
    })),
  );
  const rows: Record<string, unknown>[] = [];
  const flush = async () => {
    await insertRows(db, 'image_packages', rows);
    rows.length = 0;
  };
  for (let i = 0; i < images.length; i++) {
    for (const p of images[i]!) {
      rows.push({
        account_name: ACCOUNT,
        image_digest: digests[i],
        type: p.type,
        name: p.name,
        version: p.version,
        origin: p.origin ?? null,
        source_version: p.sourceVersion ?? null,
        size: 1000,
        licenses: '["MIT"]',
        locations: JSON.stringify([p.location]),
        purl: p.purl,
        cpes: '[]',
        metadata: '{}',
      });
    }
    if (rows.length >= 100_000) await flush();
  }
  await flush();
  return digests;
}

/**
 * The index reads a cold matcher makes (nothing kept in memory), on their own (no range evaluation, no JSON
 * parsing): per (ecosystem, release) and 400 names, the entries with their JSON. For comparison only.
 */
async function bareLookup(db: Db, packages: Pkg[]): Promise<number> {
  const groups = new Map<string, { ecosystem: string; release?: string; names: Set<string> }>();
  for (const p of packages) {
    const t = lookupTarget(p, DISTRO);
    if (!t) continue;
    const id = `${t.ecosystem}\u0000${t.release ?? ''}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { ecosystem: t.ecosystem, release: t.release, names: new Set() }));
    for (const n of t.names) g.names.add(n);
  }
  let rows = 0;
  for (const g of groups.values()) {
    const names = [...g.names];
    for (let i = 0; i < names.length; i += 400) {
      const q = db('vulnerability_affected')
        .where('ecosystem', g.ecosystem)
        .whereIn('package_name', names.slice(i, i + 400))
        .select('feed', 'vuln_id', 'grp', 'package_name', 'affected')
        .orderBy(['package_name', 'feed', 'vuln_id', 'row_id']);
      if (g.release !== undefined) q.andWhere('release', g.release);
      else q.whereNull('release');
      rows += (await q).length;
    }
  }
  return rows;
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

function dirBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    total += entry.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------

interface Source {
  feed: string;
  path: string;
  real: boolean;
}

/**
 * While a sync runs, what another request would wait for an answer from the database: a `select 1` due every
 * PROBE_INTERVAL_MS, timed from when it was due, so both a blocked event loop (a synchronous SQLite statement, a
 * long parse) and a held connection (SQLite's pool has one) count.
 */
const PROBE_INTERVAL_MS = 20;
/** Rounds of the import ratio (floor pass, then import into a fresh scratch database); the fastest of each counts. */
const RATIO_ROUNDS = 3;

function probeDatabase(db: Db): { stop(): Promise<{ maxMs: number; p99Ms: number; probes: number }> } {
  const waits: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const due = performance.now() + PROBE_INTERVAL_MS;
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
      await db.raw('select 1');
      waits.push(Math.max(0, performance.now() - due));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { maxMs: Math.max(0, ...waits), p99Ms: percentile(waits, 99), probes: waits.length };
    },
  };
}

interface SourceSync {
  source: Source;
  seconds: number;
  cpuSeconds: number;
  result: SyncResult;
  /** The longest a concurrent query waited for the database during this source's sync. */
  longestWaitMs: number;
}

async function syncAll(db: Db, sources: Source[], label: string): Promise<{ seconds: number; perSource: SourceSync[] }> {
  const perSource: SourceSync[] = [];
  const started = process.hrtime.bigint();
  for (const source of sources) {
    const s = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const probe = probeDatabase(db);
    const result = await syncOsvSource(db, source.feed, source.path);
    const secs = seconds(s);
    const waits = await probe.stop();
    perSource.push({ source, seconds: secs, cpuSeconds: cpuSeconds(cpu), result, longestWaitMs: waits.maxMs });
    const st = result.stats;
    progress(
      `${label} ${source.feed}: ${thousands(st.read)} read in ${secs.toFixed(1)} s (${thousands(st.read / secs)}/s); ` +
        `inserted ${st.inserted}, updated ${st.updated}, unchanged ${st.unchanged}, removed ${st.removed}, skipped ${st.skipped}; ${result.changedKeys} changed keys; ` +
        `a concurrent query waited at most ${waits.maxMs.toFixed(0)} ms (p99 ${waits.p99Ms.toFixed(0)} ms over ${waits.probes} probes)`,
    );
  }
  return { seconds: seconds(started), perSource };
}

async function main(): Promise<number> {
  const m = machine();
  const args = process.argv.slice(2);
  const command = `npm run bench:match${args.length ? ` -- ${args.join(' ')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM (MemTotal ${m.memKb} kB), Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  console.log(
    `targets: import <= ${opts.targetImportRatio} x the read + parse floor; match p50 < ${opts.targetMatchP50} ms (${opts.sbomPackages} packages); ` +
      `re-match < ${opts.targetRematch} s (${opts.images} images, ${(opts.updateFraction * 100).toFixed(1)} % of records changed)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-match-'));
  let scratch: ScratchDatabase | undefined;
  const cleanUp = async () => {
    await scratch?.drop().catch((err) => console.error(`dropping the scratch database: ${(err as Error).message}`));
    scratch = undefined;
    if (opts.keepData) console.log(`temp dir kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => {
    console.error('interrupted; removing the temp dir');
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // 1. Sources: the real archives, then the generated ones.
    const realPaths = ['Go', 'PyPI'].map((e) => join(opts.osvDir, e, 'all.zip')).filter((p) => existsSync(p));
    let realNote = '';
    if (!realPaths.length) {
      realNote = `no real OSV archives under ${opts.osvDir}: the feed is generated records only`;
      progress(realNote);
    }
    const realStarted = process.hrtime.bigint();
    const real = await readRealSources(realPaths);
    progress(`real records: ${real.count} parsed (${real.skipped} skipped) from ${realPaths.join(', ') || '(none)'} in ${seconds(realStarted).toFixed(1)} s`);

    const generatedTotal = Math.max(0, opts.records - real.count);
    let assigned = 0;
    ECOS.forEach((e, idx) => {
      e.records = idx === ECOS.length - 1 ? generatedTotal - assigned : Math.round(generatedTotal * e.share);
      assigned += e.records;
      e.names = Math.max(1, Math.min(e.records, Math.round(opts.names * e.share)));
    });
    const genStarted = process.hrtime.bigint();
    const sources: Source[] = [
      ...realPaths.map((p) => ({ feed: `osv-${p.split('/').at(-2)!.toLowerCase()}`, path: p, real: true })),
      ...ECOS.filter((e) => e.records > 0).map((e) => ({ feed: e.feed, path: join(dir, `${e.feed}.zip`), real: false })),
    ];
    let zipBytes = 0;
    for (const e of ECOS) {
      if (!e.records) continue;
      const bytes = writeEcosystemZip(e, join(dir, `${e.feed}.zip`));
      zipBytes += bytes;
      progress(`generated ${e.feed}.zip: ${thousands(e.records)} records over ${thousands(e.names)} names (${e.osv}), ${mib(bytes)}`);
    }
    const realBytes = realPaths.reduce((s, p) => s + statSync(p).size, 0);
    progress(`feed: ${thousands(real.count + generatedTotal)} records in ${sources.length} zips (${mib(zipBytes + realBytes)}); generated in ${seconds(genStarted).toFixed(1)} s`);

    // 2. The import ratio: the floor (read + parse only) and the import of the same sources into an empty scratch
    // database, taken in turns for RATIO_ROUNDS rounds; the fastest of each counts. The floor is measured on the
    // real archives and the smallest generated one (about a tenth of the feed), to keep the run short.
    // Both sides are the fastest of their rounds, so they compare like with like: a first pass runs beside the
    // kernel's write-back of the zips just written, and with code the JIT has not compiled yet, on the import's
    // side in a reader thread of its own; taking the fastest floor against a first import measured those instead.
    // The first round's figures are reported too.
    const smallest = sources.filter((x) => !x.real).sort((a, b) => statSync(a.path).size - statSync(b.path).size)[0];
    const floorSources = sources.filter((x) => x.real || x === smallest);
    const floorPasses: { seconds: number; cpuSeconds: number }[] = [];
    const importPasses: { seconds: number; cpuSeconds: number }[] = [];
    let floorRecords = 0;
    await profiled('import-ratio', async () => {
      for (let round = 1; round <= RATIO_ROUNDS; round++) {
        const started = process.hrtime.bigint();
        const cpuStarted = process.cpuUsage();
        floorRecords = 0;
        for (const x of floorSources) for await (const _ of readOsvPath(x.path).records) floorRecords++;
        floorPasses.push({ seconds: seconds(started), cpuSeconds: cpuSeconds(cpuStarted) });
        const roundDir = join(dir, `ratio-${round}`);
        const roundDb = await scratchDatabase({ pg: opts.pg, dataDir: roundDir, keepData: false });
        try {
          const pass = await syncAll(roundDb.db, floorSources, `ratio round ${round}: import`);
          importPasses.push({ seconds: pass.seconds, cpuSeconds: pass.perSource.reduce((t, x) => t + x.cpuSeconds, 0) });
        } finally {
          await roundDb.drop();
          rmSync(roundDir, { recursive: true, force: true });
        }
        progress(`ratio round ${round}: floor ${floorPasses.at(-1)!.seconds.toFixed(2)} s, import ${importPasses.at(-1)!.seconds.toFixed(2)} s`);
      }
    });
    const fastest = (xs: { seconds: number }[]) => Math.min(...xs.map((x) => x.seconds));
    const floorSeconds = fastest(floorPasses);
    const floorCpuSeconds = Math.min(...floorPasses.map((x) => x.cpuSeconds));
    const floorImportSeconds = fastest(importPasses);
    const floorImportCpuSeconds = Math.min(...importPasses.map((x) => x.cpuSeconds));
    const importRatio = floorImportSeconds / floorSeconds;
    const importCpuRatio = floorImportCpuSeconds / floorCpuSeconds;
    const firstRatio = importPasses[0]!.seconds / floorPasses[0]!.seconds;
    const passList = (xs: { seconds: number }[]) => xs.map((x) => x.seconds.toFixed(2)).join(' / ');
    progress(
      `floor: read + parse (readOsvPath, nothing stored) of ${thousands(floorRecords)} records (${floorSources.map((x) => x.feed).join(', ')}) ` +
        `in ${floorSeconds.toFixed(2)} s, the fastest of ${passList(floorPasses)} s (${thousands(floorRecords / floorSeconds)}/s; CPU ${floorCpuSeconds.toFixed(1)} s); ` +
        `import of the same in ${floorImportSeconds.toFixed(2)} s, the fastest of ${passList(importPasses)} s (CPU ${floorImportCpuSeconds.toFixed(1)} s): ` +
        `${importRatio.toFixed(2)} x; first round ${firstRatio.toFixed(2)} x`,
    );

    scratch = await scratchDatabase({ pg: opts.pg, dataDir: join(dir, 'data'), keepData: opts.keepData });
    const db = scratch.db;
    const queries = opts.queryStats ? queryStats(db) : undefined;
    const queryReports: string[] = [];
    const withQueryStats = async <T>(phase: string, fn: () => Promise<T>): Promise<T> => {
      queries?.reset();
      try {
        return await fn();
      } finally {
        if (queries) queryReports.push(queries.report(phase));
      }
    };
    progress(`database: ${scratch.describe}`);
    const imported = await profiled('import', () => syncAll(db, sources, 'import'));
    // The images below are inserted after the import and get their first findings in full: the keys the import
    // queued owe them no re-match.
    await db('vuln_rematch_keys').delete();
    const importedRecords = imported.perSource.reduce((s, x) => s + x.result.stats.read, 0);
    const importRate = importedRecords / imported.seconds;
    const affectedRows = Number((await db('vulnerability_affected').count({ n: '*' }))[0]!.n);
    const storedRecords = Number((await db('vulnerabilities').count({ n: '*' }))[0]!.n);
    const dbBytesAfterImport = scratch.kind === 'sqlite' ? dirBytes(join(dir, 'data')) : NaN;
    progress(`import: ${thousands(importedRecords)} records (${thousands(storedRecords)} stored, ${thousands(affectedRows)} index rows) in ${imported.seconds.toFixed(1)} s = ${thousands(importRate)} records/s`);

    // 3. Matching one SBOM.
    const sbom = buildSbom(opts.sbomPackages, real.packages);
    const provider = knexVulnerabilityProvider(db);
    for (let i = 0; i < opts.warmup; i++) await matchPackages(provider, sbom, DISTRO);
    const matchMs: number[] = [];
    // CPU time of this process too: on a shared machine it moves less with the load than the wall time does.
    const matchCpuMs: number[] = [];
    let sbomMatches: Awaited<ReturnType<typeof matchPackages>> = [];
    await profiled('match', async () => {
      for (let i = 0; i < opts.matchRuns; i++) {
        const s = process.hrtime.bigint();
        const cpu = process.cpuUsage();
        sbomMatches = await matchPackages(provider, sbom, DISTRO);
        matchMs.push(seconds(s) * 1000);
        const used = process.cpuUsage(cpu);
        matchCpuMs.push((used.user + used.system) / 1000);
      }
    });
    // Cold: the kept index entries dropped before each run, as after a start or a feed change.
    const coldMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      forgetCachedEntries(db);
      const s = process.hrtime.bigint();
      await matchPackages(provider, sbom, DISTRO);
      coldMs.push(seconds(s) * 1000);
    }
    const lookupMs: number[] = [];
    let lookupRows = 0;
    for (let i = 0; i < Math.min(opts.matchRuns, 30) + opts.warmup; i++) {
      const s = process.hrtime.bigint();
      lookupRows = await bareLookup(db, sbom);
      if (i >= opts.warmup) lookupMs.push(seconds(s) * 1000);
    }
    const findingsInSbom = sbomMatches.reduce((s, x) => s + x.length, 0);
    const vulnerablePackages = sbomMatches.filter((x) => x.length > 0).length;
    const byType = new Map<string, number>();
    for (const p of sbom) byType.set(p.type, (byType.get(p.type) ?? 0) + 1);
    const p50 = percentile(matchMs, 50);
    const p99 = percentile(matchMs, 99);
    progress(
      `match: ${sbom.length} packages (${[...byType].map(([t, n]) => `${n} ${t}`).join(', ')}) -> ${findingsInSbom} matches on ${vulnerablePackages} packages ` +
        `from ${lookupRows} index rows; p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${opts.matchRuns} runs; bare lookup p50 ${percentile(lookupMs, 50).toFixed(1)} ms`,
    );

    // 4. Images, and their first findings.
    const insertStarted = process.hrtime.bigint();
    const images = buildImages(opts.images, opts.imagePackages, real.packages);
    const digests = await insertImages(db, images);
    const packageRows = images.reduce((s, x) => s + x.length, 0);
    const distinctPackages = new Set(images.flat()).size;
    progress(`images: ${digests.length} inserted with ${thousands(packageRows)} package rows (${thousands(distinctPackages)} distinct packages) in ${seconds(insertStarted).toFixed(1)} s (setup, untimed)`);
    // The first --uncached-refreshes images as analysis refreshes them (no cache; timed one by one), the rest
    // sharing one match cache as a re-match does, which keeps the setup short.
    const refreshMs: number[] = [];
    let initialFindings = 0;
    const cache: MatchCache = newMatchCache();
    const uncached = Math.min(digests.length, opts.uncachedRefreshes);
    const refreshStarted = process.hrtime.bigint();
    let cachedStarted = refreshStarted;
    await withQueryStats('the first findings', () => profiled('initial-refresh', async () => {
      for (const [i, digest] of digests.entries()) {
        if (i === uncached) cachedStarted = process.hrtime.bigint();
        const s = process.hrtime.bigint();
        const diff = await db.transaction((trx) => refreshImageFindings(trx, ACCOUNT, digest, i < uncached ? {} : { cache }));
        if (i < uncached) refreshMs.push(seconds(s) * 1000);
        initialFindings += diff.added.length;
      }
    }));
    const refreshSeconds = seconds(refreshStarted);
    const cachedSeconds = seconds(cachedStarted);
    const refreshMedian = refreshMs.length ? median(refreshMs) : NaN;
    const cachedPerImage = digests.length > uncached ? (cachedSeconds * 1000) / (digests.length - uncached) : NaN;
    progress(
      `initial findings: ${thousands(initialFindings)} for ${digests.length} images in ${refreshSeconds.toFixed(1)} s; ` +
        `uncached (as analysis): median ${refreshMedian.toFixed(1)} ms per image over ${uncached}; with a shared cache: ${cachedPerImage.toFixed(1)} ms per image`,
    );

    // 5. The feed update, its incremental sync, the re-match.
    const updateStarted = process.hrtime.bigint();
    const update = chooseUpdate(real.count + generatedTotal);
    const changedRecords = [...update.values()].reduce((s, x) => s + x.size, 0);
    const changeKinds = new Map<Change, number>();
    for (const changes of update.values()) for (const c of changes.values()) changeKinds.set(c, (changeKinds.get(c) ?? 0) + 1);
    for (const e of ECOS) if (update.get(e.eco)!.size) writeEcosystemZip(e, join(dir, `${e.feed}.zip`), update.get(e.eco));
    progress(`feed update: ${changedRecords} records changed (${[...changeKinds].map(([k, n]) => `${n} ${k}`).join(', ')}), zips rewritten in ${seconds(updateStarted).toFixed(1)} s (untimed)`);
    const resync = await profiled('update-sync', () => syncAll(db, sources, 'update'));
    const changedKeys = (await db('vuln_rematch_keys').distinct('ecosystem', 'release', 'package_name')).length;
    const updatedRecords = resync.perSource.reduce((s, x) => s + x.result.stats.updated + x.result.stats.inserted + x.result.stats.removed, 0);
    progress(`update sync: ${updatedRecords} records updated, ${changedKeys} changed keys, ${resync.seconds.toFixed(1)} s`);

    const rematchStarted = process.hrtime.bigint();
    const rematch = await withQueryStats('the re-match', () => profiled('rematch', () => rematchQueuedKeys(db)));
    const rematchSeconds = seconds(rematchStarted);
    progress(
      `re-match: ${rematch.images} images looked at, ${rematch.changedImages} changed; findings +${rematch.added} ~${rematch.updated} -${rematch.removed}; ${rematchSeconds.toFixed(2)} s`,
    );
    // Consistency: a full refresh of a few re-matched images must find nothing more to change.
    let drift = 0;
    for (const digest of digests.filter((_, i) => i % Math.max(1, Math.floor(digests.length / 5)) === 0).slice(0, 5)) {
      const d = await db.transaction((trx) => refreshImageFindings(trx, ACCOUNT, digest));
      drift += d.added.length + d.updated.length + d.removed.length;
    }
    progress(`check: a full refresh of 5 images after the re-match changed ${drift} findings (expected 0)`);
    const findingsTotal = Number((await db('image_vulnerabilities').count({ n: '*' }))[0]!.n);

    // Report.
    const importOk = importRatio <= opts.targetImportRatio;
    const matchOk = p50 < opts.targetMatchP50;
    const rematchOk = rematchSeconds < opts.targetRematch;
    const headline = table(
      ['Figure', 'Value', 'Target', 'Met'],
      [
        [
          `Import / read + parse floor (${floorSources.map((x) => x.feed).join(', ')}; wall time, fastest of ${RATIO_ROUNDS} rounds each)`,
          `${importRatio.toFixed(2)} x (import ${floorImportSeconds.toFixed(2)} s, floor ${floorSeconds.toFixed(2)} s)`,
          `<= ${opts.targetImportRatio} x`,
          importOk ? 'yes' : '**no**',
        ],
        ['Import (all sources, empty database)', `${thousands(importRate)} records/s (${thousands(importedRecords)} in ${imported.seconds.toFixed(1)} s)`, '', ''],
        [`Match ${sbom.length} packages, p50`, `${p50.toFixed(1)} ms`, `< ${opts.targetMatchP50} ms`, matchOk ? 'yes' : '**no**'],
        [`Match ${sbom.length} packages, p99`, `${p99.toFixed(1)} ms`, '', ''],
        [`Match ${sbom.length} packages, p50 CPU time of the process`, `${percentile(matchCpuMs, 50).toFixed(1)} ms`, '', ''],
        [`Match ${sbom.length} packages, cold entry cache (median of 5)`, `${percentile(coldMs, 50).toFixed(1)} ms`, '', ''],
        [`Re-match after the update (${thousands(changedRecords)} records)`, `${rematchSeconds.toFixed(2)} s`, `< ${opts.targetRematch} s`, rematchOk ? 'yes' : '**no**'],
        [`First findings of one image (refreshImageFindings as analysis runs it; median of ${uncached})`, `${refreshMedian.toFixed(1)} ms`, '', ''],
        [`First findings of ${digests.length} images (${uncached} as above, the rest sharing a match cache)`, `${refreshSeconds.toFixed(1)} s`, '', ''],
        ['Update sync (all sources, incremental)', `${resync.seconds.toFixed(1)} s`, '', ''],
        [
          'Longest wait of a concurrent query during the import / the update sync',
          `${Math.max(...imported.perSource.map((x) => x.longestWaitMs)).toFixed(0)} ms / ${Math.max(...resync.perSource.map((x) => x.longestWaitMs)).toFixed(0)} ms`,
          '',
          '',
        ],
      ],
      [false, true, false, false],
    );
    const sourceRows = imported.perSource.map((x, i) => {
      const u = resync.perSource[i]!;
      return [
        x.source.feed + (x.source.real ? ' (real)' : ''),
        thousands(x.result.stats.read),
        x.seconds.toFixed(1),
        thousands(x.result.stats.read / x.seconds),
        `${u.seconds.toFixed(1)}`,
        String(u.result.stats.updated),
        String(u.result.changedKeys),
        `${x.longestWaitMs.toFixed(0)} / ${u.longestWaitMs.toFixed(0)}`,
      ];
    });
    sourceRows.push([
      'all',
      thousands(importedRecords),
      imported.seconds.toFixed(1),
      thousands(importRate),
      resync.seconds.toFixed(1),
      String(resync.perSource.reduce((s, x) => s + x.result.stats.updated, 0)),
      String(changedKeys),
      '',
    ]);
    const sourcesTable = table(
      ['Source (feed)', 'Records', 'Import s', 'Records/s', 'Update sync s', 'Updated', 'Changed keys', 'Longest query wait ms (import / update)'],
      sourceRows,
      [false, true, true, true, true, true, true, true],
    );
    const ratios = table(
      ['Ratio (same run)', 'Value'],
      [
        [
          `Import / read + parse floor (${floorSources.map((x) => x.feed).join(', ')}), wall time, fastest of ${RATIO_ROUNDS} rounds each`,
          `${importRatio.toFixed(2)} x (import ${floorImportSeconds.toFixed(2)} s, floor ${floorSeconds.toFixed(2)} s = ${thousands(floorRecords / floorSeconds)} records/s)`,
        ],
        [
          'The same, first round only (cold: threads just started, code not yet optimised)',
          `${firstRatio.toFixed(2)} x (import ${importPasses[0]!.seconds.toFixed(2)} s, floor ${floorPasses[0]!.seconds.toFixed(2)} s)`,
        ],
        ['The same, every round (import / floor, s)', importPasses.map((x, i) => `${x.seconds.toFixed(2)} / ${floorPasses[i]!.seconds.toFixed(2)}`).join('; ')],
        [
          'The same, process CPU time (user + system; all threads, the feed reader thread included)',
          `${importCpuRatio.toFixed(2)} x (import ${floorImportCpuSeconds.toFixed(1)} s, floor ${floorCpuSeconds.toFixed(1)} s)`,
        ],
        ['Match p50 / cold index reads p50 (the queries a cold matcher makes, entries included, no evaluation)', `${(p50 / percentile(lookupMs, 50)).toFixed(2)} x (lookup ${percentile(lookupMs, 50).toFixed(1)} ms, ${thousands(lookupRows)} rows)`],
        ['Match p99 / p50', `${(p99 / p50).toFixed(2)} x`],
        [
          'Re-match per image looked at / first findings per image (uncached median)',
          `${((rematchSeconds * 1000) / Math.max(1, rematch.images) / refreshMedian).toFixed(3)} x (${((rematchSeconds * 1000) / Math.max(1, rematch.images)).toFixed(1)} ms vs ${refreshMedian.toFixed(1)} ms)`,
        ],
        [
          'Re-match per image / first findings per image with a shared cache',
          `${((rematchSeconds * 1000) / Math.max(1, rematch.images) / cachedPerImage).toFixed(2)} x (${cachedPerImage.toFixed(1)} ms)`,
        ],
        ['Update sync / import', `${(resync.seconds / imported.seconds).toFixed(2)} x`],
      ],
      [false, false],
    );
    const facts = [
      `feed: ${thousands(importedRecords)} records (${thousands(real.count)} real from ${realPaths.length} archives${realNote ? `; ${realNote}` : ''}, ` +
        `${thousands(generatedTotal)} generated over ${thousands(ECOS.reduce((s, e) => s + e.names, 0))} names), ${thousands(affectedRows)} index rows, ` +
        `zips ${mib(zipBytes + realBytes)}${Number.isFinite(dbBytesAfterImport) ? `, database after import ${mib(dbBytesAfterImport)}` : ''}`,
      `SBOM: ${sbom.length} packages (${[...byType].map(([t, n]) => `${n} ${t}`).join(', ')}), ${findingsInSbom} matches on ${vulnerablePackages} packages; ${opts.matchRuns} timed runs after ${opts.warmup} warm-ups`,
      `images: ${digests.length} x ~${opts.imagePackages} packages (${thousands(packageRows)} rows, ${thousands(distinctPackages)} distinct), ${thousands(initialFindings)} findings after the first refresh, ${thousands(findingsTotal)} at the end`,
      `update: ${changedRecords} records (${[...changeKinds].map(([k, n]) => `${n} ${k}`).join(', ')}) -> ${changedKeys} changed keys; re-match looked at ${rematch.images} images, ` +
        `changed ${rematch.changedImages}: +${rematch.added} / ~${rematch.updated} / -${rematch.removed} findings; full-refresh check: ${drift} differences`,
      `database: ${scratch.describe}`,
      `load average at the end: ${loadAverage()}`,
    ];
    console.log(`\n${headline.text}\n\n${sourcesTable.text}\n\n${ratios.text}\n\n${facts.join('\n')}\n`);
    console.log(`markdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}):\n`);
    console.log(`${headline.markdown}\n\n${sourcesTable.markdown}\n\n${ratios.markdown}\n`);
    if (queryReports.length) console.log(`${queryReports.join('\n\n')}\n\n(timings above include the query timing)\n`);
    if (profileSummaries.length) console.log(`${profileSummaries.join('\n\n')}\n\n(timings above were taken under the profiler)`);
    const missed = [
      ...(importOk ? [] : [`import ${importRatio.toFixed(2)} x the read + parse floor (target <= ${opts.targetImportRatio} x)`]),
      ...(matchOk ? [] : [`match p50 ${p50.toFixed(1)} ms (target < ${opts.targetMatchP50} ms)`]),
      ...(rematchOk ? [] : [`re-match ${rematchSeconds.toFixed(2)} s (target < ${opts.targetRematch} s)`]),
    ];
    if (drift !== 0) missed.push(`a full refresh after the re-match changed ${drift} findings`);
    return verdict(missed);
  } finally {
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    // SQL errors quote the whole statement, which can be megabytes of generated rows.
    console.error(`bench:match failed: ${text.length > 4000 ? `${text.slice(0, 2000)} [...] ${text.slice(-2000)}` : text}`);
    process.exit(2);
  },
);
