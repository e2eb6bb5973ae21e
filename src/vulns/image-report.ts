/**
 * An image's vulnerabilities as the API reports them (upstream's PackageVulnerability): stored findings joined
 * with record details (severity, CVSS, link), KEV and EPSS for their CVE ids, and the account's annotations.
 * The SBOM scan builds the same items from fresh matches.
 */
import type { Db } from '../db/index.js';
import { applicableAnnotation, listAnnotations, type AnnotationRecord } from './annotations.js';
import { storedFindings, type FindingRow } from './findings.js';
import type { MatchedBy } from './match-explain.js';
import type { FixState } from './match-package.js';
import type { Confidence } from './go-reachability.js';
import { detailsKey, epssOf, isKev, loadEnrichment, loadVulnerabilityDetails, type Enrichment, type VulnerabilityDetails } from './vuln-details.js';

export type VulnType = 'os' | 'non-os' | 'all';

/** Distribution package types; everything else is a language ("non-os") package. */
export const OS_PACKAGE_TYPES: ReadonlySet<string> = new Set(['dpkg', 'rpm', 'apk']);

export function ofVulnType(packageType: string, vulnType: VulnType): boolean {
  if (vulnType === 'all') return true;
  return OS_PACKAGE_TYPES.has(packageType) === (vulnType === 'os');
}

/** A matched vulnerability of one package, stored or fresh. */
export interface MatchedVulnerability {
  vulnId: string;
  feed: string;
  feedGroup: string;
  packageType: string;
  packageName: string;
  packageVersion: string;
  packagePath: string | null;
  purl: string | null;
  fixState: FixState;
  fixedIn: string[];
  matchedBy: MatchedBy;
  confidence: Confidence;
  detectedAt?: string;
  fixObservedAt?: string | null;
}

export interface ReportOptions {
  includeDescription: boolean;
}

export function fromFinding(f: FindingRow): MatchedVulnerability {
  return {
    vulnId: f.vuln_id,
    feed: f.feed,
    feedGroup: f.feed_group,
    packageType: f.package_type,
    packageName: f.package_name,
    packageVersion: f.package_version,
    packagePath: f.package_path,
    purl: f.package_purl,
    fixState: f.fix_state,
    fixedIn: JSON.parse(f.fixed_in) as string[],
    matchedBy: f.matched_by,
    confidence: f.confidence,
    detectedAt: f.detected_at,
    fixObservedAt: f.fix_observed_at,
  };
}

export function packageVulnerability(
  m: MatchedVulnerability,
  details: VulnerabilityDetails | undefined,
  enrichment: Enrichment,
  options: ReportOptions,
  annotation?: AnnotationRecord,
) {
  const fixed = m.fixState === 'fixed';
  return {
    vuln: m.vulnId,
    ...(options.includeDescription && details?.description ? { description: details.description } : {}),
    fix: fixed ? m.fixedIn.join(',') : 'None',
    severity: details?.severity ?? 'Unknown',
    package: `${m.packageName}-${m.packageVersion}`,
    url: details?.url ?? `https://osv.dev/vulnerability/${encodeURIComponent(m.vulnId)}`,
    feed: m.feed,
    feed_group: m.feedGroup,
    package_name: m.packageName,
    package_version: m.packageVersion,
    package_type: m.packageType,
    package_path: m.packagePath,
    purl: m.purl,
    will_not_fix: m.fixState === 'wont-fix',
    nvd_data: details?.nvdData ?? [],
    vendor_data: details?.vendorData ?? [],
    ...(m.detectedAt ? { detected_at: m.detectedAt } : {}),
    ...(m.detectedAt ? { fix_observed_at: m.fixObservedAt ?? null } : {}),
    suggested_fix_version: fixed ? (m.fixedIn[0] ?? null) : null,
    is_kev: isKev(details, enrichment),
    epss: epssOf(details, enrichment),
    aliases: details?.aliases ?? [],
    matched_by: m.matchedBy,
    confidence: m.confidence,
    ...(annotation ? { annotation_status: annotation.status, annotation_uuid: annotation.uuid } : {}),
  };
}

export type PackageVulnerabilityItem = ReturnType<typeof packageVulnerability>;

/** Items for a list of matches, with details, KEV/EPSS and (when given) annotations loaded in batches. */
export async function describeMatches(db: Db, matches: MatchedVulnerability[], options: ReportOptions, annotations: AnnotationRecord[] = []): Promise<PackageVulnerabilityItem[]> {
  const details = await loadVulnerabilityDetails(db, matches.map((m) => ({ feed: m.feed, id: m.vulnId })));
  const enrichment = await loadEnrichment(db, [...details.values()].flatMap((d) => d.cveIds));
  return matches.map((m) => {
    const d = details.get(detailsKey(m.feed, m.vulnId));
    const annotation = annotations.length
      ? applicableAnnotation(annotations, [m.vulnId, ...(d?.aliases ?? [])], { name: m.packageName, version: m.packageVersion, type: m.packageType })
      : undefined;
    return packageVulnerability(m, d, enrichment, options, annotation);
  });
}

export interface FindingSelection {
  vulnType: VulnType;
  vendorOnly: boolean;
  confidence?: Confidence;
}

/** Stored findings of a type; `vendorOnly` leaves out won't-fix ones, `confidence` keeps only that confidence. */
export function selectFindings(findings: FindingRow[], options: FindingSelection): FindingRow[] {
  return findings
    .filter((f) => ofVulnType(f.package_type, options.vulnType))
    .filter((f) => !(options.vendorOnly && f.fix_state === 'wont-fix'))
    .filter((f) => options.confidence === undefined || f.confidence === options.confidence);
}

/**
 * The image's stored findings of a type; `vendorOnly` leaves out what the distribution will not fix, `confidence`
 * keeps only findings of that confidence.
 */
export async function imageVulnerabilities(
  db: Db,
  accountName: string,
  digest: string,
  options: ReportOptions & FindingSelection,
): Promise<PackageVulnerabilityItem[]> {
  const findings = selectFindings(await storedFindings(db, accountName, digest), options);
  const annotations = await listAnnotations(db, accountName, digest);
  return describeMatches(db, findings.map(fromFinding), options, annotations);
}
