/**
 * `npm run bench:policy`: policy evaluation of one large image, in process.
 *
 * The data (deterministic for a seed): an analyzed Debian 12 image of --packages packages (1 000: dpkg, some
 * binary packages sharing a source package, plus npm, python, java, go and gem packages) with --matches
 * vulnerability matches (2 000) over a subset of them (364 packages with the defaults). Each match comes from a
 * generated OSV record of the package's ecosystem: CVE ids for Debian (some hit two or three binary packages of one source), GHSA / PYSEC / GO
 * ids with CVE aliases for the languages; severities from Unknown to Critical (publisher words and CVSS v3
 * vectors), fixed, unfixed and will-not-fix (Debian) matches; KEV for a few and EPSS for most of their CVEs. The
 * policy is the default one (`defaultPolicy()`: vulnerabilities above medium STOP, medium WARN, stale feed data,
 * EXPOSE 22 STOP, no HEALTHCHECK WARN) with an allowlist of --allowlist items (500) mapped in: exact
 * `<id>+<package>` ids of findings in the image (some with a future expiry), exact ids of CVEs not in the image,
 * `CVE-...+*` wildcards, expired items and a few dockerfile-gate (md5) ids, in a shuffled order.
 *
 * 1. The engine alone: `evaluatePolicy(policy, ctx, { detail: true })` with an in-memory EvaluationContext whose
 *    vulnerabilities() returns the --matches PackageVulnerabilityItems (built with the production
 *    `packageVulnerability` / `detailsOf` from the same parsed OSV records) and packages() the --packages rows; the
 *    Dockerfile cycles through four variants (EXPOSE 22 or not, in a range or not; HEALTHCHECK or not).
 *    --warmup untimed runs, then --runs timed ones. Reports p50 / p99; **target p50 < --target-p50 (50 ms)**.
 * 2. End to end through a scratch database, as `GET /v2/images/{digest}/check` runs it: the records synced with
 *    `syncOsvSource` (one JSON file per ecosystem, plus --background-records records on other names), KEV and
 *    EPSS with `syncKevSource` / `syncEpssSource`, the image stored as analysis stores it (`ensureImage`,
 *    `mapTag`, `transitionAnalysis`, `saveAnalysis` with the Dockerfile document and `refreshImageFindings` in
 *    the same transaction), the policy with `addPolicy` + `updatePolicy(..., activate)`. Then
 *    `checkImage(db, account, digest, { tag, detail: true, history: false, interactive: true })` (no write):
 *    --db-warmup untimed, --db-runs timed; then --store-runs with interactive false (each stores a result), and
 *    --component-runs of checkImage's steps one by one (policy read, context, findings load, evaluation, digest).
 *    No target; the ratio to figure 1 is reported.
 *
 * Before timing, the script checks that the database yields the same 2 000 items as the in-memory context (same
 * ids, packages, severities, fixes, KEV/EPSS), that both evaluations give the same findings and verdict, that the
 * allowlist turns exactly the findings it names (unexpired) to GO, and that each Dockerfile variant fires what it
 * should. Prints a table, ratios and a markdown copy for docs/benchmarks.md; exits 1 when the target is missed
 * (after printing), 2 on errors.
 *
 * Options (flag, or environment variable; flags win):
 *   --packages N            BENCH_PACKAGES            packages in the image                     (default 1000)
 *   --matches N             BENCH_MATCHES             vulnerability matches of the image        (default 2000)
 *   --allowlist N           BENCH_ALLOWLIST           allowlist items                           (default 500)
 *   --runs N                BENCH_RUNS                timed evaluations (figure 1)              (default 200)
 *   --warmup N              BENCH_WARMUP              untimed evaluations first                 (default 20)
 *   --db-runs N             BENCH_DB_RUNS             timed checkImage runs, interactive        (default 50)
 *   --db-warmup N           BENCH_DB_WARMUP           untimed checkImage runs first             (default 5)
 *   --store-runs N          BENCH_STORE_RUNS          timed checkImage runs that store          (default 10)
 *   --component-runs N      BENCH_COMPONENT_RUNS      timed runs of checkImage's steps          (default 20)
 *   --background-records N  BENCH_BACKGROUND_RECORDS  more feed records, on other packages      (default 20000)
 *   --target-p50 M          BENCH_TARGET_P50          maximum evaluation p50, ms                (default 50)
 *   --seed N                BENCH_SEED                generator seed                            (default 1)
 *   --pg                                              PostgreSQL instead of SQLite: a scratch database created (and
 *                                                     dropped) through VIGIL_DATABASE_URL (or VIGIL_TEST_DATABASE_URL,
 *                                                     which scripts/with-postgres.sh sets), which must allow CREATE
 *                                                     DATABASE
 *   --cpu-prof DIR                                    CPU-profile the timed phases in process (node:inspector) into
 *                                                     DIR and print the hottest functions; the timings then include
 *                                                     the profiler
 *   --keep-data                                       leave the temp dir (feed files, SQLite database) in place
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Db } from '../src/db/index.js';
import type { CatalogedPackage } from '../src/ecosystems/model.js';
import { ensureImage, mapTag, packageRowOf, saveAnalysis, transitionAnalysis, type PackageRow } from '../src/images/store.js';
import { defaultPolicy } from '../src/policy/default-policy.js';
import type { AllowlistItem, PolicyDocument } from '../src/policy/document.js';
import { evaluatePolicy, type PolicyEvaluationResult } from '../src/policy/evaluate-policy.js';
import type { EvaluationContext, FeedGroupState } from '../src/policy/evaluation-context.js';
import { checkImage } from '../src/policy/evaluations.js';
import { imageEvaluationContext } from '../src/policy/image-context.js';
import { activePolicy, addPolicy, updatePolicy } from '../src/policy/store.js';
import { syncEpssSource, syncKevSource } from '../src/vulns/enrichment-sync.js';
import { syncOsvSource } from '../src/vulns/feed-sync.js';
import { refreshImageFindings } from '../src/vulns/findings.js';
import { imageVulnerabilities, packageVulnerability, type PackageVulnerabilityItem } from '../src/vulns/image-report.js';
import type { FixState } from '../src/vulns/match-package.js';
import { parseOsvRecord } from '../src/vulns/osv/record.js';
import { feedGroupName } from '../src/vulns/records.js';
import { detailsOf, type Enrichment } from '../src/vulns/vuln-details.js';
import { loadAverage, machine, numberOptions, percentile, phaseProfiler, scratchDatabase, table, thousands, verdict, type ScratchDatabase } from './bench-support.js';

// ---------------------------------------------------------------------------------------------------------
// Options

const { values: flags } = parseArgs({
  options: {
    packages: { type: 'string' },
    matches: { type: 'string' },
    allowlist: { type: 'string' },
    runs: { type: 'string' },
    warmup: { type: 'string' },
    'db-runs': { type: 'string' },
    'db-warmup': { type: 'string' },
    'store-runs': { type: 'string' },
    'component-runs': { type: 'string' },
    'background-records': { type: 'string' },
    'target-p50': { type: 'string' },
    seed: { type: 'string' },
    pg: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
  },
  strict: true,
});

const numberOption = numberOptions(flags);

const opts = {
  packages: Math.floor(numberOption('packages', 'BENCH_PACKAGES', 1000, 50)),
  matches: Math.floor(numberOption('matches', 'BENCH_MATCHES', 2000, 10)),
  allowlist: Math.floor(numberOption('allowlist', 'BENCH_ALLOWLIST', 500, 0)),
  runs: Math.floor(numberOption('runs', 'BENCH_RUNS', 200, 1)),
  warmup: Math.floor(numberOption('warmup', 'BENCH_WARMUP', 20, 0)),
  dbRuns: Math.floor(numberOption('db-runs', 'BENCH_DB_RUNS', 50, 1)),
  dbWarmup: Math.floor(numberOption('db-warmup', 'BENCH_DB_WARMUP', 5, 0)),
  storeRuns: Math.floor(numberOption('store-runs', 'BENCH_STORE_RUNS', 10, 0)),
  componentRuns: Math.floor(numberOption('component-runs', 'BENCH_COMPONENT_RUNS', 20, 0)),
  backgroundRecords: Math.floor(numberOption('background-records', 'BENCH_BACKGROUND_RECORDS', 20_000, 0)),
  targetP50: numberOption('target-p50', 'BENCH_TARGET_P50', 50, 0),
  seed: Math.floor(numberOption('seed', 'BENCH_SEED', 1, 0)),
  pg: flags.pg ?? false,
  cpuProfDir: flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null,
  keepData: flags['keep-data'] ?? false,
};
const { profiled, summaries: profileSummaries } = phaseProfiler(opts.cpuProfDir, 'bench-policy', 200);

const t0 = Date.now();
const progress = (m: string) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);
const msSince = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e6;
const DAY_MS = 86_400_000;

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
/** A value of `xs` chosen with the given weights. */
function weighted<T>(r: () => number, xs: readonly (readonly [T, number])[]): T {
  const total = xs.reduce((s, [, w]) => s + w, 0);
  let x = r() * total;
  for (const [v, w] of xs) if ((x -= w) < 0) return v;
  return xs[xs.length - 1]![0];
}
function shuffle<T>(r: () => number, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

// ---------------------------------------------------------------------------------------------------------
// The image's packages

type Kind = 'dpkg' | 'npm' | 'python' | 'java' | 'go' | 'gem';

interface EcoSpec {
  kind: Kind;
  share: number;
  /** OSV ecosystem string and range type of its records. */
  osv: string;
  rangeType: 'ECOSYSTEM' | 'SEMVER';
  feed: string;
  /** Lower-case OSV base ecosystem and release, as the index stores them. */
  ecosystem: string;
  release: string | null;
}

const ECOS: EcoSpec[] = [
  { kind: 'dpkg', share: 0.45, osv: 'Debian:12', rangeType: 'ECOSYSTEM', feed: 'bench-debian', ecosystem: 'debian', release: '12' },
  { kind: 'npm', share: 0.2, osv: 'npm', rangeType: 'SEMVER', feed: 'bench-npm', ecosystem: 'npm', release: null },
  { kind: 'python', share: 0.12, osv: 'PyPI', rangeType: 'ECOSYSTEM', feed: 'bench-pypi', ecosystem: 'pypi', release: null },
  { kind: 'java', share: 0.1, osv: 'Maven', rangeType: 'ECOSYSTEM', feed: 'bench-maven', ecosystem: 'maven', release: null },
  { kind: 'go', share: 0.08, osv: 'Go', rangeType: 'SEMVER', feed: 'bench-go', ecosystem: 'go', release: null },
  { kind: 'gem', share: 0.05, osv: 'RubyGems', rangeType: 'ECOSYSTEM', feed: 'bench-rubygems', ecosystem: 'rubygems', release: null },
];
const eco = (kind: Kind) => ECOS.find((e) => e.kind === kind)!;

const SYLLABLES = ['ab', 'al', 'an', 'ar', 'ba', 'be', 'bo', 'ca', 'ce', 'co', 'da', 'de', 'do', 'el', 'en', 'er', 'fa', 'fe', 'fi', 'ga',
  'ge', 'go', 'ha', 'he', 'in', 'ja', 'ka', 'ke', 'ko', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'no',
  'or', 'pa', 'pe', 'po', 'qu', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'so', 'ta', 'te', 'ti', 'to', 'un', 'va', 've', 'vo'];
const WORDS = ['parser', 'json', 'xml', 'http', 'client', 'server', 'crypto', 'auth', 'image', 'yaml', 'config', 'log', 'cache',
  'proxy', 'router', 'template', 'stream', 'archive', 'compress', 'sql', 'orm', 'queue', 'socket', 'cli', 'utils',
  'markdown', 'sanitize', 'session', 'token', 'upload', 'date', 'regex', 'path', 'url', 'mail', 'pdf', 'font', 'zip'];
const ORGS = ['acme', 'contoso', 'initech', 'umbrella', 'hooli', 'globex', 'stark', 'wayne', 'tyrell', 'cyberdyne', 'soylent', 'vandelay'];
const LICENSES: Record<Kind, string[]> = {
  dpkg: ['GPL-2.0-or-later', 'LGPL-2.1-or-later', 'BSD-3-Clause', 'MIT', 'GPL-3.0-or-later', 'Apache-2.0'],
  npm: ['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause'],
  python: ['MIT', 'BSD-3-Clause', 'Apache-2.0', 'PSF-2.0'],
  java: ['Apache-2.0', 'EPL-2.0', 'MIT'],
  go: ['BSD-3-Clause', 'Apache-2.0', 'MIT'],
  gem: ['MIT', 'Ruby', 'BSD-2-Clause'],
};

function syllables(n: number, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return s;
}

/** What the vulnerability records are filed under: a source package (Debian) or a language package. */
interface Unit {
  index: number;
  spec: EcoSpec;
  /** The name records give (Debian source name, npm name, `group:artifact`, module path, ...). */
  feedName: string;
  /** The installed version records are matched against; M.m.p are its numbers. */
  version: string;
  M: number;
  m: number;
  p: number;
  /** dpkg revision. */
  d: number;
  packages: CatalogedPackage[];
}

/** A name unique to unit i of an ecosystem (background records use other i ranges, so never collide). */
function baseName(i: number, salt: number): string {
  return `${syllables(hash32(opts.seed, i, salt) % 3600, 2)}${WORDS[i % WORDS.length]}${i.toString(36)}`;
}

function buildUnits(total: number): Unit[] {
  const r = rng(hash32(opts.seed, 101));
  const units: Unit[] = [];
  let assigned = 0;
  ECOS.forEach((spec, idx) => {
    const want = idx === ECOS.length - 1 ? total - assigned : Math.round(total * spec.share);
    let made = 0;
    let i = 0;
    while (made < want) {
      const M = int(r, 1, 9);
      const m = int(r, 0, 24);
      const p = int(r, 0, 12);
      const d = int(r, 1, 6);
      const n = baseName(i, spec.kind.length * 31 + idx);
      const unit: Unit = { index: units.length, spec, feedName: n, version: '', M, m, p, d, packages: [] };
      const v = `${M}.${m}.${p}`;
      const licenses = [pick(r, LICENSES[spec.kind])];
      const size = int(r, 8, 4000) * 1024;
      const base = { licenses, size, cpes: [] as string[] };
      switch (spec.kind) {
        case 'dpkg': {
          // A source package with one to three binary packages in the image (libfoo3, foo-common, foo).
          const dv = `${v}-${d}`;
          unit.version = dv;
          const binaries = Math.min(want - made, weighted(r, [[1, 0.7], [2, 0.22], [3, 0.08]] as const));
          const names = binaries === 1 ? (r() < 0.6 ? [n] : [`lib${n}${M}`]) : binaries === 2 ? [`lib${n}${M}`, r() < 0.5 ? n : `${n}-common`] : [n, `lib${n}${M}`, `${n}-data`];
          for (const name of names) {
            unit.packages.push({
              ...base,
              type: 'dpkg',
              name,
              version: dv,
              ...(name !== n ? { origin: n, sourceVersion: dv } : {}),
              locations: ['/var/lib/dpkg/status'],
              purl: `pkg:deb/debian/${name}@${dv}?arch=amd64&distro=debian-12${name !== n ? `&upstream=${n}` : ''}`,
              metadata: { architecture: 'amd64', maintainer: 'Debian Maintainers <debian@example.org>' },
            });
          }
          break;
        }
        case 'npm': {
          const name = i % 6 === 0 ? `@${ORGS[i % ORGS.length]}/${n}` : n;
          unit.feedName = name;
          unit.version = v;
          unit.packages.push({ ...base, type: 'npm', name, version: v, locations: [`/app/node_modules/${name}/package.json`], purl: `pkg:npm/${name.replace('@', '%40')}@${v}`, metadata: {} });
          break;
        }
        case 'python': {
          const name = `${n.slice(0, 4)}-${n.slice(4)}`;
          unit.feedName = name;
          unit.version = v;
          unit.packages.push({ ...base, type: 'python', name, version: v, locations: [`/usr/local/lib/python3.11/site-packages/${name.replace(/-/g, '_')}-${v}.dist-info/METADATA`], purl: `pkg:pypi/${name}@${v}`, metadata: {} });
          break;
        }
        case 'java': {
          const group = `org.${ORGS[i % ORGS.length]}.${WORDS[(i * 7) % WORDS.length]}`;
          unit.feedName = `${group}:${n}`;
          unit.version = v;
          unit.packages.push({ ...base, type: 'java', name: n, origin: group, version: v, locations: [`/opt/app/lib/${n}-${v}.jar`], purl: `pkg:maven/${group}/${n}@${v}`, metadata: {} });
          break;
        }
        case 'go': {
          const name = i % 5 === 0 ? `golang.org/x/${n}` : `github.com/${ORGS[i % ORGS.length]}/${n}`;
          unit.feedName = name;
          unit.version = `v${v}`;
          unit.packages.push({ ...base, type: 'go', name, version: `v${v}`, locations: ['/usr/local/bin/app'], purl: `pkg:golang/${name}@v${v}`, metadata: {} });
          break;
        }
        case 'gem': {
          const name = n.replace(/(\d)/, '_$1');
          unit.feedName = name;
          unit.version = v;
          unit.packages.push({ ...base, type: 'gem', name, version: v, locations: [`/usr/local/bundle/specifications/${name}-${v}.gemspec`], purl: `pkg:gem/${name}@${v}`, metadata: {} });
          break;
        }
      }
      made += unit.packages.length;
      units.push(unit);
      i++;
    }
    assigned += want;
  });
  return units;
}

// ---------------------------------------------------------------------------------------------------------
// The vulnerability records

type Severity = 'Critical' | 'High' | 'Medium' | 'Low' | 'Negligible' | 'Unknown';

/** CVSS v3.1 vectors per rating (scores 9.8/9.1, 7.5/8.8, 6.1/5.3, 2.5/3.3, 0.0). */
const VECTORS: Record<Exclude<Severity, 'Unknown'>, string[]> = {
  Critical: ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N'],
  High: ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H'],
  Medium: ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N'],
  Low: ['CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:L/I:N/A:N', 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:N/I:N/A:L'],
  Negligible: ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'],
};
const DEBIAN_WORDS: Record<Severity, string | undefined> = { Critical: undefined, High: 'high', Medium: 'medium', Low: 'low', Negligible: 'unimportant', Unknown: 'not yet assigned' };
const GITHUB_WORDS: Record<Severity, string | undefined> = { Critical: 'CRITICAL', High: 'HIGH', Medium: 'MODERATE', Low: 'LOW', Negligible: undefined, Unknown: undefined };
const SEVERITY_MIX = [['Critical', 0.08], ['High', 0.27], ['Medium', 0.35], ['Low', 0.18], ['Negligible', 0.05], ['Unknown', 0.07]] as const;
const FLAWS = ['cross-site scripting', 'SQL injection', 'path traversal', 'denial of service', 'deserialization of untrusted data',
  'out-of-bounds write', 'out-of-bounds read', 'integer overflow', 'request forgery', 'XML external entity expansion', 'use after free'];
const LOREM = ('an attacker able to supply crafted input can cause the affected component to read or write memory outside the ' +
  'intended buffer, consume excessive resources or execute arbitrary code with the privileges of the process; the issue ' +
  'was reported by an external researcher and fixed upstream by validating lengths and rejecting malformed sequences ' +
  'before they reach the vulnerable code path; users should upgrade, as no workaround is known').split(' ');

const B20 = '23456789cfghjmpqrvwx';
function ghsa(i: number): string {
  let out = '';
  const r = rng(hash32(opts.seed, i, 77));
  for (let k = 0; k < 12; k++) out += B20[Math.floor(r() * 20)];
  return `GHSA-${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8, 12)}`;
}
function isoDate(r: () => number, fromYear: number, toYear: number): string {
  const d = new Date(Date.UTC(int(r, fromYear, toYear), int(r, 0, 11), int(r, 1, 28), int(r, 0, 23), int(r, 0, 59), int(r, 0, 59)));
  return d.toISOString().replace('.000Z', 'Z');
}
const cveOf = (n: number) => `CVE-${2016 + (n % 10)}-${String(20_000 + n).padStart(5, '0')}`;

interface GenRecord {
  id: string;
  cve: string | null;
  feed: string;
  json: Record<string, unknown>;
  unit: Unit | null;
  severity: Severity;
  fixState: FixState;
  fixedIn: string[];
}

/** Record number n (global) for a unit (null: a background record on a name of its own). */
function generateRecord(n: number, spec: EcoSpec, unit: Unit | null): GenRecord {
  const r = rng(hash32(opts.seed, n, 5));
  const M = unit?.M ?? int(r, 1, 9);
  const m = unit?.m ?? int(r, 0, 24);
  const p = unit?.p ?? int(r, 0, 12);
  const d = unit?.d ?? int(r, 1, 6);
  const name = unit?.feedName ?? (spec.kind === 'java' ? `org.bg.${WORDS[n % WORDS.length]}:bg-${baseName(n, 999)}` : spec.kind === 'go' ? `github.com/bg/${baseName(n, 999)}` : `bg-${baseName(n, 999)}`);
  const severity = weighted(r, SEVERITY_MIX);
  const roll = r();
  const fixState: FixState = spec.kind === 'dpkg' ? (roll < 0.65 ? 'fixed' : roll < 0.9 ? 'not-fixed' : 'wont-fix') : roll < 0.85 ? 'fixed' : 'not-fixed';
  const cve = cveOf(n);
  const dpkg = spec.kind === 'dpkg';
  const plain = `${M}.${m}.${p}`;
  // The installed version, as the records spell versions of this ecosystem (Go without the v).
  const installed = dpkg ? `${plain}-${d}` : plain;
  const fixed = dpkg
    ? r() < 0.7 ? `${installed}+deb12u${int(r, 1, 3)}` : `${M}.${m + 1}.0-1`
    : r() < 0.6 ? `${M}.${m}.${p + int(r, 1, 3)}` : `${M}.${m + 1}.0`;
  const introduced = r() < 0.7 ? '0' : dpkg ? `${M}.0.0-1` : `${M}.0.0`;
  const events: Record<string, string>[] = [{ introduced }];
  if (fixState === 'fixed') events.push({ fixed });
  else if (!dpkg && r() < 0.5) events.push({ last_affected: installed });
  const affected: Record<string, unknown> = { package: { ecosystem: spec.osv, name }, ranges: [{ type: spec.rangeType, events }] };
  if (dpkg) {
    const word = DEBIAN_WORDS[severity];
    if (word) affected.ecosystem_specific = { urgency: word, severity: word };
    if (fixState === 'wont-fix') affected.database_specific = { status: 'will-not-fix' };
  }
  const year = 2016 + (n % 10);
  const id = dpkg ? cve : spec.kind === 'python' ? `PYSEC-${year}-${n}` : spec.kind === 'go' ? `GO-${year}-${String(n).padStart(4, '0')}` : ghsa(n);
  const hasCve = dpkg || r() < 0.85;
  const aliases = dpkg ? [] : [...(hasCve ? [cve] : []), ...(spec.kind === 'python' || spec.kind === 'go' ? [ghsa(n)] : [])];
  const flaw = pick(r, FLAWS);
  const start = int(r, 0, LOREM.length - 1);
  const details = Array.from({ length: int(r, 25, 70) }, (_, x) => LOREM[(start + x) % LOREM.length]).join(' ');
  const published = isoDate(r, year, year);
  const json: Record<string, unknown> = {
    schema_version: '1.6.0',
    id,
    modified: isoDate(r, 2025, 2026),
    published,
    aliases,
    summary: `${flaw} in ${name}`,
    details: `${name} before ${fixState === 'fixed' ? fixed : 'any fixed release'} is affected by ${flaw}: ${details}.`,
    affected: [affected],
    references: [
      { type: 'ADVISORY', url: hasCve ? `https://nvd.nist.gov/vuln/detail/${cve}` : `https://github.com/advisories/${id}` },
      ...(dpkg ? [{ type: 'WEB', url: `https://security-tracker.debian.org/tracker/${cve}` }] : [{ type: 'ADVISORY', url: `https://github.com/advisories/${ghsa(n)}` }]),
      { type: 'FIX', url: `https://github.com/${pick(r, ORGS)}/${name.split(/[/:]/).pop()}/commit/${hash32(n, 1).toString(16).padStart(8, '0')}${hash32(n, 2).toString(16).padStart(8, '0')}` },
    ],
  };
  // A CVSS vector for most records, matching the rating; Debian's Critical has no word, so its vector decides.
  if (severity !== 'Unknown' && (severity === 'Critical' || !dpkg || r() < 0.6) && (severity !== 'Negligible' || !dpkg))
    json.severity = [{ type: 'CVSS_V3', score: pick(r, VECTORS[severity]) }];
  const gh = GITHUB_WORDS[severity];
  if (!dpkg && spec.kind !== 'go' && gh) json.database_specific = { severity: gh, cwe_ids: [`CWE-${pick(r, [20, 22, 79, 89, 400, 502, 787])}`], github_reviewed: true };
  return { id, cve: hasCve ? cve : null, feed: spec.feed, json, unit, severity, fixState, fixedIn: fixState === 'fixed' ? [fixed] : [] };
}

/**
 * Records for the units until the matches add up to exactly `total`: drawn from 40 % of the units, with a long tail
 * (a few packages have many advisories). A Debian record hits every binary package of its source.
 */
function buildRecords(units: Unit[], total: number): GenRecord[] {
  const r = rng(hash32(opts.seed, 202));
  const vulnerable = shuffle(r, [...units]).slice(0, Math.max(1, Math.round(units.length * 0.4)));
  // Debian sources carry more advisories than language packages; within a kind, a Zipf-like tail.
  const weights = vulnerable.map((u, rank) => [u, (u.spec.kind === 'dpkg' ? 1.6 : 1) / Math.pow(1 + rank, 0.75)] as const);
  const records: GenRecord[] = [];
  let matches = 0;
  while (matches < total) {
    let unit = weighted(r, weights);
    const left = total - matches;
    if (unit.packages.length > left) unit = vulnerable.find((u) => u.packages.length <= left) ?? units.find((u) => u.packages.length <= left)!;
    records.push(generateRecord(records.length, unit.spec, unit));
    matches += unit.packages.length;
  }
  return records;
}

function buildBackground(first: number, count: number): GenRecord[] {
  const out: GenRecord[] = [];
  for (let i = 0; i < count; i++) out.push(generateRecord(first + i, ECOS[i % ECOS.length]!, null));
  return out;
}

/** KEV for about 3 % of the CVEs, EPSS scores for about 70 %. */
function buildEnrichment(records: GenRecord[]): { kev: string[]; epss: Map<string, { epss: number; percentile: number }> } {
  const r = rng(hash32(opts.seed, 303));
  const kev: string[] = [];
  const epss = new Map<string, { epss: number; percentile: number }>();
  for (const rec of records) {
    if (!rec.cve) continue;
    if (r() < 0.03) kev.push(rec.cve);
    if (r() < 0.7) {
      const u = r();
      epss.set(rec.cve, { epss: Number(Math.pow(u, 4).toFixed(5)), percentile: Number(Math.min(0.99999, 0.05 + 0.95 * u).toFixed(5)) });
    }
  }
  return { kev, epss };
}

// ---------------------------------------------------------------------------------------------------------
// The in-memory context (figure 1)

const DOCKERFILES: { label: string; text: string; expect: { ssh: number; healthcheck: number } }[] = [
  {
    label: 'EXPOSE 8080 22, no HEALTHCHECK',
    expect: { ssh: 1, healthcheck: 1 },
    text: `FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/server ./cmd/server

FROM debian:12-slim
ARG APP_VERSION=1.4.2
ENV APP_HOME=/opt/app PORT=8080
RUN apt-get update \\
 && apt-get install -y --no-install-recommends ca-certificates openssh-server \\
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/server /opt/app/bin/server
COPY config/ /opt/app/config/
WORKDIR /opt/app
EXPOSE 8080 22
USER app
ENTRYPOINT ["/opt/app/bin/server"]
CMD ["--port", "8080"]
`,
  },
  {
    label: 'EXPOSE 8080, HEALTHCHECK',
    expect: { ssh: 0, healthcheck: 0 },
    text: `FROM debian:12-slim
ENV PORT=8080
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
COPY build/ /opt/app/
WORKDIR /opt/app
EXPOSE 8080/tcp
HEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS http://localhost:8080/health || exit 1
USER 1000:1000
CMD ["/opt/app/bin/server"]
`,
  },
  {
    label: 'EXPOSE 20-30/tcp 8080 (22 in a range), HEALTHCHECK',
    expect: { ssh: 1, healthcheck: 0 },
    text: `FROM debian:12-slim
RUN apt-get update && apt-get install -y --no-install-recommends openssh-server && rm -rf /var/lib/apt/lists/*
COPY build/ /opt/app/
EXPOSE 20-30/tcp 8080
HEALTHCHECK CMD ["/opt/app/bin/server", "--health"]
CMD ["/opt/app/bin/server"]
`,
  },
  {
    label: 'EXPOSE ${PORT} (8080), no HEALTHCHECK',
    expect: { ssh: 0, healthcheck: 1 },
    text: `FROM debian:12-slim
ARG PORT=8080
ENV PORT=\${PORT}
COPY build/ /opt/app/
EXPOSE \${PORT}
LABEL org.opencontainers.image.source="https://git.example/acme/app"
CMD ["/opt/app/bin/server"]
`,
  },
];

/** The items the image's findings turn into, built as the report builds them from the same parsed records. */
function buildItems(records: GenRecord[], enrichment: Enrichment, detectedAt: string): PackageVulnerabilityItem[] {
  const items: PackageVulnerabilityItem[] = [];
  for (const rec of records) {
    const details = detailsOf(rec.feed, parseOsvRecord(rec.json));
    const spec = rec.unit!.spec;
    for (const pkg of rec.unit!.packages) {
      items.push(
        packageVulnerability(
          {
            vulnId: rec.id,
            feed: rec.feed,
            feedGroup: feedGroupName(spec.ecosystem, spec.release),
            packageType: pkg.type,
            packageName: pkg.name,
            packageVersion: pkg.version,
            packagePath: pkg.locations[0] ?? null,
            purl: pkg.purl,
            fixState: rec.fixState,
            fixedIn: rec.fixedIn,
            matchedBy: spec.kind === 'dpkg' && rec.unit!.feedName !== pkg.name ? 'source-package' : 'package',
            confidence: 'high',
            detectedAt,
            fixObservedAt: rec.fixState === 'fixed' ? detectedAt : null,
          },
          details,
          enrichment,
          { includeDescription: false },
        ),
      );
    }
  }
  return items;
}

const TAG = { registry: 'registry.example.com', repo: 'acme/storefront', tag: '1.4.2', fullTag: 'registry.example.com/acme/storefront:1.4.2' };
const DIGEST = `sha256:${createHash('sha256').update('vigil-bench-policy').digest('hex')}`;
const IMAGE_ID = `sha256:${createHash('sha256').update('vigil-bench-policy-config').digest('hex')}`;
const ACCOUNT = 'bench';

function memoryContext(packages: PackageRow[], items: PackageVulnerabilityItem[], dockerfile: string, now: Date): EvaluationContext {
  const groups: FeedGroupState[] = ECOS.map((e) => ({ feed: e.feed, group: feedGroupName(e.ecosystem, e.release), enabled: true, recordCount: 1000, lastSync: new Date(now.getTime() - 3_600_000).toISOString() }));
  const vulns = Promise.resolve(items);
  const pkgs = Promise.resolve(packages);
  return {
    image: {
      accountName: ACCOUNT,
      digest: DIGEST,
      imageId: IMAGE_ID,
      distro: { name: 'debian', version: '12', like: [] },
      arch: 'amd64',
      size: 187_000_000,
      layerCount: 9,
      dockerfile: { mode: 'Actual', text: dockerfile },
      configExposedPorts: [],
      tag: TAG,
    },
    now,
    packages: () => pkgs,
    files: async () => [],
    retrievedFiles: async () => new Map(),
    secretSearch: async () => [],
    contentSearch: async () => [],
    ancestors: async () => [],
    vulnerabilities: () => vulns,
    feedGroups: async () => groups,
    distroNamespace: () => 'debian:12',
    previousImagePackages: async () => undefined,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The allowlist

interface AllowlistPlan {
  items: AllowlistItem[];
  kinds: Map<string, number>;
}

/**
 * Items in a shuffled order: exact ids of findings in the image (a quarter with a future expiry), exact ids of CVEs
 * not in the image, `CVE-...+*` wildcards (most naming a CVE of the image), expired items naming findings in the
 * image, and dockerfile-gate items (one names the HEALTHCHECK finding, by its md5 trigger id).
 */
function buildAllowlist(total: number, vulnTriggerIds: string[], imageCves: string[], otherCves: string[], healthcheckId: string | undefined, now: Date): AllowlistPlan {
  const r = rng(hash32(opts.seed, 404));
  const ids = shuffle(r, [...new Set(vulnTriggerIds)]);
  const cves = shuffle(r, [...new Set(imageCves)]);
  const others = shuffle(r, [...otherCves]);
  const n = {
    exact: Math.round(total * 0.56),
    stale: Math.round(total * 0.16),
    wildcard: Math.round(total * 0.16),
    expired: Math.round(total * 0.1),
  };
  const dockerfileItems = Math.max(0, total - n.exact - n.stale - n.wildcard - n.expired);
  const future = () => new Date(now.getTime() + int(r, 30, 365) * DAY_MS).toISOString();
  const past = () => new Date(now.getTime() - int(r, 1, 400) * DAY_MS).toISOString();
  const items: (AllowlistItem & { kind: string })[] = [];
  let next = 0;
  const item = (kind: string, gate: string, triggerId: string, expires?: string) =>
    items.push({ kind, id: `item-${next++}`, gate, trigger_id: triggerId, ...(expires ? { expires_on: expires } : {}), description: `bench ${kind}` });
  for (let i = 0; i < n.exact; i++) item('exact, in the image', 'vulnerabilities', ids[i % ids.length]!, r() < 0.25 ? future() : undefined);
  for (let i = 0; i < n.stale; i++) item('exact, not in the image', 'vulnerabilities', `${others[i % others.length]}+${pick(r, ['openssl', 'libxml2', 'zlib1g', 'lodash-4.17.20', 'requests-2.25.0'])}`);
  const wildcardHits = Math.round(n.wildcard * 0.75);
  for (let i = 0; i < n.wildcard; i++)
    item(i < wildcardHits ? 'wildcard, CVE in the image' : 'wildcard, CVE not in the image', 'vulnerabilities', `${i < wildcardHits ? cves[i % cves.length] : others[(n.stale + i) % others.length]}+*`);
  for (let i = 0; i < n.expired; i++) item('expired, in the image', 'vulnerabilities', ids[(n.exact + i) % ids.length]!, past());
  for (let i = 0; i < dockerfileItems; i++)
    item('dockerfile', 'dockerfile', i === 0 && healthcheckId ? healthcheckId : createHash('md5').update(`other-${i}`).digest('hex'));
  // Counted before the shuffle, so they print in the order above.
  const kinds = new Map<string, number>();
  for (const x of items) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
  shuffle(r, items);
  return { items: items.map(({ kind: _kind, ...rest }) => rest), kinds };
}

function benchPolicy(items: AllowlistItem[]): PolicyDocument {
  const doc = defaultPolicy();
  doc.id = 'bench-policy';
  doc.name = 'Default policy with a 500-item allowlist';
  doc.allowlists = [{ id: 'bench-allowlist', name: 'Accepted risks', version: '1', items }];
  doc.mappings[0]!.allowlist_ids = ['bench-allowlist'];
  return doc;
}

/** Which findings the allowlist must turn to GO, computed independently of the engine: unexpired exact or `prefix*` items. */
function expectedAllowlisted(result: PolicyEvaluationResult, items: AllowlistItem[], now: Date): number {
  const live = items.filter((i) => !(i.expires_on && Date.parse(i.expires_on) <= now.getTime()));
  const exact = new Set(live.filter((i) => !i.trigger_id.includes('*')).map((i) => `${i.gate}\u0000${i.trigger_id}`));
  const prefixes = live.filter((i) => i.trigger_id.endsWith('*')).map((i) => ({ gate: i.gate, prefix: i.trigger_id.slice(0, -1) }));
  return result.details!.findings.filter(
    (f) => exact.has(`${f.gate}\u0000${f.trigger_id}`) || prefixes.some((p) => p.gate === f.gate && f.trigger_id.startsWith(p.prefix)),
  ).length;
}

function summary(result: PolicyEvaluationResult): string {
  const f = result.details!.findings;
  const by = (pred: (x: (typeof f)[number]) => boolean) => f.filter(pred).length;
  return `${result.final_action} (${result.final_action_reason}); ${f.length} findings: ${by((x) => x.action === 'stop')} stop, ${by((x) => x.action === 'warn')} warn, ${by((x) => x.allowlisted)} allowlisted; ${result.evaluation_problems.length} problems`;
}

// ---------------------------------------------------------------------------------------------------------
// Database

/** Feeds, KEV and EPSS through their sync functions; the image as analysis stores it; the policy, active. */
async function populate(db: Db, dir: string, records: GenRecord[], background: GenRecord[], enrich: ReturnType<typeof buildEnrichment>, packages: CatalogedPackage[], doc: PolicyDocument): Promise<void> {
  for (const spec of ECOS) {
    const path = join(dir, `${spec.feed}.json`);
    writeFileSync(path, JSON.stringify([...records, ...background].filter((x) => x.feed === spec.feed).map((x) => x.json)));
    const res = await syncOsvSource(db, spec.feed, path);
    if (res.stats.skipped) throw new Error(`${spec.feed}: ${res.stats.skipped} records skipped: ${JSON.stringify(res.stats.errors.slice(0, 3))}`);
  }
  const kevPath = join(dir, 'kev.json');
  writeFileSync(
    kevPath,
    JSON.stringify({
      title: 'CISA Catalog of Known Exploited Vulnerabilities',
      catalogVersion: '2026.11.20',
      dateReleased: '2026-11-20T15:00:00.000Z',
      count: enrich.kev.length,
      vulnerabilities: enrich.kev.map((cve, i) => ({
        cveID: cve,
        vendorProject: pick(rng(i), ORGS),
        product: pick(rng(i + 1), WORDS),
        vulnerabilityName: `${pick(rng(i + 2), FLAWS)} vulnerability`,
        dateAdded: '2025-06-12',
        shortDescription: 'Exploited in the wild.',
        requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
        dueDate: '2025-07-03',
        knownRansomwareCampaignUse: i % 4 === 0 ? 'Known' : 'Unknown',
        notes: '',
      })),
    }),
  );
  await syncKevSource(db, 'bench-kev', kevPath);
  const epssPath = join(dir, 'epss.csv');
  writeFileSync(epssPath, `#model_version:v2025.03.14,score_date:2026-11-21T00:00:00+0000\ncve,epss,percentile\n${[...enrich.epss].map(([cve, e]) => `${cve},${e.epss},${e.percentile}`).join('\n')}\n`);
  await syncEpssSource(db, 'bench-epss', epssPath);

  const now = new Date().toISOString();
  await db('accounts').insert({ name: ACCOUNT, email: null, type: 'user', state: 'enabled', created_at: now, last_updated: now });
  const dockerfile = DOCKERFILES[0]!.text;
  await ensureImage(db, {
    account_name: ACCOUNT,
    image_digest: DIGEST,
    parent_digest: null,
    image_type: 'docker',
    annotations: '{}',
    source: JSON.stringify({ kind: 'registry', pull_string: `${TAG.registry}/${TAG.repo}@${DIGEST}`, platform: 'linux/amd64' }),
    dockerfile: Buffer.from(dockerfile).toString('base64'),
  });
  await mapTag(db, ACCOUNT, DIGEST, TAG);
  if (!(await transitionAnalysis(db, ACCOUNT, DIGEST, ['not_analyzed'], 'analyzing'))) throw new Error('could not start the analysis of the bench image');
  const saved = await saveAnalysis(
    db,
    ACCOUNT,
    DIGEST,
    {
      imageId: IMAGE_ID,
      arch: 'amd64',
      distro: 'debian',
      distroVersion: '12',
      distroLike: [],
      dockerfileMode: 'Actual',
      imageSize: 187_000_000,
      layerCount: 9,
      packages,
      files: [],
      documents: { dockerfile },
    },
    undefined,
    (trx) => refreshImageFindings(trx, ACCOUNT, DIGEST).then(() => undefined),
  );
  if (!saved) throw new Error('saveAnalysis did not store the bench image');
  await addPolicy(db, ACCOUNT, doc);
  await updatePolicy(db, ACCOUNT, doc.id, doc, true);
}

/** What identifies an item for the comparison of the database's items with the in-memory ones. */
function itemKey(x: PackageVulnerabilityItem): string {
  return [x.vuln, x.feed, x.feed_group, x.package_type, x.package_name, x.package_version, x.package_path, x.severity, x.fix, x.will_not_fix, x.is_kev, JSON.stringify(x.epss), x.nvd_data.length, x.vendor_data.length, x.aliases.join(',')].join('|');
}


const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const countBy = <T>(xs: T[], key: (x: T) => string) => {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
};
const showCounts = (m: Map<string, number>) => [...m].map(([k, n]) => `${n} ${k}`).join(', ');

async function timed(runs: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    await fn(i);
    out.push(msSince(s));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const m = machine();
  const args = process.argv.slice(2);
  const command = `npm run bench:policy${args.length ? ` -- ${args.join(' ')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM (MemTotal ${m.memKb} kB), Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  console.log(`target: evaluation p50 < ${opts.targetP50} ms (${opts.packages} packages, ${opts.matches} matches, default policy + ${opts.allowlist} allowlist items)`);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-policy-'));
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
    // The data.
    const now = new Date();
    const units = buildUnits(opts.packages);
    const catalog = units.flatMap((u) => u.packages);
    const packageRows = catalog.map(packageRowOf);
    const records = buildRecords(units, opts.matches);
    const background = buildBackground(records.length, opts.backgroundRecords);
    const enrich = buildEnrichment([...records, ...background]);
    const enrichment: Enrichment = { kev: new Set(enrich.kev), epss: enrich.epss };
    const items = buildItems(records, enrichment, now.toISOString());
    if (items.length !== opts.matches) throw new Error(`generated ${items.length} matches, expected ${opts.matches}`);
    const vulnerablePackages = new Set(items.map((x) => `${x.package_type}\u0000${x.package_name}`)).size;
    const dataFacts =
      `image: ${catalog.length} packages (${showCounts(countBy(catalog, (p) => p.type))}); ${items.length} matches on ${vulnerablePackages} packages from ${records.length} records ` +
      `(severity: ${showCounts(new Map(['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unknown'].map((sv) => [sv, items.filter((x) => x.severity === sv).length])))}; ${showCounts(countBy(items, (x) => (x.will_not_fix ? 'will-not-fix' : x.fix === 'None' ? 'unfixed' : 'fixed')))}; ` +
      `${items.filter((x) => x.is_kev).length} KEV, ${items.filter((x) => x.epss.length).length} with EPSS)`;
    progress(dataFacts);

    // Allowlist ids from the findings the policy gives without one (trigger ids as the engine computes them).
    const ctxs = DOCKERFILES.map((d) => memoryContext(packageRows, items, d.text, now));
    const bare = await evaluatePolicy(defaultPolicy(), ctxs[0]!, { detail: true });
    const vulnIds = bare.details!.findings.filter((f) => f.gate === 'vulnerabilities').map((f) => f.trigger_id);
    const healthcheckId = bare.details!.findings.find((f) => f.rule_id === 'no-healthcheck')?.trigger_id;
    const imageCves = items.flatMap((x) => [x.vuln, ...x.aliases]).filter((id) => id.startsWith('CVE-'));
    const otherCves = background.map((b) => b.cve).filter((c): c is string => !!c);
    const plan = buildAllowlist(opts.allowlist, vulnIds, imageCves, otherCves, healthcheckId, now);
    const doc = benchPolicy(plan.items);
    progress(`allowlist: ${plan.items.length} items (${showCounts(plan.kinds)})`);

    // Checks of figure 1's setup: each Dockerfile variant fires what it should; the allowlist does what it says.
    const variantRows: string[] = [];
    const memoryResults: PolicyEvaluationResult[] = [];
    for (const [i, d] of DOCKERFILES.entries()) {
      const res = await evaluatePolicy(doc, ctxs[i]!, { detail: true });
      memoryResults.push(res);
      const f = res.details!.findings;
      const ssh = f.filter((x) => x.rule_id === 'ssh-exposed').length;
      const hc = f.filter((x) => x.rule_id === 'no-healthcheck').length;
      if (ssh !== d.expect.ssh || hc !== d.expect.healthcheck)
        throw new Error(`Dockerfile "${d.label}": ssh-exposed fired ${ssh} times, no-healthcheck ${hc} (expected ${d.expect.ssh}, ${d.expect.healthcheck})`);
      const expected = expectedAllowlisted(res, plan.items, now);
      const got = f.filter((x) => x.allowlisted).length;
      if (got !== expected) throw new Error(`Dockerfile "${d.label}": ${got} findings allowlisted, expected ${expected}`);
      if (res.evaluation_problems.length) throw new Error(`evaluation problems: ${JSON.stringify(res.evaluation_problems)}`);
      variantRows.push(`${d.label}: ${summary(res)}`);
    }
    const expectedVulnFindings = items.filter((x) => !x.will_not_fix && ['High', 'Critical', 'Medium'].includes(x.severity)).length;
    const gotVulnFindings = memoryResults[0]!.details!.findings.filter((f) => f.gate === 'vulnerabilities').length;
    if (gotVulnFindings !== expectedVulnFindings) throw new Error(`${gotVulnFindings} vulnerability findings, expected ${expectedVulnFindings}`);
    for (const row of variantRows) progress(`check: ${row}`);

    // 1. The engine alone.
    for (let i = 0; i < opts.warmup; i++) await evaluatePolicy(doc, ctxs[i % ctxs.length]!, { detail: true });
    const evalMs = await profiled('evaluate', () => timed(opts.runs, (i) => evaluatePolicy(doc, ctxs[i % ctxs.length]!, { detail: true })));
    const evalP50 = percentile(evalMs, 50);
    const evalP99 = percentile(evalMs, 99);
    const perVariant = DOCKERFILES.map((_, v) => percentile(evalMs.filter((_, i) => i % DOCKERFILES.length === v), 50));
    progress(`evaluation (in memory): p50 ${ms(evalP50)} ms, p99 ${ms(evalP99)} ms over ${opts.runs} runs (per Dockerfile variant p50: ${perVariant.map(ms).join(' / ')} ms)`);
    // Without the allowlist, for comparison: what the 500 items cost.
    const plainDoc = benchPolicy([]);
    for (let i = 0; i < Math.min(opts.warmup, 5); i++) await evaluatePolicy(plainDoc, ctxs[0]!, { detail: true });
    const plainMs = await timed(Math.min(opts.runs, 50), () => evaluatePolicy(plainDoc, ctxs[0]!, { detail: true }));
    progress(`evaluation without the allowlist (same policy, 0 items): p50 ${ms(percentile(plainMs, 50))} ms over ${plainMs.length} runs`);

    // 2. Through the database.
    const setupStarted = process.hrtime.bigint();
    scratch = await scratchDatabase({ pg: opts.pg, dataDir: join(dir, 'data'), keepData: opts.keepData });
    const db = scratch.db;
    progress(`database: ${scratch.describe}`);
    await populate(db, dir, records, background, enrich, catalog, doc);
    const storedFindings = Number((await db('image_vulnerabilities').where({ account_name: ACCOUNT, image_digest: DIGEST }).count({ n: '*' }))[0]!.n);
    const storedRecords = Number((await db('vulnerabilities').count({ n: '*' }))[0]!.n);
    progress(`setup: ${thousands(storedRecords)} records synced, KEV ${enrich.kev.length}, EPSS ${enrich.epss.size}; image stored with ${storedFindings} findings; policy active (${(msSince(setupStarted) / 1000).toFixed(1)} s, untimed)`);

    // The database must give the in-memory context's items, and checkImage the in-memory verdict.
    const dbItems = await imageVulnerabilities(db, ACCOUNT, DIGEST, { vulnType: 'all', vendorOnly: false, includeDescription: false });
    const want = countBy(items, itemKey);
    const have = countBy(dbItems, itemKey);
    const diff = [...new Set([...want.keys(), ...have.keys()])].filter((k) => want.get(k) !== have.get(k));
    if (dbItems.length !== items.length || diff.length)
      throw new Error(`the database gives ${dbItems.length} items, the in-memory context ${items.length}; ${diff.length} differ, e.g.\n  ${diff.slice(0, 4).join('\n  ')}`);
    const checkOptions = { tag: TAG.fullTag, detail: true, history: false, interactive: true };
    const first = await checkImage(db, ACCOUNT, DIGEST, checkOptions);
    const dbResult = first.evaluations[0]! as PolicyEvaluationResult;
    const key = (r: PolicyEvaluationResult) => JSON.stringify([r.final_action, r.number_of_findings, r.details!.findings.map((f) => [f.trigger_id, f.rule_id, f.action, f.allowlisted, f.message]).sort()]);
    if (key(dbResult) !== key(memoryResults[0]!)) throw new Error(`checkImage and the in-memory evaluation disagree: ${summary(dbResult)} vs ${summary(memoryResults[0]!)}`);
    progress(`check: the database yields the same ${dbItems.length} items; checkImage gives ${summary(dbResult)}, as in memory`);

    for (let i = 0; i < opts.dbWarmup; i++) await checkImage(db, ACCOUNT, DIGEST, checkOptions);
    const checkMs = await profiled('check', () => timed(opts.dbRuns, () => checkImage(db, ACCOUNT, DIGEST, checkOptions)));
    const checkP50 = percentile(checkMs, 50);
    const checkP99 = percentile(checkMs, 99);
    progress(`checkImage (interactive, no write): p50 ${ms(checkP50)} ms, p99 ${ms(checkP99)} ms over ${opts.dbRuns} runs`);
    const storeMs = await profiled('check-store', () => timed(opts.storeRuns, () => checkImage(db, ACCOUNT, DIGEST, { ...checkOptions, interactive: false })));
    const storedEvaluations = Number((await db('policy_evaluations').count({ n: '*' }))[0]!.n);
    const storedBytes = (await db('policy_evaluations').orderBy('id', 'desc').first('result'))?.result?.length ?? 0;
    if (opts.storeRuns) progress(`checkImage (stores the result): p50 ${ms(percentile(storeMs, 50))} ms over ${opts.storeRuns} runs; ${storedEvaluations} evaluations stored, ${thousands(storedBytes / 1024)} KiB each`);

    // checkImage's steps one by one, as it runs them.
    const steps: Record<string, number[]> = { policy: [], context: [], vulnerabilities: [], evaluate: [], digest: [] };
    for (let i = 0; i < opts.componentRuns + 2; i++) {
      const a = process.hrtime.bigint();
      const record = await activePolicy(db, ACCOUNT);
      const b = process.hrtime.bigint();
      const ctx = await imageEvaluationContext(db, ACCOUNT, DIGEST, TAG.fullTag, new Date());
      const c = process.hrtime.bigint();
      await ctx.vulnerabilities();
      await ctx.feedGroups();
      const d = process.hrtime.bigint();
      await evaluatePolicy(record.policy, ctx, { detail: true });
      const e = process.hrtime.bigint();
      createHash('sha256').update(JSON.stringify(record.policy)).digest('hex');
      const f = process.hrtime.bigint();
      if (i < 2) continue; // warm-up
      steps.policy!.push(Number(b - a) / 1e6);
      steps.context!.push(Number(c - b) / 1e6);
      steps.vulnerabilities!.push(Number(d - c) / 1e6);
      steps.evaluate!.push(Number(e - d) / 1e6);
      steps.digest!.push(Number(f - e) / 1e6);
    }

    // Report.
    const ok = evalP50 < opts.targetP50;
    const headline = table(
      ['Figure', 'p50', 'p99', 'Target', 'Met'],
      [
        [`Evaluation alone (evaluatePolicy, detail=true, in-memory context; ${opts.runs} runs)`, `${ms(evalP50)} ms`, `${ms(evalP99)} ms`, `p50 < ${opts.targetP50} ms`, ok ? 'yes' : '**no**'],
        [`End to end: checkImage, interactive (no write; ${opts.dbRuns} runs)`, `${ms(checkP50)} ms`, `${ms(checkP99)} ms`, '', ''],
        ...(opts.storeRuns ? [[`End to end: checkImage storing the result (${opts.storeRuns} runs)`, `${ms(percentile(storeMs, 50))} ms`, `${ms(percentile(storeMs, 99))} ms`, '', '']] : []),
        [`Evaluation without the allowlist (same data, 0 items; ${plainMs.length} runs)`, `${ms(percentile(plainMs, 50))} ms`, `${ms(percentile(plainMs, 99))} ms`, '', ''],
      ],
      [false, true, true, false, false],
    );
    const stepRows = opts.componentRuns
      ? table(
          ['checkImage step (run one by one; p50 over ' + opts.componentRuns + ' runs)', 'p50 ms'],
          [
            ['activePolicy: read and parse the policy document', ms(percentile(steps.policy!, 50))],
            ['imageEvaluationContext: image, tag, Dockerfile document', ms(percentile(steps.context!, 50))],
            [`ctx.vulnerabilities() + feedGroups(): ${opts.matches} findings, record details, KEV/EPSS, annotations`, ms(percentile(steps.vulnerabilities!, 50))],
            ['evaluatePolicy on the loaded context', ms(percentile(steps.evaluate!, 50))],
            ['sha256 of the policy document', ms(percentile(steps.digest!, 50))],
          ],
          [false, true],
        )
      : undefined;
    const ratios = table(
      ['Ratio (same run)', 'Value'],
      [
        ['End to end p50 / evaluation p50', `${(checkP50 / evalP50).toFixed(2)} x`],
        ...(opts.storeRuns ? [['Storing p50 / interactive p50', `${(percentile(storeMs, 50) / checkP50).toFixed(2)} x`]] : []),
        ['Evaluation with the allowlist / without (p50)', `${(evalP50 / percentile(plainMs, 50)).toFixed(2)} x`],
        ['Evaluation p99 / p50', `${(evalP99 / evalP50).toFixed(2)} x`],
        ['End to end p99 / p50', `${(checkP99 / checkP50).toFixed(2)} x`],
      ],
      [false, false],
    );
    const facts = [
      dataFacts,
      `policy: default rules + ${plan.items.length} allowlist items (${showCounts(plan.kinds)})`,
      ...variantRows.map((r) => `Dockerfile ${r}`),
      `database: ${scratch.describe}; ${thousands(storedRecords)} records (${records.length} for the image, ${thousands(background.length)} background), ${storedFindings} stored findings`,
      `per Dockerfile variant, evaluation p50: ${perVariant.map(ms).join(' / ')} ms`,
      `load average at the end: ${loadAverage()}`,
    ];
    console.log(`\n${headline.text}\n\n${stepRows ? `${stepRows.text}\n\n` : ''}${ratios.text}\n\n${facts.join('\n')}\n`);
    console.log(`markdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}):\n`);
    console.log(`${headline.markdown}\n\n${stepRows ? `${stepRows.markdown}\n\n` : ''}${ratios.markdown}\n`);
    if (profileSummaries.length) console.log(`${profileSummaries.join('\n\n')}\n\n(timings above were taken under the profiler)`);
    return verdict(ok ? [] : [`evaluation p50 ${ms(evalP50)} ms (target < ${opts.targetP50} ms)`]);
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
    console.error(`bench:policy failed: ${text.length > 4000 ? `${text.slice(0, 2000)} [...] ${text.slice(-2000)}` : text}`);
    process.exit(2);
  },
);
