/** Handlers of the Sources tag: imported source revisions, their content, SBOMs, vulnerabilities and policy check. */
import { CONTENT_TYPES } from '../ecosystems/registry.js';
import type { Db } from '../db/index.js';
import { toCycloneDx, toNativeSbom, toSpdx } from '../images/sbom/index.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { evaluateSource } from '../sources/check.js';
import { nativeSourceDescription, sourceSbomInput, sourceVulnerabilities } from '../sources/report.js';
import * as store from '../sources/store.js';
import { packageContent } from './image-content.js';

type SourceOps =
  | 'list_sources'
  | 'get_source'
  | 'delete_source'
  | 'get_source_policy_check'
  | 'get_source_content_types'
  | 'get_source_content_summary'
  | 'get_source_content_by_type'
  | 'get_source_sbom_native_json'
  | 'get_source_sbom_cyclonedx_json'
  | 'get_source_sbom_spdx_json'
  | 'get_source_vulnerability_types'
  | 'get_source_vulnerabilities';

const VULN_TYPES = ['os', 'non-os', 'all'];

export function sourceShape(s: store.SourceRecord) {
  return {
    uuid: s.source_id,
    account_name: s.account_name,
    host: s.host,
    repository_name: s.repository_name,
    revision: s.revision,
    analysis_status: s.analysis_status,
    source_status: s.source_status,
    created_at: s.created_at,
    last_updated: s.last_updated,
  };
}

/** Upstream's SourceManifest: the source with its VCS type and metadata records. */
export async function sourceManifest(db: Db, s: store.SourceRecord) {
  const records = await store.metadataRecordsOf(db, s.source_id);
  return {
    ...sourceShape(s),
    vcs_type: s.vcs_type,
    metadata_records: records.map((r) => ({
      uuid: r.uuid,
      ci_workflow_name: r.ci_workflow_name,
      ci_workflow_execution_time: r.ci_workflow_execution_time,
      branch_name: r.branch_name,
      change_author: r.change_author,
    })),
  };
}

export const sourceHandlers: HandlerGroup<SourceOps> = {
  async list_sources(ctx, { query }) {
    const limit = query.limit ?? store.MAX_SOURCES_PAGE;
    const sources = await store.listSources(ctx.db, ctx.account.name, { limit, offset: ((query.page ?? 1) - 1) * limit });
    return { status: 200, body: { items: sources.map(sourceShape) } };
  },
  async get_source(ctx, { params }) {
    return { status: 200, body: await sourceManifest(ctx.db, await store.getSource(ctx.db, ctx.account.name, params.source_id)) };
  },
  async delete_source(ctx, { params }) {
    await store.deleteSource(ctx.db, ctx.account.name, params.source_id);
    return { status: 204 };
  },
  async get_source_policy_check(ctx, { params, query }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    return { status: 200, body: await evaluateSource(ctx.db, source, { ...(query.policy_id ? { policyId: query.policy_id } : {}) }) };
  },
  async get_source_content_types(ctx, { params }) {
    await store.getSource(ctx.db, ctx.account.name, params.source_id);
    return { status: 200, body: CONTENT_TYPES.map((c) => c.type) };
  },
  async get_source_content_summary(ctx, { params }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    const counts = await store.countSourcePackagesByType(ctx.db, source);
    const items = CONTENT_TYPES.map((c) => ({ content_type: c.type, display_name: c.display, count: c.packageTypes.reduce((n, t) => n + (counts.get(t) ?? 0), 0) }));
    return { status: 200, body: { items } };
  },
  async get_source_content_by_type(ctx, { params }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    const packageTypes = CONTENT_TYPES.find((c) => c.type === params.content_type)?.packageTypes ?? [];
    const packages = await store.sourcePackages(ctx.db, source, packageTypes);
    return { status: 200, body: { source_id: source.source_id, content_type: params.content_type, content: packages.map(packageContent) } };
  },
  async get_source_sbom_native_json(ctx, { params }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    const document = toNativeSbom(await sourceSbomInput(ctx.db, source, ctx.services.version));
    return { status: 200, body: { ...document, source: nativeSourceDescription(source, document.source.id) } as unknown as Record<string, unknown> };
  },
  async get_source_sbom_cyclonedx_json(ctx, { params }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    return { status: 200, body: toCycloneDx(await sourceSbomInput(ctx.db, source, ctx.services.version), { specVersion: '1.6' }) as unknown as Record<string, unknown> };
  },
  async get_source_sbom_spdx_json(ctx, { params }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    return { status: 200, body: toSpdx(await sourceSbomInput(ctx.db, source, ctx.services.version)) as unknown as Record<string, unknown> };
  },
  async get_source_vulnerability_types(ctx, { params }) {
    await store.getSource(ctx.db, ctx.account.name, params.source_id);
    return { status: 200, body: VULN_TYPES };
  },
  async get_source_vulnerabilities(ctx, { params, query }) {
    const source = await store.getSource(ctx.db, ctx.account.name, params.source_id);
    const vulnerabilities = await sourceVulnerabilities(ctx.db, source, {
      vulnType: params.vuln_type,
      vendorOnly: query.vendor_only ?? true,
      includeDescription: query.include_vuln_description ?? false,
    });
    return { status: 200, body: { source_id: source.source_id, vulnerability_type: params.vuln_type, vulnerabilities } };
  },
};
