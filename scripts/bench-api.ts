/**
 * `npm run bench:api`: throughput of the authenticated request path against an unauthenticated baseline.
 *
 * Starts a real Vigil server as a child process (SQLite in a fresh temp dir, production argon2 cost, log level
 * warn), creates an ordinary account with read-only users (one per round), each with an API key and a bearer
 * token, then drives GET /v2/health (no auth) and GET /v2/account with Basic, API key and Bearer with autocannon,
 * one route after another with the same settings, for --rounds interleaved rounds. Every response must be 2xx
 * (anything else aborts the run, exit 2). Prints per-round lines and a summary table (plus a markdown copy for
 * docs/benchmarks.md): median req/s, p50/p99 latency over all responses, the median of the per-round ratios
 * authenticated req/s / health req/s, and the server's CPU time per response. Exits 1 when a ratio is below
 * --target; the server is stopped with SIGTERM at the end, on failure and on Ctrl-C.
 *
 * Options (flag, or environment variable; flags win):
 *   --connections N   BENCH_CONNECTIONS   concurrent connections            (default 32)
 *   --duration S      BENCH_DURATION      seconds measured per route        (default 10)
 *   --warmup S        BENCH_WARMUP        seconds of warm-up per route      (default 3)
 *   --pipelining N    BENCH_PIPELINING    requests in flight per connection (default 1)
 *   --rounds N        BENCH_ROUNDS        measure all four routes N times, interleaved; report medians (default 3)
 *   --target R        BENCH_TARGET        minimum authenticated/health req/s ratio (default 0.5)
 *   --server MODE     BENCH_SERVER        dist: `npm run build` then `node dist/src/main.js` (default);
 *                                         tsx: `node --import tsx src/main.ts` (no build)
 *   --skip-build                          with --server dist, use the existing dist/ as is
 *   --cpu-prof DIR                        run the server under `node --cpu-prof --cpu-prof-dir=DIR`
 *   --keep-data                           leave the temp data dir in place (its path is printed)
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { basic, build, call, cpuSeconds, loadAverage, machine, median, startServerChild, stopChild, waitReady, type Child } from './bench-support.js';

// ---------------------------------------------------------------------------------------------------------
// autocannon ships no type declarations; this is the part of its programmatic API the script uses.

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
  headers?: Record<string, string>;
  timeout?: number;
}
interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  requests: { mean: number; total: number; sent: number };
  latency: { p50: number; p99: number; mean: number };
  duration: number;
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): void;
  stop(): void;
}
type Autocannon = (opts: AutocannonOptions, cb: (err: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

// ---------------------------------------------------------------------------------------------------------
// Options


const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    pipelining: { type: 'string' },
    rounds: { type: 'string' },
    target: { type: 'string' },
    server: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
  },
  strict: true,
});

function numberOption(flag: string | undefined, envName: string, fallback: number, min: number): number {
  const raw = flag ?? process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${envName} / --${envName.slice(6).toLowerCase()}: expected a number >= ${min}, got "${raw}"`);
  return n;
}

const opts = {
  connections: Math.floor(numberOption(flags.connections, 'BENCH_CONNECTIONS', 32, 1)),
  duration: numberOption(flags.duration, 'BENCH_DURATION', 10, 1),
  warmup: numberOption(flags.warmup, 'BENCH_WARMUP', 3, 0),
  pipelining: Math.floor(numberOption(flags.pipelining, 'BENCH_PIPELINING', 1, 1)),
  rounds: Math.floor(numberOption(flags.rounds, 'BENCH_ROUNDS', 3, 1)),
  target: numberOption(flags.target, 'BENCH_TARGET', 0.5, 0),
  server: (flags.server ?? process.env.BENCH_SERVER ?? 'dist') as 'dist' | 'tsx',
  skipBuild: flags['skip-build'] ?? false,
  cpuProfDir: flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null,
  keepData: flags['keep-data'] ?? false,
};

/** The server under test, as a child process (scripts/bench-support.ts). */
const startChild = (): Promise<Child> =>
  startServerChild({ server: opts.server, cpuProfDir: opts.cpuProfDir, dataDirPrefix: 'vigil-bench-', log: (m) => console.log(`> ${m}`) });
if (opts.server !== 'dist' && opts.server !== 'tsx') throw new Error(`--server: expected dist or tsx, got "${opts.server}"`);

/** Default of VIGIL_PASSWORD_CACHE_SECONDS; a Basic run longer than this re-hashes mid-run. */
const PASSWORD_CACHE_SECONDS = 60;

// ---------------------------------------------------------------------------------------------------------
// Machine description, printed with the results so the doc can quote it.


// ---------------------------------------------------------------------------------------------------------
// The server under test







// ---------------------------------------------------------------------------------------------------------
// Credentials



interface Credentials {
  account: string;
  username: string;
  basic: string;
  apiKey: string;
  bearer: string;
}

const ACCOUNT = 'bench';

/**
 * A read-only user of the bench account with an API key and a bearer token. Each round gets its own user, so
 * the server's password-verification cache entry (VIGIL_PASSWORD_CACHE_SECONDS, default 60 s, not refreshed
 * on hits) is filled by that round's warm-up and cannot expire inside a later round's measurement.
 */
async function setUp(child: Child, username: string): Promise<Credentials> {
  const v2 = `${child.url}/v2`;
  const admin = basic('admin', child.adminPassword);
  const json = (auth: string) => ({ Authorization: auth, 'Content-Type': 'application/json' });
  const account = ACCOUNT;
  const password = randomBytes(18).toString('base64url');

  await call(`${v2}/accounts/${account}/users`, { method: 'POST', headers: json(admin), body: JSON.stringify({ username, password }), expect: 200 });
  await call(`${v2}/rbac-manager/roles/read-only/members`, {
    method: 'POST',
    headers: json(admin),
    body: JSON.stringify({ username, domain_name: account }),
    expect: 200,
  });

  const userBasic = basic(username, password);
  const key = await call(`${v2}/user/api-keys`, { method: 'POST', headers: json(userBasic), body: JSON.stringify({ name: 'bench' }), expect: 201 });
  if (typeof key?.value !== 'string') throw new Error(`POST /v2/user/api-keys answered no key value: ${JSON.stringify(key)}`);
  const token = await call(`${v2}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password, client_id: 'anonymous' }).toString(),
    expect: 200,
  });
  if (typeof token?.access_token !== 'string') throw new Error(`POST /v2/oauth/token answered no access_token: ${JSON.stringify(token)}`);

  const creds: Credentials = {
    account,
    username,
    basic: userBasic,
    apiKey: basic('_api_key', key.value),
    bearer: `Bearer ${token.access_token}`,
  };
  // Each credential must reach the benchmarked route as the read-only user, through RBAC, before any load.
  for (const [what, auth] of [['Basic', creds.basic], ['API key', creds.apiKey], ['Bearer', creds.bearer]] as const) {
    const body = await call(`${v2}/account`, { headers: { Authorization: auth }, expect: 200 });
    if (body?.name !== account) throw new Error(`GET /v2/account with ${what} answered account ${JSON.stringify(body?.name)}, expected '${account}'`);
  }
  return creds;
}

// ---------------------------------------------------------------------------------------------------------
// Load

interface Route {
  label: string;
  path: string;
  authorization?: string;
}

interface Run {
  reqPerSec: number;
  responses: number;
  /** Server process CPU time (user + system, all threads) per response, in microseconds; NaN where /proc is missing. */
  cpuUsPerReq: number;
  /** Per-response latency in ms of every 2xx response, unsorted. */
  latencies: number[];
}


async function load(url: string, route: Route, seconds: number, phase: string, serverPid?: number): Promise<Run> {
  const latencies: number[] = [];
  const cpuBefore = cpuSeconds(serverPid);
  const result = await new Promise<AutocannonResult>((res, rej) => {
    const instance = autocannon(
      {
        url: url + route.path,
        connections: opts.connections,
        duration: seconds,
        pipelining: opts.pipelining,
        timeout: 10,
        headers: route.authorization ? { authorization: route.authorization } : {},
      },
      (err, r) => (err ? rej(err) : res(r)),
    );
    // autocannon's own histogram has 1 ms resolution; keep the exact per-response times for p50/p99.
    instance.on('response', (_client, statusCode, _bytes, ms) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
    });
  });
  const completed = Object.values(result.statusCodeStats).reduce((n, s) => n + s.count, 0);
  if (result.errors || result.timeouts || result.non2xx || result['2xx'] === 0 || result['2xx'] !== completed) {
    throw new Error(
      `${route.label} GET ${route.path} (${phase}): not every response was 2xx: 2xx=${result['2xx']} non2xx=${result.non2xx} ` +
        `errors=${result.errors} timeouts=${result.timeouts} status codes=${JSON.stringify(result.statusCodeStats)}`,
    );
  }
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  // duration is the measured wall time in seconds, slightly above the requested one.
  return { reqPerSec: result['2xx'] / result.duration, responses: result['2xx'], cpuUsPerReq: (cpu / result['2xx']) * 1e6, latencies };
}

// ---------------------------------------------------------------------------------------------------------
// Report


function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

interface Summary {
  route: Route;
  /** Median over rounds of the mean req/s of each round. */
  reqPerSec: number;
  /** Median over rounds of (this route's req/s / health's req/s in the same round); 1 for health itself. */
  ratio: number;
  responses: number;
  p50: number;
  p99: number;
  /** Median over rounds of server CPU microseconds per response. */
  cpuUsPerReq: number;
}

function summarize(routes: Route[], rounds: Run[][]): Summary[] {
  return routes.map((route, i) => {
    const all = Float64Array.from(rounds.flatMap((r) => r[i].latencies)).sort();
    return {
      route,
      reqPerSec: median(rounds.map((r) => r[i].reqPerSec)),
      ratio: median(rounds.map((r) => r[i].reqPerSec / r[0].reqPerSec)),
      responses: rounds.reduce((n, r) => n + r[i].responses, 0),
      cpuUsPerReq: median(rounds.map((r) => r[i].cpuUsPerReq)),
      p50: percentile(all, 50),
      p99: percentile(all, 99),
    };
  });
}

function table(rows: Summary[]): { text: string; markdown: string } {
  const header = ['Route', 'Auth', 'req/s (mean)', 'p50 ms', 'p99 ms', 'vs health', 'server CPU µs/req'];
  const cells = rows.map((m) => [
    `GET ${m.route.path}`,
    m.route.label,
    m.reqPerSec.toFixed(0),
    m.p50.toFixed(2),
    m.p99.toFixed(2),
    m.route.authorization ? `${m.ratio.toFixed(2)} x` : '1.00 (baseline)',
    Number.isNaN(m.cpuUsPerReq) ? 'n/a' : m.cpuUsPerReq.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const right = [false, false, true, true, true, true, true];
  const fmt = (row: string[]) => row.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  const text = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(fmt)].join('\n');
  const markdown = [
    `| ${header.join(' | ')} |`,
    `| ${right.map((r) => (r ? '---:' : '---')).join(' | ')} |`,
    ...cells.map((c) => `| ${c.join(' | ')} |`),
  ].join('\n');
  return { text, markdown };
}


// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const m = machine();
  const command =
    `npm run bench:api -- --connections ${opts.connections} --duration ${opts.duration} --warmup ${opts.warmup} ` +
    `--pipelining ${opts.pipelining} --rounds ${opts.rounds} --server ${opts.server}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM, Node ${m.node}, ${m.os}`);
  console.log(
    `settings: ${opts.connections} connections, ${opts.duration} s per route after ${opts.warmup} s warm-up, pipelining ${opts.pipelining}, ` +
      `${opts.rounds} round(s), target >= ${opts.target} x health`,
  );
  if (opts.warmup + opts.duration >= PASSWORD_CACHE_SECONDS)
    console.warn(`note: warm-up + duration >= ${PASSWORD_CACHE_SECONDS} s (the default password cache lifetime): the Basic run will include full argon2 verifications`);

  if (opts.server === 'dist' && !opts.skipBuild) build((m) => console.log(`> ${m}`));
  const child = await startChild();
  const removeData = () => {
    if (opts.keepData) console.log(`data dir kept: ${child.dataDir}`);
    else rmSync(child.dataDir, { recursive: true, force: true });
  };
  const onSignal = () => {
    console.error('interrupted; stopping the server');
    void stopChild(child)
      .then(removeData)
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await waitReady(child);
    await call(`${child.url}/v2/accounts`, {
      method: 'POST',
      headers: { Authorization: basic('admin', child.adminPassword), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: ACCOUNT }),
      expect: 200,
    });
    const credsPerRound: Credentials[] = [];
    for (let round = 1; round <= opts.rounds; round++) credsPerRound.push(await setUp(child, `bench-reader-${round}`));
    console.log(
      `credentials: ${opts.rounds} user(s) bench-reader-N in account '${ACCOUNT}' with role read-only (one per round), each with an API key and a bearer token`,
    );
    const loadBefore = loadAverage();
    console.log(`load average before: ${loadBefore}\n`);

    const routesOf = (creds: Credentials): Route[] => [
      { label: 'none', path: '/v2/health' },
      { label: 'Basic (password)', path: '/v2/account', authorization: creds.basic },
      { label: 'API key', path: '/v2/account', authorization: creds.apiKey },
      { label: 'Bearer token', path: '/v2/account', authorization: creds.bearer },
    ];
    const routes = routesOf(credsPerRound[0]);
    const rounds: Run[][] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      const runs: Run[] = [];
      for (const route of routesOf(credsPerRound[round - 1])) {
        // Warm up right before measuring so JIT, the password cache and SQLite's page cache are hot for this route.
        if (opts.warmup > 0) await load(child.url, route, opts.warmup, `round ${round} warm-up`);
        const r = await load(child.url, route, opts.duration, `round ${round}`, child.proc.pid);
        const sorted = Float64Array.from(r.latencies).sort();
        console.log(
          `  round ${round}  ${route.label.padEnd(16)} GET ${route.path.padEnd(12)} ${r.reqPerSec.toFixed(0).padStart(6)} req/s  ` +
            `p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms  ` +
            `${(r.reqPerSec / (runs[0]?.reqPerSec ?? r.reqPerSec)).toFixed(2)} x health  ` +
            `server CPU ${r.cpuUsPerReq.toFixed(0)} µs/req  (${r.responses} responses, all 2xx)`,
        );
        runs.push(r);
      }
      rounds.push(runs);
    }
    const loadAfter = loadAverage();

    const summary = summarize(routes, rounds);
    const health = summary[0].reqPerSec;
    const { text, markdown } = table(summary);
    const missed = summary.filter((r) => r.route.authorization && r.ratio < opts.target);
    console.log(`\n${text}\n`);
    console.log(`load average before/after: ${loadBefore} / ${loadAfter}`);
    if (opts.rounds > 1) console.log('req/s and ratios are medians over rounds (ratios paired within a round); p50/p99 over all responses of all rounds');
    console.log(`\nmarkdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}):\n`);
    console.log(markdown + '\n');
    if (missed.length) {
      console.error(
        `TARGET MISSED: ${missed.map((r) => `${r.route.label} at ${r.ratio.toFixed(3)} x`).join(', ')} ` +
          `(target >= ${opts.target} x health's ${health.toFixed(0)} req/s)`,
      );
      return 1;
    }
    console.log(`target met: every authenticated route >= ${opts.target} x health's req/s`);
    return 0;
  } finally {
    await stopChild(child);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    removeData();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench:api failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
