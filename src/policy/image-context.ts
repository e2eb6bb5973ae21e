/**
 * Builds the EvaluationContext of an analyzed image from the database: its facts at once, everything else
 * (packages, files, findings, feed state, the tag's previous image) loaded on first use and kept for the run.
 */
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { imageAncestors } from '../images/ancestry.js';
import { readFileList } from '../images/file-list.js';
import type { DistroInfo } from '../ecosystems/model.js';
import type { ContentSearchResult, RetrievedFile } from '../images/scanners/index.js';
import { getAnalyzedImage, packagesOf, readDocument, type PackageRow } from '../images/store.js';
import { configExposedPorts, type ImageConfig } from '../images/sources/image-config.js';
import { distroOf } from '../vulns/findings.js';
import { imageVulnerabilities } from '../vulns/image-report.js';
import { distroFeedOf } from '../ecosystems/registry.js';
import { feedGroupName } from '../vulns/records.js';
import { toBool } from '../db/index.js';
import type { EvaluatedTag, EvaluationContext, FeedGroupState } from './evaluation-context.js';

export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= load());
}

/** The image's tag as evaluated: one it has or had (404 otherwise). */
async function evaluatedTag(db: Db, accountName: string, digest: string, fullTag: string): Promise<EvaluatedTag> {
  const row = await db('image_tags').where({ account_name: accountName, image_digest: digest, full_tag: fullTag }).first('registry', 'repo', 'tag', 'full_tag');
  if (!row) throw new NotFoundError(`image '${digest}' has never had the tag '${fullTag}'`, { image_digest: digest, tag: fullTag });
  return { registry: row.registry, repo: row.repo, tag: row.tag, fullTag: row.full_tag };
}

/** The feed group a distro's packages are matched in (`debian:12`), if it has one. */
export function distroNamespaceOf(distro: DistroInfo | undefined): string | undefined {
  const feed = distroFeedOf(distro);
  return feed ? feedGroupName(feed.ecosystem, feed.release ?? null) : undefined;
}

/** Every feed group with its state, as the vulnerabilities gate's feed triggers read it. */
export async function feedGroupStates(db: Db): Promise<FeedGroupState[]> {
  const rows = await db('vuln_feed_groups as g').join('vuln_feeds as f', 'f.name', 'g.feed').select('g.feed', 'g.name', 'g.enabled', 'f.enabled as feed_enabled', 'g.record_count', 'g.last_sync');
  return rows.map((r: { feed: string; name: string; enabled: unknown; feed_enabled: unknown; record_count: number; last_sync: string | null }) => ({
    feed: r.feed,
    group: r.name,
    enabled: toBool(r.enabled) && toBool(r.feed_enabled),
    recordCount: Number(r.record_count),
    lastSync: r.last_sync,
  }));
}

/** The packages of the image a tag pointed at before `digest` (its history, newest first), if any. */
export async function previousImageOfTag(db: Db, accountName: string, fullTag: string, digest: string): Promise<{ digest: string; packages: PackageRow[] } | undefined> {
  const history: { image_digest: string }[] = await db('image_tags')
    .where({ account_name: accountName, full_tag: fullTag })
    .orderBy([{ column: 'tag_detected_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select('image_digest');
  const at = history.findIndex((h) => h.image_digest === digest);
  // An image the tag never pointed at (an SBOM scanned once) is compared with the tag's newest image.
  const previous = (at >= 0 ? history.slice(at + 1) : history).find((h) => h.image_digest !== digest);
  if (!previous) return undefined;
  const packages: PackageRow[] = await packagesOf(db, accountName, previous.image_digest);
  return { digest: previous.image_digest, packages };
}

export async function imageEvaluationContext(db: Db, accountName: string, digest: string, fullTag: string, now = new Date()): Promise<EvaluationContext> {
  const image = await getAnalyzedImage(db, accountName, digest);
  const tag = await evaluatedTag(db, accountName, digest, fullTag);
  const distro = distroOf(image);
  const dockerfile = (await readDocument<string>(db, accountName, digest, 'dockerfile')) ?? null;
  const config = await readDocument<ImageConfig>(db, accountName, digest, 'config');
  const namespace = distroNamespaceOf(distro);
  return {
    image: {
      accountName,
      digest,
      imageId: image.image_id,
      distro,
      arch: image.arch,
      size: image.image_size === null ? null : Number(image.image_size),
      layerCount: image.layer_count,
      dockerfile: { mode: (image.dockerfile_mode as 'Actual' | 'Guessed' | null) ?? null, text: dockerfile },
      configExposedPorts: configExposedPorts(config),
      tag,
    },
    now,
    packages: once(() => packagesOf(db, accountName, digest)),
    files: once(() => readFileList(db, accountName, digest)),
    vulnerabilities: once(() => imageVulnerabilities(db, accountName, digest, { vulnType: 'all', vendorOnly: false, includeDescription: false })),
    feedGroups: once(() => feedGroupStates(db)),
    retrievedFiles: once(async () => {
      const files = await readDocument<RetrievedFile[]>(db, accountName, digest, 'retrieved_files');
      return files && new Map(files.map((f) => [f.path, Buffer.from(f.b64_content, 'base64')]));
    }),
    secretSearch: once(() => readDocument<ContentSearchResult[]>(db, accountName, digest, 'secret_search')),
    contentSearch: once(() => readDocument<ContentSearchResult[]>(db, accountName, digest, 'content_search')),
    ancestors: once(async () => (await imageAncestors(db, accountName, digest)).map((a) => ({ digest: a.image_digest, chosenBase: a.chosen_base_image }))),
    distroNamespace: () => namespace,
    previousImagePackages: once(() => previousImageOfTag(db, accountName, fullTag, digest)),
  };
}
