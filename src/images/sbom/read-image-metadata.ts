/**
 * What an SBOM says about the image it describes, beyond its packages. syft JSON of an image source (the
 * document AnchoreCTL generates) carries the manifest and config (base64), the manifest digest, the image id, the
 * layers and the tags in `source.metadata` (older schemas: `source.target`); other formats carry none of it.
 */
import type { ImageConfig } from '../sources/image-config.js';
import { detectSbomFormat } from './detect.js';
import { SbomReadError } from './read-errors.js';
import { isObject, type JsonObject } from './read-fields.js';

export interface SbomImageMetadata {
  manifestDigest?: string;
  imageId?: string;
  architecture?: string;
  tags: string[];
  layers: { digest: string; size: number; mediaType: string }[];
  manifest?: JsonObject;
  config?: ImageConfig;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** A base64 JSON object (syft's manifest and config), refused with its location when it is anything else. */
function decodedObject(value: unknown, field: string): JsonObject | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const fail = () => new SbomReadError(`syft JSON SBOM: ${field} must be a base64-encoded JSON object`, 'syft', field);
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw fail();
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
    if (!isObject(parsed)) throw fail();
    return parsed;
  } catch (err) {
    if (err instanceof SbomReadError) throw err;
    throw fail();
  }
}

export function readSbomImageMetadata(doc: unknown): SbomImageMetadata {
  const none: SbomImageMetadata = { tags: [], layers: [] };
  if (!isObject(doc) || detectSbomFormat(doc) !== 'syft' || !isObject(doc['source'])) return none;
  const source = doc['source'];
  if (source['type'] !== 'image') return none;
  const key = isObject(source['metadata']) ? 'metadata' : 'target';
  const meta = source[key];
  if (!isObject(meta)) return none;
  const at = `source.${key}`;
  const config = decodedObject(meta['config'], `${at}.config`);
  if (config && !(isObject(config['rootfs']) && Array.isArray(config['rootfs']['diff_ids'])))
    throw new SbomReadError(`syft JSON SBOM: ${at}.config has no rootfs.diff_ids list`, 'syft', `${at}.config`);
  const manifest = decodedObject(meta['manifest'], `${at}.manifest`);
  const manifestDigest = text(meta['manifestDigest']);
  const imageId = text(meta['imageID']);
  const layers = (Array.isArray(meta['layers']) ? meta['layers'] : []).filter(isObject).map((l) => ({
    digest: text(l['digest']) ?? '',
    size: typeof l['size'] === 'number' && Number.isFinite(l['size']) && l['size'] >= 0 ? l['size'] : 0,
    mediaType: text(l['mediaType']) ?? '',
  }));
  return {
    ...(manifestDigest && DIGEST.test(manifestDigest) ? { manifestDigest } : {}),
    ...(imageId ? { imageId } : {}),
    ...(text(meta['architecture']) ? { architecture: text(meta['architecture']) } : {}),
    tags: (Array.isArray(meta['tags']) ? meta['tags'] : []).map(text).filter((t): t is string => t !== undefined),
    layers,
    ...(manifest ? { manifest } : {}),
    ...(config ? { config: config as unknown as ImageConfig } : {}),
  };
}
