/**
 * What gate triggers evaluate against: the image's facts and, loaded on first use, its packages, files,
 * vulnerabilities, feed state and the previous image of the evaluated tag. Triggers see only this interface, so
 * they are testable with plain objects and know nothing about the database.
 */
import type { FileRecord } from '../images/model.js';
import type { DistroInfo } from '../ecosystems/model.js';
import type { PackageRow } from '../images/store.js';
import type { ContentSearchResult } from '../images/scanners/index.js';
import type { PackageVulnerabilityItem } from '../vulns/image-report.js';

export interface EvaluatedTag {
  registry: string;
  repo: string;
  tag: string;
  fullTag: string;
}

export interface ImageFacts {
  accountName: string;
  digest: string;
  imageId: string | null;
  distro?: DistroInfo;
  arch: string | null;
  /** Compressed size of the layers, bytes. */
  size: number | null;
  layerCount: number | null;
  /** The Dockerfile: given by the user (`Actual`), guessed from the history (`Guessed`), or none. */
  dockerfile: { mode: 'Actual' | 'Guessed' | null; text: string | null };
  /** The image config's `ExposedPorts` (`80/tcp`, ...): what EXPOSE recorded, also when no Dockerfile is known. */
  configExposedPorts: string[];
  tag: EvaluatedTag;
}

export interface FeedGroupState {
  feed: string;
  group: string;
  enabled: boolean;
  recordCount: number;
  lastSync: string | null;
}

export interface EvaluationContext {
  image: ImageFacts;
  now: Date;
  packages(): Promise<PackageRow[]>;
  files(): Promise<FileRecord[]>;
  /** Every finding of the image, won't-fix ones included (triggers apply vendor_only themselves). */
  vulnerabilities(): Promise<PackageVulnerabilityItem[]>;
  feedGroups(): Promise<FeedGroupState[]>;
  /** The feed group the image's distro packages are matched in (`debian:12`), if its distro is known. */
  distroNamespace(): string | undefined;
  /** Copies of the files analysis retrieved, by path; undefined when it retrieved none (an imported SBOM). */
  retrievedFiles(): Promise<Map<string, Buffer> | undefined>;
  /** Matches of the secret search; undefined when it did not run for this image. */
  secretSearch(): Promise<ContentSearchResult[] | undefined>;
  /** Matches of the content search; undefined when it did not run for this image. */
  contentSearch(): Promise<ContentSearchResult[] | undefined>;
  /** Analyzed images this one was built on, nearest first; one of them is flagged as the chosen base image. */
  ancestors(): Promise<{ digest: string; chosenBase: boolean }[]>;
  /** The packages of the image the tag pointed at before this one, if there was one. */
  previousImagePackages(): Promise<{ digest: string; packages: PackageRow[] } | undefined>;
}

/** Thrown by a trigger when the image lacks the data it reads: reported as a problem, not as a failure. */
export class TriggerNotEvaluableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TriggerNotEvaluableError';
  }
}

/** One firing of a trigger: what the finding says and the id allowlists name it by. */
export interface Fired {
  /** Stable across evaluations of the same situation (e.g. `CVE-2023-1234+openssl`). */
  triggerId: string;
  message: string;
}

/** Parameter values by canonical (lower-case) name, aliases resolved, as strings. */
export type TriggerParams = Readonly<Record<string, string | undefined>>;

export type TriggerEvaluator = (ctx: EvaluationContext, params: TriggerParams) => Promise<Fired[]>;
