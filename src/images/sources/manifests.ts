/**
 * Manifest and index documents: their shapes, and classification of raw bytes into "image manifest" or "index"
 * with the checks every source (registry, OCI layout) needs before trusting the descriptors inside.
 */
import { MalformedImageError, UnsupportedMediaTypeError } from './errors.js';
import {
  baseMediaType,
  IMAGE_MANIFEST_TYPES,
  INDEX_TYPES,
  OCI_INDEX,
  OCI_MANIFEST,
  SCHEMA1_TYPES,
} from './media-types.js';
import type { Platform } from './platforms.js';
import { validateDigest } from './references.js';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  urls?: string[];
  annotations?: Record<string, string>;
  platform?: Platform & { 'os.version'?: string; 'os.features'?: string[] };
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
}

export type ManifestDocument =
  | { kind: 'image'; mediaType: string; manifest: ImageManifest }
  | { kind: 'index'; mediaType: string; index: ImageIndex };

/** JSON.parse with an error that says which document was bad. */
export function parseJsonDocument(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new MalformedImageError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkDescriptor(d: unknown, what: string): Descriptor {
  if (!isRecord(d) || typeof d.digest !== 'string' || typeof d.mediaType !== 'string' || typeof d.size !== 'number') {
    throw new MalformedImageError(`${what} is not a valid descriptor (needs mediaType, digest and size)`);
  }
  if (!Number.isSafeInteger(d.size) || d.size < 0) throw new MalformedImageError(`${what} has an invalid size ${d.size}`);
  try {
    validateDigest(d.digest);
  } catch {
    throw new MalformedImageError(`${what} has an invalid digest ${JSON.stringify(d.digest)}`);
  }
  return d as unknown as Descriptor;
}

/**
 * Classifies and checks a manifest document. The media type comes from the document's own `mediaType` field,
 * else from the Content-Type it was served with, else from its shape (OCI allows omitting the field).
 */
export function parseManifestDocument(bytes: Buffer, contentType: string | undefined, what: string): ManifestDocument {
  const doc = parseJsonDocument(bytes, what);
  if (!isRecord(doc)) throw new MalformedImageError(`${what} is not a JSON object`);

  const declared = typeof doc.mediaType === 'string' ? doc.mediaType : baseMediaType(contentType);
  let mediaType = declared;
  if (!IMAGE_MANIFEST_TYPES.has(mediaType) && !INDEX_TYPES.has(mediaType) && !SCHEMA1_TYPES.has(mediaType)) {
    // Generic or missing type: decide by shape, as OCI clients do.
    if (doc.schemaVersion === 1) mediaType = SCHEMA1_TYPES.values().next().value!;
    else if (Array.isArray(doc.manifests)) mediaType = OCI_INDEX;
    else if (isRecord(doc.config) && Array.isArray(doc.layers)) mediaType = OCI_MANIFEST;
  }

  if (SCHEMA1_TYPES.has(mediaType) || doc.schemaVersion === 1) {
    throw new UnsupportedMediaTypeError(
      mediaType,
      'Docker schema 1 manifests are deprecated and not supported; re-push the image with a current docker, buildah or skopeo',
    );
  }
  if (doc.schemaVersion !== 2) throw new MalformedImageError(`${what} has schemaVersion ${JSON.stringify(doc.schemaVersion)}, expected 2`);

  if (INDEX_TYPES.has(mediaType)) {
    if (!Array.isArray(doc.manifests)) throw new MalformedImageError(`${what} is an index without a manifests list`);
    doc.manifests.forEach((d, i) => checkDescriptor(d, `${what} manifests[${i}]`));
    return { kind: 'index', mediaType, index: doc as unknown as ImageIndex };
  }
  if (IMAGE_MANIFEST_TYPES.has(mediaType)) {
    checkDescriptor(doc.config, `${what} config`);
    if (!Array.isArray(doc.layers)) throw new MalformedImageError(`${what} has no layers list`);
    doc.layers.forEach((d, i) => checkDescriptor(d, `${what} layers[${i}]`));
    return { kind: 'image', mediaType, manifest: doc as unknown as ImageManifest };
  }
  throw new UnsupportedMediaTypeError(
    declared || '(none)',
    `${what} is neither an image manifest nor an index (OCI or Docker schema 2); it may be an artifact rather than a container image`,
  );
}
