/**
 * VEX exports of an image: one statement per vulnerability and package. Annotated ones carry the annotation's
 * status and statements; the other current findings are `under_investigation` (matched, not yet assessed).
 * Annotations about vulnerabilities no longer matched are kept: a not_affected statement stays true.
 */
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { getAnalyzedImage, tagsOf } from '../images/store.js';
import { listAnnotations, applicableAnnotation, type AnnotationRecord } from './annotations.js';
import { storedFindings } from './findings.js';
import { detailsKey, loadVulnerabilityDetails } from './vuln-details.js';
import { writeCycloneDxVex, type CycloneDxVexSpecVersion } from './vex/cyclonedx-vex.js';
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
