/**
 * What every image source yields, so the layer walker does not care whether an image came from a registry or an
 * uploaded archive: identity (digests), the parsed config, and layers it can open one at a time, in order.
 */
import type { Readable } from 'node:stream';
import type { ImageConfig } from './image-config.js';
import type { ImageManifest } from './manifests.js';
import type { Platform } from './platforms.js';

export type ImageSourceKind = 'registry' | 'docker-archive' | 'oci-layout';

export interface ImageLayer {
  /** Digest of the layer blob as stored (compressed form for registries). */
  digest: string;
  size: number;
  /** Tells the walker how to decompress: ...tar, ...tar+gzip, ...tar+zstd (OCI or Docker names). */
  mediaType: string;
  /** Digest of the uncompressed tar (config rootfs.diff_ids[i]), for callers that verify after decompressing. */
  diffId: string;
  /**
   * Opens the blob. The stream checks the content against `digest` while it flows and errors at its end with
   * DigestMismatchError if it does not match; everything derived from a stream that errored must be discarded.
   */
  open(): Promise<Readable>;
}

export interface ResolvedImage {
  source: ImageSourceKind;
  /** Digest of the image manifest (synthesized for docker-archive; see docker-archive.ts). */
  manifestDigest: string;
  /** Digest of the index the manifest was chosen from, when there was one. */
  indexDigest?: string;
  /** The image manifest (for docker-archive the synthesized one whose digest is manifestDigest). */
  manifest: ImageManifest;
  manifestBytes: Buffer;
  /** Digest of the config blob: the image ID docker shows, identical for the same image from any source. */
  configDigest: string;
  config: ImageConfig;
  layers: ImageLayer[];
  /** Tags the source names the image by (archive RepoTags / ref annotations; the requested tag for registries). */
  repoTags: string[];
  /** os/architecture/variant from the config. */
  platform: Platform;
}

export function platformOfConfig(config: ImageConfig): Platform {
  return {
    os: config.os ?? 'unknown',
    architecture: config.architecture ?? 'unknown',
    ...(config.variant ? { variant: config.variant } : {}),
  };
}

/** An image read from an uploaded archive. `close()` releases temporary files; layers cannot be opened after it. */
export interface ArchiveImage extends ResolvedImage {
  source: 'docker-archive' | 'oci-layout';
  close(): Promise<void>;
}
