/**
 * Real Debian images for the real-image test (`npm run test:realimage`) and the analysis benchmark
 * (`npm run bench:analysis`): a root filesystem built by mmdebstrap from the apt mirror, made into a single-layer
 * OCI image (the rootfs tar as the layer, gzip or plain, plus a config), pushed to a registry over the
 * distribution API, and what dpkg itself says is installed in it.
 *
 * mmdebstrap runs as root (its root mode: real chroot, real maintainer scripts) and takes one to a few minutes;
 * the rootfs tar and the layer blob are cached, keyed by suite, variant, architecture, mirror and package list,
 * in $VIGIL_DEBIAN_CACHE_DIR (default: <tmpdir>/vigil-debian-cache). Delete the directory to rebuild.
 *
 * Usable as a module (the functions below) or from the command line:
 *   tsx scripts/build-debian-image.ts [--variant apt] [--include a,b,c] [--suite bookworm]
 * which builds (or finds) the rootfs and its gzip layer and prints their paths.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';

export type Log = (message: string) => void;

const defaultLog: Log = (m) => console.log(m);

export const MEDIA = {
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  layerTar: 'application/vnd.oci.image.layer.v1.tar',
} as const;

export function cacheDir(): string {
  return resolve(process.env.VIGIL_DEBIAN_CACHE_DIR || join(tmpdir(), 'vigil-debian-cache'));
}

// ---------------------------------------------------------------------------------------------------------
// Apt sources

export interface DebianSources {
  /** e.g. http://deb.debian.org/debian */
  mirror: string;
  /** e.g. http://deb.debian.org/debian-security; null when the host has none for the suite. */
  security: string | null;
}

/** URIs and suites of the host's apt sources (one-line .list and deb822 .sources files). */
function hostAptSources(): { uri: string; suites: string[] }[] {
  const out: { uri: string; suites: string[] }[] = [];
  const files: string[] = [];
  if (existsSync('/etc/apt/sources.list')) files.push('/etc/apt/sources.list');
  try {
    for (const f of readdirSync('/etc/apt/sources.list.d')) if (/\.(list|sources)$/.test(f)) files.push(join('/etc/apt/sources.list.d', f));
  } catch {
    /* no sources.list.d */
  }
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.sources')) {
      for (const para of text.split(/\n\s*\n/)) {
        const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(para)?.[1].trim().split(/\s+/) ?? [];
        if (!field('Types').includes('deb') || /^Enabled:\s*no/im.test(para)) continue;
        for (const uri of field('URIs')) out.push({ uri, suites: field('Suites') });
      }
    } else {
      for (const line of text.split('\n')) {
        const m = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
        if (m) out.push({ uri: m[1], suites: [m[2]] });
      }
    }
  }
  return out;
}

/**
 * The Debian mirror to build from: $VIGIL_DEBIAN_MIRROR / $VIGIL_DEBIAN_SECURITY_MIRROR, else the host's apt
 * sources for the suite, else deb.debian.org.
 */
export function debianSources(suite: string): DebianSources {
  const host = hostAptSources();
  const trim = (u: string) => u.replace(/\/+$/, '');
  const mirror =
    process.env.VIGIL_DEBIAN_MIRROR || host.find((s) => s.suites.includes(suite) && /\/debian$/.test(trim(s.uri)))?.uri || 'http://deb.debian.org/debian';
  const security =
    process.env.VIGIL_DEBIAN_SECURITY_MIRROR ||
    host.find((s) => s.suites.includes(`${suite}-security`))?.uri ||
    (process.env.VIGIL_DEBIAN_MIRROR ? null : 'http://deb.debian.org/debian-security');
  return { mirror: trim(mirror), security: security ? trim(security) : null };
}

// ---------------------------------------------------------------------------------------------------------
// Root filesystem

export interface RootfsOptions {
  suite?: string;
  /** mmdebstrap --variant (default apt: Essential + apt). */
  variant?: string;
  /** Extra packages (mmdebstrap --include); their dependencies come along. */
  include?: string[];
  /** dpkg architecture (default: the host's). */
  architecture?: string;
  log?: Log;
}

export interface Rootfs {
  /** The root filesystem as a tar (entries named ./…), as mmdebstrap wrote it. */
  tarPath: string;
  /** Cache key: also names the files derived from this rootfs. */
  key: string;
  architecture: string;
  suite: string;
  cached: boolean;
}

export function hostArchitecture(): string {
  const r = spawnSync('dpkg', ['--print-architecture'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('dpkg --print-architecture failed: is this a Debian host?');
  return r.stdout.trim();
}

/** Runs a command, passing each output line to `log` with a prefix; rejects on a non-zero exit. */
export function run(command: string, args: string[], log: Log, prefix: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let tail = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) log(`${prefix}${line}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolveRun() : reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}):\n${tail}`)),
    );
  });
}

/** Builds the root filesystem with mmdebstrap, or answers the cached one. */
export async function buildDebianRootfs(options: RootfsOptions = {}): Promise<Rootfs> {
  const log = options.log ?? defaultLog;
  const suite = options.suite ?? 'bookworm';
  const variant = options.variant ?? 'apt';
  const include = [...new Set(options.include ?? [])].sort();
  const architecture = options.architecture ?? hostArchitecture();
  const sources = debianSources(suite);
  const key = createHash('sha256')
    .update(JSON.stringify({ v: 1, suite, variant, include, architecture, sources }))
    .digest('hex')
    .slice(0, 16);
  const dir = cacheDir();
  const tarPath = join(dir, `${suite}-${variant}-${key}.rootfs.tar`);
  if (existsSync(tarPath)) {
    log(`rootfs: cached ${tarPath} (${mib(statSync(tarPath).size)})`);
    return { tarPath, key, architecture, suite, cached: true };
  }
  if (!existsSync('/usr/bin/mmdebstrap')) throw new Error('mmdebstrap is missing: install it with `apt-get install -y mmdebstrap`');
  if (process.getuid?.() !== 0) throw new Error('mmdebstrap must run as root here (its root mode); run as root');
  mkdirSync(dir, { recursive: true });
  const partial = `${tarPath}.partial-${process.pid}`;
  const lines = [`deb ${sources.mirror} ${suite} main`, `deb ${sources.mirror} ${suite}-updates main`];
  if (sources.security) lines.push(`deb ${sources.security} ${suite}-security main`);
  const args = [
    `--variant=${variant}`,
    `--architectures=${architecture}`,
    ...(include.length ? [`--include=${include.join(',')}`] : []),
    '--aptopt=Acquire::Retries "3"',
    '--format=tar',
    suite,
    partial,
    ...lines,
  ];
  log(`rootfs: mmdebstrap ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const started = Date.now();
  try {
    // SOURCE_DATE_EPOCH makes mmdebstrap's own timestamps reproducible; package content is what the mirror serves.
    await run('mmdebstrap', args, log, '  mmdebstrap: ', { ...process.env, SOURCE_DATE_EPOCH: process.env.SOURCE_DATE_EPOCH ?? '1700000000' });
    renameSync(partial, tarPath);
  } finally {
    rmSync(partial, { force: true });
  }
  log(`rootfs: built ${tarPath} (${mib(statSync(tarPath).size)}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { tarPath, key, architecture, suite, cached: false };
}

// ---------------------------------------------------------------------------------------------------------
// dpkg's own view of the rootfs

export interface DpkgEntry {
  package: string;
  version: string;
  architecture: string;
  /** ${source:Package}: the Source field's package name, or the package's own name when it has none. */
  source: string;
  /** ${db:Status-Status}: installed, config-files, ... */
  status: string;
}

/**
 * `dpkg-query --admindir=<rootfs>/var/lib/dpkg -W` on the rootfs: var/lib/dpkg is extracted from the rootfs tar
 * into a temp dir (the rest of the tree is not needed by dpkg-query), then queried.
 */
export function dpkgQuery(rootfsTar: string): DpkgEntry[] {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-dpkg-'));
  try {
    let r = spawnSync('tar', ['-xf', rootfsTar, '-C', dir, './var/lib/dpkg'], { encoding: 'utf8' });
    if (r.status !== 0) r = spawnSync('tar', ['-xf', rootfsTar, '-C', dir, 'var/lib/dpkg'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cannot extract var/lib/dpkg from ${rootfsTar}: ${r.stderr}`);
    const q = spawnSync(
      'dpkg-query',
      [`--admindir=${join(dir, 'var/lib/dpkg')}`, '-W', '-f', '${Package}\\t${Version}\\t${Architecture}\\t${source:Package}\\t${db:Status-Status}\\n'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (q.status !== 0) throw new Error(`dpkg-query failed: ${q.stderr}`);
    return q.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [pkg, version, architecture, source, status] = line.split('\t');
        return { package: pkg, version, architecture, source, status };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// The image

export interface LayerFile {
  /** The blob as the manifest references it, on disk. */
  path: string;
  digest: string;
  /** sha256 of the uncompressed tar. */
  diffId: string;
  size: number;
  mediaType: string;
}

export interface DebianImage {
  layers: LayerFile[];
  configBytes: Buffer;
  configDigest: string;
  manifestBytes: Buffer;
  manifestDigest: string;
  mediaType: string;
}

/** Passes bytes through while hashing and counting them. */
class Hasher extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    cb(null, chunk);
  }
  digest(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }
}

export interface ImageOptions {
  compression?: 'gzip' | 'none';
  /** zlib level for gzip layers (default 6, gzip's own default). */
  gzipLevel?: number;
  log?: Log;
}

/**
 * A single-layer OCI image of the rootfs: the rootfs tar is the layer (gzip-compressed into the cache next to it,
 * or used as is), with a config naming its diff_id. Deterministic for a given rootfs tar.
 */
export async function imageFromRootfs(rootfs: Rootfs, options: ImageOptions = {}): Promise<DebianImage> {
  const log = options.log ?? defaultLog;
  const compression = options.compression ?? 'gzip';
  const level = options.gzipLevel ?? 6;
  const meta = `${rootfs.tarPath.replace(/\.rootfs\.tar$/, '')}.layer-${compression === 'gzip' ? `gz${level}` : 'tar'}.json`;
  let layer: LayerFile | undefined;
  if (existsSync(meta)) {
    const cached = JSON.parse(readFileSync(meta, 'utf8')) as LayerFile;
    if (existsSync(cached.path) && statSync(cached.path).size === cached.size && statSync(cached.path).mtimeMs >= statSync(rootfs.tarPath).mtimeMs) {
      layer = cached;
      log(`layer: cached ${cached.path} (${mib(cached.size)}, ${cached.digest})`);
    }
  }
  if (!layer) {
    const started = Date.now();
    const tarHash = new Hasher();
    if (compression === 'gzip') {
      const path = `${rootfs.tarPath.replace(/\.rootfs\.tar$/, '')}.layer.gz${level}`;
      const blobHash = new Hasher();
      const partial = `${path}.partial-${process.pid}`;
      try {
        await pipeline(createReadStream(rootfs.tarPath), tarHash, createGzip({ level }), blobHash, createWriteStream(partial));
        renameSync(partial, path);
      } finally {
        rmSync(partial, { force: true });
      }
      layer = { path, digest: blobHash.digest(), diffId: tarHash.digest(), size: blobHash.bytes, mediaType: MEDIA.layerGzip };
    } else {
      await pipeline(createReadStream(rootfs.tarPath), tarHash, async function* (source) {
        for await (const _ of source) {
          /* hashing only */
        }
      });
      const diffId = tarHash.digest();
      layer = { path: rootfs.tarPath, digest: diffId, diffId, size: tarHash.bytes, mediaType: MEDIA.layerTar };
    }
    writeFileSync(meta, JSON.stringify(layer, null, 2));
    log(`layer: ${compression} ${mib(layer.size)} (tar ${mib(tarHash.bytes)}) in ${((Date.now() - started) / 1000).toFixed(1)} s, ${layer.digest}`);
  }
  const created = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? 1700000000) * 1000).toISOString();
  const config = {
    created,
    architecture: ociArchitecture(rootfs.architecture),
    os: 'linux',
    config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['bash'] },
    rootfs: { type: 'layers', diff_ids: [layer.diffId] },
    history: [{ created, created_by: `mmdebstrap ${rootfs.suite} (${rootfs.key})` }],
  };
  const configBytes = Buffer.from(JSON.stringify(config));
  const configDigest = sha256(configBytes);
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA.manifest,
    config: { mediaType: MEDIA.config, digest: configDigest, size: configBytes.length },
    layers: [{ mediaType: layer.mediaType, digest: layer.digest, size: layer.size }],
  };
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2));
  return { layers: [layer], configBytes, configDigest, manifestBytes, manifestDigest: sha256(manifestBytes), mediaType: MEDIA.manifest };
}

/** dpkg architecture -> OCI (GOARCH) architecture. */
function ociArchitecture(dpkgArch: string): string {
  return ({ i386: '386', armhf: 'arm', armel: 'arm', ppc64el: 'ppc64le' } as Record<string, string>)[dpkgArch] ?? dpkgArch;
}

// ---------------------------------------------------------------------------------------------------------
// Pushing (monolithic uploads, no auth: a local test registry)

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(url: URL, method: string, headers: Record<string, string>, body?: Buffer | string | { file: string }): Promise<Answer> {
  return new Promise((resolveReq, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers, rejectUnauthorized: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text = (text + c).slice(0, 4000)));
      res.on('end', () => resolveReq({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body && typeof body === 'object' && 'file' in body) {
      pipeline(createReadStream(body.file), req).catch(reject);
    } else req.end(body);
  });
}

async function pushBlob(registryUrl: string, repository: string, digest: string, size: number, content: Buffer | { file: string }): Promise<void> {
  const head = await request(new URL(`/v2/${repository}/blobs/${digest}`, registryUrl), 'HEAD', {});
  if (head.status === 200) return;
  const start = await request(new URL(`/v2/${repository}/blobs/uploads/`, registryUrl), 'POST', { 'Content-Length': '0' });
  if (start.status !== 202) throw new Error(`start upload of ${digest}: HTTP ${start.status} ${start.body}`);
  const location = new URL(String(start.headers.location), registryUrl);
  location.searchParams.set('digest', digest);
  const put = await request(location, 'PUT', { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) }, content);
  if (put.status !== 201) throw new Error(`upload of ${digest}: HTTP ${put.status} ${put.body}`);
}

/** Pushes the image's blobs (layers streamed from disk) and its manifest under `tag`. */
export async function pushDebianImage(registryUrl: string, repository: string, tag: string, image: DebianImage): Promise<void> {
  for (const l of image.layers) await pushBlob(registryUrl, repository, l.digest, l.size, { file: l.path });
  await pushBlob(registryUrl, repository, image.configDigest, image.configBytes.length, image.configBytes);
  const res = await request(new URL(`/v2/${repository}/manifests/${tag}`, registryUrl), 'PUT', { 'Content-Type': image.mediaType }, image.manifestBytes);
  if (res.status !== 201) throw new Error(`push of manifest ${repository}:${tag}: HTTP ${res.status} ${res.body}`);
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

// ---------------------------------------------------------------------------------------------------------
// Command line

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { suite: { type: 'string' }, variant: { type: 'string' }, include: { type: 'string' }, compression: { type: 'string' } },
    strict: true,
  });
  const rootfs = await buildDebianRootfs({
    suite: values.suite,
    variant: values.variant,
    include: values.include ? values.include.split(',').filter(Boolean) : [],
  });
  const image = await imageFromRootfs(rootfs, { compression: values.compression === 'none' ? 'none' : 'gzip' });
  const installed = dpkgQuery(rootfs.tarPath).filter((p) => p.status === 'installed');
  console.log(JSON.stringify({ rootfs: rootfs.tarPath, layer: image.layers[0], manifestDigest: image.manifestDigest, dpkgInstalled: installed.length }, null, 2));
}
