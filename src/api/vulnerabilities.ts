/**
 * Handlers for an image's vulnerabilities, its annotations and VEX exports (Images tag), the vulnerability
 * query (Query tag) and the SBOM scan (Vulnerabilities tag).
 */
import type { components } from '../../generated/openapi-types.js';
import { InvalidError } from '../errors.js';
import type { OperationIO } from '../../generated/operations.js';
import { getAnalyzedImage } from '../images/store.js';
import { streamedJsonArray } from '../server/json-stream.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { annotationView, createAnnotation, type AnnotationStatement, type AnnotationTarget, deleteAnnotation, getAnnotation, listAnnotations, updateAnnotation } from '../vulns/annotations.js';
import { refreshImageFindings } from '../vulns/findings.js';
import { imageVulnerabilities } from '../vulns/image-report.js';
import { imageMatchDebug } from '../vulns/match-debug.js';
import { queryVulnerabilities } from '../vulns/query.js';
import { scanSbom } from '../vulns/sbom-scan.js';
import { imageCycloneDxVex, imageCycloneDxVexXml, imageOpenVex, imageVulnerabilitiesCycloneDx, imageVulnerabilitiesCycloneDxXml } from '../vulns/vex-export.js';
import type { RequestContext } from '../server/context.js';

type VulnOps =
  | 'get_image_vulnerability_types'
  | 'get_image_vulnerabilities_by_digest'
  | 'get_image_vulnerability_matching_debug'
  | 'list_image_vuln_annotations'
  | 'create_image_vuln_annotation'
  | 'get_image_vuln_annotation'
  | 'update_image_vuln_annotation'
  | 'delete_image_vuln_annotation'
  | 'get_image_openvex'
  | 'get_image_cyclonedx_json'
  | 'get_image_cyclonedx_xml'
  | 'get_image_vulnerabilities_by_digest_cyclonedx_json'
  | 'get_image_vulnerabilities_by_digest_cyclonedx_xml'
  | 'query_vulnerabilities'
  | 'vulnerability_scan_sbom';

const VULN_TYPES = ['os', 'non-os', 'all'] as const;

/** The analyzed image, its findings first re-matched against the current feed data when asked to. */
async function analyzedAndRefreshed(ctx: RequestContext, digest: string, forceRefresh: boolean) {
  const image = await getAnalyzedImage(ctx.db, ctx.account.name, digest);
  if (forceRefresh) await ctx.db.transaction((trx) => refreshImageFindings(trx, image.account_name, image.image_digest));
  return image;
}

interface ReportQuery {
  force_refresh?: boolean;
  include_vuln_description?: boolean;
  include_annotation_detail?: boolean;
  vendor_only?: boolean;
}

async function reportArgs(ctx: RequestContext, digest: string, vulnType: (typeof VULN_TYPES)[number], query: ReportQuery) {
  const image = await analyzedAndRefreshed(ctx, digest, query.force_refresh ?? false);
  const options = {
    vulnType,
    vendorOnly: query.vendor_only ?? true,
    includeDescription: query.include_vuln_description ?? false,
    includeAnnotationDetail: query.include_annotation_detail ?? false,
  };
  return [ctx.db, image.account_name, image.image_digest, ctx.services.version, options] as const;
}

type AnnotationRequest = components['schemas']['PackageVulnerabilityAnnotationRequest'];

/** Fields of the flat (earlier) annotation body, which upstream's form carries inside `annotation`. */
const FLAT_FIELDS = ['vulnerability_id', 'status', 'status_notes', 'justification', 'impact_statement', 'action_statement', 'additional_details', 'package_name', 'package_version', 'package_type'] as const;

/** The statement and target of a create request, in upstream's form or the earlier flat one (never both). */
function annotationInput(body: AnnotationRequest): AnnotationStatement & AnnotationTarget {
  const flat = FLAT_FIELDS.filter((f) => body[f] !== undefined);
  if (body.annotation !== undefined) {
    if (flat.length)
      throw new InvalidError('send the annotation either in upstream\'s form ({annotation, package_identifier}) or flat, not both', {
        errors: flat.map((f) => ({ location: `body.${f}`, message: 'belongs inside annotation (or send the flat form without annotation)' })),
      });
    const pkg = body.package_identifier;
    return { ...body.annotation, package_name: pkg?.name ?? null, package_version: pkg?.version ?? null, package_type: pkg?.type ?? null };
  }
  if (body.package_identifier !== undefined)
    throw new InvalidError('package_identifier goes with annotation', { errors: [{ location: 'body.annotation', message: 'is required with package_identifier' }] });
  const missing = (['vulnerability_id', 'status'] as const).filter((f) => body[f] === undefined);
  if (missing.length)
    throw new InvalidError(`the annotation needs ${missing.join(' and ')} (or upstream's form, {annotation, package_identifier})`, {
      errors: missing.map((f) => ({ location: `body.${f}`, message: 'is required' })),
    });
  return { ...body, vulnerability_id: body.vulnerability_id!, status: body.status! };
}

type QueryAnswer = OperationIO['query_vulnerabilities']['responses'][200];

export const vulnerabilityHandlers: HandlerGroup<VulnOps> = {
  async get_image_vulnerability_types(ctx, { params }) {
    await getAnalyzedImage(ctx.db, ctx.account.name, params.image_digest);
    return { status: 200, body: [...VULN_TYPES] };
  },
  async get_image_vulnerabilities_by_digest(ctx, { params, query }) {
    const image = await analyzedAndRefreshed(ctx, params.image_digest, query.force_refresh ?? false);
    const vulnerabilities = await imageVulnerabilities(ctx.db, image.account_name, image.image_digest, {
      vulnType: params.vuln_type,
      vendorOnly: query.vendor_only ?? true,
      includeDescription: query.include_vuln_description ?? false,
      ...(query.confidence ? { confidence: query.confidence } : {}),
    });
    return { status: 200, body: { image_digest: image.image_digest, vulnerability_type: params.vuln_type, vulnerabilities } };
  },
  async get_image_vulnerability_matching_debug(ctx, { params }) {
    const image = await getAnalyzedImage(ctx.db, ctx.account.name, params.image_digest);
    return { status: 200, body: await imageMatchDebug(ctx.db, image.account_name, image.image_digest) };
  },
  async list_image_vuln_annotations(ctx, { params, query }) {
    const items = await listAnnotations(ctx.db, ctx.account.name, params.image_digest, query);
    return { status: 200, body: { items: items.map(annotationView) } };
  },
  async create_image_vuln_annotation(ctx, { params, body }) {
    const author = ctx.caller.username;
    const record = await createAnnotation(ctx.db, ctx.account.name, params.image_digest, annotationInput(body), author);
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
  async get_image_cyclonedx_xml(ctx, { params, query }) {
    const doc = await imageCycloneDxVexXml(ctx.db, ctx.account.name, params.image_digest, ctx.services.version, query.spec_version ?? '1.6');
    return { status: 200, body: doc };
  },
  async get_image_vulnerabilities_by_digest_cyclonedx_json(ctx, { params, query }) {
    const doc = await imageVulnerabilitiesCycloneDx(...(await reportArgs(ctx, params.image_digest, params.vuln_type, query)));
    return { status: 200, body: doc as unknown as Record<string, unknown> };
  },
  async get_image_vulnerabilities_by_digest_cyclonedx_xml(ctx, { params, query }) {
    return { status: 200, body: await imageVulnerabilitiesCycloneDxXml(...(await reportArgs(ctx, params.image_digest, params.vuln_type, query))) };
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
