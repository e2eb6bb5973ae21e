/**
 * NVD API 2.0 / JSON 2.0 feed documents in the shape NVD publishes (`nvdcve-2.0-<year>.json`): the head with counts,
 * format, version and timestamp, then `vulnerabilities` of `{cve: {id, ..., metrics}}`, each metric with its source,
 * Primary/Secondary type and cvssData, v2 metrics with their severity outside cvssData as NVD writes them.
 */
import { gzipSync } from 'node:zlib';

type Metric = Record<string, unknown>;

export function v31(type: 'Primary' | 'Secondary', vector: string, baseScore: number, baseSeverity: string, source = type === 'Primary' ? 'nvd@nist.gov' : 'security-advisories@github.com'): Metric {
  return {
    source,
    type,
    cvssData: { version: '3.1', vectorString: vector, baseScore, baseSeverity, attackVector: 'NETWORK' },
    exploitabilityScore: 3.9,
    impactScore: 5.9,
  };
}

export function v30(type: 'Primary' | 'Secondary', vector: string, baseScore: number, baseSeverity: string): Metric {
  return { source: 'nvd@nist.gov', type, cvssData: { version: '3.0', vectorString: vector, baseScore, baseSeverity }, exploitabilityScore: 2.8, impactScore: 3.6 };
}

export function v2(type: 'Primary' | 'Secondary', vector: string, baseScore: number, severity: string): Metric {
  return {
    source: 'nvd@nist.gov',
    type,
    cvssData: { version: '2.0', vectorString: vector, baseScore, accessVector: 'NETWORK' },
    baseSeverity: severity,
    exploitabilityScore: 10.0,
    impactScore: 6.4,
    acInsufInfo: false,
    obtainAllPrivilege: false,
  };
}

export interface NvdCveSpec {
  id: string;
  v31?: Metric[];
  v30?: Metric[];
  v2?: Metric[];
  status?: string;
}

export function nvdCve(spec: NvdCveSpec) {
  const metrics: Record<string, Metric[]> = {};
  if (spec.v31) metrics.cvssMetricV31 = spec.v31;
  if (spec.v30) metrics.cvssMetricV30 = spec.v30;
  if (spec.v2) metrics.cvssMetricV2 = spec.v2;
  return {
    cve: {
      id: spec.id,
      sourceIdentifier: 'cve@mitre.org',
      published: '2099-01-10T15:15:09.000',
      lastModified: '2099-02-01T10:00:00.000',
      vulnStatus: spec.status ?? 'Analyzed',
      descriptions: [{ lang: 'en', value: `Description of ${spec.id}, with "quotes", a \\ backslash and ] brackets }.` }],
      metrics,
      weaknesses: [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: 'CWE-787' }] }],
      configurations: [{ nodes: [{ operator: 'OR', negate: false, cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:example:lib:*:*:*:*:*:*:*:*', versionEndExcluding: '1.2.3', matchCriteriaId: 'A1B2' }] }] }],
      references: [{ url: `https://example.org/${spec.id}`, source: 'cve@mitre.org' }],
    },
  };
}

/** A whole feed file as NVD writes it (pretty-printed with spaces around colons). */
export function nvdFeed(cves: NvdCveSpec[]): string {
  const doc = {
    resultsPerPage: cves.length,
    startIndex: 0,
    totalResults: cves.length,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: '2099-03-01T03:00:00.123',
    vulnerabilities: cves.map(nvdCve),
  };
  return JSON.stringify(doc, null, 2).replace(/": /g, '" : ');
}

export const nvdFeedGz = (cves: NvdCveSpec[]) => gzipSync(nvdFeed(cves));

export const CRITICAL_31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
export const HIGH_31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H';
export const MEDIUM_30 = 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N';
export const HIGH_V2 = 'AV:N/AC:L/Au:N/C:P/I:P/A:P';
export const LOW_V2 = 'AV:N/AC:H/Au:S/C:N/I:P/A:N';

/** The test set: a CVE with Primary v3.1 and v2, one with only v2, one with only a Secondary (CNA) v3.1, one v3.0
 * Primary beside a Secondary v3.1, one awaiting analysis (no metrics). */
export function sampleCves(): NvdCveSpec[] {
  return [
    { id: 'CVE-2099-1001', v31: [v31('Secondary', HIGH_31, 7.5, 'HIGH'), v31('Primary', CRITICAL_31, 9.8, 'CRITICAL')], v2: [v2('Primary', HIGH_V2, 7.5, 'HIGH')] },
    { id: 'CVE-2099-1002', v2: [v2('Primary', LOW_V2, 2.1, 'LOW')] },
    { id: 'CVE-2099-1003', v31: [v31('Secondary', HIGH_31, 7.5, 'HIGH')] },
    { id: 'CVE-2099-1004', v30: [v30('Primary', MEDIUM_30, 5.4, 'MEDIUM')], v31: [v31('Secondary', CRITICAL_31, 9.8, 'CRITICAL')] },
    { id: 'CVE-2099-1005', status: 'Awaiting Analysis' },
  ];
}
