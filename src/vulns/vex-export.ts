/**
 * VEX exports of an image: one statement per vulnerability and package. Annotated ones carry the annotation's
 * status and statements; the other current findings are `under_investigation` (matched, not yet assessed).
 * Annotations about vulnerabilities no longer matched are kept: a not_affected statement stays true.
 *
 * And the image's vulnerability report as CycloneDX: the findings of a type (what `GET .../vuln/{type}` lists),
 * each with its ratings, and an analysis only where an annotation gives one.
 */
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { getAnalyzedImage, tagsOf } from '../images/store.js';
import { listAnnotations, applicableAnnotation, type AnnotationRecord } from './annotations.js';
import { storedFindings } from './findings.js';
import { detailsKey, loadVulnerabilityDetails } from './vuln-details.js';
import { imageVulnerabilities, type PackageVulnerabilityItem, type VulnType } from './image-report.js';
import type { SeverityLabel } from './vuln-details.js';
import {
  writeCycloneDxJson,
  writeCycloneDxVex,
  writeCycloneDxXml,
  type CycloneDxDocumentInput,
  type CycloneDxRating,
  type CycloneDxSeverity,
  type CycloneDxStatement,
  type CycloneDxVexSpecVersion,
} from './vex/cyclonedx-vex.js';
import { writeOpenVex } from './vex/openvex.js';
import type { VexDocumentInput, VexStatement } from './vex/types.js';

function annotatedFields(a: AnnotationRecord | undefined): Partial<VexStatement> & Pick<VexStatement, 'status'> {
  if (!a) return { status: 'under_investigation' };
  return {
    status: a.status,
    ...(a.justification ? { justification: a.justification } : {}),
    ...(a.impact_statement ? { impactStatement: a.impact_statement } : {}),
    ...(a.action_statement ? { actionStatement: a.action_statement } : {}),
    ...(a.status_notes ? { statusNotes: a.status_notes } : {}),
  };
}

async function vexInput(db: Db, accountName: string, digest: string, toolVersion: string): Promise<VexDocumentInput> {
  const image = await getAnalyzedImage(db, accountName, digest);
  const findings = await storedFindings(db, accountName, digest);
  const annotations = await listAnnotations(db, accountName, digest);
  const details = await loadVulnerabilityDetails(db, findings.map((f) => ({ feed: f.feed, id: f.vuln_id })));
  const used = new Set<string>();
  const statements: VexStatement[] = findings.map((f) => {
    const d = details.get(detailsKey(f.feed, f.vuln_id));
    const pkg = { name: f.package_name, version: f.package_version, type: f.package_type };
    const annotation = applicableAnnotation(annotations, [f.vuln_id, ...(d?.aliases ?? [])], pkg);
    if (annotation) used.add(annotation.uuid);
    return {
      vulnerabilityId: f.vuln_id,
      aliases: d?.aliases ?? [],
      ...(d?.summary ? { description: d.summary } : {}),
      ...(d?.url ? { url: d.url } : {}),
      product: { purl: f.package_purl ?? '', ...pkg },
      ...annotatedFields(annotation),
      timestamp: annotation?.updated_at ?? f.last_updated,
    };
  });
  for (const a of annotations) {
    if (used.has(a.uuid) || !a.package_name) continue;
    statements.push({
      vulnerabilityId: a.vulnerability_id,
      aliases: [],
      product: { purl: '', name: a.package_name, version: a.package_version ?? '', type: a.package_type ?? 'unknown' },
      ...annotatedFields(a),
      timestamp: a.updated_at,
    });
  }
  if (statements.length === 0)
    throw new NotFoundError(`image '${digest}' has no vulnerabilities and no annotations, so there is nothing to state`, { image_digest: digest });
  const tag = (await tagsOf(db, accountName, [digest])).get(digest)?.find((t) => t.current);
  const timestamp = [image.analyzed_at ?? image.last_updated, ...statements.map((s) => s.timestamp)].sort().pop()!;
  return {
    imageDigest: digest,
    ...(tag ? { imageName: `${tag.registry}/${tag.repo}` } : {}),
    author: accountName,
    timestamp,
    // Stable for the same image and state, so an unchanged image exports an identical document.
    documentId: `vigil:vex:${accountName}:${digest}:${timestamp}`,
    toolName: 'vigil',
    toolVersion,
    statements,
  };
}

export async function imageOpenVex(db: Db, accountName: string, digest: string, toolVersion: string) {
  return writeOpenVex(await vexInput(db, accountName, digest, toolVersion));
}

export async function imageCycloneDxVex(db: Db, accountName: string, digest: string, toolVersion: string, specVersion: CycloneDxVexSpecVersion) {
  return writeCycloneDxVex(await vexInput(db, accountName, digest, toolVersion), specVersion);
}

export async function imageCycloneDxVexXml(db: Db, accountName: string, digest: string, toolVersion: string, specVersion: CycloneDxVexSpecVersion) {
  return writeCycloneDxXml(await vexInput(db, accountName, digest, toolVersion), specVersion);
}

const CDX_SEVERITY: Readonly<Record<SeverityLabel, CycloneDxSeverity>> = {
  Unknown: 'unknown',
  Negligible: 'info',
  Low: 'low',
  Medium: 'medium',
  High: 'high',
  Critical: 'critical',
};

/** CVSS's qualitative rating of a base score (v3 and v4 share the scale; v2 has no none or critical). */
function cvssSeverity(score: number, v2: boolean): CycloneDxSeverity {
  if (v2) return score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  return score === 0 ? 'none' : score < 4 ? 'low' : score < 7 ? 'medium' : score < 9 ? 'high' : 'critical';
}

type Cvss = { base_score: number | null; vector_string: string } | undefined;

function cvssRating(source: string, cvss: Cvss, method: CycloneDxRating['method']): CycloneDxRating[] {
  if (!cvss) return [];
  const score = cvss.base_score;
  return [{ source: { name: source }, ...(score !== null ? { score, severity: cvssSeverity(score, method === 'CVSSv2') } : {}), method, vector: cvss.vector_string }];
}

/** The feed's severity (method `other`), then every CVSS score the record and NVD give, with its vector. */
function ratingsOf(v: PackageVulnerabilityItem): CycloneDxRating[] {
  const scored = [...v.vendor_data, ...v.nvd_data.map((d) => ({ ...d, source: 'NVD' }))].flatMap((d) => [
    ...cvssRating(d.source, d.cvss_v2, 'CVSSv2'),
    ...cvssRating(d.source, d.cvss_v3, d.cvss_v3?.vector_string.startsWith('CVSS:3.1/') ? 'CVSSv31' : 'CVSSv3'),
    ...cvssRating(d.source, 'cvss_v4' in d ? d.cvss_v4 : undefined, 'CVSSv4'),
  ]);
  return [{ source: { name: v.feed }, severity: CDX_SEVERITY[v.severity as SeverityLabel] ?? 'unknown', method: 'other' }, ...scored];
}

/** Properties of each finding in the vulnerability report, named like the SBOM export's `vigil:` properties. */
export const CDX_FINDING_PROPERTY = { matchedBy: 'vigil:finding:matched_by', confidence: 'vigil:finding:confidence' } as const;

export interface VulnerabilityReportOptions {
  vulnType: VulnType;
  vendorOnly: boolean;
  includeDescription: boolean;
  includeAnnotationDetail: boolean;
}

async function reportInput(db: Db, accountName: string, digest: string, toolVersion: string, options: VulnerabilityReportOptions): Promise<CycloneDxDocumentInput> {
  const image = await getAnalyzedImage(db, accountName, digest);
  const items = await imageVulnerabilities(db, accountName, digest, options);
  const annotations = new Map((await listAnnotations(db, accountName, digest)).map((a) => [a.uuid, a]));
  const analyzedAt = image.analyzed_at ?? image.last_updated;
  const statements: CycloneDxStatement[] = items.map((v) => {
    const annotation = v.annotation_uuid ? annotations.get(v.annotation_uuid) : undefined;
    return {
      vulnerabilityId: v.vuln,
      aliases: v.aliases,
      ...('description' in v && v.description ? { description: v.description } : {}),
      url: v.url,
      product: { purl: v.purl ?? '', name: v.package_name, version: v.package_version, type: v.package_type },
      ...(annotation ? annotatedFields(annotation) : {}),
      timestamp: annotation?.updated_at ?? v.detected_at ?? analyzedAt,
      ratings: ratingsOf(v),
      properties: [
        { name: CDX_FINDING_PROPERTY.matchedBy, value: v.matched_by },
        { name: CDX_FINDING_PROPERTY.confidence, value: v.confidence },
      ],
    };
  });
  const tag = (await tagsOf(db, accountName, [digest])).get(digest)?.find((t) => t.current);
  const timestamp = [analyzedAt, ...statements.map((s) => s.timestamp)].sort().pop()!;
  return {
    imageDigest: digest,
    ...(tag ? { imageName: `${tag.registry}/${tag.repo}` } : {}),
    author: accountName,
    timestamp,
    documentId: `vigil:vulnerabilities:${accountName}:${digest}:${options.vulnType}:${timestamp}`,
    toolName: 'vigil',
    toolVersion,
    statements,
    analysisDetail: options.includeAnnotationDetail,
  };
}

/** The report as CycloneDX 1.6 JSON. */
export async function imageVulnerabilitiesCycloneDx(db: Db, accountName: string, digest: string, toolVersion: string, options: VulnerabilityReportOptions) {
  return writeCycloneDxJson(await reportInput(db, accountName, digest, toolVersion, options), '1.6');
}

/** The report as CycloneDX 1.6 XML. */
export async function imageVulnerabilitiesCycloneDxXml(db: Db, accountName: string, digest: string, toolVersion: string, options: VulnerabilityReportOptions) {
  return writeCycloneDxXml(await reportInput(db, accountName, digest, toolVersion, options), '1.6');
}
