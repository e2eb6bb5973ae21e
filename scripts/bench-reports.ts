/**
 * `npm run bench:reports`: the GraphQL reporting API at fleet scale, against a real server started in process.
 *
 * 1. A real server (`startServer`, as `npm start` runs it: HTTP on 127.0.0.1, the job worker, the reporting
 *    refresher at its default interval) on a fresh database: SQLite in a temp dir, or with --pg a scratch
 *    PostgreSQL database created (and dropped) through VIGIL_DATABASE_URL (or VIGIL_TEST_DATABASE_URL, which
 *    scripts/with-postgres.sh sets). The periodic refresh job is held off while the data goes in.
 * 2. Data, generated into the SOURCE tables the read model is built from (deterministic for a seed), with multi-row
 *    inserts in large transactions, so the triggers log every change as the write paths do:
 *    - one OSV feed (`bench-debian`, group debian:12) of --vulns records (50 000): CVE ids (some DSA ids with a CVE
 *      alias) on --vulns/10 Debian source packages, each record fixing its package at a later version (10 % unfixed,
 *      3 % will-not-fix); severity from CVSS v3.1 vectors (Critical 5 %, High 25 %, Medium 40 %, Low 20 %), a
 *      publisher's word (Negligible 5 %) or nothing (Unknown 5 %). Stored as feed sync stores them: the parsed record
 *      through `encodeRecord`, and its affected-package index rows (so a new analysis matches against it);
 *    - --images analyzed Debian 12 images (10 000) in repositories of 20 images over four registries, each with
 *      five tag mappings: four current (`1.K.0`, `1.K`, `build-N`, `sha-…`) and `latest`, current only on the
 *      repository's newest image (19 % of the mappings are historic);
 *    - --findings-per-image findings per image (100; 1 000 000 `image_vulnerabilities` rows): distinct records per
 *      image drawn from a Zipf distribution (s = 1) over a shuffled popularity order, so a few vulnerabilities are in
 *      nearly every image and most in a handful; the package is a binary of the record's source package at one of
 *      three installed versions;
 *    - the account's default policy, active, and two `policy_evaluations` per current mapping (the newer one latest),
 *      results shaped as checkImage stores them (details first, with the policy and --result-findings findings).
 *    The inserts go image group by image group (50 images: their images, tags, findings and evaluations rows).
 * 3. The initial `refreshNow()`, timed: the cost of building the read model from scratch out of the change log, with
 *    the SQL it ran (statement shapes by total time).
 * 4. Over HTTP (POST /v2/reports/graphql, HTTP Basic as admin), each report with limit 1000: per run the first page
 *    and the next --pages − 1 pages through nextToken; --warmup runs, then --runs timed runs, but no new run once a
 *    report has used --report-budget seconds (the runs done are reported). Every page is a sample; p50 / p99 over all
 *    of them; the clock stops when the body has arrived. **Target: p50 < --target-p50 (200 ms) for each.** The
 *    reports, selecting the fields the specification lists for each:
 *    - imagesByVulnerability, filter severity Critical;
 *    - artifactsByVulnerability, no filter;
 *    - policyEvaluationsByTag, default filter (current tags, latest evaluations, active policy).
 *    For comparison (no target): the two by-vulnerability reports with every field, the images' tag mappings included (--variant-runs runs).
 *    Then one page of each, with every SQL statement it ran captured (knex query events): count, time, the most
 *    expensive shapes; with --explain (or when a target is missed) their plans (EXPLAIN QUERY PLAN on SQLite,
 *    EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL).
 * 5. Lag, --lag-runs times (3): a small image (Debian 12 os-release and a dpkg status with a package the feed
 *    affects) is uploaded through POST /v2/images/archives and analyzed by the worker; from the worker's `finished`
 *    event for it (analysis, findings and policy re-evaluation done), imagesByVulnerability filtered by its digest is
 *    polled every 50 ms until it appears, with the refresher on its normal timer. **Target: lag < --target-lag
 *    (5 s) in every run**; at most --lag-timeout seconds (30) per run.
 *
 * Prints the figures, a markdown copy for docs/benchmarks.md, and exits 1 when a target is missed (after printing),
 * 2 on errors. The temp dir (and the scratch database) is removed.
 *
 * Options (flag, or environment variable; flags win):
 *   --images N              BENCH_IMAGES              analyzed images                              (default 10000)
 *   --findings-per-image N  BENCH_FINDINGS_PER_IMAGE  findings per image                           (default 100)
 *   --vulns N               BENCH_VULNS               feed records                                 (default 50000)
 *   --result-findings N     BENCH_RESULT_FINDINGS     findings in each stored evaluation's details (default 20)
 *   --runs N                BENCH_RUNS                timed runs per report                        (default 30)
 *   --warmup N              BENCH_WARMUP              untimed runs first                           (default 3)
 *   --pages N               BENCH_PAGES               pages per run (first + N-1 via nextToken)    (default 3)
 *   --variant-runs N        BENCH_VARIANT_RUNS        timed runs of the comparison variants (0: none) (default 10)
 *   --lag-runs N            BENCH_LAG_RUNS            new analyses for the lag                     (default 3)
 *   --lag-timeout S         BENCH_LAG_TIMEOUT         give up on one lag run after S seconds       (default 30)
 *   --report-budget S       BENCH_REPORT_BUDGET       no new timed run of a report after S seconds (default 120;
 *                                                     the runs done are reported)
 *   --target-p50 M          BENCH_TARGET_P50          maximum page p50, ms                         (default 200)
 *   --target-lag S          BENCH_TARGET_LAG          maximum refresh lag, s                       (default 5)
 *   --seed N                BENCH_SEED                generator seed                               (default 1)
 *   --pg                                              PostgreSQL instead of SQLite (see 1.)
 *   --explain                                         print the plans of each report's costliest SQL
 *   --cpu-prof DIR                                    CPU-profile the initial refresh and each report's timed runs in
 *                                                     process (server and client share the process) into DIR; timings
 *                                                     include the profiler
 *   --keep-data                                       leave the temp dir (and the scratch database) in place and print
 *                                                     the admin password, for follow-up measurements
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import knex from 'knex';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/index.js';
import { findImage } from '../src/images/store.js';
import type { JobFinished } from '../src/jobs/worker.js';
import { activePolicy } from '../src/policy/store.js';
import type { RefreshOutcome } from '../src/reports/refresh.js';
import { startServer, type RunningServer } from '../src/server/start.js';
import { parseCvss } from '../src/vulns/cvss/index.js';
import { ensureFeed, recordSyncOutcome, refreshGroupCounts } from '../src/vulns/feed-sync.js';
import { markVulnerabilityDataChanged } from '../src/vulns/vulnerability-repository.js';
import { parseOsvRecord } from '../src/vulns/osv/record.js';
import type { OsvRecord } from '../src/vulns/osv/types.js';
import { encodeRecord, feedGroupName } from '../src/vulns/records.js';
import { SEVERITY_ORDER, severityOf, type SeverityLabel } from '../src/vulns/vuln-details.js';
import { buildImage, dockerArchiveTar } from '../test/support/image-builder.js';
import { basic, loadAverage, machine, numberOptions, percentile, phaseProfiler, table, thousands, verdict } from './bench-support.js';

// ---------------------------------------------------------------------------------------------------------
// Options

const { values: flags } = parseArgs({
  options: {
    images: { type: 'string' },
    'findings-per-image': { type: 'string' },
    vulns: { type: 'string' },
    'result-findings': { type: 'string' },
    runs: { type: 'string' },
    warmup: { type: 'string' },
    pages: { type: 'string' },
    'variant-runs': { type: 'string' },
    'lag-runs': { type: 'string' },
    'report-budget': { type: 'string' },
    'lag-timeout': { type: 'string' },
    'target-p50': { type: 'string' },
    'target-lag': { type: 'string' },
    seed: { type: 'string' },
    pg: { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
  },
  strict: true,
});

const numberOption = numberOptions(flags);

const opts = {
  images: Math.floor(numberOption('images', 'BENCH_IMAGES', 10_000, 20)),
  findingsPerImage: Math.floor(numberOption('findings-per-image', 'BENCH_FINDINGS_PER_IMAGE', 100, 1)),
  vulns: Math.floor(numberOption('vulns', 'BENCH_VULNS', 50_000, 100)),
  resultFindings: Math.floor(numberOption('result-findings', 'BENCH_RESULT_FINDINGS', 20, 0)),
  runs: Math.floor(numberOption('runs', 'BENCH_RUNS', 30, 1)),
  warmup: Math.floor(numberOption('warmup', 'BENCH_WARMUP', 3, 0)),
  pages: Math.floor(numberOption('pages', 'BENCH_PAGES', 3, 1)),
  variantRuns: Math.floor(numberOption('variant-runs', 'BENCH_VARIANT_RUNS', 10, 0)),
  lagRuns: Math.floor(numberOption('lag-runs', 'BENCH_LAG_RUNS', 3, 0)),
  lagTimeout: numberOption('lag-timeout', 'BENCH_LAG_TIMEOUT', 30, 1, 600),
  reportBudget: numberOption('report-budget', 'BENCH_REPORT_BUDGET', 120, 1),
  targetP50: numberOption('target-p50', 'BENCH_TARGET_P50', 200, 0),
  targetLag: numberOption('target-lag', 'BENCH_TARGET_LAG', 5, 0),
  seed: Math.floor(numberOption('seed', 'BENCH_SEED', 1, 0)),
  pg: flags.pg ?? false,
  explain: flags.explain ?? false,
  cpuProfDir: flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null,
  keepData: flags['keep-data'] ?? false,
};
if (opts.findingsPerImage > opts.vulns / 2) throw new Error('--findings-per-image must be at most half of --vulns (distinct records per image)');
const { profiled, summaries: profileSummaries } = phaseProfiler(opts.cpuProfDir, 'bench-reports', 500);

const PAGE_LIMIT = 1000;
const ACCOUNT = 'admin';
const FEED = 'bench-debian';
const GROUP = feedGroupName('debian', '12');
const IMAGES_PER_REPO = 20;
const IMAGES_PER_GROUP = 50;
const GROUPS_PER_TRANSACTION = 10;
const POLL_MS = 50;

const t0 = Date.now();
const progress = (m: string) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);
const msSince = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e6;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

// ---------------------------------------------------------------------------------------------------------
// Deterministic randomness (as in the other benchmarks)

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
function shuffle<T>(r: () => number, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/** Draws ranks 0..n-1 with P(k) proportional to 1 / (k+1)^s. */
function zipf(n: number, s: number, r: () => number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let k = 0; k < n; k++) cdf[k] = acc += 1 / Math.pow(k + 1, s);
  return () => {
    const x = r() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const SYLLABLES = ['ab', 'al', 'an', 'ar', 'ba', 'be', 'bo', 'ca', 'ce', 'co', 'da', 'de', 'do', 'el', 'en', 'er', 'fa', 'fe', 'fi', 'ga',
  'ge', 'go', 'ha', 'he', 'in', 'ja', 'ka', 'ke', 'ko', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'no',
  'or', 'pa', 'pe', 'po', 'qu', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'so', 'ta', 'te', 'ti', 'to', 'un', 'va', 've', 'vo'];
const WORDS = ['parser', 'json', 'xml', 'http', 'client', 'server', 'crypto', 'auth', 'image', 'yaml', 'config', 'log', 'cache',
  'proxy', 'router', 'template', 'stream', 'archive', 'compress', 'sql', 'queue', 'socket', 'utils', 'markdown', 'session',
  'token', 'upload', 'date', 'regex', 'path', 'url', 'mail', 'pdf', 'font', 'zip'];
const ORGS = ['acme', 'contoso', 'initech', 'umbrella', 'hooli', 'globex', 'stark', 'wayne', 'tyrell', 'cyberdyne', 'soylent', 'vandelay'];
const FLAWS = ['buffer overflow', 'use-after-free', 'NULL pointer dereference', 'integer overflow', 'out-of-bounds read',
  'denial of service', 'path traversal', 'improper certificate validation', 'heap overflow', 'race condition'];
const REGISTRIES = ['registry.example.com', 'ghcr.io', 'docker.io', 'quay.io'];

function syllables(n: number, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------------------
// The feed: Debian 12 advisories on source packages

interface Source {
  name: string;
  /** Binary packages built from it (the source name first). */
  binaries: string[];
  M: number;
  m: number;
}

/** Installed version variant b (0..2) of a source package: all below every fix. */
const installedVersion = (s: Source, b: number) => `${s.M}.${s.m}.${b}-1`;

function buildSources(n: number): Source[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `${syllables(hash32(opts.seed, i, 7) % 3600, 2)}${WORDS[i % WORDS.length]}${i.toString(36)}`;
    const binaries = [name, `lib${name}${(i % 5) + 1}`, `${name}-common`].slice(0, 1 + (i % 3));
    return { name, binaries, M: 1 + (i % 9), m: i % 13 };
  });
}

interface GenRecord {
  index: number;
  id: string;
  source: number;
  fixed: string | null;
  fixState: 'fixed' | 'not-fixed' | 'wont-fix';
  severity: SeverityLabel;
  parsed: OsvRecord;
}

/** Every CVSS v3.1 base vector, bucketed by its rating (Critical, High, Medium, Low, None). */
function vectorPools(): Map<string, string[]> {
  const pools = new Map<string, string[]>();
  for (const av of ['N', 'A', 'L', 'P'])
    for (const ac of ['L', 'H'])
      for (const pr of ['N', 'L', 'H'])
        for (const ui of ['N', 'R'])
          for (const s of ['U', 'C'])
            for (const c of ['N', 'L', 'H'])
              for (const i of ['N', 'L', 'H'])
                for (const a of ['N', 'L', 'H']) {
                  const v = `CVSS:3.1/AV:${av}/AC:${ac}/PR:${pr}/UI:${ui}/S:${s}/C:${c}/I:${i}/A:${a}`;
                  const sev = parseCvss(v).severity;
                  pools.set(sev, [...(pools.get(sev) ?? []), v]);
                }
  return pools;
}

function buildRecords(sources: Source[]): GenRecord[] {
  const pools = vectorPools();
  const out: GenRecord[] = [];
  for (let i = 0; i < opts.vulns; i++) {
    const r = rng(hash32(opts.seed, 11, i));
    const sourceIndex = i % sources.length;
    const src = sources[sourceIndex]!;
    const j = Math.floor(i / sources.length);
    const year = 2014 + (i % 12);
    const cve = `CVE-${year}-${String(10_000 + Math.floor(i / 12)).padStart(5, '0')}`;
    const dsa = r() < 0.08;
    const id = dsa ? `DSA-${5000 + i}-1` : cve;
    const u = r();
    const target = u < 0.05 ? 'Critical' : u < 0.3 ? 'High' : u < 0.7 ? 'Medium' : u < 0.9 ? 'Low' : u < 0.95 ? 'Negligible' : 'Unknown';
    const f = r();
    const fixState = f < 0.03 ? 'wont-fix' : f < 0.13 ? 'not-fixed' : 'fixed';
    const fixed = fixState === 'fixed' ? `${src.M}.${src.m}.${3 + j}-1` : null;
    const flaw = pick(r, FLAWS);
    const published = new Date(Date.UTC(year, int(r, 0, 11), int(r, 1, 28), int(r, 0, 23), int(r, 0, 59))).toISOString().replace('.000Z', 'Z');
    const affected: Record<string, unknown> = {
      package: { ecosystem: 'Debian:12', name: src.name, purl: `pkg:deb/debian/${src.name}?arch=source` },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(fixed ? [{ fixed }] : [])] }],
      ecosystem_specific: { urgency: target === 'Negligible' ? 'unimportant' : pick(r, ['low', 'medium', 'high', 'not yet assigned']) },
      ...(fixState === 'wont-fix' ? { database_specific: { status: 'will-not-fix' } } : {}),
    };
    const json: Record<string, unknown> = {
      schema_version: '1.6.0',
      id,
      modified: '2026-11-01T08:00:00Z',
      published,
      aliases: dsa ? [cve] : [],
      summary: `${flaw} in ${src.name}`,
      details: `A ${flaw} was found in ${src.name} before ${fixed ?? 'a fixed release'}, which a remote attacker could trigger with crafted input ` +
        `to crash the process or, in some configurations, execute code. The issue was reported upstream and is tracked as ${cve}.`,
      affected: [affected],
      references: [
        { type: 'ADVISORY', url: `https://security-tracker.debian.org/tracker/${cve}` },
        { type: 'WEB', url: `https://nvd.nist.gov/vuln/detail/${cve}` },
        ...(r() < 0.5 ? [{ type: 'FIX', url: `https://github.com/${pick(r, ORGS)}/${src.name}/commit/${sha256(`${i}`).slice(0, 40)}` }] : []),
      ],
    };
    if (target === 'Negligible') json.database_specific = { severity: 'negligible' };
    else if (target !== 'Unknown') {
      const pool = pools.get(target)!;
      json.severity = [{ type: 'CVSS_V3', score: pool[Math.floor(r() * pool.length)]! }];
    }
    const parsed = parseOsvRecord(json);
    out.push({ index: i, id, source: sourceIndex, fixed, fixState, severity: severityOf(parsed), parsed });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Images, tags, findings, evaluations

interface Repo {
  registry: string;
  repo: string;
}

function repoOf(r: number): Repo {
  const registry = REGISTRIES[r % REGISTRIES.length]!;
  const name = `${ORGS[r % ORGS.length]}/${WORDS[Math.floor(r / ORGS.length) % WORDS.length]}-${syllables(hash32(opts.seed, r, 3) % 3600, 2)}${r}`;
  return { registry, repo: registry === 'docker.io' && r % 8 === 2 ? `library/${WORDS[r % WORDS.length]}${r}` : name };
}

const digestOf = (i: number) => `sha256:${sha256(`vigil-bench-reports-${opts.seed}-${i}`)}`;
const BASE_TIME = Date.UTC(2026, 5, 1);
const iso = (t: number) => new Date(t).toISOString();

interface PolicyInfo {
  id: string;
  digest: string;
  doc: unknown;
  mapping: unknown;
}

interface ImageData {
  image: Record<string, unknown>;
  tags: Record<string, unknown>[];
  findings: Record<string, unknown>[];
  evaluations: Record<string, unknown>[];
}

class Generator {
  private readonly draw: () => number;
  private readonly byRank: number[];
  readonly findingSeverity = new Map<string, number>();
  readonly reasons = new Map<string, number>();
  readonly vulnHits = new Uint32Array(opts.vulns);

  constructor(
    private readonly sources: Source[],
    private readonly records: GenRecord[],
    private readonly policy: PolicyInfo,
  ) {
    const r = rng(hash32(opts.seed, 21));
    this.byRank = shuffle(r, records.map((x) => x.index));
    this.draw = zipf(records.length, 1, rng(hash32(opts.seed, 22)));
  }

  /** The record of popularity rank k (0 = in most images). */
  recordOfRank(k: number): GenRecord {
    return this.records[this.byRank[k]!]!;
  }

  image(i: number): ImageData {
    const r = rng(hash32(opts.seed, 31, i));
    const repoIndex = Math.floor(i / IMAGES_PER_REPO);
    const k = i % IMAGES_PER_REPO;
    const { registry, repo } = repoOf(repoIndex);
    const digest = digestOf(i);
    const analyzedAt = BASE_TIME + i * 60_000;
    const variant = (repoIndex + Math.floor(k / 7)) % 3;
    const image = {
      account_name: ACCOUNT,
      image_digest: digest,
      parent_digest: null,
      image_id: `sha256:${sha256(`config-${i}`)}`,
      image_type: 'docker',
      image_status: 'active',
      analysis_status: 'analyzed',
      annotations: '{}',
      source: JSON.stringify({ kind: 'registry', pull_string: `${registry}/${repo}:1.${k}.0`, platform: null }),
      dockerfile: null,
      arch: 'amd64',
      distro: 'debian',
      distro_version: '12',
      distro_like: null,
      dockerfile_mode: 'Guessed',
      image_size: 40_000_000 + int(r, 0, 400_000_000),
      layer_count: int(r, 1, 12),
      analyzed_at: iso(analyzedAt),
      created_at: iso(analyzedAt - 90_000),
      last_updated: iso(analyzedAt),
    };
    const tagNames: [string, boolean][] = [
      [`1.${k}.0`, true],
      [`1.${k}`, true],
      [`build-${1000 + k}`, true],
      [`sha-${digest.slice(7, 14)}`, true],
      ['latest', k === IMAGES_PER_REPO - 1 || i === opts.images - 1],
    ];
    const tags = tagNames.map(([tag, current]) => ({
      account_name: ACCOUNT,
      image_digest: digest,
      registry,
      repo,
      tag,
      full_tag: `${registry}/${repo}:${tag}`,
      tag_detected_at: iso(analyzedAt - 60_000),
      current,
      created_at: iso(analyzedAt - 60_000),
      last_updated: iso(analyzedAt),
    }));

    // Findings: distinct records, popular ones far more often.
    const chosen = new Set<number>();
    for (let guard = 0; chosen.size < opts.findingsPerImage && guard < opts.findingsPerImage * 50; guard++) chosen.add(this.byRank[this.draw()]!);
    const findings: Record<string, unknown>[] = [];
    const detected = iso(analyzedAt);
    for (const index of chosen) {
      const rec = this.records[index]!;
      const src = this.sources[rec.source]!;
      const binary = src.binaries[hash32(i, index) % src.binaries.length]!;
      const version = installedVersion(src, variant);
      const path = '/var/lib/dpkg/status';
      this.vulnHits[index]!++;
      this.findingSeverity.set(rec.severity, (this.findingSeverity.get(rec.severity) ?? 0) + 1);
      findings.push({
        account_name: ACCOUNT,
        image_digest: digest,
        finding_key: sha256(`${rec.id}\u0000dpkg\u0000${binary}\u0000${version}\u0000${path}`),
        vuln_id: rec.id,
        feed: FEED,
        feed_group: GROUP,
        package_type: 'dpkg',
        package_name: binary,
        package_version: version,
        package_path: path,
        package_purl: `pkg:deb/debian/${binary}@${encodeURIComponent(version)}?arch=amd64&distro=debian-12`,
        matched_name: src.name,
        fix_state: rec.fixState,
        fixed_in: JSON.stringify(rec.fixed ? [rec.fixed] : []),
        detected_at: detected,
        fix_observed_at: rec.fixed ? detected : null,
        last_updated: detected,
      });
    }

    // Two evaluations per current mapping with the active policy; the newer is the latest.
    const blocking = findings.filter((f) => ['Critical', 'High', 'Medium'].includes(this.severityOfId(String(f.vuln_id))));
    const action = blocking.some((f) => this.severityOfId(String(f.vuln_id)) !== 'Medium') ? 'stop' : blocking.length ? 'warn' : 'go';
    const u = r();
    const reason = u < 0.01 ? 'denylisted' : u < 0.04 ? 'allowlisted' : 'policy_evaluation';
    const final = reason === 'denylisted' ? 'stop' : reason === 'allowlisted' ? 'go' : action;
    const evaluations: Record<string, unknown>[] = [];
    for (const t of tags.filter((x) => x.current))
      for (const [n, latest] of [[0, false], [1, true]] as const) {
        const time = iso(analyzedAt + (n + 1) * 3_600_000 + int(r, 0, 600_000));
        this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
        evaluations.push({
          account_name: ACCOUNT,
          image_digest: digest,
          tag: t.full_tag,
          policy_id: this.policy.id,
          policy_digest: this.policy.digest,
          status: final === 'stop' ? 'fail' : 'pass',
          final_action: final,
          final_action_reason: reason,
          latest,
          result: this.result(blocking, action, final, reason, time, t.full_tag),
          evaluation_time: time,
        });
      }
    return { image, tags, findings, evaluations };
  }

  private readonly severityById = new Map<string, SeverityLabel>();
  severityOfId(id: string): SeverityLabel {
    if (!this.severityById.size) for (const x of this.records) this.severityById.set(x.id, x.severity);
    return this.severityById.get(id)!;
  }

  /** The stored result as checkImage writes it: details (policy, findings) first, then the verdict. */
  private result(blocking: Record<string, unknown>[], action: string, final: string, reason: string, time: string, tag: string): string {
    const findings = blocking.slice(0, opts.resultFindings).map((f) => {
      const sev = this.severityOfId(String(f.vuln_id));
      const fixed = JSON.parse(String(f.fixed_in)) as string[];
      return {
        trigger_id: `${f.vuln_id}+${f.package_name}-${f.package_version}`,
        gate: 'vulnerabilities',
        trigger: 'package',
        message: `${sev.toUpperCase()} Vulnerability found in os package type (dpkg) - ${f.package_name} (fixed in: ${fixed[0] ?? 'None'}) - ${f.vuln_id} (https://security-tracker.debian.org/tracker/${f.vuln_id})`,
        action: sev === 'Medium' ? 'warn' : 'stop',
        policy_id: this.policy.id,
        recommendation: '',
        rule_id: sev === 'Medium' ? 'vulnerabilities-medium' : 'vulnerabilities-above-medium',
        allowlisted: false,
      };
    });
    return JSON.stringify({
      details: { policy: this.policy.doc, findings, policy_action: action, remediations: [] },
      comparison_image_digest: null,
      evaluation_time: time,
      evaluation_problems: [],
      status: final === 'stop' ? 'fail' : 'pass',
      final_action: final,
      final_action_reason: reason,
      image_allowlisted: reason === 'allowlisted',
      matched_allowlisted_images_rule: reason === 'allowlisted' ? { id: 'bench-allow', name: 'allowed', registry: '*', repository: '*', image: { type: 'tag', value: tag.split(':').pop() } } : null,
      image_denylisted: reason === 'denylisted',
      matched_denylisted_images_rule: reason === 'denylisted' ? { id: 'bench-deny', name: 'denied', registry: '*', repository: '*', image: { type: 'tag', value: tag.split(':').pop() } } : null,
      image_mapped_to_rule: true,
      matched_mapping_rule: this.policy.mapping,
      number_of_findings: blocking.length,
      latest: true,
      last_evaluation: time,
      policy_digest: this.policy.digest,
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Database

interface Scratch {
  /** VIGIL_DATABASE_URL for the server, or null on SQLite. */
  url: string | null;
  describe: string;
  drop(): Promise<void>;
}

async function scratchDatabase(): Promise<Scratch> {
  if (!opts.pg) return { url: null, describe: 'SQLite (better-sqlite3, WAL, synchronous=NORMAL)', drop: async () => {} };
  const adminUrl = process.env.VIGIL_DATABASE_URL || process.env.VIGIL_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('--pg needs VIGIL_DATABASE_URL or VIGIL_TEST_DATABASE_URL (a PostgreSQL URL whose role may CREATE DATABASE)');
  const name = `vigil_bench_${randomBytes(5).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  const version = (await admin.raw('show server_version')).rows[0].server_version as string;
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    describe: `PostgreSQL ${version}, scratch database ${name} on ${url.host}`,
    async drop() {
      if (opts.keepData) return;
      const a = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await a.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.destroy();
    },
  };
}

const isPg = (db: Db) => db.client.config.client === 'pg';

/**
 * Multi-row inserts as large as the driver allows (SQLite: 32 766 variables; PostgreSQL: 65 535). On SQLite, knex
 * writes a multi-row insert as a compound SELECT, which SQLite caps at 500 terms, so the VALUES list is built here.
 */
async function insertRows(db: Db, tableName: string, rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]!);
  const per = Math.max(1, Math.min(2000, Math.floor((isPg(db) ? 60_000 : 30_000) / columns.length)));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    if (isPg(db)) await db(tableName).insert(chunk);
    else
      await db.raw(
        `INSERT INTO ${tableName} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')}`,
        chunk.flatMap((r) => columns.map((c) => (typeof r[c] === 'boolean' ? Number(r[c]) : r[c]))) as never,
      );
  }
}

const count = async (db: Db, tableName: string) => Number((await db(tableName).count({ n: '*' }))[0]!.n);

// ---------------------------------------------------------------------------------------------------------
// HTTP

interface GqlResult {
  ms: number;
  bytes: number;
  body: any;
}

class Client {
  constructor(
    private readonly url: string,
    private readonly auth: string,
  ) {}

  async gql(query: string, variables: Record<string, unknown>): Promise<GqlResult> {
    const started = process.hrtime.bigint();
    const res = await fetch(`${this.url}/v2/reports/graphql`, {
      method: 'POST',
      headers: { authorization: this.auth, 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(120_000),
    });
    const buf = Buffer.from(await res.arrayBuffer());
    const took = msSince(started);
    const text = buf.toString('utf8');
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`GraphQL: HTTP ${res.status}, not JSON: ${text.slice(0, 500)}`);
    }
    if (res.status !== 200 || body.errors) throw new Error(`GraphQL: HTTP ${res.status}: ${JSON.stringify(body.errors ?? body).slice(0, 1000)}`);
    return { ms: took, bytes: buf.length, body };
  }

  async uploadArchive(tag: string, archive: Buffer): Promise<string> {
    const res = await fetch(`${this.url}/v2/images/archives?tag=${encodeURIComponent(tag)}`, {
      method: 'POST',
      headers: { authorization: this.auth, 'content-type': 'application/x-tar' },
      body: archive,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST /v2/images/archives: HTTP ${res.status}: ${text.slice(0, 500)}`);
    const body = JSON.parse(text);
    const digest = Array.isArray(body) ? body[0]?.image_digest : body.image_digest;
    if (typeof digest !== 'string') throw new Error(`POST /v2/images/archives answered no image_digest: ${text.slice(0, 500)}`);
    return digest;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The reports

/**
 * The headline pages select the fields the specification lists for each report (its "selectable fields"
 * table); the "every field" variants add this service's extensions (severity, cve, account, namespace,
 * fixedIn, the images' tag mappings), whose cost grows with what they return.
 */
const TAGS_FIELDS = 'tags { registryName repositoryName tagName fullTag current detectedAt }';
type Selection = 'spec' | 'all';
const imagesQuery = (selection: Selection) => `query($filter: VulnerabilityQueryFilter, $limit: Int, $nextToken: String) {
  imagesByVulnerability(filter: $filter, limit: $limit, nextToken: $nextToken) {
    pageInfo { nextToken count }
    results { ${selection === 'spec' ? 'vulnerabilityId links imagesCount images { digest }' : `vulnerabilityId cve severity links imagesCount images { digest account ${TAGS_FIELDS} }`} }
  }
}`;
const artifactsQuery = (selection: Selection) => `query($filter: VulnerabilityQueryFilter, $limit: Int, $nextToken: String) {
  artifactsByVulnerability(filter: $filter, limit: $limit, nextToken: $nextToken) {
    pageInfo { nextToken count }
    results { ${
      selection === 'spec'
        ? 'vulnerabilityId links artifactsCount artifacts { artifactName artifactVersion artifactType severity images { digest } }'
        : `vulnerabilityId cve severity links artifactsCount artifacts { artifactName artifactVersion artifactType severity namespace fixedIn imagesCount images { digest account ${TAGS_FIELDS} } }`
    } }
  }
}`;
const POLICY_QUERY = `query($filter: PolicyEvaluationsQueryFilter, $limit: Int, $nextToken: String) {
  policyEvaluationsByTag(filter: $filter, limit: $limit, nextToken: $nextToken) {
    pageInfo { nextToken count }
    results { registryName repositories { repositoryName tagsCount tags { tagName imageDigest detectedAt current
      evaluations { result reason lastEvaluatedAt latest policyBundle { bundleId bundleDigest } } } } }
  }
}`;

interface PageShape {
  /** Report rows on the page (vulnerabilities, or tags for policyEvaluationsByTag). */
  rows: number;
  /** The nested items: (vulnerability, image) pairs, (vulnerability, artifact, image) triples, or evaluations. */
  nested: number;
  /** Tag mappings listed under the images. */
  tags: number;
}

interface ReportSpec {
  key: string;
  label: string;
  field: string;
  query: string;
  filter: Record<string, unknown>;
  headline: boolean;
  shape(data: any): PageShape;
}

const imagesShape = (d: any): PageShape => ({
  rows: d.results.length,
  nested: d.results.reduce((n: number, r: any) => n + r.images.length, 0),
  tags: d.results.reduce((n: number, r: any) => n + r.images.reduce((m: number, i: any) => m + (i.tags?.length ?? 0), 0), 0),
});
const artifactsShape = (d: any): PageShape => ({
  rows: d.results.length,
  nested: d.results.reduce((n: number, r: any) => n + r.artifacts.reduce((m: number, a: any) => m + a.images.length, 0), 0),
  tags: d.results.reduce((n: number, r: any) => n + r.artifacts.reduce((m: number, a: any) => m + a.images.reduce((k: number, i: any) => k + (i.tags?.length ?? 0), 0), 0), 0),
});
const policyShape = (d: any): PageShape => {
  let rows = 0;
  let nested = 0;
  for (const reg of d.results) for (const repo of reg.repositories) for (const t of repo.tags) (rows++, (nested += t.evaluations.length));
  return { rows, nested, tags: rows };
};

const SPECS: ReportSpec[] = [
  { key: 'images', label: 'imagesByVulnerability, severity Critical', field: 'imagesByVulnerability', query: imagesQuery('spec'), filter: { vulnerability: { severity: 'Critical' } }, headline: true, shape: imagesShape },
  { key: 'artifacts', label: 'artifactsByVulnerability, no filter', field: 'artifactsByVulnerability', query: artifactsQuery('spec'), filter: {}, headline: true, shape: artifactsShape },
  { key: 'policy', label: 'policyEvaluationsByTag, default filter', field: 'policyEvaluationsByTag', query: POLICY_QUERY, filter: {}, headline: true, shape: policyShape },
  { key: 'images-all', label: "imagesByVulnerability, severity Critical, every field with the images' tags", field: 'imagesByVulnerability', query: imagesQuery('all'), filter: { vulnerability: { severity: 'Critical' } }, headline: false, shape: imagesShape },
  { key: 'artifacts-all', label: "artifactsByVulnerability, no filter, every field with the images' tags", field: 'artifactsByVulnerability', query: artifactsQuery('all'), filter: {}, headline: false, shape: artifactsShape },
];

interface Sample {
  page: number;
  ms: number;
  bytes: number;
  shape: PageShape;
}

/** One run: the first page and up to `pages` - 1 more through nextToken. */
async function walk(client: Client, spec: ReportSpec, pages: number): Promise<Sample[]> {
  const out: Sample[] = [];
  let token: string | null = null;
  for (let page = 1; page <= pages; page++) {
    const res = await client.gql(spec.query, { filter: spec.filter, limit: PAGE_LIMIT, nextToken: token });
    const data = res.body.data[spec.field];
    out.push({ page, ms: res.ms, bytes: res.bytes, shape: spec.shape(data) });
    token = data.pageInfo.nextToken;
    if (!token) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// SQL capture: every statement one request runs, with its time (knex query events)

interface Statement {
  sql: string;
  bindings: unknown[];
  ms: number;
}

async function captureSql<T>(db: Db, fn: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  const open = new Map<string, { sql: string; bindings: unknown[]; start: bigint }>();
  const statements: Statement[] = [];
  const onQuery = (q: { __knexQueryUid: string; sql: string; bindings?: unknown[] }) => open.set(q.__knexQueryUid, { sql: q.sql, bindings: q.bindings ?? [], start: process.hrtime.bigint() });
  const onDone = (_res: unknown, q: { __knexQueryUid: string }) => {
    const s = open.get(q.__knexQueryUid);
    if (!s) return;
    open.delete(q.__knexQueryUid);
    statements.push({ sql: s.sql, bindings: s.bindings, ms: msSince(s.start) });
  };
  db.on('query', onQuery);
  db.on('query-response', onDone);
  db.on('query-error', onDone);
  try {
    const result = await fn();
    return { result, statements };
  } finally {
    db.off('query', onQuery);
    db.off('query-response', onDone);
    db.off('query-error', onDone);
  }
}

/** The statement with its IN lists folded, so repeated chunks of one query count as one shape. */
const shapeOf = (sql: string) => sql.replace(/\((?:\s*(?:\?|\$\d+)\s*,)+\s*(?:\?|\$\d+)\s*\)/g, '(…)').replace(/\s+/g, ' ');

function summarizeStatements(statements: Statement[]): { shape: string; count: number; ms: number; first: Statement }[] {
  const by = new Map<string, { shape: string; count: number; ms: number; first: Statement }>();
  for (const s of statements) {
    const shape = shapeOf(s.sql);
    const e = by.get(shape) ?? { shape, count: 0, ms: 0, first: s };
    e.count++;
    e.ms += s.ms;
    by.set(shape, e);
  }
  return [...by.values()].sort((a, b) => b.ms - a.ms);
}

async function explain(db: Db, s: Statement): Promise<string> {
  if (!isPg(db)) {
    const rows: { id: number; parent: number; detail: string }[] = await db.raw(`EXPLAIN QUERY PLAN ${s.sql}`, s.bindings as never);
    const depth = new Map<number, number>([[0, 0]]);
    return rows
      .map((r) => {
        const d = (depth.get(r.parent) ?? 0) + 1;
        depth.set(r.id, d);
        return `${'  '.repeat(d)}${r.detail}`;
      })
      .join('\n');
  }
  const conn = await (db.client as any).acquireConnection();
  try {
    const res = await conn.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, s.bindings);
    return res.rows.map((r: Record<string, string>) => `  ${r['QUERY PLAN']}`).join('\n');
  } finally {
    await (db.client as any).releaseConnection(conn);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Lag: one new analysis through the API

const DEBIAN_OS_RELEASE =
  'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\n' +
  'VERSION_CODENAME=bookworm\nID=debian\nHOME_URL="https://www.debian.org/"\n';

function dpkgStatus(packages: { name: string; version: string }[]): string {
  return packages
    .map(
      (p) =>
        `Package: ${p.name}\nStatus: install ok installed\nPriority: optional\nSection: libs\nInstalled-Size: 420\n` +
        `Maintainer: Bench Maintainers <bench@example.com>\nArchitecture: amd64\nVersion: ${p.version}\nDescription: ${p.name} for the reporting benchmark\n`,
    )
    .join('\n');
}

interface LagRun {
  digest: string;
  findings: number;
  analysisMs: number;
  /** From the worker's finished event to the first poll that saw the image. */
  lagMs: number;
  /** From the image's analyzed_at (the analysis commit) to the first poll that saw it. */
  lagFromAnalyzedMs: number;
  polls: number;
  /** Refreshes that applied changes between the upload and the first sighting: start offset from finished, duration. */
  refreshes: string[];
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const m = machine();
  const args = process.argv.slice(2);
  const command = `npm run bench:reports${args.length ? ` -- ${args.join(' ')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM (MemTotal ${m.memKb} kB), Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  console.log(`targets: page p50 < ${opts.targetP50} ms (limit ${PAGE_LIMIT}); refresh lag < ${opts.targetLag} s`);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-reports-'));
  const adminPassword = randomBytes(18).toString('base64url');
  let scratch: Scratch | undefined;
  let running: RunningServer | undefined;
  const cleanUp = async () => {
    await running?.close().catch((err) => console.error(`stopping the server: ${(err as Error).message}`));
    running = undefined;
    if (opts.keepData) console.log(`temp dir kept: ${dir}${scratch?.url ? ` (database ${scratch.url})` : ''}; admin password ${adminPassword}`);
    await scratch?.drop().catch((err) => console.error(`dropping the scratch database: ${(err as Error).message}`));
    scratch = undefined;
    if (!opts.keepData) rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => {
    console.error('interrupted; stopping the server and removing the temp dir');
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // 1. The server.
    scratch = await scratchDatabase();
    const config = loadConfig({
      VIGIL_HOST: '127.0.0.1',
      VIGIL_PORT: '0',
      VIGIL_DATA_DIR: join(dir, 'data'),
      VIGIL_ADMIN_PASSWORD: adminPassword,
      VIGIL_LOG_LEVEL: 'warn',
      // No feed sources: the feed is generated; the cron sync would have nothing to do.
      VIGIL_FEED_SYNC_SCHEDULE: 'off',
      // Postgres needs a shared key (src/system/encryption-key.ts); any will do for one run.
      ...(scratch.url ? { VIGIL_DATABASE_URL: scratch.url, VIGIL_ENCRYPTION_KEY: randomBytes(24).toString('hex') } : {}),
    });
    running = await startServer(config, pino({ level: config.logLevel }));
    const services = running.services;
    const refresher = services.reports.refresher;
    // The periodic refresh job (every refresh interval) is held off while the data goes in: its runs do nothing
    // until the lag runs. The bench's own refreshes call the refresher directly.
    const refreshDirectly = refresher.refreshNow.bind(refresher);
    let holdPeriodicRefresh = true;
    refresher.refreshNow = () =>
      holdPeriodicRefresh ? Promise.resolve({ ran: false, changesApplied: 0, images: 0, vulnerabilities: 0, inventories: 0, policies: 0 }) : refreshDirectly();
    const db = services.db;
    progress(`server on ${running.url}; database: ${scratch.describe}; refresh interval ${config.reports.refreshIntervalSeconds} s`);

    // 2. The data.
    const genStarted = process.hrtime.bigint();
    const sources = buildSources(Math.ceil(opts.vulns / 10));
    const records = buildRecords(sources);
    const recordSev = new Map<string, number>();
    for (const r of records) recordSev.set(r.severity, (recordSev.get(r.severity) ?? 0) + 1);
    const showSev = (mp: Map<string, number>, total: number) =>
      [...SEVERITY_ORDER].reverse().map((s) => `${s} ${(((mp.get(s) ?? 0) / total) * 100).toFixed(1)} %`).join(', ');
    progress(`feed: ${thousands(records.length)} records on ${thousands(sources.length)} source packages (${showSev(recordSev, records.length)})`);

    const now = new Date().toISOString();
    await ensureFeed(db, FEED, 'osv');
    await db.transaction(async (trx) => {
      await insertRows(
        trx,
        'vulnerabilities',
        records.map((r) => {
          const { modified: _m, ...content } = r.parsed;
          return {
            feed: FEED,
            id: r.id,
            modified: r.parsed.modified,
            published: r.parsed.published ?? null,
            withdrawn: null,
            summary: r.parsed.summary ?? null,
            severity_label: r.parsed.severityLabel ?? null,
            severity: JSON.stringify(r.parsed.severity),
            aliases: JSON.stringify(r.parsed.aliases),
            content_digest: sha256(JSON.stringify(content)),
            record: encodeRecord(r.parsed),
            updated_at: now,
          };
        }),
      );
      await insertRows(
        trx,
        'vulnerability_affected',
        records.map((r) => ({
          feed: FEED,
          vuln_id: r.id,
          grp: GROUP,
          ecosystem: 'debian',
          release: '12',
          package_name: sources[r.source]!.name,
          affected: JSON.stringify(r.parsed.affected[0]),
        })),
      );
      await refreshGroupCounts(trx, FEED);
      // Written directly, not by a sync: tell matchers the index changed all the same.
      await markVulnerabilityDataChanged(trx);
    });
    await recordSyncOutcome(db, FEED, { status: 'ok', kind: 'osv', source: 'generated by scripts/bench-reports.ts' });
    progress(`feed stored (${(msSince(genStarted) / 1000).toFixed(1)} s)`);

    const policyRecord = await activePolicy(db, ACCOUNT);
    const policyDoc = policyRecord.policy as unknown as { mappings?: unknown[] };
    const policy: PolicyInfo = {
      id: policyRecord.policy_id,
      digest: sha256(JSON.stringify(policyRecord.policy)),
      doc: policyRecord.policy,
      mapping: policyDoc.mappings?.[0] ?? null,
    };
    const gen = new Generator(sources, records, policy);
    const imagesStarted = process.hrtime.bigint();
    const rowsWritten = { images: 0, tags: 0, findings: 0, evaluations: 0, resultBytes: 0 };
    const perTransaction = IMAGES_PER_GROUP * GROUPS_PER_TRANSACTION;
    for (let start = 0; start < opts.images; start += perTransaction) {
      await db.transaction(async (trx) => {
        for (let g = start; g < Math.min(opts.images, start + perTransaction); g += IMAGES_PER_GROUP) {
          const group: ImageData[] = [];
          for (let i = g; i < Math.min(opts.images, g + IMAGES_PER_GROUP); i++) group.push(gen.image(i));
          await insertRows(trx, 'images', group.map((x) => x.image));
          await insertRows(trx, 'image_tags', group.flatMap((x) => x.tags));
          await insertRows(trx, 'image_vulnerabilities', group.flatMap((x) => x.findings));
          const evaluations = group.flatMap((x) => x.evaluations);
          await insertRows(trx, 'policy_evaluations', evaluations);
          rowsWritten.images += group.length;
          rowsWritten.tags += group.reduce((n, x) => n + x.tags.length, 0);
          rowsWritten.findings += group.reduce((n, x) => n + x.findings.length, 0);
          rowsWritten.evaluations += evaluations.length;
          rowsWritten.resultBytes += evaluations.reduce((n, e) => n + String(e.result).length, 0);
        }
      });
      if ((start / perTransaction) % 4 === 3 || start + perTransaction >= opts.images)
        progress(`images: ${thousands(rowsWritten.images)} / ${thousands(opts.images)} (${thousands(rowsWritten.findings)} findings)`);
    }
    const generateSeconds = msSince(genStarted) / 1000;
    const pending = await count(db, 'report_changes');
    const findingSevTotal = [...gen.findingSeverity.values()].reduce((a, b) => a + b, 0);
    const hits = [...gen.vulnHits].filter((n) => n > 0).sort((a, b) => b - a);
    const currentTags = Number((await db('image_tags').where({ current: true }).count({ n: '*' }))[0]!.n);
    const dataFacts = [
      `feed: ${thousands(records.length)} records (${showSev(recordSev, records.length)}), ${thousands(sources.length)} source packages`,
      `images: ${thousands(rowsWritten.images)}, tag mappings ${thousands(rowsWritten.tags)} (${thousands(currentTags)} current, ${((1 - currentTags / rowsWritten.tags) * 100).toFixed(1)} % historic) in ${thousands(Math.ceil(opts.images / IMAGES_PER_REPO))} repositories`,
      `findings: ${thousands(rowsWritten.findings)} (${showSev(gen.findingSeverity, findingSevTotal)}); ${thousands(hits.length)} records in at least one image; most widespread: ${hits.slice(0, 3).map(thousands).join(', ')} images; median ${hits[hits.length >> 1]}`,
      `policy evaluations: ${thousands(rowsWritten.evaluations)} (${[...gen.reasons].map(([k, v]) => `${thousands(v)} ${k}`).join(', ')}), results ${thousands(rowsWritten.resultBytes / rowsWritten.evaluations)} bytes on average`,
    ];
    for (const f of dataFacts) progress(f);
    progress(`generated in ${generateSeconds.toFixed(1)} s (images ${(msSince(imagesStarted) / 1000).toFixed(1)} s); ${thousands(pending)} changes logged for the read model`);

    // 3. The initial refresh.
    const refreshStarted = process.hrtime.bigint();
    const { result: initial, statements: refreshStatements } = await captureSql(db, () => profiled('initial-refresh', () => refreshDirectly()));
    const initialSeconds = msSince(refreshStarted) / 1000;
    const refreshShapes = summarizeStatements(refreshStatements);
    const refreshSqlMs = refreshStatements.reduce((n, s) => n + s.ms, 0);
    let refreshBreakdown = `--- initial refresh: ${initialSeconds.toFixed(1)} s; ${thousands(refreshStatements.length)} statements, ${(refreshSqlMs / 1000).toFixed(1)} s of SQL; costliest shapes:\n`;
    for (const s of refreshShapes.slice(0, 8))
      refreshBreakdown += `  ${(s.ms / 1000).toFixed(2).padStart(8)} s  ${thousands(s.count).padStart(7)}x  ${s.shape.length > 300 ? `${s.shape.slice(0, 300)} …` : s.shape}\n`;
    console.log(refreshBreakdown);
    const readModel = {
      images: await count(db, 'report_images'),
      tags: await count(db, 'report_tags'),
      findings: await count(db, 'report_findings'),
      vulnerabilities: await count(db, 'report_vulnerabilities'),
      evaluations: await count(db, 'report_policy_evaluations'),
    };
    const reasonRows: { reason: string; n: number | string }[] = await db('report_policy_evaluations').groupBy('reason').select('reason').count({ n: '*' });
    const reasonsInModel = reasonRows.map((r) => `${thousands(Number(r.n))} ${r.reason}`).join(', ');
    progress(
      `initial refresh: ${initialSeconds.toFixed(1)} s (${thousands(initial.changesApplied)} changes, ${thousands(initial.images)} image refreshes, ${thousands(initial.vulnerabilities)} records); ` +
        `read model: ${thousands(readModel.images)} images, ${thousands(readModel.tags)} tags, ${thousands(readModel.findings)} findings, ${thousands(readModel.vulnerabilities)} vulnerabilities, ${thousands(readModel.evaluations)} evaluations (${reasonsInModel})`,
    );
    if (readModel.findings !== rowsWritten.findings || readModel.images !== rowsWritten.images || readModel.evaluations !== rowsWritten.evaluations)
      throw new Error('the read model does not hold what was generated');
    if (isPg(db)) await db.raw('ANALYZE'); // fresh statistics, as autovacuum would give a server that has been running

    // 4. The reports.
    const client = new Client(running.url, basic('admin', adminPassword));
    await client.gql('{ reportingStatus { pendingChanges } }', {});
    const results = new Map<string, { samples: Sample[]; runs: number }>();
    for (const spec of SPECS) {
      const runs = spec.headline ? opts.runs : opts.variantRuns;
      if (!runs) continue;
      for (let i = 0; i < (spec.headline ? opts.warmup : Math.min(opts.warmup, 1)); i++) await walk(client, spec, opts.pages);
      const budgetEnd = performance.now() + opts.reportBudget * 1000;
      let done = 0;
      const samples = await profiled(spec.key, async () => {
        const out: Sample[] = [];
        for (let i = 0; i < runs && (i === 0 || performance.now() < budgetEnd); i++) {
          const run = await walk(client, spec, opts.pages);
          out.push(...run);
          done++;
          if (run.some((x) => x.ms > 2000)) progress(`  ${spec.field} run ${i + 1}: ${run.map((x) => `${ms(x.ms)} ms`).join(', ')}`);
        }
        return out;
      });
      if (done < runs) progress(`  ${spec.field}: ${done} of ${runs} runs within the ${opts.reportBudget} s budget`);
      results.set(spec.key, { samples, runs: done });
      const first = samples.filter((s) => s.page === 1);
      progress(
        `${spec.label}: p50 ${ms(percentile(samples.map((s) => s.ms), 50))} ms, p99 ${ms(percentile(samples.map((s) => s.ms), 99))} ms over ${samples.length} pages ` +
          `(first page p50 ${ms(percentile(first.map((s) => s.ms), 50))} ms; ${first[0]!.shape.rows} rows, ${thousands(first[0]!.shape.nested)} nested, ${thousands(first[0]!.shape.tags)} tags, ${thousands(first[0]!.bytes / 1024)} KiB)`,
      );
    }
    const missedQueries = SPECS.filter((s) => s.headline && percentile(results.get(s.key)!.samples.map((x) => x.ms), 50) >= opts.targetP50);

    // Where a page's time goes: its SQL, captured for one request of each report (first page).
    const sqlReports: string[] = [];
    const sqlRows: string[][] = [];
    for (const spec of SPECS.filter((s) => s.headline || opts.explain)) {
      if (!results.has(spec.key)) continue;
      const { result, statements } = await captureSql(db, () => client.gql(spec.query, { filter: spec.filter, limit: PAGE_LIMIT, nextToken: null }));
      const sqlMs = statements.reduce((n, s) => n + s.ms, 0);
      const shapes = summarizeStatements(statements);
      sqlRows.push([spec.label, ms(result.ms), String(statements.length), ms(sqlMs), `${((sqlMs / result.ms) * 100).toFixed(0)} %`, `${ms(shapes[0]!.ms)} (${shapes[0]!.count}x)`]);
      let text = `--- ${spec.label}: one first page, ${ms(result.ms)} ms; ${statements.length} statements, ${ms(sqlMs)} ms of SQL\n`;
      for (const s of shapes.slice(0, 5)) text += `  ${ms(s.ms).padStart(8)} ms  ${String(s.count).padStart(4)}x  ${s.shape.length > 600 ? `${s.shape.slice(0, 600)} …` : s.shape}\n`;
      if (opts.explain || missedQueries.includes(spec))
        for (const s of shapes.slice(0, 3)) text += `plan of the ${ms(s.ms)} ms shape (first instance, ${ms(s.first.ms)} ms):\n${await explain(db, s.first)}\n`;
      sqlReports.push(text);
    }
    for (const t of sqlReports) console.log(t);

    // 5. Lag after one new analysis, the periodic refresh job on its normal interval.
    holdPeriodicRefresh = false;
    const refreshLog: { start: number; end: number; outcome: RefreshOutcome }[] = [];
    const original = refresher.refreshNow.bind(refresher);
    refresher.refreshNow = () => {
      const start = performance.now();
      return original().then((outcome) => {
        if (outcome.changesApplied) refreshLog.push({ start, end: performance.now(), outcome });
        return outcome;
      });
    };
    const lagRecord = gen.recordOfRank(50);
    const lagSource = sources[lagRecord.source]!;
    const expectedFindings = records.filter((r) => r.source === lagRecord.source).length;
    const lagRuns: LagRun[] = [];
    for (let n = 0; n < opts.lagRuns; n++) {
      const image = await buildImage({
        layers: [
          [
            { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
            { path: 'var/lib/dpkg/status', content: dpkgStatus([{ name: 'base-files', version: '12.4+deb12u5' }, { name: lagSource.name, version: installedVersion(lagSource, 0) }]) },
            { path: `etc/bench-run`, content: `${opts.seed} ${n} ${Date.now()}\n` },
          ],
        ],
      });
      const tag = `registry.example.com/bench/lag-probe:run-${n + 1}`;
      const archive = await dockerArchiveTar(image, { repoTags: [tag] });
      let finishedAt = 0;
      const finished = new Promise<void>((resolveFinished, reject) => {
        const timer = setTimeout(() => {
          services.worker.off('finished', onFinished);
          reject(new Error(`the analysis did not finish within ${opts.lagTimeout} s`));
        }, opts.lagTimeout * 1000);
        const onFinished = (f: JobFinished) => {
          if (f.kind !== 'analyze_image') return;
          finishedAt = performance.now();
          clearTimeout(timer);
          services.worker.off('finished', onFinished);
          if (f.status !== 'done') reject(new Error(`the analysis job ended ${f.status}: ${f.error ?? ''}`));
          else resolveFinished();
        };
        services.worker.on('finished', onFinished);
      });
      refreshLog.length = 0;
      const uploadedAt = performance.now();
      const digest = await client.uploadArchive(tag, archive);
      await finished;
      const stored = await findImage(db, ACCOUNT, digest);
      if (stored?.analysis_status !== 'analyzed') throw new Error(`the lag image ended ${stored?.analysis_status}`);
      const findingCount = Number((await db('image_vulnerabilities').where({ account_name: ACCOUNT, image_digest: digest }).count({ n: '*' }))[0]!.n);
      const analyzedEpoch = Date.parse(stored.analyzed_at!);
      // Poll until the image shows up in the report.
      let polls = 0;
      let seenAt = 0;
      let seenEpoch = 0;
      const deadline = performance.now() + opts.lagTimeout * 1000;
      while (performance.now() < deadline) {
        polls++;
        const res = await client.gql(`query($d: String) { imagesByVulnerability(filter: {image: {digest: $d}}, limit: 10) { results { vulnerabilityId images { digest } } } }`, { d: digest });
        if (res.body.data.imagesByVulnerability.results.some((r: any) => r.images.some((i: any) => i.digest === digest))) {
          seenAt = performance.now();
          seenEpoch = Date.now();
          break;
        }
        await sleep(POLL_MS);
      }
      if (!seenAt) throw new Error(`the new image did not appear in imagesByVulnerability within ${opts.lagTimeout} s of its analysis`);
      const run: LagRun = {
        digest,
        findings: findingCount,
        analysisMs: finishedAt - uploadedAt,
        lagMs: seenAt - finishedAt,
        lagFromAnalyzedMs: seenEpoch - analyzedEpoch,
        polls,
        refreshes: refreshLog.filter((x) => x.start <= seenAt).map((x) => `${((x.start - finishedAt) / 1000).toFixed(2)} s +${ms(x.end - x.start)} ms (${x.outcome.changesApplied} changes)`),
      };
      lagRuns.push(run);
      progress(
        `lag run ${n + 1}: ${digest.slice(0, 19)}… with ${findingCount} findings (${expectedFindings} expected from ${lagSource.name}), analysis ${ms(run.analysisMs)} ms; ` +
          `visible ${ms(run.lagMs)} ms after 'finished' (${ms(run.lagFromAnalyzedMs)} ms after analyzed_at), ${polls} polls; refreshes (start after finished, duration): ${run.refreshes.join('; ') || 'none'}`,
      );
      if (findingCount === 0) throw new Error('the lag image got no findings; the generated feed does not match it');
      await sleep(int(rng(hash32(opts.seed, 91, n)), 200, 1800)); // a different phase of the refresh timer next time
    }
    refresher.refreshNow = original;

    // Report.
    const lagMax = lagRuns.length ? Math.max(...lagRuns.map((r) => r.lagMs)) : NaN;
    const missed: string[] = [];
    const headlineRows: string[][] = [
      ['Initial refresh: the read model built from the change log', `${initialSeconds.toFixed(1)} s`, '', '', ''],
    ];
    for (const spec of SPECS) {
      const r = results.get(spec.key);
      if (!r) continue;
      const xs = r.samples.map((s) => s.ms);
      const p50 = percentile(xs, 50);
      const ok = p50 < opts.targetP50;
      if (spec.headline && !ok) missed.push(`${spec.field} p50 ${ms(p50)} ms (target < ${opts.targetP50} ms)`);
      headlineRows.push([
        `${spec.label} (limit ${PAGE_LIMIT}; ${r.samples.length} pages)`,
        `${ms(p50)} ms`,
        `${ms(percentile(xs, 99))} ms`,
        spec.headline ? `p50 < ${opts.targetP50} ms` : '',
        spec.headline ? (ok ? 'yes' : '**no**') : '',
      ]);
    }
    if (lagRuns.length) {
      const ok = lagMax < opts.targetLag * 1000;
      if (!ok) missed.push(`refresh lag ${(lagMax / 1000).toFixed(2)} s (target < ${opts.targetLag} s)`);
      headlineRows.push([
        `Refresh lag after one new analysis (worker 'finished' to visible; ${lagRuns.length} runs: ${lagRuns.map((r) => (r.lagMs / 1000).toFixed(2)).join(', ')} s)`,
        `${(percentile(lagRuns.map((r) => r.lagMs), 50) / 1000).toFixed(2)} s`,
        `max ${(lagMax / 1000).toFixed(2)} s`,
        `< ${opts.targetLag} s`,
        ok ? 'yes' : '**no**',
      ]);
    }
    const headline = table(['Figure', 'p50', 'p99', 'Target', 'Met'], headlineRows, [false, true, true, false, false]);

    const pageRows: string[][] = [];
    for (const spec of SPECS) {
      const r = results.get(spec.key);
      if (!r) continue;
      for (let page = 1; page <= opts.pages; page++) {
        const ps = r.samples.filter((s) => s.page === page);
        if (!ps.length) continue;
        const s = ps[0]!;
        pageRows.push([spec.field + (spec.headline ? '' : ' (every field)'), String(page), ms(percentile(ps.map((x) => x.ms), 50)), ms(percentile(ps.map((x) => x.ms), 99)), String(s.shape.rows), thousands(s.shape.nested), thousands(s.shape.tags), thousands(s.bytes / 1024)]);
      }
    }
    const pages = table(['Report', 'Page', 'p50 ms', 'p99 ms', 'Rows', 'Nested items', 'Tag mappings', 'KiB'], pageRows, [false, true, true, true, true, true, true, true]);
    const sql = table(['Report (one first page)', 'ms', 'SQL statements', 'SQL ms', 'SQL share', 'Costliest shape ms'], sqlRows, [false, true, true, true, true, true]);
    const facts = [
      ...dataFacts,
      `database: ${scratch.describe}; generated in ${generateSeconds.toFixed(1)} s, ${thousands(pending)} changes logged`,
      `initial refresh: ${thousands(initial.changesApplied)} changes applied, ${thousands(initial.images)} image refreshes, ${thousands(initial.vulnerabilities)} records; read model ${thousands(readModel.findings)} findings, ${thousands(readModel.tags)} tags, ${thousands(readModel.evaluations)} evaluations (reasons: ${reasonsInModel})`,
      ...lagRuns.map((r, i) => `lag run ${i + 1}: ${r.findings} findings, analysis ${ms(r.analysisMs)} ms, visible ${ms(r.lagMs)} ms after 'finished' / ${ms(r.lagFromAnalyzedMs)} ms after analyzed_at; refreshes: ${r.refreshes.join('; ') || 'none'}`),
      `load average at the end: ${loadAverage()}`,
    ];
    console.log(`\n${headline.text}\n\n${pages.text}\n\n${sql.text}\n\n${facts.join('\n')}\n`);
    console.log(`markdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}${opts.pg ? ', PostgreSQL' : ''}):\n`);
    console.log(`${headline.markdown}\n\n${pages.markdown}\n\n${sql.markdown}\n`);
    if (profileSummaries.length) console.log(`${profileSummaries.join('\n\n')}\n\n(timings above were taken under the profiler)`);
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
    console.error(`bench:reports failed: ${text.length > 4000 ? `${text.slice(0, 2000)} [...] ${text.slice(-2000)}` : text}`);
    process.exit(2);
  },
);
