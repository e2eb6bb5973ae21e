/**
 * `npm run bench:analysis`: how long Vigil takes to analyze a real image, against the floor of just reading its
 * layers, and how much memory the server needs for it.
 *
 * Builds (or takes from the cache) a Debian bookworm root filesystem with mmdebstrap — about 200 packages with
 * Python, Ruby, Node.js and Java content — and makes it a single-layer gzip OCI image (scripts/build-debian-image.ts),
 * pushes it to a local docker-registry, starts a real Vigil server as a child process (SQLite in a fresh temp dir,
 * production settings, log level warn) and, --runs times, adds the image by tag (POST /v2/images, then
 * POST /v2/images?force=true to analyze it again) and measures the time from the POST to `analyzed`. Interleaved
 * with the runs it measures the floor: `gzip -dc <layer blob> | tar -t >/dev/null` on the same blob file the
 * registry serves (wall time). Reports per run and as medians: analysis time, floor, their ratio
 * (target <= --target-ratio, default 1.5) and the server's peak RSS (VmHWM from /proc/PID/status at the end,
 * plus the highest VmRSS sampled every 50 ms during the analyses; target < --target-rss-mb, default 300 MB), and
 * the ownership step's time per analysis (reducing the OS packages' file lists to the language packages they own,
 * and assigning owners: `ownership_ms` of each user.image.analysis.completed event) with its share of the analysis.
 * Prints a table and a markdown copy for docs/benchmarks.md; exits 1 when a target is missed (after printing),
 * 2 on errors. The server is stopped with SIGTERM at the end, on failure and on Ctrl-C.
 *
 * Needs root (mmdebstrap) for the first build, docker-registry, gzip and tar.
 *
 * Options (flag, or environment variable; flags win):
 *   --runs N            BENCH_RUNS            analyses (and floor measurements) to run           (default 5)
 *   --target-ratio R    BENCH_TARGET_RATIO    maximum median analysis/floor ratio                 (default 1.5)
 *   --target-rss-mb M   BENCH_TARGET_RSS_MB   maximum server peak RSS in MB (10^6 bytes)          (default 300)
 *   --include a,b,c     BENCH_INCLUDE         packages for mmdebstrap --include (default: see DEFAULT_INCLUDE)
 *   --server MODE       BENCH_SERVER          dist: `npm run build` then `node dist/src/main.js` (default);
 *                                             tsx: `node --import tsx src/main.ts` (no build)
 *   --skip-build                              with --server dist, use the existing dist/ as is
 *   --cpu-prof DIR                            run the server under `node --cpu-prof --cpu-prof-dir=DIR` and print
 *                                             its hottest functions (self time) at the end
 *   --keep-data                               leave the temp data dir in place (its path is printed)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startRegistry, type TestRegistry } from '../test/support/registry.js';
import { buildDebianRootfs, dpkgQuery, imageFromRootfs, mib, pushDebianImage } from './build-debian-image.js';
import { basic, build, call, cpuSeconds, loadAverage, machine, median, ROOT, startServerChild, stopChild, table, verdict, waitReady, type Child } from './bench-support.js';


/**
 * About 200 packages: `--variant=apt` (~100) plus Python (python3, requests, yaml, jinja2: egg-info/dist-info metadata),
 * Ruby (ruby with its default gems, ruby-rack), Node.js (nodejs and two node-* modules with package.json files) and
 * Java (a headless JRE and a few libraries shipping jars in /usr/share/java).
 */
const DEFAULT_INCLUDE = [
  'python3',
  'python3-requests',
  'python3-yaml',
  'python3-jinja2',
  'ruby',
  'ruby-rack',
  'nodejs',
  'node-semver',
  'node-debug',
  'default-jre-headless',
  'libcommons-lang3-java',
  'libcommons-io-java',
  'libguava-java',
  'libjackson2-databind-java',
];

// ---------------------------------------------------------------------------------------------------------
// Options

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string' },
    'target-ratio': { type: 'string' },
    'target-rss-mb': { type: 'string' },
    include: { type: 'string' },
    server: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
  },
  strict: true,
});

function numberOption(flag: string | undefined, envName: string, name: string, fallback: number, min: number): number {
  const raw = flag ?? process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${envName} / --${name}: expected a number >= ${min}, got "${raw}"`);
  return n;
}

const includeRaw = flags.include ?? process.env.BENCH_INCLUDE;
const opts = {
  runs: Math.floor(numberOption(flags.runs, 'BENCH_RUNS', 'runs', 5, 1)),
  targetRatio: numberOption(flags['target-ratio'], 'BENCH_TARGET_RATIO', 'target-ratio', 1.5, 0),
  targetRssMb: numberOption(flags['target-rss-mb'], 'BENCH_TARGET_RSS_MB', 'target-rss-mb', 300, 1),
  include: includeRaw ? includeRaw.split(',').map((s) => s.trim()).filter(Boolean) : DEFAULT_INCLUDE,
  server: (flags.server ?? process.env.BENCH_SERVER ?? 'dist') as 'dist' | 'tsx',
  skipBuild: flags['skip-build'] ?? false,
  cpuProfDir: flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null,
  keepData: flags['keep-data'] ?? false,
};

/** The server under test, as a child process (scripts/bench-support.ts). */
const startChild = (): Promise<Child> =>
  startServerChild({
    server: opts.server,
    cpuProfDir: opts.cpuProfDir,
    dataDirPrefix: 'vigil-bench-analysis-',
    log: progress,
    // the benchmark's registry listens on loopback, which registry traffic may reach only when allowed
    env: { VIGIL_REGISTRY_ALLOW: '127.0.0.1' },
  });
if (opts.server !== 'dist' && opts.server !== 'tsx') throw new Error(`--server: expected dist or tsx, got "${opts.server}"`);

const ANALYSIS_TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 250;
const REPOSITORY = 'bench/debian';
const TAG = 'analysis';

const t0 = Date.now();
const progress = (m: string) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);

// ---------------------------------------------------------------------------------------------------------
// Machine



// ---------------------------------------------------------------------------------------------------------
// The server under test







/** A field of /proc/PID/status in kB (VmRSS, VmHWM), or NaN. */
function procStatusKb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}


// ---------------------------------------------------------------------------------------------------------
// API calls



interface AnalysisRun {
  /** POST /v2/images to `analyzed`, in seconds: the server's analyzed_at minus the client's POST start (same host clock). */
  seconds: number;
  /** The same, as observed by polling every POLL_MS (an upper bound; polling is kept sparse so it costs the server little). */
  observedSeconds: number;
  /** Server CPU seconds (user + system, all threads) over the run. */
  cpuSeconds: number;
  /** Highest VmRSS sampled during the run, kB. */
  peakRssKb: number;
}

async function analyzeOnce(child: Child, pullString: string, digest: string, force: boolean): Promise<AnalysisRun> {
  const auth = basic('admin', child.adminPassword);
  const pid = child.proc.pid;
  let peakRssKb = procStatusKb(pid, 'VmRSS');
  const sampler = setInterval(() => {
    const rss = procStatusKb(pid, 'VmRSS');
    if (rss > peakRssKb) peakRssKb = rss;
  }, 50);
  const cpuBefore = cpuSeconds(pid);
  const started = Date.now();
  try {
    const added = await call(`${child.url}/v2/images${force ? '?force=true' : ''}`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ source: { tag: { pull_string: pullString } } }),
      expect: 200,
    });
    if (added.image_digest !== digest) throw new Error(`POST /v2/images answered digest ${added.image_digest}, expected ${digest}`);
    const deadline = started + ANALYSIS_TIMEOUT_MS;
    for (;;) {
      const img = await call(`${child.url}/v2/images/${digest}`, { headers: { Authorization: auth }, expect: 200 });
      const record = Array.isArray(img) ? img[0] : img;
      if (record.analysis_status === 'analyzed' && record.analyzed_at && Date.parse(record.analyzed_at) >= started) {
        const observed = (Date.now() - started) / 1000;
        const server = (Date.parse(record.analyzed_at) - started) / 1000;
        return {
          seconds: Math.min(Math.max(server, 0), observed),
          observedSeconds: observed,
          cpuSeconds: cpuSeconds(pid) - cpuBefore,
          peakRssKb,
        };
      }
      if (record.analysis_status === 'analysis_failed') {
        const detail = (record.analysis_status_detail ?? []).at(-1)?.detail;
        throw new Error(`the analysis failed: ${detail ?? '(no detail)'}\n${child.output()}`);
      }
      if (Date.now() > deadline) throw new Error(`no analysis result within ${ANALYSIS_TIMEOUT_MS / 1000} s (status ${record.analysis_status})`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    clearInterval(sampler);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The floor

/** Wall time of `gzip -dc BLOB | tar -t >/dev/null` over all layer blobs, in seconds. */
function floorOnce(blobPaths: string[]): number {
  const started = process.hrtime.bigint();
  for (const blob of blobPaths) {
    const r = spawnSync('bash', ['-c', 'set -o pipefail; gzip -dc -- "$1" | tar -t >/dev/null', 'floor', blob], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`gzip -dc ${blob} | tar -t failed (${r.status ?? r.signal}): ${r.stderr}`);
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

// ---------------------------------------------------------------------------------------------------------
// CPU profile summary

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The functions with the most self time in the newest profile in `dir`, and the share per source file. */
function summarizeProfile(dir: string, top = 25): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!files.length) return `no .cpuprofile in ${dir}`;
  const profile = JSON.parse(readFileSync(files[0], 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const where = f.url ? f.url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '') : '(native)';
    const name = `${f.functionName || '(anonymous)'}  ${where}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const group = where.includes('node_modules/') ? where.replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+).*$/, 'node_modules/$1') : where;
    file.set(group, (file.get(group) ?? 0) + us);
  }
  // Inclusive (self + callees) time of the project's own functions, synchronous stretches only (awaits split them).
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (!f.url.includes(`${ROOT}/src/`) && !f.url.includes(`${ROOT}/dist/src/`)) continue;
      const name = `${f.functionName || '(anonymous)'}  ${f.url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${f.lineNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  const fmt = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1e6).toFixed(2).padStart(7)} s  ${k}`)
      .join('\n');
  return `profile ${files[0]} (${(total / 1e6).toFixed(1)} s sampled)\nself time by function:\n${fmt(fn, top)}\nself time by file / package:\n${fmt(file, 15)}\n` +
    `inclusive time of src/ functions (synchronous stretches):\n${fmt(inclusive, top)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Report



const mb = (kb: number) => (kb * 1024) / 1e6;

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const m = machine();
  const command = `npm run bench:analysis -- --runs ${opts.runs} --server ${opts.server}${includeRaw ? ` --include ${opts.include.join(',')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM (MemTotal ${m.memKb} kB), Node ${m.node}, ${m.os}`);
  console.log(`targets: analysis <= ${opts.targetRatio} x floor (median over ${opts.runs} run(s)); server peak RSS < ${opts.targetRssMb} MB`);

  // 1. The image.
  const rootfs = await buildDebianRootfs({ suite: 'bookworm', variant: 'apt', include: opts.include, log: progress });
  const image = await imageFromRootfs(rootfs, { compression: 'gzip', log: progress });
  const dpkg = dpkgQuery(rootfs.tarPath).filter((p) => p.status === 'installed');
  const tarBytes = statSync(rootfs.tarPath).size;
  progress(`image: ${dpkg.length} dpkg packages, 1 gzip layer of ${mib(image.layers[0].size)} (${mib(tarBytes)} uncompressed), manifest ${image.manifestDigest}`);

  if (opts.server === 'dist' && !opts.skipBuild) build(progress);

  let registry: TestRegistry | undefined;
  let child: Child | undefined;
  const cleanUp = async () => {
    if (child) await stopChild(child);
    await registry?.close();
    if (child) {
      if (opts.keepData) console.log(`data dir kept: ${child.dataDir}`);
      else rmSync(child.dataDir, { recursive: true, force: true });
    }
  };
  const onSignal = () => {
    console.error('interrupted; stopping the server and the registry');
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // 2. The registry, the image in it, the server.
    registry = await startRegistry();
    await pushDebianImage(registry.url, REPOSITORY, TAG, image);
    const blobPaths = image.layers.map((l) => registry!.blobDataPath(l.digest));
    for (const p of blobPaths) if (!existsSync(p)) throw new Error(`pushed blob not found in the registry storage: ${p}`);
    progress(`pushed ${registry.host}/${REPOSITORY}:${TAG}`);
    child = await startChild();
    await waitReady(child);
    const idleRssKb = procStatusKb(child.proc.pid, 'VmRSS');
    progress(`server ready, RSS ${mb(idleRssKb).toFixed(1)} MB`);

    // 3. Runs: the floor, then an analysis, alternately.
    const loadBefore = loadAverage();
    const pull = `${registry.host}/${REPOSITORY}:${TAG}`;
    const floors: number[] = [];
    const runs: AnalysisRun[] = [];
    for (let i = 1; i <= opts.runs; i++) {
      const floor = floorOnce(blobPaths);
      floors.push(floor);
      const run = await analyzeOnce(child, pull, image.manifestDigest, i > 1);
      runs.push(run);
      progress(
        `run ${i}: floor ${floor.toFixed(2)} s, analysis ${run.seconds.toFixed(2)} s (observed ${run.observedSeconds.toFixed(2)} s), ` +
          `${(run.seconds / floor).toFixed(2)} x floor, server CPU ${run.cpuSeconds.toFixed(2)} s, peak RSS during run ${mb(run.peakRssKb).toFixed(1)} MB`,
      );
    }
    const hwmKb = procStatusKb(child.proc.pid, 'VmHWM');
    const loadAfter = loadAverage();

    // The ownership step's time, as each analysis recorded it in its completion event (newest first).
    const events = await call(
      `${child.url}/v2/events?event_type=user.image.analysis.completed&resource_id=${encodeURIComponent(image.manifestDigest)}&limit=${opts.runs}`,
      { headers: { Authorization: basic('admin', child.adminPassword) }, expect: 200 },
    );
    const ownershipMs: number[] = (events.results ?? []).map((r: { event: { details?: { ownership_ms?: unknown } } }) => Number(r.event.details?.ownership_ms)).reverse();
    if (ownershipMs.length !== runs.length || ownershipMs.some((ms) => !Number.isFinite(ms)))
      throw new Error(`expected ownership_ms in ${runs.length} analysis events, got ${JSON.stringify(ownershipMs)}`);

    // What the analysis found, to show the image has content of every kind.
    const auth = basic('admin', child.adminPassword);
    const summary = await call(`${child.url}/v2/images/${image.manifestDigest}/content-summary`, { headers: { Authorization: auth }, expect: 200 });
    const counts = Object.fromEntries((summary.items ?? []).map((it: { content_type: string; count: number }) => [it.content_type, it.count]));
    progress(`content found: ${JSON.stringify(counts)}`);

    await stopChild(child);

    // 4. Report.
    const ratios = runs.map((r, i) => r.seconds / floors[i]);
    const medRatio = median(ratios);
    const peakKb = Math.max(hwmKb, ...runs.map((r) => r.peakRssKb));
    const rows = runs.map((r, i) => [
      String(i + 1),
      i === 0 ? 'first add' : 'force re-analysis',
      r.seconds.toFixed(2),
      floors[i].toFixed(2),
      `${ratios[i].toFixed(2)} x`,
      r.cpuSeconds.toFixed(2),
      mb(r.peakRssKb).toFixed(0),
      ownershipMs[i].toFixed(1),
    ]);
    rows.push([
      'median',
      '',
      median(runs.map((r) => r.seconds)).toFixed(2),
      median(floors).toFixed(2),
      `${medRatio.toFixed(2)} x`,
      median(runs.map((r) => r.cpuSeconds)).toFixed(2),
      mb(median(runs.map((r) => r.peakRssKb))).toFixed(0),
      median(ownershipMs).toFixed(1),
    ]);
    const t = table(
      ['Run', 'Kind', 'Analysis s', 'Floor s', 'Analysis / floor', 'Server CPU s', 'Peak RSS in run MB', 'Ownership step ms'],
      rows,
      [false, false, true, true, true, true, true, true],
    );
    const ownershipShare = median(ownershipMs.map((ms, i) => ms / 1000 / runs[i].seconds));
    const ratioOk = medRatio <= opts.targetRatio;
    const rssOk = mb(peakKb) < opts.targetRssMb;
    const headline = table(
      ['Figure', 'Value', 'Target', 'Met'],
      [
        ['Analysis time (median)', `${median(runs.map((r) => r.seconds)).toFixed(2)} s`, '', ''],
        ['Floor: gzip -dc | tar -t (median)', `${median(floors).toFixed(2)} s`, '', ''],
        ['Analysis / floor (median)', `${medRatio.toFixed(2)} x`, `<= ${opts.targetRatio} x`, ratioOk ? 'yes' : '**no**'],
        ['Server peak RSS (VmHWM)', `${mb(peakKb).toFixed(0)} MB`, `< ${opts.targetRssMb} MB`, rssOk ? 'yes' : '**no**'],
        ['Server RSS when idle, before the runs', `${mb(idleRssKb).toFixed(0)} MB`, '', ''],
        ['Ownership step (median; share of the analysis)', `${median(ownershipMs).toFixed(1)} ms; ${(ownershipShare * 100).toFixed(2)} %`, '', ''],
      ],
      [false, true, false, false],
    );
    console.log(`\n${t.text}\n\n${headline.text}\n`);
    console.log(
      `image: ${dpkg.length} dpkg packages; content found ${JSON.stringify(counts)}; 1 gzip layer ${mib(image.layers[0].size)}, ${mib(tarBytes)} tar`,
    );
    console.log(`load average before/after: ${loadBefore} / ${loadAfter}`);
    console.log(`\nmarkdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}):\n`);
    console.log(`${headline.markdown}\n\n${t.markdown}\n`);
    if (opts.cpuProfDir) console.log(summarizeProfile(opts.cpuProfDir));
    const missed = [
      ...(ratioOk ? [] : [`analysis takes ${medRatio.toFixed(2)} x the floor (target <= ${opts.targetRatio} x)`]),
      ...(rssOk ? [] : [`server peak RSS ${mb(peakKb).toFixed(0)} MB (target < ${opts.targetRssMb} MB)`]),
    ];
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
    console.error(`bench:analysis failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(2);
  },
);
