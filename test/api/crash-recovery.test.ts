/**
 * Crash recovery: a Vigil process killed (SIGKILL) in the middle of an analysis leaves its job claimed and the
 * image `analyzing`; the next process started on the same data dir and database must release that job at once
 * (JobQueue.releaseAbandoned, no waiting for the lease to lapse), analyze the image to the end, and leave nothing
 * stuck in `analyzing`.
 *
 * Vigil runs as a child process (`node --import tsx src/main.ts`), so the kill is a real one. A small proxy
 * (support/holding-proxy.ts) in front of a real registry forwards everything but holds the GETs of the image's
 * layer blobs until the test releases them: the test learns that an analysis is in progress from the proxy seeing
 * the blob request (an event), not from sleeping. Every wait is bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/index.js';
import { client, json, raw } from '../support/http.js';
import { buildImage, type BuiltImage } from '../support/image-builder.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/db.js';
import { HoldingProxy } from '../support/holding-proxy.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startVigil, stopVigil, within, type VigilChild } from '../support/vigil-process.js';
import { missingTools } from '../support/tools.js';

const EVENT_TIMEOUT_MS = 10_000;

const OS_RELEASE = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';
const DPKG_STATUS = [
  'Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nSource: glibc\nVersion: 2.36-9+deb12u4\nInstalled-Size: 12000\nDescription: GNU C Library\n',
  'Package: zlib1g\nStatus: install ok installed\nArchitecture: amd64\nSource: zlib\nVersion: 1:1.2.13.dfsg-1\nInstalled-Size: 160\nDescription: compression library\n',
].join('\n');

let scratch: ScratchDatabase;
let registry: TestRegistry;
let proxy: HoldingProxy;
let image: BuiltImage;
const children: VigilChild[] = [];

beforeAll(async () => {
  [scratch, registry] = await Promise.all([createScratchDatabase(), startRegistry()]);
  image = await buildImage({
    layers: [
      [
        { path: 'etc/os-release', content: OS_RELEASE },
        { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
      ],
      [
        { path: 'usr/lib/python3/dist-packages/six-1.16.0.egg-info', content: 'Metadata-Version: 1.2\nName: six\nVersion: 1.16.0\nLicense: MIT\n' },
        { path: 'app/node_modules/left-pad/package.json', content: JSON.stringify({ name: 'left-pad', version: '1.3.0', license: 'WTFPL' }) },
      ],
    ],
  });
  await pushImage(registry.url, 'crash/app', '1.0', image);
  proxy = new HoldingProxy(new URL(registry.url), image.layers.map((l) => l.digest));
  await proxy.listen();
}, 60_000);

afterAll(async () => {
  for (const c of children) await stopVigil(c, 'SIGKILL');
  await Promise.all([proxy?.close(), registry?.close()]);
  await scratch?.drop();
}, 30_000);

describe.skipIf(missingTools('docker-registry'))('a Vigil process killed during an analysis', () => {
  it('is resumed by the next process on the same data: analyzed once, with the interrupted attempt on record', async () => {
    // 1. First process: add the image; its analysis reaches the layer download, which the proxy holds.
    const first = await startVigil(scratch);
    children.push(first);
    const heldFirst = proxy.nextHeld(EVENT_TIMEOUT_MS);
    const added = await json(first.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${proxy.host}/crash/app:1.0` } } });
    expect(added.status).toBe(200);
    const digest = added.json.image_digest as string;
    expect(digest).toBe(image.manifestDigest);
    const layerDigests = image.layers.map((l) => l.digest);
    expect(layerDigests).toContain((await heldFirst).digest);
    const during = await client(first.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
    expect(during.data?.analysis_status).toBe('analyzing');

    // 2. Kill it mid-download: no shutdown code runs, the job stays claimed by a process that is gone.
    const heldBeforeKill = proxy.heldLog.length;
    first.proc.kill('SIGKILL');
    await within(5_000, 'the killed process to exit', first.exited);
    expect(first.proc.signalCode).toBe('SIGKILL');

    // 3. A new process on the same data dir and database resumes the job without waiting for the lease (60 s):
    // its own request for the first layer reaches the proxy.
    const heldSecond = proxy.nextHeld(EVENT_TIMEOUT_MS);
    const second = await startVigil(scratch);
    children.push(second);
    expect(layerDigests).toContain((await heldSecond).digest);
    const resumed = await client(second.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
    expect(resumed.data?.analysis_status).toBe('analyzing');

    // 4. Let the downloads through; the analysis completes (polled with short intervals, bounded).
    proxy.release();
    let status: string | undefined;
    const deadline = Date.now() + EVENT_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const { data } = await client(second.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
      status = data?.analysis_status;
      if (status === 'analyzed' || status === 'analysis_failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status, `final analysis status; vigil output:\n${second.output()}`).toBe('analyzed');

    // The results are complete: OS, Python and npm packages, distro.
    const c = client(second.url);
    const img = await c.GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
    expect(img.data?.image_content?.metadata).toMatchObject({ distro: 'debian', distro_version: '12', layer_count: 2 });
    const content = async (type: 'os' | 'python' | 'npm') =>
      (await c.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: digest, content_type: type } } })).data?.content.map(
        (p) => `${p.package}@${p.version}`,
      );
    expect((await content('os'))?.sort()).toEqual(['libc6@2.36-9+deb12u4', 'zlib1g@1:1.2.13.dfsg-1']);
    expect(await content('python')).toEqual(['six@1.16.0']);
    expect(await content('npm')).toEqual(['left-pad@1.3.0']);

    // The status history shows one interrupted attempt that was carried to the end, never a failure.
    const history = img.data?.analysis_status_detail.map((d) => `${d.from_status}->${d.to_status}`) ?? [];
    expect(history[0]).toBe('not_analyzed->analyzing');
    expect(history.at(-1)).toBe('analyzing->analyzed');
    expect(history.filter((h) => h === 'analyzing->analyzed')).toHaveLength(1);
    expect(history.some((h) => h.includes('analysis_failed'))).toBe(false);
    const resumedStep = img.data?.analysis_status_detail.find((d) => d.from_status === 'analyzing' && d.to_status === 'analyzing');
    expect(resumedStep?.detail).toMatch(/resumed after an interruption/);
    // Both processes asked for layers: the killed attempt's requests, then the resumed one's.
    expect(heldBeforeKill).toBeGreaterThanOrEqual(1);
    expect(proxy.heldLog.length).toBeGreaterThan(heldBeforeKill);

    // Nothing is left analyzing.
    const stuck = await raw(second.url, 'GET', '/v2/images?analysis_status=analyzing');
    expect(stuck.status).toBe(200);
    expect(stuck.json.items).toEqual([]);
    const events = await c.GET('/events', { params: { query: { event_type: 'user.image.analysis.', resource_id: digest } } });
    expect(events.data?.results.map((e) => e.event.type).sort()).toEqual(['user.image.analysis.completed', 'user.image.analysis.started']);

    // 5. A graceful stop, then the queue as the database holds it: one job, done on its second attempt.
    await stopVigil(second, 'SIGTERM');
    expect(second.proc.exitCode, second.output()).toBe(0);
    const db = createDb({ databaseUrl: scratch.url, dataDir: scratch.dataDir });
    try {
      const jobs = await db('jobs').where({ kind: 'analyze_image' }).select('status', 'attempts', 'locked_by');
      expect(jobs).toEqual([{ status: 'done', attempts: 2, locked_by: null }]);
    } finally {
      await db.destroy();
    }
  }, 40_000);
});
