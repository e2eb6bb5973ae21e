/** A plain-object EvaluationContext for trigger tests, plus fixture builders for packages and findings. */
import type { FileRecord } from '../../../../src/images/model.js';
import type { DistroInfo } from '../../../../src/ecosystems/model.js';
import type { ContentSearchResult } from '../../../../src/images/scanners/index.js';
import type { PackageRow } from '../../../../src/images/store.js';
import type { EvaluationContext, FeedGroupState, Fired, TriggerParams } from '../../../../src/policy/evaluation-context.js';
import type { GateDefinition } from '../../../../src/policy/gate-types.js';
import type { PackageVulnerabilityItem } from '../../../../src/vulns/image-report.js';

export const NOW = new Date('2024-06-30T12:00:00.000Z');

/** An ISO time the given number of days (and optional extra milliseconds) before NOW. */
export function daysAgo(days: number, extraMs = 0): string {
  return new Date(NOW.getTime() - days * 86_400_000 - extraMs).toISOString();
}

export interface FakeData {
  packages?: PackageRow[];
  vulnerabilities?: PackageVulnerabilityItem[];
  feedGroups?: FeedGroupState[];
  namespace?: string;
  distro?: DistroInfo;
  previous?: PackageRow[];
  now?: Date;
  files?: FileRecord[];
  /** Retrieved file contents by path; undefined means the analysis retrieved nothing. */
  retrieved?: Record<string, string>;
  secretSearch?: ContentSearchResult[];
  contentSearch?: ContentSearchResult[];
  ancestors?: { digest: string; chosenBase: boolean }[];
  configExposedPorts?: string[];
}

export function fakeContext(data: FakeData = {}): EvaluationContext {
  return {
    image: {
      accountName: 'admin',
      digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000001',
      imageId: null,
      distro: data.distro,
      arch: 'amd64',
      size: 1000,
      layerCount: 1,
      dockerfile: { mode: null, text: null },
      configExposedPorts: data.configExposedPorts ?? [],
      tag: { registry: 'docker.io', repo: 'library/app', tag: 'latest', fullTag: 'docker.io/library/app:latest' },
    },
    now: data.now ?? NOW,
    packages: async () => data.packages ?? [],
    files: async () => data.files ?? [],
    retrievedFiles: async () => data.retrieved && new Map(Object.entries(data.retrieved).map(([path, text]) => [path, Buffer.from(text)])),
    secretSearch: async () => data.secretSearch,
    contentSearch: async () => data.contentSearch,
    ancestors: async () => data.ancestors ?? [],
    vulnerabilities: async () => data.vulnerabilities ?? [],
    feedGroups: async () => data.feedGroups ?? [],
    distroNamespace: () => data.namespace,
    previousImagePackages: async () =>
      data.previous === undefined ? undefined : { digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000', packages: data.previous },
  };
}

export function pkg(type: string, name: string, version: string, extra: Partial<PackageRow> = {}): PackageRow {
  return {
    type,
    name,
    version,
    origin: null,
    source_version: null,
    size: null,
    licenses: [],
    locations: [],
    purl: `pkg:${type}/${name}@${version}`,
    cpes: [],
    metadata: {},
    owner: null,
    ...extra,
  };
}

type Cvss = { base?: number | null; expl?: number | null; impact?: number | null };

function cvss(s: Cvss) {
  return { base_score: s.base ?? null, exploitability_score: s.expl ?? null, impact_score: s.impact ?? null, vector_string: 'CVSS:3.1/AV:N' };
}

/** NVD CVSS entries with the given v3 scores. */
export function nvd(...scores: Cvss[]): PackageVulnerabilityItem['nvd_data'] {
  return scores.map((s, i) => ({ id: `CVE-X-${i}`, type: 'Primary' as const, source: 'nvd@nist.gov', cvss_v3: cvss(s) }));
}

/** Vendor CVSS entries with the given v3 scores. */
export function vendor(...scores: Cvss[]): PackageVulnerabilityItem['vendor_data'] {
  return scores.map((s, i) => ({ id: `VENDOR-${i}`, type: 'Secondary' as const, source: 'vendor', cvss_v3: cvss(s) }));
}

/** A finding of an OS package (openssl 3.0.11 in dpkg) unless the overrides say otherwise. */
export function finding(overrides: Partial<PackageVulnerabilityItem> = {}): PackageVulnerabilityItem {
  const base: PackageVulnerabilityItem = {
    vuln: 'CVE-2024-0001',
    fix: 'None',
    severity: 'High',
    package: 'openssl-3.0.11',
    url: 'https://osv.dev/vulnerability/CVE-2024-0001',
    feed: 'osv',
    feed_group: 'debian:12',
    package_name: 'openssl',
    package_version: '3.0.11',
    package_type: 'dpkg',
    package_path: null,
    purl: null,
    will_not_fix: false,
    nvd_data: [],
    vendor_data: [],
    suggested_fix_version: null,
    is_kev: false,
    epss: [],
    aliases: [],
    matched_by: 'package',
    confidence: 'high',
  };
  return { ...base, ...overrides };
}

/** Evaluates a trigger through its gate definition, the way the evaluator will call it. */
export async function run(gate: GateDefinition, trigger: string, ctx: EvaluationContext, params: TriggerParams = {}): Promise<Fired[]> {
  const t = gate.triggers.find((x) => x.name === trigger);
  if (!t?.evaluate) throw new Error(`${gate.name}/${trigger} has no evaluate`);
  return t.evaluate(ctx, params);
}
