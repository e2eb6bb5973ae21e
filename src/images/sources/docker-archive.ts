/**
 * Images from `docker save` archives: manifest.json names the config and the layer tars (and RepoTags); the
 * older `repositories` file may name tags when RepoTags is absent.
 *
 * Identity. A docker-archive has no manifest, so its manifestDigest is that of a canonical OCI manifest we
 * synthesize: {schemaVersion, mediaType, config, layers} serialised by JSON.stringify in that key order with no
 * whitespace, the config as `application/vnd.oci.image.config.v1+json` and each layer as stored in the archive
 * (normally the uncompressed tar, whose digest is its diff_id). The same archive content always gives the same
 * digest, but it differs from the registry digest of the same image (registries hold compressed layers). The
 * identity shared by every source is `configDigest`, the image ID `docker images` shows.
 *
 * Verification. A plain layer tar is checked against its diff_id while streaming. A compressed layer file is
 * checked against the digest in its blobs/<alg>/<hex> path, or against a digest computed when the archive is read.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createHash } from 'node:crypto';
import { openArchiveFiles, type ArchiveFiles, type OpenArchiveOptions } from './archive-files.js';
import { digestLike, sha256Digest, verifyingStream } from './digests.js';
import { ImageArchiveError, ArchiveEntryMissingError, DigestMismatchError, MalformedImageError } from './errors.js';
import { diffIdsForLayers, parseImageConfig } from './image-config.js';
import { parseJsonDocument, type ImageManifest } from './manifests.js';
import { OCI_CONFIG, OCI_LAYER_GZIP, OCI_LAYER_TAR, OCI_LAYER_ZSTD, OCI_MANIFEST } from './media-types.js';
import { formatImageReference, parseImageReference } from './references.js';
import { platformOfConfig, type ArchiveImage, type ImageLayer } from './resolved-image.js';

export interface DockerArchiveOptions extends OpenArchiveOptions {
  /** Picks one image of a multi-image archive by one of its RepoTags (`nginx:1.25` or fully qualified). */
  tag?: string;
}

interface ManifestEntry {
  Config: string;
  RepoTags: string[];
  Layers: string[];
}

const MAX_METADATA_BYTES = 16 << 20;
/** Where newer docker (and OCI-layout-shaped archives) keep content: the path names the digest. */
const BLOB_PATH = /^blobs\/(sha256|sha512)\/([a-f0-9]{64,128})$/;
/** Classic docker save names the config `<image id>.json`, the id being the config's sha256. */
const CONFIG_ID_PATH = /^([a-f0-9]{64})\.json$/;

function digestFromPath(path: string): string | undefined {
  const blob = BLOB_PATH.exec(path);
  if (blob) return `${blob[1]}:${blob[2]}`;
  const config = CONFIG_ID_PATH.exec(path);
  return config ? `sha256:${config[1]}` : undefined;
}

function parseManifestJson(bytes: Buffer): ManifestEntry[] {
  const doc = parseJsonDocument(bytes, 'manifest.json');
  if (!Array.isArray(doc)) throw new MalformedImageError('manifest.json of the docker archive is not a list of images');
  return doc.map((e: unknown, i) => {
    const entry = e as Partial<Record<string, unknown>> | null;
    if (!entry || typeof entry.Config !== 'string' || !Array.isArray(entry.Layers) || entry.Layers.some((l) => typeof l !== 'string')) {
      throw new MalformedImageError(`manifest.json entry ${i} needs a Config path and a Layers list`);
    }
    const tags = Array.isArray(entry.RepoTags) ? entry.RepoTags.filter((t): t is string => typeof t === 'string') : [];
    return { Config: entry.Config, RepoTags: tags, Layers: entry.Layers as string[] };
  });
}

/** `nginx:1.25` and `docker.io/library/nginx:1.25` name the same image; compare them normalised. */
function sameTag(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return formatImageReference(parseImageReference(a)) === formatImageReference(parseImageReference(b));
  } catch {
    return false;
  }
}

function chooseEntry(entries: ManifestEntry[], tag: string | undefined): ManifestEntry {
  if (entries.length === 0) throw new MalformedImageError('manifest.json of the docker archive lists no images');
  const allTags = entries.flatMap((e) => e.RepoTags);
  if (tag !== undefined) {
    const found = entries.find((e) => e.RepoTags.some((t) => sameTag(t, tag)));
    if (!found) throw new ImageArchiveError(`the archive has no image tagged ${tag}; it has: ${allTags.join(', ') || 'untagged images only'}`, { tag });
    return found;
  }
  if (entries.length > 1) {
    throw new ImageArchiveError(`the archive holds ${entries.length} images; choose one by tag: ${allTags.join(', ') || '(untagged)'}`, {
      tags: allTags,
    });
  }
  return entries[0]!;
}

/** Tags from the legacy `repositories` file ({repo: {tag: id}}), used only when manifest.json has none. */
async function legacyRepoTags(files: ArchiveFiles): Promise<string[]> {
  if ((await files.size('repositories')) === undefined) return [];
  let doc: unknown;
  try {
    doc = JSON.parse((await files.read('repositories', MAX_METADATA_BYTES, 'optional')).toString('utf8'));
  } catch {
    return []; // Only a source of tag names: an unreadable one costs the tags, not the image.
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
  return Object.entries(doc as Record<string, unknown>).flatMap(([repo, tags]) =>
    typeof tags === 'object' && tags !== null ? Object.keys(tags).map((t) => `${repo}:${t}`) : [],
  );
}

function layerMediaType(head: Buffer): string {
  if (head[0] === 0x1f && head[1] === 0x8b) return OCI_LAYER_GZIP;
  if (head.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))) return OCI_LAYER_ZSTD;
  return OCI_LAYER_TAR;
}

async function sha256OfFile(files: ArchiveFiles, path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await files.open(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

async function describeLayer(files: ArchiveFiles, path: string, diffId: string, index: number): Promise<ImageLayer> {
  const size = await files.size(path);
  if (size === undefined) throw new ArchiveEntryMissingError(path, `manifest.json lists it as layer ${index + 1}`);
  const mediaType = layerMediaType(await files.head(path, 4));
  const digest = mediaType === OCI_LAYER_TAR ? diffId : (digestFromPath(path) ?? (await sha256OfFile(files, path)));
  const what = `layer ${index + 1} (${path}) of the docker archive`;
  return {
    digest,
    size,
    mediaType,
    diffId,
    async open(): Promise<Readable> {
      return pipeline(await files.open(path), verifyingStream(digest, { what, expectedSize: size }), () => {});
    },
  };
}

/** The canonical manifest the module comment describes. */
export function synthesizeManifest(configDigest: string, configSize: number, layers: ImageLayer[]): { manifest: ImageManifest; bytes: Buffer } {
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: { mediaType: OCI_CONFIG, digest: configDigest, size: configSize },
    layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.size })),
  };
  return { manifest, bytes: Buffer.from(JSON.stringify(manifest)) };
}

/** Reads an image from already-opened archive files (the caller owns `files`). */
export async function dockerArchiveImage(files: ArchiveFiles, options: Pick<DockerArchiveOptions, 'tag'> = {}): Promise<Omit<ArchiveImage, 'close'>> {
  const entries = parseManifestJson(await files.read('manifest.json', MAX_METADATA_BYTES, 'a docker save archive is described by it'));
  const entry = chooseEntry(entries, options.tag);

  const configBytes = await files.read(entry.Config, MAX_METADATA_BYTES, 'manifest.json names it as the image config');
  const configDigest = sha256Digest(configBytes);
  const named = digestFromPath(entry.Config);
  if (named && digestLike(named, configBytes) !== named) {
    throw new DigestMismatchError(`image config ${entry.Config} of the docker archive`, named, digestLike(named, configBytes));
  }
  const config = parseImageConfig(configBytes, `image config ${entry.Config}`);
  const diffIds = diffIdsForLayers(config, entry.Layers.length, 'docker archive');

  const layers: ImageLayer[] = [];
  for (const [i, path] of entry.Layers.entries()) layers.push(await describeLayer(files, path, diffIds[i]!, i));

  const { manifest, bytes } = synthesizeManifest(configDigest, configBytes.length, layers);
  const repoTags = entry.RepoTags.length > 0 ? entry.RepoTags : entries.length === 1 ? await legacyRepoTags(files) : [];
  return {
    source: 'docker-archive',
    manifestDigest: sha256Digest(bytes),
    manifest,
    manifestBytes: bytes,
    configDigest,
    config,
    layers,
    repoTags,
    platform: platformOfConfig(config),
  };
}

/** Reads an image from a `docker save` archive at `path` (tar, tar.gz or unpacked directory). */
export async function readDockerArchive(path: string, options: DockerArchiveOptions = {}): Promise<ArchiveImage> {
  const files = await openArchiveFiles(path, options);
  try {
    const image = await dockerArchiveImage(files, options);
    return { ...image, close: () => files.close() };
  } catch (err) {
    await files.close();
    throw err;
  }
}
