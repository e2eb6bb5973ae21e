/**
 * Images from an OCI image layout (image-spec image-layout.md): `oci-layout`, `index.json` naming manifests
 * (possibly through nested indexes), and content under blobs/<alg>/<hex>. Every manifest, index and config is
 * digest-verified when read; layers are verified while they stream.
 */
import { pipeline, type Readable } from 'node:stream';
import { openArchiveFiles, type ArchiveFiles, type OpenArchiveOptions } from './archive-files.js';
import { digestHex, digestAlgorithm, verifyBuffer, verifyingStream } from './digests.js';
import { ArchiveEntryMissingError, DigestMismatchError, ImageArchiveError, MalformedImageError } from './errors.js';
import { checkConfigMediaType, diffIdsForLayers, parseImageConfig } from './image-config.js';
import { parseJsonDocument, parseManifestDocument, type Descriptor, type ImageIndex } from './manifests.js';
import { OCI_INDEX } from './media-types.js';
import { checkRequestedPlatform, selectPlatformManifest, type Platform } from './platforms.js';
import { platformOfConfig, type ArchiveImage, type ImageLayer } from './resolved-image.js';

export interface OciLayoutOptions extends OpenArchiveOptions {
  /** Platform to pick from an index (default linux/amd64, or the only image there is). */
  platform?: Platform;
  /** Picks the index.json entry whose `org.opencontainers.image.ref.name` or `io.containerd.image.name` is this. */
  refName?: string;
}

const REF_NAME = 'org.opencontainers.image.ref.name';
const CONTAINERD_NAME = 'io.containerd.image.name';
const MAX_METADATA_BYTES = 16 << 20;
const MAX_INDEX_DEPTH = 4;

export function blobPath(digest: string): string {
  return `blobs/${digestAlgorithm(digest)}/${digestHex(digest)}`;
}

async function readBlob(files: ArchiveFiles, d: Descriptor, what: string): Promise<Buffer> {
  const path = blobPath(d.digest);
  const size = await files.size(path);
  if (size === undefined) throw new ArchiveEntryMissingError(path, `it holds the ${what}`);
  if (size !== d.size) throw new DigestMismatchError(`${what} ${d.digest}`, `${d.size} bytes`, `${size} bytes`);
  const bytes = await files.read(path, MAX_METADATA_BYTES, `it holds the ${what}`);
  verifyBuffer(bytes, d.digest, `${what} ${d.digest}`, d.size);
  return bytes;
}

async function checkLayoutVersion(files: ArchiveFiles): Promise<void> {
  // Tools write `oci-layout`; we accept its absence when index.json is present, but not a version we do not know.
  if ((await files.size('oci-layout')) === undefined) return;
  const doc = parseJsonDocument(await files.read('oci-layout', 4096, 'marks an OCI layout'), 'oci-layout') as { imageLayoutVersion?: unknown } | null;
  const version = doc?.imageLayoutVersion;
  if (typeof version !== 'string' || !version.startsWith('1.')) {
    throw new ImageArchiveError(`unsupported OCI image layout version ${JSON.stringify(version)} (expected 1.x)`);
  }
}

function entryNames(d: Descriptor): string[] {
  return [d.annotations?.[CONTAINERD_NAME], d.annotations?.[REF_NAME]].filter((n): n is string => !!n);
}

/** The index.json entry to follow: by ref name if asked, the only one, or by platform. */
function chooseTopEntry(index: ImageIndex, options: OciLayoutOptions): Descriptor {
  let entries = index.manifests;
  if (options.refName !== undefined) {
    entries = entries.filter((d) => entryNames(d).includes(options.refName!));
    if (entries.length === 0) {
      const names = index.manifests.flatMap(entryNames);
      throw new ImageArchiveError(`the OCI layout has no image named ${options.refName}; it has: ${names.join(', ') || 'unnamed images only'}`, {
        ref_name: options.refName,
      });
    }
  }
  if (entries.length === 1) return entries[0]!;
  if (entries.length === 0) throw new MalformedImageError('index.json of the OCI layout lists no manifests');
  if (entries.every((d) => d.platform)) return selectPlatformManifest(entries, options.platform);
  const names = entries.flatMap(entryNames);
  throw new ImageArchiveError(`the OCI layout holds ${entries.length} images; choose one by name: ${names.join(', ') || '(unnamed)'}`, { names });
}

/** Tags the layout names the image by: containerd's full name, or a ref name that is a full reference. */
function repoTagsOf(d: Descriptor): string[] {
  const containerd = d.annotations?.[CONTAINERD_NAME];
  if (containerd) return [containerd];
  const ref = d.annotations?.[REF_NAME];
  // A bare ref name such as `latest` or `v1` names a tag but no repository, so it is no repo tag.
  return ref && /[/:]/.test(ref) ? [ref] : [];
}

/** Reads an image from already-opened layout files (the caller owns `files`). */
export async function ociLayoutImage(files: ArchiveFiles, options: OciLayoutOptions = {}): Promise<Omit<ArchiveImage, 'close'>> {
  await checkLayoutVersion(files);
  const indexBytes = await files.read('index.json', MAX_METADATA_BYTES, 'an OCI image layout lists its images in it');
  const top = parseManifestDocument(indexBytes, OCI_INDEX, 'index.json');
  if (top.kind !== 'index') throw new MalformedImageError('index.json of the OCI layout is not an image index');
  const topEntry = chooseTopEntry(top.index, options);

  let descriptor = topEntry;
  let indexDigest: string | undefined;
  let manifestBytes = await readBlob(files, descriptor, 'manifest');
  let document = parseManifestDocument(manifestBytes, descriptor.mediaType, `manifest ${descriptor.digest}`);
  for (let depth = 0; document.kind === 'index'; depth++) {
    if (depth >= MAX_INDEX_DEPTH) throw new MalformedImageError(`indexes in the OCI layout nest deeper than ${MAX_INDEX_DEPTH} levels`);
    indexDigest ??= descriptor.digest;
    descriptor = selectPlatformManifest(document.index.manifests, options.platform);
    manifestBytes = await readBlob(files, descriptor, 'manifest');
    document = parseManifestDocument(manifestBytes, descriptor.mediaType, `manifest ${descriptor.digest}`);
  }
  const manifest = document.manifest;

  checkConfigMediaType(manifest.config.mediaType);
  const config = parseImageConfig(await readBlob(files, manifest.config, 'image config'), `image config ${manifest.config.digest}`);
  const platform = platformOfConfig(config);
  if (!indexDigest) checkRequestedPlatform(options.platform, platform);
  const diffIds = diffIdsForLayers(config, manifest.layers.length, `manifest ${descriptor.digest}`);

  const layers: ImageLayer[] = [];
  for (const [i, l] of manifest.layers.entries()) {
    const path = blobPath(l.digest);
    const size = await files.size(path);
    if (size === undefined) throw new ArchiveEntryMissingError(path, `it holds layer ${i + 1} of manifest ${descriptor.digest}`);
    if (size !== l.size) throw new DigestMismatchError(`layer ${l.digest}`, `${l.size} bytes`, `${size} bytes`);
    layers.push({
      digest: l.digest,
      size: l.size,
      mediaType: l.mediaType,
      diffId: diffIds[i]!,
      async open(): Promise<Readable> {
        return pipeline(await files.open(path), verifyingStream(l.digest, { what: `layer ${l.digest} of the OCI layout`, expectedSize: l.size }), () => {});
      },
    });
  }

  return {
    source: 'oci-layout',
    manifestDigest: descriptor.digest,
    ...(indexDigest ? { indexDigest } : {}),
    manifest,
    manifestBytes,
    configDigest: manifest.config.digest,
    config,
    layers,
    repoTags: repoTagsOf(topEntry),
    platform,
  };
}

/** Reads an image from an OCI image layout at `path` (tar, tar.gz or directory). */
export async function readOciLayout(path: string, options: OciLayoutOptions = {}): Promise<ArchiveImage> {
  const files = await openArchiveFiles(path, options);
  try {
    const image = await ociLayoutImage(files, options);
    return { ...image, close: () => files.close() };
  } catch (err) {
    await files.close();
    throw err;
  }
}
