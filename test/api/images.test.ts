import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { client, json, raw } from '../support/http.js';
import { reviewedLicense } from '../../src/images/license-review.js';
import { buildImage, type BuiltImage, type FileSpec } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

let server: TestServer;
let registry: TestRegistry;

const OS_RELEASE = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';
const DPKG_STATUS = [
  'Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nSource: glibc\nVersion: 2.36-9+deb12u4\nInstalled-Size: 12000\nDescription: GNU C Library\n',
  'Package: zlib1g\nStatus: install ok installed\nArchitecture: amd64\nSource: zlib\nVersion: 1:1.2.13.dfsg-1\nInstalled-Size: 160\nDescription: compression library\n',
].join('\n');

function baseLayer(): FileSpec[] {
  return [
    { path: 'etc/', type: 'dir' },
    { path: 'etc/os-release', content: OS_RELEASE },
    { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
    { path: 'usr/bin/passwd', content: 'ELF-ish', mode: 0o4755 },
    { path: 'tmp/secret.txt', content: 'remove me' },
  ];
}

function appLayer(version: string): FileSpec[] {
  return [
    { path: 'app/node_modules/left-pad/package.json', content: JSON.stringify({ name: 'left-pad', version, license: 'WTFPL' }) },
    { path: 'tmp/.wh.secret.txt', content: '' },
  ];
}

async function push(tag: string, version = '1.3.0'): Promise<BuiltImage> {
  const image = await buildImage({ layers: [baseLayer(), appLayer(version)], runtime: { Cmd: ['node', 'app.js'] } });
  await pushImage(registry.url, 'team/app', tag, image);
  return image;
}

beforeAll(async () => {
  [server, registry] = await Promise.all([startTestServer(), startRegistry()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
});

describe.skipIf(missingTools('docker-registry'))('adding an image by tag from a registry', () => {
  let image: BuiltImage;
  let digest: string;

  it('answers at once with the image record carrying the manifest digest', async () => {
    image = await push('1.0');
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/team/app:1.0` } } });
    expect(res.status).toBe(200);
    digest = res.json.image_digest;
    expect(digest).toBe(image.manifestDigest);
    expect(['not_analyzed', 'analyzing', 'analyzed']).toContain(res.json.analysis_status);
    expect(res.json.image_detail).toEqual([
      expect.objectContaining({ full_tag: `${registry.host}/team/app:1.0`, registry: registry.host, repo: 'team/app', tag: '1.0', current: true }),
    ]);
  });

  it('analyzes it: distro, architecture, layer count and the status history', async () => {
    expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
    const { data } = await client(server.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
    expect(data?.analysis_status).toBe('analyzed');
    expect(data?.image_id).toBe(image.configDigest);
    expect(data?.image_content?.metadata).toMatchObject({ distro: 'debian', distro_version: '12', arch: 'amd64', layer_count: 2, dockerfile_mode: 'Guessed' });
    expect(data?.analysis_status_detail.map((d) => `${d.from_status}->${d.to_status}`)).toEqual(['not_analyzed->analyzing', 'analyzing->analyzed']);
    expect(data?.analyzed_at).toBeTruthy();
    // Progress is shown while an analysis runs only.
    expect(data?.analysis_progress).toBeUndefined();
  });

  it('shows how far a running analysis is in the image record', async () => {
    const db = server.running.services.db;
    const scope = { account_name: 'admin', image_digest: digest };
    const progress = { stage: 'reading_layers', layer: 2, layer_count: 2, bytes_read: 1200, bytes_total: 4096, updated_at: '2026-11-26T08:00:00.000Z' };
    await db('images').where(scope).update({ analysis_status: 'analyzing', analysis_progress: JSON.stringify(progress) });
    try {
      const { data } = await client(server.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
      expect(data?.analysis_status).toBe('analyzing');
      expect(data?.analysis_progress).toEqual(progress);
    } finally {
      await db('images').where(scope).update({ analysis_status: 'analyzed', analysis_progress: null });
    }
  });

  it("names the analysis engine from upstream's enum and Vigil's release in enterprise_version", async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}`);
    const version = (await raw(server.url, 'GET', '/v2/version')).json.service.version;
    for (const step of res.json.analysis_status_detail)
      expect(step.source).toEqual({ host_id: expect.any(String), service_name: 'vigil-analyzer', analysis_engine: 'syft-native-pipeline', enterprise_version: version });
  });

  it('serves the packages it found, by content type', async () => {
    const c = client(server.url);
    const os = await c.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: digest, content_type: 'os' } } });
    expect(os.data?.content.map((p) => `${p.package}@${p.version}`).sort()).toEqual(['libc6@2.36-9+deb12u4', 'zlib1g@1:1.2.13.dfsg-1']);
    const libc = os.data?.content.find((p) => p.package === 'libc6');
    expect(libc).toMatchObject({ type: 'dpkg', origin: 'glibc', location: '/var/lib/dpkg/status', size: String(12000 * 1024) });
    expect(libc?.purl).toBe('pkg:deb/debian/libc6@2.36-9+deb12u4?arch=amd64&distro=debian-12');
    const npm = await c.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: digest, content_type: 'npm' } } });
    expect(npm.data?.content).toEqual([
      expect.objectContaining({ package: 'left-pad', version: '1.3.0', licenses: ['WTFPL'], location: '/app/node_modules/left-pad/package.json', purl: 'pkg:npm/left-pad@1.3.0' }),
    ]);
    const summary = await c.GET('/images/{image_digest}/content-summary', { params: { path: { image_digest: digest } } });
    const counts = Object.fromEntries((summary.data?.items ?? []).map((i) => [i.content_type, i.count]));
    expect(counts).toMatchObject({ os: 2, npm: 1, python: 0, java: 0, go: 0, gem: 0 });
    const types = await c.GET('/images/{image_digest}/content', { params: { path: { image_digest: digest } } });
    expect(types.data).toEqual(expect.arrayContaining(['os', 'npm', 'files']));
    const bad = await raw(server.url, 'GET', `/v2/images/${digest}/content/binaries`);
    expect(bad.status).toBe(400);
  });

  it('lists every package with its declared licenses at content/licenses, not as a content type', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/content/licenses`);
    expect(res.status).toBe(200);
    expect(res.json.items).toEqual([
      { package: { name: 'libc6', version: '2.36-9+deb12u4', type: 'dpkg', purl: 'pkg:deb/debian/libc6@2.36-9+deb12u4?arch=amd64&distro=debian-12' }, licenses: [] },
      { package: { name: 'zlib1g', version: '1:1.2.13.dfsg-1', type: 'dpkg', purl: expect.stringMatching(/^pkg:deb\/debian\/zlib1g@/) }, licenses: [] },
      {
        package: { name: 'left-pad', version: '1.3.0', type: 'npm', purl: 'pkg:npm/left-pad@1.3.0' },
        licenses: [{ license_id: 'WTFPL', license_url: 'https://spdx.org/licenses/WTFPL.html', source: 'declared' }],
      },
    ]);
    expect(reviewedLicense('mit or apache-2.0')).toEqual({ license_name: 'MIT OR Apache-2.0', source: 'declared' });
    expect(reviewedLicense('GPLv2+')).toEqual({ license_name: 'GPLv2+', source: 'declared' });
    expect(reviewedLicense('  ')).toBeUndefined();
  });

  it('says at content/malware that the image was not scanned, rather than reporting a clean scan', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/content/malware`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      image_digest: digest,
      content_type: 'malware',
      content: [{ enabled: false, metadata: { status: 'not_scanned', reason: expect.stringContaining('no malware scanner') }, findings: [] }],
    });
    const unknown = `sha256:${'e'.repeat(64)}`;
    expect((await raw(server.url, 'GET', `/v2/images/${unknown}/content/malware`)).status).toBe(404);
    expect((await raw(server.url, 'GET', `/v2/images/${unknown}/content/licenses`)).status).toBe(404);
  });

  it('lists the final filesystem: whiteouts applied, setuid bits and hashes visible', async () => {
    const { data } = await client(server.url).GET('/images/{image_digest}/content/files', { params: { path: { image_digest: digest } } });
    const byName = new Map((data?.content ?? []).map((f) => [f.filename, f]));
    expect(byName.has('/tmp/secret.txt')).toBe(false);
    expect(byName.has('/tmp/.wh.secret.txt')).toBe(false);
    expect(byName.get('/usr/bin/passwd')).toMatchObject({ type: 'file', mode: '04755', size: 7 });
    expect(byName.get('/etc/os-release')?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(byName.get('/etc')?.type).toBe('dir');
  });

  it('serves the manifest, the history and a reconstructed Dockerfile', async () => {
    const c = client(server.url);
    const list = await c.GET('/images/{image_digest}/metadata', { params: { path: { image_digest: digest } } });
    expect(list.data).toEqual(['manifest', 'docker_history', 'dockerfile']);
    const manifest = await c.GET('/images/{image_digest}/metadata/{metadata_type}', { params: { path: { image_digest: digest, metadata_type: 'manifest' } } });
    expect((manifest.data?.metadata as { layers: unknown[] }).layers).toHaveLength(2);
    const dockerfile = await c.GET('/images/{image_digest}/metadata/{metadata_type}', { params: { path: { image_digest: digest, metadata_type: 'dockerfile' } } });
    expect(typeof dockerfile.data?.metadata).toBe('string');
  });

  it('records analysis events', async () => {
    const { data } = await client(server.url).GET('/events', { params: { query: { event_type: 'user.image.analysis.', resource_id: digest } } });
    expect(data?.results.map((e) => e.event.type).sort()).toEqual(['user.image.analysis.completed', 'user.image.analysis.started']);
  });

  it('does not analyze the same digest again unless forced', async () => {
    // Periodic runs queue their next slot as time passes: only the analysis jobs count here.
    const analysisJobs = () => server.running.services.db('jobs').where({ kind: 'analyze_image' }).count({ n: '*' }).first();
    const jobsBefore = await analysisJobs();
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/team/app:1.0` } } });
    expect(res.json.analysis_status).toBe('analyzed');
    const jobsAfter = await analysisJobs();
    expect(Number(jobsAfter?.n)).toBe(Number(jobsBefore?.n));

    const forced = await json(server.url, 'POST', '/v2/images?force=true', { source: { tag: { pull_string: `${registry.host}/team/app:1.0` } } });
    expect(forced.json.analysis_status).toBe('not_analyzed');
    expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
  });

  it('keeps the old mapping as history when the tag moves to a new digest', async () => {
    const newer = await push('1.0', '1.3.1');
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/team/app:1.0` } } });
    expect(res.json.image_digest).toBe(newer.manifestDigest);
    const old = await client(server.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
    expect(old.data?.image_detail[0]).toMatchObject({ full_tag: `${registry.host}/team/app:1.0`, current: false });
    const moved = await client(server.url).GET('/events', { params: { query: { event_type: 'user.checks.tag.update' } } });
    expect(moved.data?.results[0].event.details).toMatchObject({ previous_digest: digest, current_digest: newer.manifestDigest });
    const byTag = await client(server.url).GET('/images', { params: { query: { full_tag: `${registry.host}/team/app:1.0` } } });
    expect(byTag.data?.items.map((i) => i.image_digest).sort()).toEqual([digest, newer.manifestDigest].sort());
    await waitForAnalysis(server, 'admin', newer.manifestDigest);
  });

  it('adds by digest with the tag to record', async () => {
    const byDigest = await push('by-digest', '2.0.0');
    const res = await json(server.url, 'POST', '/v2/images', {
      source: { digest: { pull_string: `${registry.host}/team/app@${byDigest.manifestDigest}`, tag: `${registry.host}/team/app:pinned` } },
    });
    expect(res.status).toBe(200);
    expect(res.json.image_detail[0]).toMatchObject({ tag: 'pinned', current: true });
    expect(await waitForAnalysis(server, 'admin', byDigest.manifestDigest)).toBe('analyzed');
  });

  it('lists images with filters', async () => {
    const all = await client(server.url).GET('/images');
    expect(all.data?.items.length).toBeGreaterThanOrEqual(3);
    const analyzed = await client(server.url).GET('/images', { params: { query: { analysis_status: 'analyzed' } } });
    expect(analyzed.data?.items.every((i) => i.analysis_status === 'analyzed')).toBe(true);
    const none = await client(server.url).GET('/images', { params: { query: { analyzed_since: '2999-01-01T00:00:00Z' } } });
    expect(none.data?.items).toEqual([]);
  });

  // The established DeleteImageResponse status is one of deleting | not_found | delete_failed (no `deleted`).
  it('deletes an image and its tags, answering status deleting', async () => {
    const res = await raw(server.url, 'DELETE', `/v2/images/${digest}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ image_digest: digest, status: 'deleting' });
    expect((await raw(server.url, 'GET', `/v2/images/${digest}`)).status).toBe(404);
    const bulk = await raw(server.url, 'DELETE', `/v2/images?image_digests=${digest},sha256:${'0'.repeat(64)}`);
    expect(bulk.json.map((i: { status: string }) => i.status)).toEqual(['not_found', 'not_found']);
  });

  it('deletes several images at once, one outcome per digest in a bare array', async () => {
    const list = await client(server.url).GET('/images');
    const present = list.data!.items.map((i) => i.image_digest).slice(0, 2);
    expect(present.length).toBe(2);
    const missing = `sha256:${'1'.repeat(64)}`;
    const bulk = await raw(server.url, 'DELETE', `/v2/images?image_digests=${[...present, missing].join(',')}`);
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.json).toEqual([
      { image_digest: present[0], status: 'deleting' },
      { image_digest: present[1], status: 'deleting' },
      { image_digest: missing, status: 'not_found', detail: expect.any(String) },
    ]);
    for (const d of present) expect((await raw(server.url, 'GET', `/v2/images/${d}`)).status).toBe(404);
  });
});

describe.skipIf(missingTools('docker-registry'))('bad requests to add an image', () => {
  it.each([
    [{}, 'body.source'],
    [{ source: {} }, 'body.source'],
    [{ source: { tag: {} } }, 'body.source.tag.pull_string'],
    [{ source: { tag: { pull_string: 5 } } }, 'body.source.tag.pull_string'],
    [{ source: { tag: { pull_string: 'x:1' }, digest: { pull_string: 'y@sha256:0', tag: 'y:1' } } }, 'body.source'],
    [{ source: { tag: { pull_string: 'x:1', platform: 'not a platform' } } }, 'body.source.tag.platform'],
  ])('rejects %j naming %s', async (body, location) => {
    const res = await json(server.url, 'POST', '/v2/images', body);
    expect(res.status).toBe(400);
    expect(res.json.detail.errors.map((e: { location: string }) => e.location)).toContain(location);
  });

  it('rejects an unparseable reference', async () => {
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: 'UPPER/Case:tag' } } });
    expect(res.status).toBe(400);
    expect(res.json.error_type).toBe('invalid_image_reference');
  });

  it('rejects a digest source without a digest', async () => {
    const res = await json(server.url, 'POST', '/v2/images', { source: { digest: { pull_string: `${registry.host}/team/app:1.0`, tag: 'x' } } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/must name a digest/);
  });

  it('answers 404 for a tag the registry does not have, and records the failed lookup', async () => {
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/team/app:nope` } } });
    expect(res.status).toBe(404);
    expect(res.json.error_type).toBe('manifest_unknown');
    const events = await client(server.url).GET('/events', { params: { query: { event_type: 'system.image_analysis.registry_lookup_failed' } } });
    expect(events.data?.results[0].event.resource.id).toBe(`${registry.host}/team/app:nope`);
  });

  it('answers 502 quickly when the registry is unreachable', async () => {
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: '127.0.0.1:1/team/app:1.0' } } });
    expect(res.status).toBe(502);
    expect(res.json.error_type).toBe('registry_unreachable');
  });

  it('answers 404 for images that do not exist and 400 for malformed digests', async () => {
    expect((await raw(server.url, 'GET', `/v2/images/sha256:${'a'.repeat(64)}`)).status).toBe(404);
    expect((await raw(server.url, 'GET', '/v2/images/sha256:xyz')).status).toBe(400);
    expect((await raw(server.url, 'DELETE', '/v2/images')).status).toBe(400);
  });
});

describe.skipIf(missingTools('docker-registry'))('hostile and broken images', () => {
  it('fails the analysis of an image with a path-traversal entry, with a reason, and stays healthy', async () => {
    const evil = await buildImage({ layers: [[{ path: '../../etc/evil', content: 'x' }]] });
    await pushImage(registry.url, 'team/evil', 'latest', evil);
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/team/evil:latest` } } });
    expect(res.status).toBe(200);
    expect(await waitForAnalysis(server, 'admin', evil.manifestDigest)).toBe('analysis_failed');
    const { data } = await client(server.url).GET('/images/{image_digest}', { params: { path: { image_digest: evil.manifestDigest } } });
    const failure = data?.analysis_status_detail.at(-1);
    expect(failure?.to_status).toBe('analysis_failed');
    expect(failure?.detail).toMatch(/\.\./);
    const events = await client(server.url).GET('/events', { params: { query: { event_type: 'user.image.analysis.failed' } } });
    expect(events.data?.results[0].event.level).toBe('ERROR');
    expect((await raw(server.url, 'GET', '/v2/health', { auth: null })).status).toBe(200);
    const content = await raw(server.url, 'GET', `/v2/images/${evil.manifestDigest}/content/os`);
    expect(content.status).toBe(409);
    expect(content.json.detail.analysis_status).toBe('analysis_failed');
  });
});
