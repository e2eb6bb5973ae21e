/** The image configuration JSON (OCI image-spec config.md / Docker image v1.x), checked for what analysis needs. */
import { MalformedImageError, UnsupportedMediaTypeError } from './errors.js';
import { parseJsonDocument } from './manifests.js';
import { CONFIG_TYPES } from './media-types.js';

export interface HistoryEntry {
  created?: string;
  created_by?: string;
  author?: string;
  comment?: string;
  empty_layer?: boolean;
}

export interface ImageConfig {
  architecture?: string;
  os?: string;
  variant?: string;
  'os.version'?: string;
  created?: string;
  author?: string;
  config?: {
    User?: string;
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    Labels?: Record<string, string> | null;
    ExposedPorts?: Record<string, unknown>;
    Volumes?: Record<string, unknown>;
    StopSignal?: string;
    [key: string]: unknown;
  };
  rootfs: { type: string; diff_ids: string[] };
  history?: HistoryEntry[];
  [key: string]: unknown;
}

/** The config's `ExposedPorts` keys (`80/tcp`), bounded: a config is untrusted input. */
export function configExposedPorts(config: ImageConfig | undefined | null): string[] {
  const ports = config?.config?.ExposedPorts;
  if (!ports || typeof ports !== 'object') return [];
  return Object.keys(ports).slice(0, MAX_EXPOSED_PORTS);
}
const MAX_EXPOSED_PORTS = 10_000;

/** Refuses configs of artifacts (Helm charts, signatures, ...) that a manifest can carry instead of an image. */
export function checkConfigMediaType(mediaType: string): void {
  if (!CONFIG_TYPES.has(mediaType)) {
    throw new UnsupportedMediaTypeError(mediaType, 'the manifest does not describe a container image (its config is of another kind)');
  }
}

export function parseImageConfig(bytes: Buffer, what = 'image config'): ImageConfig {
  const doc = parseJsonDocument(bytes, what) as Partial<ImageConfig> | null;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new MalformedImageError(`${what} is not a JSON object`);
  const rootfs = doc.rootfs;
  if (!rootfs || !Array.isArray(rootfs.diff_ids) || rootfs.diff_ids.some((d) => typeof d !== 'string')) {
    throw new MalformedImageError(`${what} has no rootfs.diff_ids list`);
  }
  return doc as ImageConfig;
}

/** The config's diff_ids, checked to pair one-to-one with the manifest's layers (image-spec requires it). */
export function diffIdsForLayers(config: ImageConfig, layerCount: number, what: string): string[] {
  const ids = config.rootfs.diff_ids;
  if (ids.length !== layerCount) {
    throw new MalformedImageError(`${what}: the manifest lists ${layerCount} layers but the config has ${ids.length} diff_ids`);
  }
  return ids;
}
