/**
 * `npm run bench:nvd`: an NVD JSON 2.0 feed file at the size of NVD's largest yearly file, read and synced.
 *
 * An `nvdcve-2.0-<year>.json.gz` of --cves CVEs (default 40 000, about NVD's 2024 file) in NVD's shape
 * (test/vulns/fixture-nvd.ts), each with a description of about --cve-kib KiB of random base64 (default 4) so the
 * file has NVD's size per CVE, is written with a streaming deflater. Then:
 * 1. It is read with `readNvdFeed` (nothing stored): CVEs/s, MiB/s of JSON, the growth of the process's peak RSS,
 *    and the longest event-loop stall while reading (perf_hooks' delay histogram, 10 ms resolution).
 * 2. An in-process server (test/support/server.ts: SQLite in a temp dir, or PostgreSQL through
 *    VIGIL_TEST_DATABASE_URL, which scripts/with-postgres.sh sets) has it as its only source;
 *    `POST /v2/system/feeds?wait=true` syncs it: CVEs/s, peak RSS, and checks that every scored CVE was stored.
 *
 * Prints a table and a markdown copy for docs/benchmarks.md. No target: exits 0, or 2 on errors.
 *
 * Options (flag, or environment variable; flags win):
 *   --cves N      BENCH_NVD_CVES     CVEs in the file                    (default 40000)
 *   --cve-kib N   BENCH_NVD_CVE_KIB  description size per CVE, KiB       (default 4)
 *   --pg                             PostgreSQL (run under scripts/with-postgres.sh)
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { readNvdFeed } from '../src/vulns/sources/nvd.js';
import { raw } from '../test/support/http.js';
import { startTestServer } from '../test/support/server.js';
import { CRITICAL_31, HIGH_V2, nvdCve, v2, v31 } from '../test/vulns/fixture-nvd.js';
import { loadAverage, machine, numberOptions, table, thousands } from './bench-support.js';

const MIB = 1024 ** 2;
const { values: flags } = parseArgs({ options: { cves: { type: 'string' }, 'cve-kib': { type: 'string' }, pg: { type: 'boolean' } } });
const num = numberOptions(flags);
const opts = { cves: num('cves', 'BENCH_NVD_CVES', 40_000, 1, 5_000_000), cveKib: num('cve-kib', 'BENCH_NVD_CVE_KIB', 4, 0, 1024), pg: flags.pg === true };

const progress = (message: string) => console.error(`[bench:nvd] ${message}`);
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
const peakRss = () => process.resourceUsage().maxRSS * 1024;

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

/** The file's JSON text, a CVE at a time; `counted.bytes` is its length once written. */
function* document(counted: { bytes: number }): Generator<Buffer> {
  const emit = (text: string) => {
    const b = Buffer.from(text);
    counted.bytes += b.length;
    return b;
  };
  yield emit(`{\n  "resultsPerPage" : ${opts.cves},\n  "startIndex" : 0,\n  "totalResults" : ${opts.cves},\n  "format" : "NVD_CVE",\n  "version" : "2.0",\n  "timestamp" : "2099-03-01T03:00:00.000",\n  "vulnerabilities" : [`);
  for (let i = 0; i < opts.cves; i++) {
    const item = nvdCve({ id: `CVE-2099-${100000 + i}`, v31: [v31('Primary', CRITICAL_31, 9.8, 'CRITICAL')], v2: [v2('Primary', HIGH_V2, 7.5, 'HIGH')] });
    (item.cve.descriptions[0] as { value: string }).value = randomBytes(Math.ceil((opts.cveKib * 1024 * 3) / 4)).toString('base64');
    yield emit(`${i ? ',' : ''}\n    ${JSON.stringify(item)}`);
  }
  yield emit('\n  ]\n}\n');
}

async function main(): Promise<number> {
  const m = machine();
  const args = process.argv.slice(2);
  const command = `${opts.pg ? 'bash scripts/with-postgres.sh ' : ''}npm run bench:nvd${args.length ? ` -- ${args.join(' ')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM, Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-nvd-'));
  try {
    const path = join(dir, 'nvdcve-2.0-2099.json.gz');
    const json = { bytes: 0 };
    progress(`writing ${thousands(opts.cves)} CVEs`);
    await pipeline(Readable.from(document(json)), createGzip(), createWriteStream(path));
    const gzBytes = statSync(path).size;

    progress('reading');
    const rssBefore = peakRss();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = process.hrtime.bigint();
    const read = readNvdFeed(path, { maxRecordBytes: 16 * MIB });
    let entries = 0;
    for await (const _ of read.entries) entries++;
    const readSeconds = seconds(started);
    delay.disable();
    check(entries === opts.cves && read.stats.skipped === 0, `every CVE read (${entries}, ${read.stats.skipped} skipped)`);
    const rssGrowth = peakRss() - rssBefore;
    const maxStallMs = delay.max / 1e6;

    progress(`syncing (${opts.pg ? 'PostgreSQL' : 'SQLite'})`);
    const server = await startTestServer({ VIGIL_FEED_SOURCES: `nvd-2099=${path}`, VIGIL_FEED_SYNC_ON_START: 'false', VIGIL_REPORTS_REFRESH_SECONDS: '3600' });
    let syncSeconds: number;
    try {
      const syncStarted = process.hrtime.bigint();
      const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true&timeout_seconds=3600');
      syncSeconds = seconds(syncStarted);
      check(res.status === 200 && res.json.status === 'done', `the sync job is done (${res.status})`);
      const outcome = (res.json.feeds as { feed: string; status: string; stats: { stored: number } }[]).find((f) => f.feed === 'nvd-2099');
      check(outcome?.status === 'ok' && outcome.stats.stored === opts.cves, `every CVE stored (${JSON.stringify(outcome)})`);
    } finally {
      await server.close();
    }
    const syncRss = peakRss();

    const t = table(
      ['Phase', 'Time', 'Memory / event loop'],
      [
        [
          `Read an NVD 2.0 file: ${thousands(opts.cves)} CVEs, ${mib(json.bytes)} JSON (${mib(gzBytes)} gzip)`,
          `${readSeconds.toFixed(1)} s (${thousands(opts.cves / readSeconds)} CVEs/s, ${(json.bytes / MIB / readSeconds).toFixed(0)} MiB/s)`,
          `peak RSS +${mib(rssGrowth)}; longest stall ${maxStallMs.toFixed(0)} ms`,
        ],
        [`Sync it, ${opts.pg ? 'PostgreSQL' : 'SQLite'}: import and switch`, `${syncSeconds.toFixed(1)} s (${thousands(opts.cves / syncSeconds)} CVEs/s)`, `process peak RSS ${mib(syncRss)}`],
      ],
      [false, true, false],
    );
    console.log(`\n${t.text}\n\nload average at the end: ${loadAverage()}\n`);
    console.log(`markdown for docs/benchmarks.md (${new Date().toISOString().slice(0, 10)}, ${command}):\n\n${t.markdown}\n`);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
