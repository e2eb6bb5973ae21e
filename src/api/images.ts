/** Handlers of the Images tag (records and lifecycle; content routes live in image-content.ts). */
import type { components } from '../../generated/openapi-types.js';
import type { AnalysisProgress } from '../images/analysis-progress.js';
import { ConflictError, InvalidError } from '../errors.js';
import { restoreArchived } from '../archive/archive.js';
import { addImageFromArchive } from '../images/add-archive.js';
import { addImageFromRegistry } from '../images/add.js';
import { addImageFromImport } from '../images/add-import.js';
import * as store from '../images/store.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ImageOps = 'list_images' | 'add_image' | 'add_image_archive' | 'delete_images_async' | 'get_image' | 'delete_image';
type AnchoreImage = components['schemas']['AnchoreImage'];

/** Who made a status change, in upstream's terms: Vigil analyzes images natively, as syft's pipeline does. */
const ANALYZER_SERVICE = 'vigil-analyzer';
const ANALYSIS_ENGINE = 'syft-native-pipeline';

type NoNulls<T> = { [K in keyof T]: Exclude<T[K], null> };

/** Drops null fields: the API leaves unknown values out rather than sending null. */
function omitNull<T extends Record<string, unknown>>(o: T): NoNulls<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as NoNulls<T>;
}

/** Shapes image records (with their tags and status history, fetched in two queries for the whole page). */
export async function imageViews(ctx: RequestContext, images: store.ImageRecord[]): Promise<AnchoreImage[]> {
  const digests = images.map((i) => i.image_digest);
  const [tags, history] = await Promise.all([
    store.tagsOf(ctx.db, ctx.account.name, digests),
    store.statusHistoryOf(ctx.db, ctx.account.name, digests),
  ]);
  return images.map((i) => ({
    image_digest: i.image_digest,
    ...(i.parent_digest ? { parent_digest: i.parent_digest } : {}),
    ...(i.image_id ? { image_id: i.image_id } : {}),
    account_name: i.account_name,
    annotations: JSON.parse(i.annotations),
    image_status: i.image_status,
    analysis_status: i.analysis_status,
    analysis_status_detail: (history.get(i.image_digest) ?? []).map((h) =>
      omitNull({
        from_status: h.from_status,
        to_status: h.to_status,
        timestamp: h.timestamp,
        detail: h.detail,
        source: { host_id: h.host_id, service_name: ANALYZER_SERVICE, analysis_engine: ANALYSIS_ENGINE, enterprise_version: ctx.services.version },
      }),
    ),
    image_detail: (tags.get(i.image_digest) ?? []).map((t) =>
      omitNull({
        full_tag: t.full_tag,
        full_digest: `${t.registry}/${t.repo}@${i.image_digest}`,
        registry: t.registry,
        repo: t.repo,
        tag: t.tag,
        image_digest: i.image_digest,
        image_id: i.image_id,
        account_name: i.account_name,
        tag_detected_at: t.tag_detected_at,
        current: t.current,
        created_at: t.created_at,
        last_updated: t.last_updated,
      }),
    ),
    image_content: {
      metadata: omitNull({
        arch: i.arch,
        distro: i.distro,
        distro_version: i.distro_version,
        dockerfile_mode: i.dockerfile_mode as 'Actual' | 'Guessed' | null,
        image_size: i.image_size === null ? null : Number(i.image_size),
        layer_count: i.layer_count,
      }),
    },
    ...(i.analyzed_at ? { analyzed_at: i.analyzed_at } : {}),
    ...(i.analysis_status === 'analyzing' && i.analysis_progress ? { analysis_progress: JSON.parse(i.analysis_progress) as AnalysisProgress } : {}),
    created_at: i.created_at,
    last_updated: i.last_updated,
  }));
}

/**
 * A deletion's outcome in the established API's terms, whose DeleteImageResponse status has no `deleted`:
 * `deleting` says the deletion was accepted (Vigil has already done it).
 */
function deleteResponse(outcome: store.DeleteOutcome) {
  return { ...outcome, status: outcome.status === 'deleted' ? ('deleting' as const) : outcome.status };
}

export const imageHandlers: HandlerGroup<ImageOps> = {
  async list_images(ctx, { query }) {
    const images = await store.listImages(ctx.db, ctx.account.name, {
      fullTag: query.full_tag,
      imageStatus: query.image_status,
      analysisStatus: query.analysis_status,
      analyzedSince: query.analyzed_since,
    });
    return { status: 200, body: { items: await imageViews(ctx, images) } };
  },
  async add_image(ctx, { query, body }) {
    const source = body.source;
    if (source.import) {
      const imported = await addImageFromImport(ctx.services, ctx.account.name, source.import, query.force ?? false);
      const [view] = await imageViews(ctx, [imported]);
      return { status: 200, body: view };
    }
    if (source.archive) {
      const [view] = await imageViews(ctx, [await restoreArchived(ctx.db, ctx.account.name, source.archive.digest)]);
      return { status: 200, body: view };
    }
    if (!source.tag && !source.digest) throw new InvalidError('source must name a tag, a digest, an archive or an import', { errors: [{ location: 'body.source', message: 'needs tag, digest, archive or import' }] });
    const image = await addImageFromRegistry(ctx.services, ctx.account.name, {
      tag: source.tag,
      digest: source.digest,
      annotations: body.annotations ?? {},
      force: query.force ?? false,
    });
    const [view] = await imageViews(ctx, [image]);
    return { status: 200, body: view };
  },
  async add_image_archive(ctx, { query }) {
    const image = await addImageFromArchive(ctx.services, ctx.account.name, ctx.bodyStream!, { tag: query.tag, force: query.force ?? false });
    const [view] = await imageViews(ctx, [image]);
    return { status: 200, body: view };
  },
  async delete_images_async(ctx, { query }) {
    const outcomes = [];
    for (const digest of query.image_digests) outcomes.push(deleteResponse(await store.deleteImage(ctx.db, ctx.account.name, digest, query.force ?? false)));
    return { status: 200, body: outcomes };
  },
  async get_image(ctx, { params }) {
    const [view] = await imageViews(ctx, [await store.getImage(ctx.db, ctx.account.name, params.image_digest)]);
    return { status: 200, body: view };
  },
  async delete_image(ctx, { params, query }) {
    await store.getImage(ctx.db, ctx.account.name, params.image_digest);
    const result = await store.deleteImage(ctx.db, ctx.account.name, params.image_digest, query.force ?? false);
    if (result.status === 'delete_failed') throw new ConflictError(result.detail!, { image_digest: params.image_digest });
    return { status: 200, body: deleteResponse(result) };
  },
};
