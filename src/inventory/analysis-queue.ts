/**
 * Images seen running that the account has not analyzed are queued for analysis (VIGIL_INVENTORY_ANALYZE).
 * A report only picks the candidates and queues one job with at most VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT of
 * them, so an agent's request never waits on registries and a large cluster cannot flood the queue (the rest
 * are picked up by later reports, once these are known). The job adds each image as POST /v2/images would.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import { addImageFromRegistry, resolveManifestDigest } from '../images/add.js';
import { fullName, fullTag, parseImageReference } from '../images/sources/references.js';
import type { JobContext } from '../jobs/worker.js';
import type { Services } from '../service.js';
import type { RunningImage } from './model.js';
import { defineJob } from '../jobs/definition.js';


/** An image to add: its normalised tag (`docker.io/library/nginx:1.25`) and the digest it runs, when known. */
export interface PullableImage {
  tag: string;
  digest: string | null;
}

export interface AnalyzeRunningImagesPayload {
  accountName: string;
  images: PullableImage[];
}

export const ANALYZE_RUNNING_IMAGES_JOB = defineJob<AnalyzeRunningImagesPayload>({
  kind: 'analyze_running_images',
  role: 'analyzer',
  maxAttempts: 2,
  schema: {
    type: 'object',
    properties: {
      accountName: { type: 'string', minLength: 1 },
      images: {
        type: 'array',
        items: {
          type: 'object',
          properties: { tag: { type: 'string', minLength: 1 }, digest: { type: ['string', 'null'] } },
          required: ['tag', 'digest'],
          additionalProperties: false,
        },
      },
    },
    required: ['accountName', 'images'],
    additionalProperties: false,
  },
});

const SHA256 = /^sha256:[a-f0-9]{64}$/;
const LOOKUP_BATCH = 500;

/**
 * The reported images as references Vigil can pull, each once. An image named by digest alone is left out: the
 * image would have no tag to be found by, and a tag cannot be made up.
 */
export function pullableImages(images: readonly RunningImage[], log?: Logger): PullableImage[] {
  const out = new Map<string, PullableImage>();
  for (const image of images) {
    try {
      const ref = parseImageReference(image.image_tag);
      if (!ref.tag) continue;
      const digest = image.image_digest || (ref.digest && SHA256.test(ref.digest) ? ref.digest : null);
      const pullable = { tag: fullTag(ref), digest };
      out.set(`${pullable.tag}@${digest ?? ''}`, pullable);
    } catch (err) {
      log?.debug({ err, image_tag: image.image_tag }, 'a reported image tag is not a pullable reference; not queued for analysis');
    }
  }
  return [...out.values()];
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += LOOKUP_BATCH) out.push(items.slice(i, i + LOOKUP_BATCH));
  return out;
}

/** Digests the account has as images, or as the index (parent) of one. */
async function knownDigests(db: Db, accountName: string, digests: readonly string[]): Promise<Set<string>> {
  const known = new Set<string>();
  for (const batch of batches(digests)) {
    const rows = await db('images')
      .where({ account_name: accountName })
      .andWhere((q) => q.whereIn('image_digest', batch).orWhereIn('parent_digest', batch))
      .select<{ image_digest: string; parent_digest: string | null }[]>('image_digest', 'parent_digest');
    for (const r of rows) {
      known.add(r.image_digest);
      if (r.parent_digest) known.add(r.parent_digest);
    }
  }
  return known;
}

/** Tags that currently map to an image of the account. */
async function mappedTags(db: Db, accountName: string, tags: readonly string[]): Promise<Set<string>> {
  const mapped = new Set<string>();
  for (const batch of batches(tags)) {
    const rows = await db('image_tags').where({ account_name: accountName, current: true }).whereIn('full_tag', batch).select<{ full_tag: string }[]>('full_tag');
    for (const r of rows) mapped.add(r.full_tag);
  }
  return mapped;
}

/**
 * The images the account does not know yet. Known means: the digest is an image (or index) of the account, or the
 * tag currently maps to one. A tag mapped to another digest counts as known on purpose: adding the running digest
 * would move the tag back to what an older pod still runs, away from what the registry serves.
 */
export async function unknownImages(db: Db, accountName: string, images: readonly PullableImage[]): Promise<PullableImage[]> {
  const digests = await knownDigests(db, accountName, [...new Set(images.flatMap((i) => (i.digest ? [i.digest] : [])))]);
  const tags = await mappedTags(db, accountName, [...new Set(images.map((i) => i.tag))]);
  return images.filter((i) => !(i.digest && digests.has(i.digest)) && !tags.has(i.tag));
}

/** Called after a report is stored. Never throws: a report is recorded whether or not its images could be queued. */
export async function queueUnanalyzedImages(services: Services, accountName: string, images: readonly RunningImage[]): Promise<void> {
  const { analyze, analyzeMaxPerReport } = services.config.inventory;
  if (!analyze || images.length === 0) return;
  try {
    const unknown = await unknownImages(services.db, accountName, pullableImages(images, services.log));
    if (unknown.length === 0) return;
    const batch = unknown.slice(0, analyzeMaxPerReport);
    const payload: AnalyzeRunningImagesPayload = { accountName, images: batch };
    await services.jobs.enqueue(ANALYZE_RUNNING_IMAGES_JOB, payload, { accountName });
    services.worker.wake();
    services.log.info({ account: accountName, queued: batch.length, deferred: unknown.length - batch.length }, 'queued images seen running for analysis');
  } catch (err) {
    services.log.error({ err, account: accountName }, 'could not queue the images of an inventory report for analysis');
  }
}

/** Adds one running image unless it became known since the report; by tag and digest when the digest is known. */
async function addRunningImage(services: Services, accountName: string, image: PullableImage): Promise<boolean> {
  if ((await unknownImages(services.db, accountName, [image])).length === 0) return false;
  const add = { annotations: {}, force: false };
  if (!image.digest) {
    await addImageFromRegistry(services, accountName, { ...add, tag: { pull_string: image.tag } });
    return true;
  }
  // Kubernetes reports the digest it pulled, for a multi-platform image the index's; Vigil analyzes the
  // platform's manifest (as adding by tag does).
  const { digest: manifest } = await resolveManifestDigest(services, accountName, { ...parseImageReference(image.tag), digest: image.digest });
  if (manifest !== image.digest && (await unknownImages(services.db, accountName, [{ ...image, digest: manifest }])).length === 0) return false;
  const pullString = `${fullName(parseImageReference(image.tag))}@${manifest}`;
  await addImageFromRegistry(services, accountName, { ...add, digest: { pull_string: pullString, tag: image.tag } });
  return true;
}

/** The job: each image added on its own, a failure logged (and, for registry failures, recorded as an event). */
export function analyzeRunningImagesJob(services: Services) {
  return async (payload: AnalyzeRunningImagesPayload, _job: unknown, context: JobContext): Promise<void> => {
    let added = 0;
    for (const image of payload.images) {
      // Stopping: throw so the job stays claimed and resumes at the next start (already added images are skipped).
      if (context.signal.aborted) throw new Error('worker stopping');
      try {
        if (await addRunningImage(services, payload.accountName, image)) added += 1;
      } catch (err) {
        context.log.warn({ err, account: payload.accountName, image: image.tag, digest: image.digest }, 'could not add an image seen running');
      }
    }
    context.log.info({ account: payload.accountName, added, reported: payload.images.length }, 'added images seen running for analysis');
  };
}
