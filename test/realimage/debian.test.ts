/**
 * A real Debian bookworm image, end to end (`npm run test:realimage`; skipped under `npm test`): mmdebstrap builds
 * the root filesystem from the apt mirror (with python3-requests and python3-urllib3, so there are Python
 * distributions too), scripts/build-debian-image.ts makes it a single-layer gzip OCI image, a local
 * docker-registry serves it, and a Vigil server adds it by tag and analyzes it. The dpkg packages Vigil reports
 * must be exactly what `dpkg-query --admindir=<rootfs>/var/lib/dpkg -W` says about the same tree: name, version,
 * architecture and source package, package for package.
 *
 * Needs root (mmdebstrap), mmdebstrap, dpkg-query, docker-registry and the Debian mirror. The rootfs and its
 * layer are cached between runs (scripts/build-debian-image.ts, $VIGIL_DEBIAN_CACHE_DIR).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDebianRootfs, dpkgQuery, imageFromRootfs, mib, pushDebianImage, type DebianImage, type DpkgEntry } from '../../scripts/build-debian-image.js';
import { waitForAnalysis } from '../support/analysis.js';
import { client, json } from '../support/http.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';

const RUN = !!process.env.VIGIL_REALIMAGE;
const INCLUDE = ['python3-requests', 'python3-urllib3'];
const ANALYSIS_TIMEOUT_MS = 5 * 60_000;
/** Package states Vigil counts as installed (ecosystems/dpkg/cataloger.ts); dpkg-query lists the others too. */
const INSTALLED = new Set(['installed', 'triggers-awaiting', 'triggers-pending']);

const started = Date.now();
function progress(message: string): void {
  process.stderr.write(`[realimage +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

interface ReportedPackage {
  package: string;
  version: string;
  type: string;
  origin?: string;
  metadata?: { architecture?: string };
}

/** Every difference between dpkg's view and Vigil's, one line each; empty when they agree. */
function compare(dpkg: DpkgEntry[], vigil: ReportedPackage[]): { lines: string[]; implicitSource: number } {
  const key = (name: string, arch: string | undefined) => `${name}:${arch ?? '?'}`;
  const expected = new Map(dpkg.map((p) => [key(p.package, p.architecture), p]));
  const seen = new Map<string, ReportedPackage[]>();
  for (const p of vigil) {
    const k = key(p.package, p.metadata?.architecture);
    seen.set(k, [...(seen.get(k) ?? []), p]);
  }
  const lines: string[] = [];
  let implicitSource = 0;
  for (const [k, want] of expected) {
    const got = seen.get(k);
    if (!got) {
      lines.push(`missing from Vigil: ${k} ${want.version} (source ${want.source})`);
      continue;
    }
    if (got.length > 1) lines.push(`reported ${got.length} times by Vigil: ${k} (${got.map((g) => g.version).join(', ')})`);
    const p = got[0];
    if (p.type !== 'dpkg') lines.push(`${k}: type ${p.type}, expected dpkg`);
    if (p.version !== want.version) lines.push(`${k}: version ${JSON.stringify(p.version)}, dpkg says ${JSON.stringify(want.version)}`);
    // dpkg's ${source:Package} is the package's own name when it has no Source field; Vigil then reports no origin.
    if (p.origin === undefined) implicitSource++;
    const source = p.origin ?? p.package;
    if (source !== want.source) lines.push(`${k}: source package ${JSON.stringify(p.origin ?? null)}, dpkg says ${JSON.stringify(want.source)}`);
  }
  for (const [k, got] of seen) if (!expected.has(k)) lines.push(`reported by Vigil but not installed per dpkg: ${k} ${got.map((g) => g.version).join(', ')}`);
  return { lines, implicitSource };
}

describe.skipIf(!RUN)('a real Debian bookworm image built with mmdebstrap', () => {
  let server: TestServer;
  let registry: TestRegistry;
  let image: DebianImage;
  let dpkg: DpkgEntry[];
  let rootfsTar: string;
  let status: string;

  beforeAll(async () => {
    progress(`building the rootfs (mmdebstrap --variant=apt --include=${INCLUDE.join(',')} bookworm), or taking it from the cache`);
    const rootfs = await buildDebianRootfs({ suite: 'bookworm', variant: 'apt', include: INCLUDE, log: progress });
    rootfsTar = rootfs.tarPath;
    image = await imageFromRootfs(rootfs, { compression: 'gzip', log: progress });
    const all = dpkgQuery(rootfs.tarPath);
    dpkg = all.filter((p) => INSTALLED.has(p.status));
    progress(`dpkg-query: ${all.length} packages in the database, ${dpkg.length} installed`);

    [server, registry] = await Promise.all([startTestServer(), startRegistry()]);
    await pushDebianImage(registry.url, 'debian/bookworm', 'realimage', image);
    progress(`pushed ${registry.host}/debian/bookworm:realimage (${mib(image.layers[0].size)} layer, manifest ${image.manifestDigest})`);

    const t0 = Date.now();
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/debian/bookworm:realimage` } } });
    if (res.status !== 200) throw new Error(`POST /v2/images answered ${res.status}: ${res.text}`);
    status = await within(ANALYSIS_TIMEOUT_MS, 'the analysis to finish', waitForAnalysis(server, 'admin', image.manifestDigest));
    progress(`analysis: ${status} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }, 15 * 60_000);

  afterAll(async () => {
    await Promise.all([server?.close(), registry?.close()]);
  });

  it('analyzes it', async () => {
    const { data } = await client(server.url).GET('/images/{image_digest}', { params: { path: { image_digest: image.manifestDigest } } });
    const failure = data?.analysis_status_detail.find((d) => d.to_status === 'analysis_failed');
    expect(status, failure?.detail ?? undefined).toBe('analyzed');
    expect(data?.image_id).toBe(image.configDigest);
  });

  it('detects Debian 12', async () => {
    const { data } = await client(server.url).GET('/images/{image_digest}', { params: { path: { image_digest: image.manifestDigest } } });
    expect(data?.image_content?.metadata).toMatchObject({ distro: 'debian', distro_version: '12', layer_count: 1 });
  });

  it('reports exactly the dpkg packages dpkg-query lists for the same tree (name, version, architecture, source)', async () => {
    const { data } = await client(server.url).GET('/images/{image_digest}/content/{content_type}', {
      params: { path: { image_digest: image.manifestDigest, content_type: 'os' } },
    });
    const reported = (data?.content ?? []) as ReportedPackage[];
    const { lines, implicitSource } = compare(dpkg, reported);
    progress(
      `compared ${dpkg.length} dpkg packages with ${reported.length} reported by Vigil: ${lines.length} difference(s); ` +
        `${implicitSource} without a Source field (source = own name)`,
    );
    expect(dpkg.length).toBeGreaterThan(100);
    expect(lines, `differences between dpkg-query on ${rootfsTar} and Vigil:\n${lines.join('\n')}`).toEqual([]);
  });

  it('finds requests and urllib3 as Python packages, at the versions Debian ships', async () => {
    const { data } = await client(server.url).GET('/images/{image_digest}/content/{content_type}', {
      params: { path: { image_digest: image.manifestDigest, content_type: 'python' } },
    });
    const python = new Map((data?.content ?? []).map((p) => [p.package.toLowerCase(), p]));
    progress(`python packages: ${[...python.values()].map((p) => `${p.package}@${p.version}`).join(', ')}`);
    for (const [dist, deb] of [
      ['requests', 'python3-requests'],
      ['urllib3', 'python3-urllib3'],
    ]) {
      const p = python.get(dist);
      expect(p, `python package ${dist} among ${[...python.keys()].join(', ')}`).toBeDefined();
      expect(p?.location).toMatch(/^\/usr\/lib\/python3\/dist-packages\//);
      // Debian's version is the upstream one plus its own suffixes: 2.28.1+dfsg-1 for requests 2.28.1.
      const debVersion = dpkg.find((d) => d.package === deb)?.version.replace(/^\d+:/, '');
      expect(debVersion, `${deb} installed`).toBeDefined();
      expect(debVersion!.startsWith(p!.version), `${dist} ${p?.version} vs ${deb} ${debVersion}`).toBe(true);
    }
  });
});
