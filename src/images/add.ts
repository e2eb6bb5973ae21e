/**
 * Adding an image: resolve what the user named to a manifest digest (a registry round trip for tags, so the
 * answer carries the digest), record the image and its tag mapping, and queue the analysis. Re-adding an
 * analyzed digest only records the tag, unless forced.
 */
import { InvalidError } from '../errors.js';
import { recordEvent } from '../events/events.js';
import type { Services } from '../service.js';
import { ANALYZE_IMAGE_JOB, type AnalyzeImagePayload } from './analyze.js';
import { registryClientOptions } from './registry-credentials.js';
import { formatImageReference, fullTag, parseImageReference, type ImageReference } from './sources/references.js';
import { parsePlatform } from './sources/platforms.js';
import { resolveImageReference } from './sources/registry.js';
import * as store from './store.js';
import { recordTag } from './tags.js';

export interface AddImageInput {
  tag?: { pull_string: string; dockerfile?: string; platform?: string };
  digest?: { pull_string: string; tag: string; creation_timestamp_override?: string; dockerfile?: string; platform?: string };
  annotations: Record<string, string>;
  force: boolean;
}

function invalid(location: string, message: string): InvalidError {
  return new InvalidError(`${location} ${message}`, { errors: [{ location, message }] });
}

/**
 * The manifest digest a reference resolves to (an index is resolved to the platform's manifest), and the index
 * digest when there was one. A failed lookup is recorded as an event on the account, then rethrown.
 */
export async function resolveManifestDigest(services: Services, accountName: string, ref: ImageReference, platform?: string) {
  const connection = await registryClientOptions(services, accountName, ref.registry, ref.repository);
  try {
    const resolved = await resolveImageReference(ref, {
      ...connection,
      platform: platform ? parsePlatform(platform) : undefined,
    });
    return { digest: resolved.manifestDigest, parentDigest: resolved.indexDigest ?? null };
  } catch (err) {
    await recordEvent(services.db, {
      accountName,
      type: 'system.image_analysis.registry_lookup_failed',
      resourceType: 'image_reference',
      resourceId: formatImageReference(ref),
      message: `Looking up ${formatImageReference(ref)} failed: ${err instanceof Error ? err.message : String(err)}`,
    });
    throw err;
  }
}

export async function addImageFromRegistry(services: Services, accountName: string, input: AddImageInput): Promise<store.ImageRecord> {
  let tagRef: ImageReference;
  let digest: string;
  let parentDigest: string | null = null;
  let detectedAt: string | undefined;
  const spec = input.tag ?? input.digest!;
  if (input.tag) {
    tagRef = parseImageReference(input.tag.pull_string);
    if (tagRef.digest) throw invalid('body.source.tag.pull_string', 'names a digest; use source.digest with a tag instead');
    ({ digest, parentDigest } = await resolveManifestDigest(services, accountName, tagRef, input.tag.platform));
  } else {
    const byDigest = parseImageReference(input.digest!.pull_string);
    if (!byDigest.digest) throw invalid('body.source.digest.pull_string', 'must name a digest (name@sha256:...)');
    digest = byDigest.digest;
    tagRef = parseImageReference(input.digest!.tag.includes('/') ? input.digest!.tag : `${byDigest.registry}/${byDigest.repository}:${input.digest!.tag}`);
    if (tagRef.digest) throw invalid('body.source.digest.tag', 'must be a tag, not a digest');
    if (tagRef.registry !== byDigest.registry || tagRef.repository !== byDigest.repository)
      throw invalid('body.source.digest.tag', `must name the same repository as the pull string (${byDigest.registry}/${byDigest.repository})`);
    detectedAt = input.digest!.creation_timestamp_override ? new Date(input.digest!.creation_timestamp_override).toISOString() : undefined;
  }
  if (!/^sha256:[a-f0-9]{64}$/.test(digest)) throw invalid('body.source', `names digest ${digest}; only sha256 image digests are supported`);

  const created = await store.ensureImage(services.db, {
    account_name: accountName,
    image_digest: digest,
    parent_digest: parentDigest,
    image_type: 'docker',
    annotations: JSON.stringify(input.annotations),
    source: JSON.stringify({ kind: 'registry', pull_string: `${tagRef.registry}/${tagRef.repository}@${digest}`, platform: spec.platform }),
    dockerfile: spec.dockerfile ?? null,
  });
  await recordTag(services.db, accountName, digest, tagRef, detectedAt);

  const image = await store.getImage(services.db, accountName, digest);
  const rerun = !created && (input.force || image.analysis_status === 'analysis_failed') && image.analysis_status !== 'analyzing';
  if (rerun) await store.transitionAnalysis(services.db, accountName, digest, ['analyzed', 'analysis_failed'], 'not_analyzed', input.force ? 'analysis requested again (force)' : 'analysis requested again');
  if (created || rerun) {
    const payload: AnalyzeImagePayload = { accountName, imageDigest: digest };
    await services.jobs.enqueue(ANALYZE_IMAGE_JOB, payload, { accountName });
    services.worker.wake();
  }
  return store.getImage(services.db, accountName, digest);
}
