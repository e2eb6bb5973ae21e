/**
 * `npm run bench:feeds`: feed imports at the size of real exports, through the service as it runs them.
 *
 * 1. A single-entry archive of --single-entry-mib MiB (default 1536): one `all.json` holding a JSON array of
 *    records of about --record-kib KiB each (a `details` text of random base64, so it barely compresses), written
 *    with a streaming deflater. It is read with `readOsvPath` (nothing stored): the reader splits the entry into
 *    records as it inflates it. Reports records/s, MB/s, the largest buffer the reader held (its own count,
 *    stats.largestBuffer) and the growth of the process's peak RSS over the read. This runs first, so that the peak
 *    RSS it reports is not an earlier phase's.
 * 2. An OSV all.zip of --records minimal records (default 500 000), one entry each, each naming a package of its
 *    own (as many changed keys as records), plus one advisory for a package an analyzed test image holds. An
 *    in-process server (test/support/server.ts: SQLite in a temp dir, or PostgreSQL through
 *    VIGIL_TEST_DATABASE_URL, which scripts/with-postgres.sh sets) has it as its only feed source; the image is
 *    analyzed first, then `POST /v2/system/feeds?wait=true` runs the sync job: import, switch, completion event,
 *    re-match. Then the same sync again (every record unchanged). Reports records/s, the peak RSS and heap over the
 *    sync (sampled every 200 ms), and checks the outcome: the feed ok with every record inserted, the last record
 *    queryable, one feed_completed event, the image re-matched with its advisory, nothing left queued.
 *    The report read model's refresher is set to an hour: its catch-up on the new records is not a feed import cost.
 *
 * Prints a table and a markdown copy for docs/benchmarks.md. No target: exits 0, or 2 on errors (a failed check
 * is an error). The temp dir is removed.
 *
 * Options (flag, or environment variable; flags win):
 *   --records N           BENCH_RECORDS            records of the all.zip                     (default 500000)
 *   --single-entry-mib N  BENCH_SINGLE_ENTRY_MIB   size of the single entry, MiB; 0: skip      (default 1536)
 *   --record-kib N        BENCH_RECORD_KIB         record size in the single entry, KiB        (default 64)
 *   --pg                                           PostgreSQL (needs VIGIL_TEST_DATABASE_URL; run it under
 *                                                  scripts/with-postgres.sh)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readOsvPath } from '../src/vulns/osv/archive.js';
import { waitForAnalysis } from '../test/support/analysis.js';
import { raw } from '../test/support/http.js';
import { buildImage, dockerArchiveTar } from '../test/support/image-builder.js';
import { minimalOsvRecord, recordEntries, writeSingleEntryZip, writeZip } from '../test/support/osv-zip.js';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { loadAverage, machine, numberOptions, table, thousands } from './bench-support.js';

const MIB = 1024 ** 2;
const VICTIM = 'bench-victim';

const { values: flags } = parseArgs({
  options: { records: { type: 'string' }, 'single-entry-mib': { type: 'string' }, 'record-kib': { type: 'string' }, pg: { type: 'boolean' } },
});
const num = numberOptions(flags);
const opts = {
  records: num('records', 'BENCH_RECORDS', 500_000, 1, 50_000_000),
  singleEntryMib: num('single-entry-mib', 'BENCH_SINGLE_ENTRY_MIB', 1536, 0, 64 * 1024),
  recordKib: num('record-kib', 'BENCH_RECORD_KIB', 64, 1, 8 * 1024),
  pg: flags.pg === true,
};

const progress = (message: string) => console.error(`[bench:feeds] ${message}`);
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
/** The process's peak resident set so far (getrusage). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

/** Samples RSS and heap while `work` runs. */
async function sampled<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; rss: number; heap: number }> {
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  const timer = setInterval(sample, 200);
  const started = process.hrtime.bigint();
  try {
    const result = await work();
    sample();
    return { result, seconds: seconds(started), rss, heap };
  } finally {
    clearInterval(timer);
  }
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

/** The single entry's content: `[`, records with a random details text of about recordKib KiB, `]`. */
function* singleEntryDocument(totalBytes: number, recordBytes: number): Generator<Buffer> {
  yield Buffer.from('[\n');
  let written = 2;
  for (let i = 0; written < totalBytes; i++) {
    const record = minimalOsvRecord(`BIG-${i}`, `big-package-${i % 1000}`);
    const text = `${i ? ',\n' : ''}${JSON.stringify({ ...record, details: randomBytes(Math.floor((recordBytes * 3) / 4)).toString('base64') })}`;
    written += text.length;
    yield Buffer.from(text);
  }
  yield Buffer.from('\n]\n');
}

async function singleEntryPhase(dir: string) {
  const path = join(dir, 'single-entry.zip');
  const started = process.hrtime.bigint();
  const written = await writeSingleEntryZip(path, 'all.json', singleEntryDocument(opts.singleEntryMib * MIB, opts.recordKib * 1024));
  progress(`single entry: ${mib(written.entryBytes)} in a ${mib(written.zipBytes)} zip, written in ${seconds(started).toFixed(1)} s (untimed)`);
  global.gc?.();
  const rssBefore = peakRss();
  const readStarted = process.hrtime.bigint();
  const read = readOsvPath(path);
  let records = 0;
  for await (const _ of read.records) records++;
  const readSeconds = seconds(readStarted);
  const rssGrowth = peakRss() - rssBefore;
  check(read.stats.skipped === 0 && records > 0, `the single entry's records all read (${records} read, ${read.stats.skipped} skipped)`);
  progress(`single entry read: ${thousands(records)} records in ${readSeconds.toFixed(1)} s, largest buffer ${mib(read.stats.largestBuffer ?? 0)}, peak RSS grew by ${mib(rssGrowth)}`);
  rmSync(path);
  return { ...written, records, readSeconds, largestBuffer: read.stats.largestBuffer ?? 0, rssGrowth };
}

async function uploadVictimImage(server: TestServer): Promise<string> {
  const image = await buildImage({ layers: [[{ path: `app/node_modules/${VICTIM}/package.json`, content: JSON.stringify({ name: VICTIM, version: '1.0.0', license: 'MIT' }) }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: ['bench.example.com/feeds:1'] }) });
  check(res.status === 200, `image upload answered ${res.status}`);
  const digest = res.json.image_digest as string;
  check((await waitForAnalysis(server, 'admin', digest)) === 'analyzed', 'the image is analyzed');
  return digest;
}

async function syncNow(server: TestServer) {
  const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true&timeout_seconds=3600');
  check(res.status === 200 && res.json.status === 'done', `the sync job is done (${res.status} ${res.json?.status})`);
  return res.json as { feeds: { feed: string; status: string; stats: Record<string, number>; error?: string }[]; rematch: Record<string, number> };
}

async function allZipPhase(dir: string) {
  const path = join(dir, 'all.zip');
  const started = process.hrtime.bigint();
  const n = opts.records;
  function* records() {
    for (let i = 0; i < n; i++) yield minimalOsvRecord(`GEN-${i}`, `generated-package-${i}`);
    yield minimalOsvRecord('VICTIM-1', VICTIM, '2.0.0');
  }
  const zipBytes = await writeZip(path, recordEntries(records()));
  progress(`all.zip: ${thousands(n + 1)} entries, ${mib(zipBytes)}, written in ${seconds(started).toFixed(1)} s (untimed)`);
  if (opts.pg && !process.env.VIGIL_TEST_DATABASE_URL) throw new Error('--pg needs VIGIL_TEST_DATABASE_URL: run under scripts/with-postgres.sh');
  if (!opts.pg) delete process.env.VIGIL_TEST_DATABASE_URL;
  const server = await startTestServer({ VIGIL_FEED_SOURCES: `bench=${path}`, VIGIL_FEED_SYNC_ON_START: 'false', VIGIL_REPORTS_REFRESH_SECONDS: '3600' });
  try {
    const digest = await uploadVictimImage(server);
    progress(`image analyzed; syncing ${thousands(n + 1)} records (${opts.pg ? 'PostgreSQL' : 'SQLite'})`);
    const first = await sampled(() => syncNow(server));
    const feed = first.result.feeds[0]!;
    check(feed.status === 'ok' && feed.stats.inserted === n + 1, `the feed imported every record (${JSON.stringify({ ...feed, stats: { ...feed.stats, errors: undefined } })})`);
    check(first.result.rematch.changed_images === 1, `the re-match changed the image (${JSON.stringify(first.result.rematch)})`);
    const last = await raw(server.url, 'GET', `/v2/query/vulnerabilities?id=GEN-${n - 1}`);
    check(last.json.vulnerabilities?.[0]?.id === `GEN-${n - 1}`, 'the last record is queryable');
    const events = await raw(server.url, 'GET', '/v2/events?event_type=system.feeds.sync.feed_completed');
    check(events.json.results.length === 1, 'one feed_completed event');
    const vulns = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all`);
    check(vulns.json.vulnerabilities.map((v: { vuln: string }) => v.vuln).join() === 'VICTIM-1', 'the image has its advisory');
    const queued = Number((await server.running.services.db('vuln_rematch_keys').count({ n: '*' }).first())?.n);
    check(queued === 0, `nothing left queued for re-matching (${queued})`);
    progress(`sync: ${first.seconds.toFixed(1)} s (${thousands((n + 1) / first.seconds)} records/s), peak RSS ${mib(first.rss)}, heap ${mib(first.heap)}`);
    const again = await sampled(() => syncNow(server));
    check(again.result.feeds[0]!.stats.unchanged === n + 1, 'the second sync finds every record unchanged');
    progress(`unchanged sync: ${again.seconds.toFixed(1)} s, peak RSS ${mib(again.rss)}`);
    return { zipBytes, first, again, database: opts.pg ? 'PostgreSQL' : 'SQLite' };
  } finally {
    await server.close();
  }
}

async function main(): Promise<number> {
  const m = machine();
  const args = process.argv.slice(2);
  const command = `${opts.pg ? 'bash scripts/with-postgres.sh ' : ''}npm run bench:feeds${args.length ? ` -- ${args.join(' ')}` : ''}`;
  console.log(`machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memGiB} GiB RAM, Node ${m.node}, ${m.os}; load ${loadAverage()}`);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-feeds-'));
  try {
    const single = opts.singleEntryMib > 0 ? await singleEntryPhase(dir) : undefined;
    const all = await allZipPhase(dir);
    const rows: string[][] = [];
    if (single)
      rows.push([
        `Read a single-entry zip: ${mib(single.entryBytes)} entry (${mib(single.zipBytes)} zip), ${thousands(single.records)} records of ~${opts.recordKib} KiB`,
        `${single.readSeconds.toFixed(1)} s (${thousands(single.records / single.readSeconds)} records/s, ${(single.entryBytes / MIB / single.readSeconds).toFixed(0)} MiB/s)`,
        `largest buffer ${mib(single.largestBuffer)}; peak RSS +${mib(single.rssGrowth)}`,
      ]);
    rows.push(
      [
        `Sync ${thousands(opts.records + 1)} records from one all.zip (${mib(all.zipBytes)}), ${all.database}: import, switch, event, re-match`,
        `${all.first.seconds.toFixed(1)} s (${thousands((opts.records + 1) / all.first.seconds)} records/s)`,
        `peak RSS ${mib(all.first.rss)}, heap ${mib(all.first.heap)}`,
      ],
      [`Sync it again (every record unchanged)`, `${all.again.seconds.toFixed(1)} s`, `peak RSS ${mib(all.again.rss)}, heap ${mib(all.again.heap)}`],
    );
    const t = table(['Phase', 'Time', 'Memory'], rows, [false, true, false]);
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
