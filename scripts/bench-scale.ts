/**
 * `npm run bench:scale` (under `bash scripts/with-postgres.sh`): what a second process adds, on one Postgres
 * database, measured in one run so the ratios compare like with like.
 *
 * 1. Analysis throughput: --images distinct images (a Debian-like base layer with --packages dpkg packages, their
 *    file lists and files, plus Python distributions, and a small layer of its own) are pushed to a local
 *    docker-registry and added by tag all at once; the time from the first POST until every image is `analyzed`
 *    gives images per minute, with one Vigil process and then with two (a fresh database each time).
 * 2. API throughput: --concurrency clients send authenticated `GET /v2/images` for --api-seconds against one
 *    process, then spread over two; requests per second.
 * Each ratio (two processes / one) is printed with the machine; the load generator runs in this process, on the
 * same cores, which a real deployment would not share. Every process runs every role (`VIGIL_ROLES` unset).
 *
 * Needs docker-registry and a Postgres URL whose role may CREATE DATABASE (VIGIL_TEST_DATABASE_URL, which
 * scripts/with-postgres.sh sets, or VIGIL_DATABASE_URL).
 *
 * Options: --images N (default 24), --packages N (default 400), --concurrency N (default 16),
 *          --api-seconds S (default 10), --server dist|tsx (default dist), --skip-build.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import knex from 'knex';
import { buildImage, type FileSpec } from '../test/support/image-builder.js';
import { pushImage, startRegistry } from '../test/support/registry.js';
import { basic, build, call, cpuSeconds, loadAverage, machine, startServerChild, stopChild, table, waitReady, type Child } from './bench-support.js';

const { values: flags } = parseArgs({
  options: {
    images: { type: 'string' },
    packages: { type: 'string' },
    concurrency: { type: 'string' },
    'api-seconds': { type: 'string' },
    server: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
  },
  strict: true,
});
const whole = (raw: string | undefined, name: string, fallback: number) => {
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a whole number >= 1, got "${raw}"`);
  return n;
};
const opts = {
  images: whole(flags.images, 'images', 24),
  packages: whole(flags.packages, 'packages', 400),
  concurrency: whole(flags.concurrency, 'concurrency', 16),
  apiSeconds: whole(flags['api-seconds'], 'api-seconds', 10),
  server: (flags.server ?? 'dist') as 'dist' | 'tsx',
  skipBuild: flags['skip-build'] ?? false,
};
const adminUrl = process.env.VIGIL_DATABASE_URL || process.env.VIGIL_TEST_DATABASE_URL;
if (!adminUrl) throw new Error('bench:scale needs Postgres: run it as `bash scripts/with-postgres.sh npm run bench:scale`');

const t0 = Date.now();
const progress = (m: string) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);
const REPOSITORY = 'bench/scale';
const ANALYSIS_TIMEOUT_MS = 15 * 60_000;

/** A Debian-like layer: a dpkg database of `count` packages with their file lists and files, and Python distributions. */
function baseLayer(count: number): FileSpec[] {
  const files: FileSpec[] = [{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n' }];
  const status: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `libbench${i}`;
    const owned = Array.from({ length: 8 }, (_, j) => `/usr/lib/${name}/file${j}.so`);
    status.push(`Package: ${name}\nStatus: install ok installed\nPriority: optional\nSection: libs\nInstalled-Size: 64\nMaintainer: Bench <bench@example.com>\nArchitecture: amd64\nSource: bench-src${i % 50}\nVersion: 1.${i}.0-1\nDescription: benchmark package ${i}\n`);
    files.push({ path: `var/lib/dpkg/info/${name}.list`, content: `/usr/lib/${name}\n${owned.join('\n')}\n` });
    for (const f of owned) files.push({ path: f.slice(1), content: `${name} ${f}\n` });
  }
  files.push({ path: 'var/lib/dpkg/status', content: status.join('\n') });
  for (let i = 0; i < 30; i++) {
    const dist = `usr/lib/python3/dist-packages/benchpkg${i}-2.${i}.0.dist-info`;
    files.push({ path: `${dist}/METADATA`, content: `Metadata-Version: 2.1\nName: benchpkg${i}\nVersion: 2.${i}.0\n` });
    files.push({ path: `${dist}/RECORD`, content: `benchpkg${i}/__init__.py,,\n` });
    files.push({ path: `usr/lib/python3/dist-packages/benchpkg${i}/__init__.py`, content: `# ${i}\n` });
  }
  return files;
}

/** A scratch database for one phase, dropped afterwards. */
async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vigil_scale_${randomBytes(5).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: adminUrl!, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = knex({ client: 'pg', connection: adminUrl!, pool: { min: 0, max: 1 } });
      await a.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.destroy();
    },
  };
}

/** `count` Vigil processes on one fresh database, started one after the other, ready; the first one's admin password opens all. */
async function startNodes(count: number, databaseUrl: string): Promise<Child[]> {
  const key = randomBytes(24).toString('hex');
  const nodes: Child[] = [];
  for (let i = 0; i < count; i++) {
    const child = await startServerChild({
      server: opts.server,
      dataDirPrefix: `vigil-bench-scale-${i}-`,
      log: progress,
      env: {
        VIGIL_DATABASE_URL: databaseUrl,
        VIGIL_ENCRYPTION_KEY: key,
        VIGIL_HOST_ID: `bench-node-${i}`,
        VIGIL_REGISTRY_ALLOW: '127.0.0.1',
        VIGIL_FEED_SYNC_SCHEDULE: 'off',
        VIGIL_JOB_POLL_MS: '100',
      },
    });
    nodes.push(child);
    await waitReady(child);
  }
  return nodes;
}

async function analysisPhase(processes: number, registryHost: string, tags: string[]): Promise<{ seconds: number; perMinute: number; cpu: number[] }> {
  const db = await scratchDatabase();
  const nodes = await startNodes(processes, db.url);
  try {
    const auth = basic('admin', nodes[0].adminPassword);
    const cpu0 = nodes.map((n) => cpuSeconds(n.proc.pid));
    const started = Date.now();
    const digests: string[] = [];
    for (const tag of tags) {
      const added = await call(`${nodes[0].url}/v2/images`, {
        method: 'POST',
        expect: 200,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ source: { tag: { pull_string: `${registryHost}/${REPOSITORY}:${tag}` } } }),
      });
      digests.push(added.image_digest as string);
    }
    const pending = new Set(digests);
    while (pending.size > 0) {
      if (Date.now() - started > ANALYSIS_TIMEOUT_MS) throw new Error(`${pending.size} images not analyzed after ${ANALYSIS_TIMEOUT_MS / 60000} min`);
      for (const digest of [...pending]) {
        const image = await call(`${nodes[0].url}/v2/images/${digest}`, { expect: 200, headers: { authorization: auth } });
        const status = (Array.isArray(image) ? image[0] : image).analysis_status;
        if (status === 'analyzed') pending.delete(digest);
        else if (status === 'analysis_failed') throw new Error(`analysis of ${digest} failed`);
      }
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (Date.now() - started) / 1000;
    return { seconds, perMinute: (tags.length / seconds) * 60, cpu: nodes.map((n, i) => cpuSeconds(n.proc.pid) - cpu0[i]) };
  } finally {
    for (const n of nodes) await stopChild(n);
    await db.drop();
  }
}

async function apiPhase(processes: number): Promise<{ perSecond: number; errors: number }> {
  const db = await scratchDatabase();
  const nodes = await startNodes(processes, db.url);
  try {
    const auth = basic('admin', nodes[0].adminPassword);
    // Warm-up: the password cache and connections.
    for (const n of nodes) await call(`${n.url}/v2/images`, { expect: 200, headers: { authorization: auth } });
    const deadline = Date.now() + opts.apiSeconds * 1000;
    let done = 0;
    let errors = 0;
    const client = async (i: number) => {
      const url = `${nodes[i % nodes.length].url}/v2/images`;
      while (Date.now() < deadline) {
        const res = await fetch(url, { headers: { authorization: auth } });
        await res.arrayBuffer();
        if (res.status === 200) done++;
        else errors++;
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => client(i)));
    return { perSecond: done / opts.apiSeconds, errors };
  } finally {
    for (const n of nodes) await stopChild(n);
    await db.drop();
  }
}

async function main(): Promise<void> {
  const m = machine();
  progress(`machine: ${m.cpus} x ${m.cpuModel}, ${m.memGiB} GiB, Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  if (opts.server === 'dist' && !opts.skipBuild) build(progress);
  const registry = await startRegistry();
  try {
    const base = baseLayer(opts.packages);
    const tags: string[] = [];
    progress(`pushing ${opts.images} images (${opts.packages} dpkg packages, ${base.length} files in the shared layer)`);
    for (let i = 0; i < opts.images; i++) {
      const image = await buildImage({ layers: [base, [{ path: `etc/bench-image`, content: `image ${i} ${randomBytes(8).toString('hex')}\n` }]] });
      const tag = `img${i}`;
      await pushImage(registry.url, REPOSITORY, tag, image);
      tags.push(tag);
    }
    progress('analysis, one process');
    const one = await analysisPhase(1, registry.host, tags);
    progress(`  ${one.seconds.toFixed(1)} s, ${one.perMinute.toFixed(1)} images/min`);
    progress('analysis, two processes');
    const two = await analysisPhase(2, registry.host, tags);
    progress(`  ${two.seconds.toFixed(1)} s, ${two.perMinute.toFixed(1)} images/min`);
    progress(`API, one process (${opts.concurrency} clients, ${opts.apiSeconds} s)`);
    const api1 = await apiPhase(1);
    progress(`  ${api1.perSecond.toFixed(0)} requests/s`);
    progress('API, two processes');
    const api2 = await apiPhase(2);
    progress(`  ${api2.perSecond.toFixed(0)} requests/s`);
    const t = table(
      ['measure', 'one process', 'two processes', 'ratio'],
      [
        [`analysis (${opts.images} images), images/min`, one.perMinute.toFixed(1), two.perMinute.toFixed(1), (two.perMinute / one.perMinute).toFixed(2)],
        ['analysis, server CPU s', one.cpu.map((c) => c.toFixed(1)).join(' '), two.cpu.map((c) => c.toFixed(1)).join(' + '), ''],
        [`GET /v2/images (${opts.concurrency} clients), requests/s`, api1.perSecond.toFixed(0), api2.perSecond.toFixed(0), (api2.perSecond / api1.perSecond).toFixed(2)],
        ['API errors', String(api1.errors), String(api2.errors), ''],
      ],
      [false, true, true, true],
    );
    console.log(`\n${t.text}\n\nmarkdown:\n${t.markdown}`);
  } finally {
    await registry.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
