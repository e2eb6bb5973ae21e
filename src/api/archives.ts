/** Handlers of the Archives tag: the analysis archive and its transition rules (src/archive/). */
import { archiveImage, archiveSummary, deleteArchived, getArchived, listArchived, type ArchivedRecord } from '../archive/archive.js';
import { createRule, deleteRule, getRule, listRules, type ArchiveRule } from '../archive/rules.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ArchiveOps =
  | 'list_archives'
  | 'list_analysis_archive'
  | 'archive_image_analysis'
  | 'get_archived_analysis'
  | 'delete_archived_analysis'
  | 'list_analysis_archive_rules'
  | 'create_analysis_archive_rule'
  | 'get_analysis_archive_rule'
  | 'delete_analysis_archive_rule';

/** Upstream's ArchivedAnalysis (camelCase digests, as upstream spells them); unknown values are left out. */
function archivedShape(r: ArchivedRecord) {
  return {
    imageDigest: r.image_digest,
    ...(r.parent_digest ? { parentDigest: r.parent_digest } : {}),
    annotations: r.annotations,
    status: r.status,
    image_detail: r.image_detail,
    created_at: r.created_at,
    last_updated: r.last_updated,
    ...(r.analyzed_at ? { analyzed_at: r.analyzed_at } : {}),
    archive_size_bytes: r.archive_size_bytes,
  };
}

function ruleShape(r: ArchiveRule) {
  return {
    rule_id: r.rule_id,
    transition: r.transition,
    selector: r.selector,
    tag_versions_newer: r.tag_versions_newer,
    analysis_age_days: r.analysis_age_days,
    system_global: r.system_global,
    ...(r.exclude ? { exclude: r.exclude } : {}),
    ...(r.max_images_per_account !== null ? { max_images_per_account: r.max_images_per_account } : {}),
    created_at: r.created_at,
    last_updated: r.last_updated,
  };
}

const ruleCaller = (ctx: RequestContext) => ({ accountName: ctx.account.name, isAdmin: ctx.caller.isAdmin });

export const archiveHandlers: HandlerGroup<ArchiveOps> = {
  async list_archives(ctx) {
    const { last_updated, ...counts } = await archiveSummary(ctx.db, ctx.account.name);
    return { status: 200, body: { images: { ...counts, ...(last_updated ? { last_updated } : {}) } } };
  },
  async list_analysis_archive(ctx, { query }) {
    const records = await listArchived(ctx.db, ctx.account.name, { page: query.page ?? 1, limit: query.limit ?? 1000 });
    return { status: 200, body: records.map(archivedShape) };
  },
  async archive_image_analysis(ctx, { body }) {
    const results = [];
    for (const digest of body) results.push(await archiveImage(ctx.db, ctx.account.name, digest));
    return { status: 200, body: results };
  },
  async get_archived_analysis(ctx, { params }) {
    return { status: 200, body: archivedShape(await getArchived(ctx.db, ctx.account.name, params.image_digest)) };
  },
  async delete_archived_analysis(ctx, { params }) {
    await deleteArchived(ctx.db, ctx.account.name, params.image_digest);
    return { status: 200 };
  },
  async list_analysis_archive_rules(ctx, { query }) {
    return { status: 200, body: (await listRules(ctx.db, ctx.account.name, query.system_global ?? true)).map(ruleShape) };
  },
  async create_analysis_archive_rule(ctx, { body }) {
    return { status: 200, body: ruleShape(await createRule(ctx.db, ruleCaller(ctx), body)) };
  },
  async get_analysis_archive_rule(ctx, { params }) {
    return { status: 200, body: ruleShape(await getRule(ctx.db, ctx.account.name, params.rule_id)) };
  },
  async delete_analysis_archive_rule(ctx, { params }) {
    await deleteRule(ctx.db, ruleCaller(ctx), params.rule_id);
    return { status: 200 };
  },
};
