/**
 * The EvaluationContext of an image known only by an SBOM submitted for a one-time scan: its packages and distro
 * from the document, the image facts its source metadata carries (syft JSON: image id, architecture, layers,
 * config, from which the history and a guessed Dockerfile), the findings of a fresh match, and the secret and
 * content searches and retrieved files sent with it. Nothing is read from or written to the account's images,
 * except what the gates compare with: the analyzed images the layers were built on (ancestry) and the image the
 * evaluated tag points at now (tag drift).
 */
import type { Db } from '../db/index.js';
import { ancestorsOfLayers } from '../images/ancestry.js';
import { guessDockerfile, historyOf } from '../images/history.js';
import { configExposedPorts } from '../images/sources/image-config.js';
import type { SbomImageMetadata, SbomReadResult } from '../images/sbom/index.js';
import type { ContentSearchResult, RetrievedFile } from '../images/scanners/index.js';
import { packageRowOf } from '../images/store.js';
import type { PackageVulnerabilityItem } from '../vulns/image-report.js';
import type { EvaluatedTag, EvaluationContext } from './evaluation-context.js';
import { distroNamespaceOf, feedGroupStates, once, previousImageOfTag } from './image-context.js';

export interface SbomSubject {
  accountName: string;
  /** The image's manifest digest when the SBOM names it, else the SBOM's own id. */
  digest: string;
  read: SbomReadResult;
  image: SbomImageMetadata;
  tag: EvaluatedTag;
  /** Every finding of the SBOM's packages, won't-fix ones included (triggers apply vendor_only themselves). */
  vulnerabilities: PackageVulnerabilityItem[];
  /** Absent when not sent: the gates then know the search did not run, rather than found nothing. */
  secretSearch?: ContentSearchResult[];
  contentSearch?: ContentSearchResult[];
  retrievedFiles?: RetrievedFile[];
  now: Date;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function sbomEvaluationContext(db: Db, s: SbomSubject): EvaluationContext {
  const { config, layers } = s.image;
  const history = config ? historyOf(config) : [];
  const packages = s.read.packages.map(packageRowOf).sort((a, b) => compare(a.type, b.type) || compare(a.name, b.name) || compare(a.version, b.version));
  return {
    image: {
      accountName: s.accountName,
      digest: s.digest,
      imageId: s.image.imageId ?? null,
      distro: s.read.distro,
      arch: s.image.architecture ?? config?.architecture ?? null,
      size: layers.length ? layers.reduce((n, l) => n + l.size, 0) : null,
      layerCount: layers.length || (config ? config.rootfs.diff_ids.length : null),
      dockerfile: history.length ? { mode: 'Guessed', text: guessDockerfile(history) } : { mode: null, text: null },
      configExposedPorts: configExposedPorts(config),
      tag: s.tag,
    },
    now: s.now,
    packages: async () => packages,
    // An SBOM lists packages, not the filesystem.
    files: async () => [],
    vulnerabilities: async () => s.vulnerabilities,
    feedGroups: once(() => feedGroupStates(db)),
    distroNamespace: () => distroNamespaceOf(s.read.distro),
    retrievedFiles: async () => s.retrievedFiles && new Map(s.retrievedFiles.map((f) => [f.path, Buffer.from(f.b64_content, 'base64')])),
    secretSearch: async () => s.secretSearch,
    contentSearch: async () => s.contentSearch,
    ancestors: once(async () =>
      config ? (await ancestorsOfLayers(db, s.accountName, config.rootfs.diff_ids, s.digest)).map((a) => ({ digest: a.image_digest, chosenBase: a.chosen_base_image })) : [],
    ),
    previousImagePackages: once(() => previousImageOfTag(db, s.accountName, s.tag.fullTag, s.digest)),
  };
}
