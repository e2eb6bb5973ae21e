/**
 * Builds small container images in memory for tests: layer tars from file lists (tar-stream), gzip or plain
 * blobs, a config with rootfs diff_ids and history, OCI or Docker schema 2 manifests, and indexes. Writes them
 * as an OCI image layout (directory or tarball) and as a `docker save` archive. Deterministic: the same input
 * always gives the same digests.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface FileSpec {
  path: string;
  content?: string | Buffer;
  type?: 'file' | 'dir' | 'symlink' | 'hardlink';
  mode?: number;
  linkTarget?: string;
  uid?: number;
  gid?: number;
}

export type MediaTypeFlavour = 'oci' | 'docker';

export interface BuildImageOptions {
  layers: FileSpec[][];
  os?: string;
  architecture?: string;
  variant?: string;
  /** Layer blobs as stored in the manifest (default gzip). */
  compression?: 'gzip' | 'none';
  mediaTypes?: MediaTypeFlavour;
  /** Runtime config (Env, Cmd, Labels, ...). */
  runtime?: Record<string, unknown>;
  created?: string;
}

export interface BuiltLayer {
  /** The uncompressed tar; its digest is the diff_id. */
  tar: Buffer;
  /** The blob as the manifest references it. */
  blob: Buffer;
  digest: string;
  diffId: string;
  size: number;
  mediaType: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { os: string; architecture: string; variant?: string };
  annotations?: Record<string, string>;
}

export interface BuiltImage {
  kind: 'image';
  layers: BuiltLayer[];
  config: Record<string, unknown>;
  configBytes: Buffer;
  configDigest: string;
  manifest: Record<string, unknown>;
  manifestBytes: Buffer;
  manifestDigest: string;
  mediaType: string;
  platform: { os: string; architecture: string; variant?: string };
}

export interface BuiltIndex {
  kind: 'index';
  images: BuiltImage[];
  index: Record<string, unknown>;
  bytes: Buffer;
  digest: string;
  mediaType: string;
  /** Extra blobs the index references that are not images (attestations). */
  extraBlobs: Map<string, Buffer>;
}

export type Built = BuiltImage | BuiltIndex;

export const MEDIA = {
  oci: {
    manifest: 'application/vnd.oci.image.manifest.v1+json',
    index: 'application/vnd.oci.image.index.v1+json',
    config: 'application/vnd.oci.image.config.v1+json',
    layerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
    layerTar: 'application/vnd.oci.image.layer.v1.tar',
  },
  docker: {
    manifest: 'application/vnd.docker.distribution.manifest.v2+json',
    index: 'application/vnd.docker.distribution.manifest.list.v2+json',
    config: 'application/vnd.docker.container.image.v1+json',
    layerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
    // Docker schema 2 has no uncompressed layer type in practice; tests use gzip with docker media types.
    layerTar: 'application/vnd.docker.image.rootfs.diff.tar',
  },
} as const;

const EPOCH = new Date('2024-01-01T00:00:00Z');

export function sha256(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export function hex(digest: string): string {
  return digest.slice(digest.indexOf(':') + 1);
}

export interface RawTarEntry {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink' | 'link';
  linkname?: string;
  mode?: number;
  uid?: number;
  gid?: number;
}

/** A tar of exactly these entries, names as given (tests use it for malformed archives too). */
export async function tarOf(entries: RawTarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const e of entries) {
    const type = e.type ?? 'file';
    const content = e.content === undefined ? undefined : Buffer.isBuffer(e.content) ? e.content : Buffer.from(e.content);
    const header: Partial<tar.Header> & { name: string } = {
      name: e.name,
      type,
      mode: e.mode ?? (type === 'directory' ? 0o755 : type === 'symlink' ? 0o777 : 0o644),
      uid: e.uid ?? 0,
      gid: e.gid ?? 0,
      mtime: EPOCH,
      ...(e.linkname !== undefined ? { linkname: e.linkname } : {}),
    };
    await new Promise<void>((resolve, reject) => {
      const callback = (err?: Error | null) => (err ? reject(err) : resolve());
      if (type === 'file') pack.entry(header, content ?? Buffer.alloc(0), callback);
      else pack.entry(header, callback);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export function layerTar(files: FileSpec[]): Promise<Buffer> {
  return tarOf(
    files.map((f) => {
      const type = f.type ?? 'file';
      return {
        name: f.path.replace(/^\//, ''),
        type: type === 'dir' ? 'directory' : type === 'hardlink' ? 'link' : type,
        content: f.content,
        linkname: f.linkTarget,
        mode: f.mode,
        uid: f.uid,
        gid: f.gid,
      };
    }),
  );
}

function descriptorOf(mediaType: string, bytes: Buffer): Descriptor {
  return { mediaType, digest: sha256(bytes), size: bytes.length };
}

export async function buildImage(options: BuildImageOptions): Promise<BuiltImage> {
  const flavour = MEDIA[options.mediaTypes ?? 'oci'];
  const compression = options.compression ?? 'gzip';
  const layers: BuiltLayer[] = [];
  for (const files of options.layers) {
    const t = await layerTar(files);
    const blob = compression === 'gzip' ? gzipSync(t) : t;
    layers.push({
      tar: t,
      blob,
      digest: sha256(blob),
      diffId: sha256(t),
      size: blob.length,
      mediaType: compression === 'gzip' ? flavour.layerGzip : flavour.layerTar,
    });
  }
  const platform = {
    os: options.os ?? 'linux',
    architecture: options.architecture ?? 'amd64',
    ...(options.variant ? { variant: options.variant } : {}),
  };
  const created = options.created ?? EPOCH.toISOString();
  const config = {
    created,
    architecture: platform.architecture,
    ...(platform.variant ? { variant: platform.variant } : {}),
    os: platform.os,
    config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['/bin/sh'], ...(options.runtime ?? {}) },
    rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
    history: layers.map((_, i) => ({ created, created_by: `/bin/sh -c #(nop) layer ${i + 1}` })),
  };
  const configBytes = Buffer.from(JSON.stringify(config));
  const manifest = {
    schemaVersion: 2,
    mediaType: flavour.manifest,
    config: descriptorOf(flavour.config, configBytes),
    layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.size })),
  };
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2));
  return {
    kind: 'image',
    layers,
    config,
    configBytes,
    configDigest: sha256(configBytes),
    manifest,
    manifestBytes,
    manifestDigest: sha256(manifestBytes),
    mediaType: flavour.manifest,
    platform,
  };
}

export interface BuildIndexOptions {
  mediaTypes?: MediaTypeFlavour;
  /** Adds a buildx-style attestation manifest (platform unknown/unknown), which selection must skip. */
  attestation?: boolean;
}

export function buildIndex(images: BuiltImage[], options: BuildIndexOptions = {}): BuiltIndex {
  const flavour = MEDIA[options.mediaTypes ?? 'oci'];
  const manifests: Descriptor[] = images.map((img) => ({
    ...descriptorOf(img.mediaType, img.manifestBytes),
    platform: img.platform,
  }));
  const extraBlobs = new Map<string, Buffer>();
  if (options.attestation && images[0]) {
    const statement = Buffer.from('{"_type":"https://in-toto.io/Statement/v0.1"}');
    const attConfig = Buffer.from('{}');
    const att = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA.oci.manifest,
        config: descriptorOf('application/vnd.oci.image.config.v1+json', attConfig),
        layers: [descriptorOf('application/vnd.in-toto+json', statement)],
      }),
    );
    extraBlobs.set(sha256(statement), statement);
    extraBlobs.set(sha256(attConfig), attConfig);
    extraBlobs.set(sha256(att), att);
    manifests.unshift({
      ...descriptorOf(MEDIA.oci.manifest, att),
      platform: { os: 'unknown', architecture: 'unknown' },
      annotations: { 'vnd.docker.reference.type': 'attestation-manifest', 'vnd.docker.reference.digest': images[0].manifestDigest },
    });
  }
  const index = { schemaVersion: 2, mediaType: flavour.index, manifests };
  const bytes = Buffer.from(JSON.stringify(index, null, 2));
  return { kind: 'index', images, index, bytes, digest: sha256(bytes), mediaType: flavour.index, extraBlobs };
}

/** Every blob (manifests, configs, layers, nested indexes) a built image or index consists of, by digest. */
export function blobsOf(target: Built): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  const addImage = (img: BuiltImage) => {
    blobs.set(img.manifestDigest, img.manifestBytes);
    blobs.set(img.configDigest, img.configBytes);
    for (const l of img.layers) blobs.set(l.digest, l.blob);
  };
  if (target.kind === 'image') addImage(target);
  else {
    target.images.forEach(addImage);
    for (const [d, b] of target.extraBlobs) blobs.set(d, b);
    blobs.set(target.digest, target.bytes);
  }
  return blobs;
}

export interface OciLayoutWriteOptions {
  /** `org.opencontainers.image.ref.name` of the index.json entry. */
  refName?: string;
  /** Extra annotations on the index.json entry. */
  annotations?: Record<string, string>;
  /** Give the index.json entry the image's platform (as some tools do). */
  withPlatform?: boolean;
}

/** The files of an OCI layout for `target`, as archive paths. */
export function ociLayoutFiles(target: Built | Built[], options: OciLayoutWriteOptions = {}): Map<string, Buffer> {
  const targets = Array.isArray(target) ? target : [target];
  const files = new Map<string, Buffer>();
  files.set('oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}'));
  const entries = targets.map((t) => ({
    mediaType: t.mediaType,
    digest: t.kind === 'image' ? t.manifestDigest : t.digest,
    size: t.kind === 'image' ? t.manifestBytes.length : t.bytes.length,
    ...(options.withPlatform && t.kind === 'image' ? { platform: t.platform } : {}),
    ...(options.refName || options.annotations
      ? { annotations: { ...(options.refName ? { 'org.opencontainers.image.ref.name': options.refName } : {}), ...(options.annotations ?? {}) } }
      : {}),
  }));
  files.set('index.json', Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA.oci.index, manifests: entries })));
  for (const t of targets) for (const [digest, blob] of blobsOf(t)) files.set(`blobs/sha256/${hex(digest)}`, blob);
  return files;
}

export async function writeFiles(dir: string, files: Map<string, Buffer>): Promise<void> {
  for (const [path, content] of files) {
    const full = join(dir, path);
    await mkdir(join(full, '..'), { recursive: true });
    await writeFile(full, content);
  }
}

export async function writeOciLayout(dir: string, target: Built | Built[], options: OciLayoutWriteOptions = {}): Promise<void> {
  await writeFiles(dir, ociLayoutFiles(target, options));
}

/** A tar of the given archive files, with the directory entries tools write. */
export async function tarOfFiles(files: Map<string, Buffer>): Promise<Buffer> {
  const dirs = new Set<string>();
  for (const path of files.keys()) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return tarOf([
    ...[...dirs].sort().map((d) => ({ name: `${d}/`, type: 'directory' as const })),
    ...[...files].map(([name, content]) => ({ name, content })),
  ]);
}

export function ociLayoutTar(target: Built | Built[], options: OciLayoutWriteOptions = {}): Promise<Buffer> {
  return tarOfFiles(ociLayoutFiles(target, options));
}

export interface DockerArchiveOptions {
  repoTags?: string[];
  /** Also write the legacy `repositories` file. */
  legacyRepositories?: boolean;
  /** Leave RepoTags out of manifest.json (older archives / loaded by id). */
  omitRepoTags?: boolean;
}

/**
 * The files of a classic `docker save` archive: `<config hex>.json`, one `<id>/layer.tar` per layer
 * (uncompressed), manifest.json. As docker does, a layer repeated in the image is a symlink to the first copy.
 */
export function dockerArchiveEntries(image: BuiltImage, options: DockerArchiveOptions = {}): RawTarEntry[] {
  const entries: RawTarEntry[] = [];
  const configName = `${hex(image.configDigest)}.json`;
  entries.push({ name: configName, content: image.configBytes });
  const firstPath = new Map<string, string>();
  const layerPaths: string[] = [];
  image.layers.forEach((l, i) => {
    const id = hex(sha256(`${i}:${l.diffId}`));
    const path = `${id}/layer.tar`;
    entries.push({ name: `${id}/`, type: 'directory' });
    const first = firstPath.get(l.diffId);
    if (first) entries.push({ name: path, type: 'symlink', linkname: `../${first}` });
    else {
      entries.push({ name: path, content: l.tar });
      firstPath.set(l.diffId, path);
    }
    entries.push({ name: `${id}/VERSION`, content: '1.0' });
    layerPaths.push(path);
  });
  const repoTags = options.repoTags ?? [];
  entries.push({
    name: 'manifest.json',
    content: JSON.stringify([{ Config: configName, ...(options.omitRepoTags ? {} : { RepoTags: repoTags }), Layers: layerPaths }]),
  });
  if (options.legacyRepositories) {
    const repos: Record<string, Record<string, string>> = {};
    for (const t of repoTags) {
      const colon = t.lastIndexOf(':');
      (repos[t.slice(0, colon)] ??= {})[t.slice(colon + 1)] = hex(sha256(`${image.layers.length - 1}:${image.layers.at(-1)?.diffId}`));
    }
    entries.push({ name: 'repositories', content: JSON.stringify(repos) });
  }
  return entries;
}

export function dockerArchiveTar(image: BuiltImage, options: DockerArchiveOptions = {}): Promise<Buffer> {
  return tarOf(dockerArchiveEntries(image, options));
}

/**
 * Reads a layer stream (gunzipping when `gzip`) into {path: content}, through pipeline() so that an error of the
 * source stream (such as a digest mismatch at its end) rejects the whole read.
 */
export async function readLayerFiles(stream: Readable, gzip: boolean): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (header, entry, next) => {
    const chunks: Buffer[] = [];
    entry.on('data', (c: unknown) => chunks.push(c as Buffer));
    entry.on('end', () => {
      if (header.type === 'file') files.set(header.name, Buffer.concat(chunks));
      next();
    });
  });
  if (gzip) await pipeline(stream, createGunzip(), extract);
  else await pipeline(stream, extract);
  return files;
}
