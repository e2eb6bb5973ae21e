/**
 * What every SBOM writer takes: one analyzed image and its packages, in the shape the image store already holds
 * (a PackageRow or a CatalogedPackage both fit `SbomPackage`). Writers are pure functions of this input, so an
 * export of the same analysis is the same document byte for byte.
 */
import type { FileRecord } from '../model.js';
import type { DistroInfo, PackageOwner } from '../../ecosystems/model.js';

export interface SbomLayer {
  digest: string;
  size: number;
  media_type: string;
}

export interface SbomImage {
  /** Manifest digest (`sha256:...`): the image's identity, and the seed of every document id derived from it. */
  digest: string;
  /** Config digest. */
  imageId?: string | null;
  /** Full tags (`docker.io/library/debian:12`), most relevant first: the first names the image in documents. */
  tags: string[];
  arch?: string | null;
  distro?: DistroInfo;
  /** When the image was built (its config's `created`), if known. */
  createdAt?: string | null;
  layers: SbomLayer[];
}

/** One package as stored: PackageRow's columns (nullable) or CatalogedPackage's fields (optional) both fit. */
export interface SbomPackage {
  /** Vigil's package type (dpkg, apk, rpm, npm, python, gem, java, go); unknown types pass through as given. */
  type: string;
  name: string;
  version: string;
  origin?: string | null;
  sourceVersion?: string | null;
  size?: number | null;
  licenses: string[];
  locations: string[];
  purl: string;
  cpes: string[];
  metadata: Record<string, unknown>;
  /** The OS package that installed this language package (images/ownership.ts). */
  owner?: PackageOwner | null;
}

export interface SbomInput {
  image: SbomImage;
  packages: SbomPackage[];
  /** The image's final filesystem view; only the native format carries it. */
  files?: FileRecord[];
  /** Vigil's version, named as the producing tool. */
  toolVersion: string;
  /**
   * When the analysis the document describes finished. Documents use it as their creation time rather than the
   * clock, so two exports of one analysis are identical; it falls back to the image's build time.
   */
  analyzedAt?: string | null;
}

/** A fixed point for documents whose image has no known times: still deterministic, and obviously not a real date. */
const UNKNOWN_TIME = '1970-01-01T00:00:00Z';

/** The document timestamp as RFC 3339 UTC without fractions (the form SPDX requires and CycloneDX accepts). */
export function documentTime(input: SbomInput): string {
  for (const candidate of [input.analyzedAt, input.image.createdAt]) {
    if (!candidate) continue;
    const ms = Date.parse(candidate);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return UNKNOWN_TIME;
}
