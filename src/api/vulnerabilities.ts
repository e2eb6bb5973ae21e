/**
 * Handlers for an image's vulnerabilities, its annotations and VEX exports (Images tag), the vulnerability
 * query (Query tag) and the SBOM scan (Vulnerabilities tag).
 */
import type { OperationIO } from '../../generated/operations.js';
import { getAnalyzedImage } from '../images/store.js';
import { streamedJsonArray } from '../server/json-stream.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { annotationView, createAnnotation, deleteAnnotation, getAnnotation, listAnnotations, updateAnnotation } from '../vulns/annotations.js';
import { refreshImageFindings } from '../vulns/findings.js';
import { imageVulnerabilities } from '../vulns/image-report.js';
import { queryVulnerabilities } from '../vulns/query.js';
import { scanSbom } from '../vulns/sbom-scan.js';
import { imageCycloneDxVex, imageOpenVex } from '../vulns/vex-export.js';

type VulnOps =
  | 'get_image_vulnerability_types'
  | 'get_image_vulnerabilities_by_digest'
  | 'list_image_vuln_annotations'
  | 'create_image_vuln_annotation'
  | 'get_image_vuln_annotation'
  | 'update_image_vuln_annotation'
  | 'delete_image_vuln_annotation'
  | 'get_image_openvex'
  | 'get_image_cyclonedx_json'
  | 'query_vulnerabilities'
  | 'vulnerability_scan_sbom';

const VULN_TYPES = ['os', 'non-os', 'all'] as const;

type QueryAnswer = OperationIO['query_vulnerabilities']['responses'][200];

export const vulnerabilityHandlers: HandlerGroup<VulnOps> = {
  async get_image_vulnerability_types(ctx, { params }) {
    await getAnalyzedImage(ctx.db, ctx.account.name, params.image_digest);
    return { status: 200, body: [...VULN_TYPES] };
  },
  async get_image_vulnerabilities_by_digest(ctx, { params, query }) {
    const image = await getAnalyzedImage(ctx.db, ctx.account.name, params.image_digest);
    if (query.force_refresh)
      await ctx.db.transaction((trx) => refreshImageFindings(trx, image.account_name, image.image_digest));
    const vulnerabilities = await imageVulnerabilities(ctx.db, image.account_name, image.image_digest, {
      vulnType: params.vuln_type,
      vendorOnly: query.vendor_only ?? true,
      includeDescription: query.include_vuln_description ?? false,
    });
    return { status: 200, body: { image_digest: image.image_digest, vulnerability_type: params.vuln_type, vulnerabilities } };
  },
  async list_image_vuln_annotations(ctx, { params, query }) {
    const items = await listAnnotations(ctx.db, ctx.account.name, params.image_digest, query);
    return { status: 200, body: { items: items.map(annotationView) } };
  },
  async create_image_vuln_annotation(ctx, { params, body }) {
    const author = ctx.caller.username;
    const record = await createAnnotation(ctx.db, ctx.account.name, params.image_digest, body, author);
    return { status: 201, body: annotationView(record) };
  },
  async get_image_vuln_annotation(ctx, { params }) {
    return { status: 200, body: annotationView(await getAnnotation(ctx.db, ctx.account.name, params.image_digest, params.vuln_annotation_uuid)) };
  },
  async update_image_vuln_annotation(ctx, { params, body }) {
    const record = await updateAnnotation(ctx.db, ctx.account.name, params.image_digest, params.vuln_annotation_uuid, body);
    return { status: 200, body: annotationView(record) };
  },
  async delete_image_vuln_annotation(ctx, { params }) {
    await deleteAnnotation(ctx.db, ctx.account.name, params.image_digest, params.vuln_annotation_uuid);
    return { status: 204 };
  },
  async get_image_openvex(ctx, { params }) {
    const doc = await imageOpenVex(ctx.db, ctx.account.name, params.image_digest, ctx.services.version);
    return { status: 200, body: doc as unknown as Record<string, unknown> };
  },
  async get_image_cyclonedx_json(ctx, { params, query }) {
    const doc = await imageCycloneDxVex(ctx.db, ctx.account.name, params.image_digest, ctx.services.version, query.spec_version ?? '1.5');
    return { status: 200, body: doc as unknown as Record<string, unknown> };
  },
  async query_vulnerabilities(ctx, { query }) {
    const result = queryVulnerabilities(ctx.db, {
      ids: query.id,
      affectedPackage: query.affected_package,
      affectedPackageVersion: query.affected_package_version,
      namespaces: query.namespace,
      page: Number(query.page ?? '1'),
      limit: query.limit ?? 0,
    });
    // Streamed: `limit=0` may select any number of records; the count follows the list.
    return { status: 200, body: streamedJsonArray<QueryAnswer, 'vulnerabilities', 'next_page' | 'returned_count'>({ page: result.page }, 'vulnerabilities', result.vulnerabilities, result.summary) };
  },
  async vulnerability_scan_sbom(ctx, { query, body }) {
    const result = await scanSbom(ctx.db, body, { includeDescription: query.include_vuln_description ?? false, vendorOnly: query.vendor_only ?? true });
    // Vigil holds no extended-support data, whatever `extended_support` asks.
    return { status: 200, body: { ...result, extended_support: false } };
  },
};
