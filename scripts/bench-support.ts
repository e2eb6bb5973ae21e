/**
 * What the benchmark scripts share: describing the machine, starting a real Vigil server as a child process on
 * loopback (production settings, nothing of the caller's VIGIL_* environment), waiting for it, stopping it
 * gracefully, reading its CPU and memory from /proc, a migrated scratch database for in-process benchmarks, and
 * small API and statistics helpers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import knex from 'knex';
import { createDb, migrateToLatest, type Db } from '../src/db/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The checkout, whether this runs from source (scripts/) or compiled (dist/scripts/, as bench:match runs). */
export const ROOT = resolve(HERE, basename(dirname(HERE)) === 'dist' ? '../..' : '..');
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export function machine(): { cpus: number; cpuModel: string; memGiB: string; memKb: string; node: string; os: string } {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  let memKb = 'n/a';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpuModel = m[1].trim();
    memKb = /^MemTotal:\s*(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 'n/a';
  } catch {
    /* not Linux: os.cpus() it is */
  }
  const nproc = spawnSync('nproc', { encoding: 'utf8' });
  return {
    cpus: nproc.status === 0 ? Number(nproc.stdout.trim()) : cpus().length,
    cpuModel,
    memGiB: (totalmem() / 1024 ** 3).toFixed(1),
    memKb,
    node: process.version,
    os: `${process.platform} ${process.arch}`,
  };
}

export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolvePort(port));
    });
  });
}

export interface Child {
  proc: ChildProcess;
  url: string;
  dataDir: string;
  adminPassword: string;
  output(): string;
  exited: Promise<number | null>;
}

export function build(log: (message: string) => void): void {
  log('npm run build');
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal})`);
}

export interface ServerOptions {
  /** dist: `node dist/src/main.js` (after build); tsx: `node --import tsx src/main.ts`. */
  server: 'dist' | 'tsx';
  cpuProfDir?: string | null;
  dataDirPrefix: string;
  log: (message: string) => void;
  /** VIGIL_* settings beyond the defaults, e.g. VIGIL_REGISTRY_ALLOW for a registry on loopback. */
  env?: Record<string, string>;
}

export async function startServerChild(o: ServerOptions): Promise<Child> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), o.dataDirPrefix));
  const adminPassword = randomBytes(18).toString('base64url');
  // Nothing from the caller's VIGIL_* environment leaks in: the server runs on defaults except for these.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIGIL_')));
  Object.assign(env, {
    NODE_ENV: 'production',
    VIGIL_HOST: '127.0.0.1',
    VIGIL_PORT: String(port),
    VIGIL_DATA_DIR: dataDir,
    VIGIL_ADMIN_PASSWORD: adminPassword,
    VIGIL_LOG_LEVEL: 'warn',
    ...o.env,
  });
  if (o.cpuProfDir) mkdirSync(o.cpuProfDir, { recursive: true });
  const nodeArgs = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
  const args = o.server === 'dist' ? [...nodeArgs, 'dist/src/main.js'] : [...nodeArgs, '--import', 'tsx', 'src/main.ts'];
  o.log(`node ${args.join(' ')}   (data dir ${dataDir}, port ${port})`);
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 64_000) out = out.slice(-32_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((res) => proc.once('exit', (code, signal) => res(code ?? (signal ? -1 : null))));
  return { proc, url: `http://127.0.0.1:${port}`, dataDir, adminPassword, output: () => out, exited };
}

export async function waitReady(child: Child): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exitedEarly = false;
  void child.exited.then(() => (exitedEarly = true));
  let last = '';
  while (Date.now() < deadline) {
    if (exitedEarly) throw new Error(`the server exited during start-up:\n${child.output()}`);
    try {
      const res = await fetch(`${child.url}/v2/health`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server was not ready within ${READY_TIMEOUT_MS / 1000} s (last: ${last}):\n${child.output()}`);
}

export async function stopChild(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => {
    console.error(`the server did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; sending SIGKILL`);
    child.proc.kill('SIGKILL');
  }, STOP_TIMEOUT_MS);
  const code = await child.exited;
  clearTimeout(timer);
  if (code !== 0) console.error(`the server exited with ${code} after SIGTERM:\n${child.output()}`);
}

const CLOCK_TICKS = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) || 100 : 100;
})();

/** CPU seconds (user + system, all threads) the process has used so far, from /proc/PID/stat; NaN off Linux. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 once pid and comm are cut off; in clock ticks.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A request that must answer `expect`; the parsed JSON body (or undefined). */
export async function call(url: string, init: RequestInit & { expect: number }): Promise<any> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== init.expect) throw new Error(`${init.method ?? 'GET'} ${url}: expected ${init.expect}, got ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Prints the verdict and answers the exit code: 1 when a target was missed, 0 when all were met. */
export function verdict(missed: string[]): number {
  if (missed.length) {
    console.error(`TARGET MISSED: ${missed.join('; ')}`);
    return 1;
  }
  console.log('targets met');
  return 0;
}

// ---------------------------------------------------------------------------------------------------------
// Scratch databases for in-process benchmarks

export interface ScratchDatabase {
  db: Db;
  kind: 'sqlite' | 'postgres';
  describe: string;
  /** Closes the database; on PostgreSQL also drops the scratch database, unless it is to be kept. */
  drop(): Promise<void>;
}

/**
 * A freshly migrated database: SQLite in `dataDir`, or with `pg` a scratch PostgreSQL database created through
 * VIGIL_DATABASE_URL (or VIGIL_TEST_DATABASE_URL, which scripts/with-postgres.sh sets), whose role must be allowed
 * to CREATE DATABASE; drop() removes it unless `keepData`.
 */
export async function scratchDatabase(o: { pg: boolean; dataDir: string; keepData: boolean }): Promise<ScratchDatabase> {
  if (!o.pg) {
    const db = createDb({ databaseUrl: null, dataDir: o.dataDir });
    await migrateToLatest(db);
    return { db, kind: 'sqlite', describe: `SQLite (better-sqlite3, WAL, synchronous=NORMAL) in ${o.dataDir}`, drop: async () => db.destroy() };
  }
  const adminUrl = process.env.VIGIL_DATABASE_URL || process.env.VIGIL_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('--pg needs VIGIL_DATABASE_URL or VIGIL_TEST_DATABASE_URL (a PostgreSQL URL whose role may CREATE DATABASE)');
  const name = `vigil_bench_${randomBytes(5).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb({ databaseUrl: url.toString(), dataDir: o.dataDir });
  await migrateToLatest(db);
  const version = (await db.raw('show server_version')).rows[0].server_version as string;
  return {
    db,
    kind: 'postgres',
    describe: `PostgreSQL ${version}, scratch database ${name} on ${url.host}`,
    async drop() {
      await db.destroy();
      if (o.keepData) return;
      const a = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await a.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.destroy();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// In-process CPU profiles of benchmark phases

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

/**
 * Profiles phases with node:inspector when `dir` is set (writing `<prefix>-<phase>.cpuprofile` there) and keeps a
 * summary of each (hottest functions by self and inclusive time); without `dir` it just runs them.
 */
export function phaseProfiler(dir: string | null | undefined, prefix: string, samplingMicros: number) {
  const summaries: string[] = [];
  async function profiled<T>(phase: string, fn: () => Promise<T>): Promise<T> {
    if (!dir) return fn();
    mkdirSync(dir, { recursive: true });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: samplingMicros });
    await session.post('Profiler.start');
    try {
      return await fn();
    } finally {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
      session.disconnect();
      const file = join(dir, `${prefix}-${phase}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      summaries.push(summarizeProfile(phase, file, profile));
    }
  }
  return { profiled, summaries };
}

function summarizeProfile(phase: string, file: string, profile: CpuProfile, top = 18): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  // tsx's transpiled modules report line 1 for everything; their function names are what identifies them.
  const where = (f: ProfileNode['callFrame']) =>
    f.url ? `${f.url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}${f.lineNumber > 0 ? `:${f.lineNumber + 1}` : ''}` : '(native)';
  const fn = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'}  ${where(f)}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
  }
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (!f.url.includes(`${ROOT}/src/`) && !f.url.includes('node_modules/knex/') && !f.url.includes('node_modules/better-sqlite3/')) continue;
      const name = `${f.functionName || '(anonymous)'}  ${where(f)}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  const fmt = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1e6).toFixed(2).padStart(7)} s  ${k}`)
      .join('\n');
  return `--- profile of ${phase}: ${file} (${(total / 1e6).toFixed(1)} s sampled)\nself time:\n${fmt(fn)}\n` +
    `inclusive time (src/, knex, better-sqlite3; synchronous stretches):\n${fmt(inclusive)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Report helpers

export function table(header: string[], rows: string[][], right: boolean[]): { text: string; markdown: string } {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((c) => c[i]!.length)));
  const fmt = (row: string[]) => row.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return {
    text: [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n'),
    markdown: [header, ...rows]
      .map((c) => `| ${c.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`)
      .toSpliced(1, 0, `| ${right.map((r) => (r ? '---:' : '---')).join(' | ')} |`)
      .join('\n'),
  };
}

/** Nearest-rank percentile (NaN for no samples). */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export const thousands = (n: number) => Math.round(n).toLocaleString('en-US').replace(/,/g, ' ');

/**
 * Reads numeric options: the parsed `--name` flag, else the environment variable, else the default; a value
 * outside [min, max] stops the benchmark with a message naming both spellings.
 */
export function numberOptions<F extends Record<string, unknown>>(flags: F) {
  return (name: keyof F & string, envName: string, fallback: number, min: number, max = Infinity): number => {
    const raw = (flags[name] as string | undefined) ?? process.env[envName];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${envName} / --${name}: expected a number in [${min}, ${max}], got "${raw}"`);
    return n;
  };
}

// ---------------------------------------------------------------------------------------------------------
// Query time by statement shape (--query-stats): which SQL a phase spends its database time on

/**
 * Times every query the database handle runs (knex `query` / `query-response` events, transactions included),
 * grouped by SQL with `IN (…)` lists and repeated value tuples folded, so one shape counts once however many
 * values it had. Wall time from issue to answer: on SQLite that is the synchronous statement plus knex's
 * preparation of it.
 */
export function queryStats(db: Db) {
  const started = new Map<string, bigint>();
  const shapes = new Map<string, { count: number; ms: number; rows: number }>();
  const shapeOf = (sql: string) =>
    sql
      .replace(/\((\s*\?\s*,)+\s*\?\s*\)/g, '(?…)')
      .replace(/(,\s*\(\?…\))+/g, ', …')
      .slice(0, 160);
  const onQuery = (q: { __knexQueryUid: string }) => started.set(q.__knexQueryUid, process.hrtime.bigint());
  const onResponse = (response: unknown, q: { __knexQueryUid: string; sql: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (s === undefined) return;
    started.delete(q.__knexQueryUid);
    const key = shapeOf(q.sql);
    const entry = shapes.get(key) ?? { count: 0, ms: 0, rows: 0 };
    entry.count++;
    entry.ms += Number(process.hrtime.bigint() - s) / 1e6;
    if (Array.isArray(response)) entry.rows += response.length;
    shapes.set(key, entry);
  };
  db.on('query', onQuery).on('query-response', onResponse);
  return {
    reset: () => shapes.clear(),
    report(title: string, top = 12): string {
      const total = [...shapes.values()].reduce((t, x) => t + x.ms, 0);
      const lines = [...shapes].sort((a, b) => b[1].ms - a[1].ms).slice(0, top);
      return [
        `--- query time of ${title}: ${(total / 1000).toFixed(2)} s in ${thousands([...shapes.values()].reduce((t, x) => t + x.count, 0))} queries`,
        ...lines.map(([sql, x]) => `${(x.ms / 1000).toFixed(2).padStart(7)} s ${thousands(x.count).padStart(8)} q ${thousands(x.rows).padStart(10)} rows  ${sql}`),
      ].join('\n');
    },
    stop: () => {
      db.off('query', onQuery);
      db.off('query-response', onResponse);
    },
  };
}
