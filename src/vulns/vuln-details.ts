/**
 * What is shown about a vulnerability record: severity (the publisher's word, else the CVSS rating, else NVD's rating
 * of its CVEs), CVSS scores computed from the record's vectors, NVD's CVSS for its CVE ids, the advisory link, and
 * KEV / EPSS facts for its CVE ids. Loaded in batches for a whole list of findings.
 */
import type { Db } from '../db/index.js';
import { parseCvss, type CvssScore } from './cvss/index.js';
import type { OsvRecord, OsvReference, OsvSeverity } from './osv/types.js';
import type { NvdMetric, NvdSeverity } from './sources/nvd.js';
import { recordKey } from './vulnerability-provider.js';
import { readRecords } from './vulnerability-repository.js';

export type SeverityLabel = 'Unknown' | 'Negligible' | 'Low' | 'Medium' | 'High' | 'Critical';

export const SEVERITY_ORDER: readonly SeverityLabel[] = ['Unknown', 'Negligible', 'Low', 'Medium', 'High', 'Critical'];

/** Publishers' words for severity (GitHub, Debian urgency, Ubuntu priority, RustSec, ...) on the common scale. */
const SEVERITY_WORDS: Record<string, SeverityLabel> = {
  unknown: 'Unknown',
  'not yet assigned': 'Unknown',
  unimportant: 'Negligible',
  negligible: 'Negligible',
  none: 'Negligible',
  informational: 'Negligible',
  low: 'Low',
  moderate: 'Medium',
  medium: 'Medium',
  important: 'High',
  high: 'High',
  critical: 'Critical',
};

export interface CvssScores {
  base_score: number | null;
  exploitability_score: number | null;
  impact_score: number | null;
  vector_string: string;
}

export interface VendorData {
  id: string;
  type: 'Primary' | 'Secondary' | 'None';
  source: string;
  cvss_v2?: CvssScores;
  cvss_v3?: CvssScores;
  cvss_v4?: { base_score: number | null; vector_string: string };
}

export interface NvdData {
  id: string;
  type: 'Primary' | 'Secondary';
  source: string;
  cvss_v2?: CvssScores;
  cvss_v3?: CvssScores;
}

export interface VulnerabilityDetails {
  feed: string;
  id: string;
  aliases: string[];
  summary?: string;
  description?: string;
  severity: SeverityLabel;
  url: string;
  /** CVSS from the record: the publisher's scores. */
  vendorData: VendorData[];
  /** NVD's CVSS for the record's CVE ids when an NVD source has them, else the record's own when it is a CVE record. */
  nvdData: NvdData[];
  references: OsvReference[];
  cveIds: string[];
  published?: string;
  modified: string;
  withdrawn?: string;
  record: OsvRecord;
}

export interface Enrichment {
  kev: Set<string>;
  epss: Map<string, { epss: number; percentile: number }>;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;

function scoresOf(score: CvssScore): CvssScores {
  return {
    base_score: score.baseScore,
    exploitability_score: score.exploitabilityScore ?? null,
    impact_score: score.impactScore ?? null,
    vector_string: score.vector,
  };
}

/** Scores per CVSS version; a vector that does not parse is left out rather than guessed at. */
function cvssOf(severities: OsvSeverity[]): { v2?: CvssScore; v3?: CvssScore; v4?: CvssScore } {
  const out: { v2?: CvssScore; v3?: CvssScore; v4?: CvssScore } = {};
  for (const s of severities) {
    if (s.type === 'Ubuntu') continue;
    try {
      const score = parseCvss(s.score);
      const key = score.version === '2.0' ? 'v2' : score.version === '4.0' ? 'v4' : 'v3';
      out[key] ??= score;
    } catch {
      // Malformed vectors were accepted at import (descriptive data); they just carry no score.
    }
  }
  return out;
}

function labelOf(word: string | undefined): SeverityLabel | undefined {
  return word ? SEVERITY_WORDS[word.trim().toLowerCase()] : undefined;
}

/** The publisher's severity word when it gives one, else the rating of its CVSS v3, v4 or v2 score. */
export function severityOf(record: OsvRecord): SeverityLabel {
  const word = labelOf(record.severityLabel) ?? record.affected.map((a) => labelOf(a.severityLabel)).find(Boolean);
  if (word) return word;
  const ubuntu = record.severity.find((s) => s.type === 'Ubuntu');
  if (ubuntu && labelOf(ubuntu.score)) return labelOf(ubuntu.score)!;
  const cvss = cvssOf([...record.severity, ...record.affected.flatMap((a) => a.severity)]);
  const best = cvss.v3 ?? cvss.v4 ?? cvss.v2;
  if (!best) return 'Unknown';
  return best.severity === 'None' ? 'Negligible' : best.severity;
}

/** The advisory's page: its ADVISORY reference, else the first reference, else osv.dev. */
function linkOf(record: OsvRecord): string {
  return record.references.find((r) => r.type === 'ADVISORY')?.url ?? record.references[0]?.url ?? `https://osv.dev/vulnerability/${encodeURIComponent(record.id)}`;
}

export function detailsOf(feed: string, record: OsvRecord): VulnerabilityDetails {
  const cvss = cvssOf(record.severity);
  const cveIds = [...new Set([record.id, ...record.aliases].filter((id) => CVE.test(id)))];
  const scores = {
    ...(cvss.v2 ? { cvss_v2: scoresOf(cvss.v2) } : {}),
    ...(cvss.v3 ? { cvss_v3: scoresOf(cvss.v3) } : {}),
  };
  const hasScores = cvss.v2 || cvss.v3 || cvss.v4;
  return {
    feed,
    id: record.id,
    aliases: record.aliases,
    summary: record.summary,
    description: record.details ?? record.summary,
    severity: severityOf(record),
    url: linkOf(record),
    vendorData: hasScores
      ? [{ id: record.id, type: 'Primary', source: feed, ...scores, ...(cvss.v4 ? { cvss_v4: { base_score: cvss.v4.baseScore, vector_string: cvss.v4.vector } } : {}) }]
      : [],
    nvdData: CVE.test(record.id) && (cvss.v2 || cvss.v3) ? [{ id: record.id, type: 'Primary', source: 'nvd', ...scores }] : [],
    references: record.references,
    cveIds,
    published: record.published,
    modified: record.modified,
    withdrawn: record.withdrawn,
    record,
  };
}

export const detailsKey = (feed: string, id: string) => `${feed}\u0000${id}`;

/** One CVE's CVSS as an NVD source stored it (vuln_nvd). */
interface StoredNvd {
  severity: NvdSeverity;
  v3?: NvdMetric;
  v2?: NvdMetric;
}

function nvdScores(m: NvdMetric): CvssScores {
  return { base_score: m.baseScore, exploitability_score: m.exploitabilityScore, impact_score: m.impactScore, vector_string: m.vector };
}

/** A CVE's stored metrics as upstream's NvdDataObjects: one per scoring source (NVD itself, or a CNA). */
function nvdDataOf(cveId: string, stored: StoredNvd): NvdData[] {
  const out: NvdData[] = [];
  for (const [key, metric] of [['cvss_v3', stored.v3], ['cvss_v2', stored.v2]] as const) {
    if (!metric) continue;
    let item = out.find((d) => d.type === metric.type && d.source === metric.source);
    if (!item) out.push((item = { id: cveId, type: metric.type, source: metric.source }));
    item[key] = nvdScores(metric);
  }
  return out;
}

/** NVD's stored CVSS for CVE ids. */
async function loadNvd(db: Db, cveIds: Iterable<string>): Promise<Map<string, StoredNvd>> {
  const ids = [...new Set(cveIds)];
  const out = new Map<string, StoredNvd>();
  for (let i = 0; i < ids.length; i += 400) {
    const rows: { cve_id: string; severity: NvdSeverity; data: string }[] = await db('vuln_nvd').whereIn('cve_id', ids.slice(i, i + 400)).select('cve_id', 'severity', 'data');
    for (const r of rows) out.set(r.cve_id, { severity: r.severity, ...(JSON.parse(r.data) as Omit<StoredNvd, 'severity'>) });
  }
  return out;
}

/**
 * Adds NVD's CVSS to the details (in place): `nvd_data` from their CVE ids, and for a record whose publisher gives
 * no severity the highest NVD rating among its CVEs (several CVEs in one advisory: the worst one decides).
 */
export async function applyNvd(db: Db, details: Iterable<VulnerabilityDetails>): Promise<void> {
  const list = [...details];
  const nvd = await loadNvd(db, list.flatMap((d) => d.cveIds));
  if (nvd.size === 0) return;
  for (const d of list) {
    const known = d.cveIds.flatMap((id) => {
      const stored = nvd.get(id);
      return stored ? [[id, stored] as const] : [];
    });
    if (known.length === 0) continue;
    d.nvdData = known.flatMap(([id, stored]) => nvdDataOf(id, stored));
    if (d.severity === 'Unknown')
      d.severity = known.map(([, stored]): SeverityLabel => stored.severity).reduce((worst, s) => (SEVERITY_ORDER.indexOf(s) > SEVERITY_ORDER.indexOf(worst) ? s : worst));
  }
}

/** Details of the named records (feed and id), keyed by detailsKey, with NVD's CVSS for their CVEs. */
export async function loadVulnerabilityDetails(db: Db, keys: { feed: string; id: string }[]): Promise<Map<string, VulnerabilityDetails>> {
  const out = new Map<string, VulnerabilityDetails>();
  const records = await readRecords(db, keys);
  for (const k of keys) {
    const record = records.get(recordKey(k));
    if (record) out.set(detailsKey(k.feed, k.id), detailsOf(k.feed, record));
  }
  await applyNvd(db, out.values());
  return out;
}

/** KEV membership and EPSS scores for CVE ids. */
export async function loadEnrichment(db: Db, cveIds: Iterable<string>): Promise<Enrichment> {
  const ids = [...new Set(cveIds)];
  const kev = new Set<string>();
  const epss = new Map<string, { epss: number; percentile: number }>();
  for (let i = 0; i < ids.length; i += 400) {
    const chunk = ids.slice(i, i + 400);
    for (const r of await db('vuln_kev').whereIn('cve_id', chunk).select('cve_id')) kev.add(r.cve_id);
    for (const r of await db('vuln_epss').whereIn('cve_id', chunk).select('cve_id', 'epss', 'percentile'))
      epss.set(r.cve_id, { epss: Number(r.epss), percentile: Number(r.percentile) });
  }
  return { kev, epss };
}

export function isKev(details: VulnerabilityDetails | undefined, enrichment: Enrichment): boolean {
  return !!details?.cveIds.some((id) => enrichment.kev.has(id));
}

export function epssOf(details: VulnerabilityDetails | undefined, enrichment: Enrichment): { epss: number; percentile: number }[] {
  return (details?.cveIds ?? []).flatMap((id) => {
    const e = enrichment.epss.get(id);
    return e ? [{ epss: e.epss, percentile: e.percentile }] : [];
  });
}
