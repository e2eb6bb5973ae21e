/** Handlers for image summaries and the package query. */
import * as store from '../images/store.js';
import { tagSummaries } from '../images/tag-summaries.js';
import type { HandlerGroup } from '../server/handler-types.js';

type SummaryOps = 'summary_image_tags' | 'summary_image_counts' | 'query_images_by_package';

const epoch = (iso: string | null) => (iso ? Math.floor(Date.parse(iso) / 1000) : undefined);

export const summaryHandlers: HandlerGroup<SummaryOps> = {
  async summary_image_tags(ctx, { query }) {
    const page = query.page ?? 1;
    const { rows, total } = await tagSummaries(
      ctx.db,
      ctx.account.name,
      {
        imageStatus: query.image_status,
        analysisStatus: query.analysis_status,
        analyzedSince: query.analyzed_since,
        registry: query.registry,
        repository: query.repository,
        tag: query.tag,
        filter: query.filter,
        currentOnly: query.current_only ?? true,
        policyStatus: query.policy_status,
        hasKev: query.has_kev,
        severity: query.severity,
        sort: query.sort,
        order: query.order,
      },
      page,
      query.limit ?? 100,
    );
    const items = rows.map((r: any) => ({
      image_digest: r.image_digest,
      ...(r.parent_digest ? { parent_digest: r.parent_digest } : {}),
      ...(r.image_id ? { image_id: r.image_id } : {}),
      analysis_status: r.analysis_status,
      image_status: r.image_status,
      full_tag: r.full_tag,
      current: r.current === true || r.current === 1,
      created_at: epoch(r.created_at),
      ...(r.analyzed_at ? { analyzed_at: epoch(r.analyzed_at) } : {}),
      tag_detected_at: epoch(r.tag_detected_at)!,
    }));
    return { status: 200, body: { items, total_rows: total } };
  },
  async summary_image_counts(ctx, { query }) {
    return { status: 200, body: await store.imageCounts(ctx.db, ctx.account.name, { imageStatus: query.image_status, registry: query.registry, repo: query.repo }) };
  },
  async query_images_by_package(ctx, { query }) {
    const page = query.page ?? 1;
    const { images, nextPage } = await store.imagesWithPackage(
      ctx.db,
      ctx.account.name,
      { name: query.name, type: query.package_type, version: query.version },
      page,
      query.limit ?? 100,
    );
    const body = {
      page: String(page),
      next_page: nextPage ? String(page + 1) : '',
      returned_count: images.length,
      images: images.map((i) => ({ image_digest: i.image_digest, ...(i.image_id ? { image_id: i.image_id } : {}), analysis_status: i.analysis_status, tags: i.tags, packages: i.packages })),
    };
    return { status: 200, body };
  },
};
