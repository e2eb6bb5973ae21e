/**
 * CycloneDX 1.5/1.6 documents about an image's vulnerabilities, in JSON or XML: the VEX export
 * (https://cyclonedx.org/capabilities/vex/: a BOM whose `vulnerabilities` carry the analysis) and the vulnerability
 * report (the same, with ratings, and an analysis only where an annotation gives one). Both are one
 * @cyclonedx/cyclonedx-library model built here and serialized by the library (`images/sbom/cyclonedx-serialize.ts`).
 *
 * Mapping decisions:
 * - The image is `metadata.component` (type `container`, bom-ref `image-<digest>` as in Vigil's SBOM export, name
 *   the repository or else the digest, version the digest, purl as in the OpenVEX writer). The author of the
 *   statements is `metadata.authors[0].name`; the tool is `metadata.tools.components[0]` (the 1.5+ form).
 * - One `library` component per distinct package: bom-ref is its stored purl, or, without a usable one,
 *   `component-<16 hex of SHA-256(type, name, version)>`; the `purl` field only ever holds a stored purl (a
 *   made-up `pkg:generic` one would claim an identity nobody assigned). Vigil's package type is the
 *   `vigil:package:type` property, as in the SBOM export.
 * - Status -> `analysis.state`: not_affected -> not_affected, affected -> exploitable, fixed -> resolved,
 *   under_investigation -> in_triage. `analysis.lastUpdated` is the statement's timestamp (when the status was set).
 * - Justification -> `analysis.justification`, written only with `not_affected` (CycloneDX defines it as the reason
 *   for that state): component_not_present and vulnerable_code_not_present -> code_not_present;
 *   vulnerable_code_not_in_execute_path -> code_not_reachable; vulnerable_code_cannot_be_controlled_by_adversary ->
 *   requires_environment (exploitation needs circumstances, an adversary controlling the input, that this use of
 *   the code does not present; this is also how the usual CycloneDX-to-CISA tables map the `requires_*` family
 *   back, and it keeps the label apart from the next one); inline_mitigations_already_exist ->
 *   protected_by_mitigating_control. fix_not_planned has no CycloneDX justification: it becomes
 *   `response: ['will_not_fix']`, whatever the status.
 * - `analysis.detail` combines, one labelled line each: the recorded justification label (so the two labels that
 *   share code_not_present, fix_not_planned, and justifications recorded with other statuses survive), the impact
 *   statement, the action statement and the status notes.
 * - Statements for one vulnerability share a `vulnerabilities[]` entry, with one `affects` per package, only when
 *   everything but the package is identical (analysis including its time, description, source, aliases);
 *   otherwise there is one entry per distinct (vulnerability, analysis). Each entry's bom-ref is
 *   `vulnerability-<id>-<16 hex of SHA-256 of the entry without affects>`, stable across exports.
 * - `source` is {name from the id's prefix when well known (CVE -> NVD, GHSA -> GitHub Advisories, ...), url from
 *   the statement}; aliases are `references`, whose `source` is named the same way (an empty source when the prefix
 *   is unknown: CycloneDX requires the member, and guessing a publisher would be wrong).
 * - Ratings (vulnerability reports) are written in the order given, each with its source, score, severity, method
 *   and vector. A statement without status has no `analysis` (the report's unannotated findings: matched, not
 *   assessed); with `analysisDetail: false` the analysis leaves out `detail`.
 *
 * Deterministic: no clock or randomness (times and ids are input), everything sorted in code-unit order, so the
 * input statements' order does not matter either.
 */
import { Enums, Models } from '@cyclonedx/cyclonedx-library';
import { PackageURL } from 'packageurl-js';
import { CDX_PROPERTY } from '../../images/sbom/cyclonedx.js';
import { cycloneDxJson, cycloneDxXml, TimedAnalysis } from '../../images/sbom/cyclonedx-serialize.js';
import { contentId } from '../../images/sbom/stable-ids.js';
import {
  checkInput,
  compareStrings,
  documentUuid,
  givenPurl,
  imagePurl,
  joinLines,
  justificationText,
  text,
  uniqueSorted,
} from './identify.js';
import type { VexDocumentInput, VexJustification, VexProduct, VexStatement, VexStatus } from './types.js';

export type CycloneDxVexSpecVersion = '1.5' | '1.6';

export type CycloneDxAnalysisState = 'resolved' | 'resolved_with_pedigree' | 'exploitable' | 'in_triage' | 'false_positive' | 'not_affected';
export type CycloneDxJustification =
  | 'code_not_present'
  | 'code_not_reachable'
  | 'requires_configuration'
  | 'requires_dependency'
  | 'requires_environment'
  | 'protected_by_compiler'
  | 'protected_at_runtime'
  | 'protected_at_perimeter'
  | 'protected_by_mitigating_control';
export type CycloneDxResponse = 'can_not_fix' | 'will_not_fix' | 'update' | 'rollback' | 'workaround_available';

export const CDX_STATE: Readonly<Record<VexStatus, CycloneDxAnalysisState>> = {
  not_affected: 'not_affected',
  affected: 'exploitable',
  fixed: 'resolved',
  under_investigation: 'in_triage',
};

/** undefined: no CycloneDX justification (fix_not_planned, carried as a response instead). */
export const CDX_JUSTIFICATION: Readonly<Record<VexJustification, CycloneDxJustification | undefined>> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
  fix_not_planned: undefined,
};

export interface CycloneDxVexComponent {
  type: 'library' | 'container' | 'application';
  'bom-ref'?: string;
  name: string;
  version?: string;
  purl?: string;
  properties?: Array<{ name: string; value: string }>;
}

export interface CycloneDxVexSource {
  name?: string;
  url?: string;
}

export type CycloneDxSeverity = 'critical' | 'high' | 'medium' | 'low' | 'info' | 'none' | 'unknown';
export type CycloneDxRatingMethod = 'CVSSv2' | 'CVSSv3' | 'CVSSv31' | 'CVSSv4' | 'other';

/** One rating of a vulnerability (vulnerability reports): who rated it, how, and the result. */
export interface CycloneDxRating {
  source?: CycloneDxVexSource;
  score?: number;
  severity?: CycloneDxSeverity;
  method: CycloneDxRatingMethod;
  vector?: string;
}

export interface CycloneDxVexVulnerability {
  'bom-ref': string;
  id: string;
  source?: CycloneDxVexSource;
  references?: Array<{ id: string; source: CycloneDxVexSource }>;
  ratings?: CycloneDxRating[];
  description?: string;
  properties?: Array<{ name: string; value: string }>;
  analysis: {
    state: CycloneDxAnalysisState;
    justification?: CycloneDxJustification;
    response?: CycloneDxResponse[];
    detail?: string;
    lastUpdated: string;
  };
  affects: Array<{ ref: string }>;
}

export interface CycloneDxVexDocument {
  $schema: string;
  bomFormat: 'CycloneDX';
  specVersion: CycloneDxVexSpecVersion;
  serialNumber: string;
  version: 1;
  metadata: {
    timestamp: string;
    tools: { components: CycloneDxVexComponent[] };
    authors: Array<{ name: string }>;
    component: CycloneDxVexComponent;
  };
  components: CycloneDxVexComponent[];
  dependencies?: Array<{ ref: string }>;
  vulnerabilities: CycloneDxVexVulnerability[];
}

/** A statement of a vulnerability report: its analysis only when assessed (`status`), and its ratings. */
export interface CycloneDxStatement extends Omit<VexStatement, 'status'> {
  status?: VexStatus;
  ratings?: CycloneDxRating[];
  /** Name/value pairs about the finding (how it matched), written as the vulnerability's `properties`. */
  properties?: Array<{ name: string; value: string }>;
}

export interface CycloneDxDocumentInput extends Omit<VexDocumentInput, 'statements'> {
  statements: CycloneDxStatement[];
  /** Whether analyses carry `detail` (the justification label and the statements' texts); default true. */
  analysisDetail?: boolean;
}

/** Publishers of well-known id prefixes, for `source.name`; others get no name rather than a guess. */
const SOURCE_BY_PREFIX: ReadonlyArray<[prefix: string, name: string]> = [
  ['CVE-', 'NVD'],
  ['GHSA-', 'GitHub Advisories'],
  ['GO-', 'Go Vulnerability Database'],
  ['PYSEC-', 'PyPI Advisory Database'],
  ['RUSTSEC-', 'RustSec Advisory Database'],
  ['DSA-', 'Debian Security Tracker'],
  ['DLA-', 'Debian Security Tracker'],
  ['USN-', 'Ubuntu Security Notices'],
  ['RHSA-', 'Red Hat Security Advisories'],
  ['ALSA-', 'AlmaLinux Errata'],
];

function sourceName(id: string): string | undefined {
  const upper = id.toUpperCase();
  return SOURCE_BY_PREFIX.find(([prefix]) => upper.startsWith(prefix))?.[1];
}

/** The bom-ref the package is known by in this document. */
function componentRef(product: VexProduct): string {
  return givenPurl(product) ?? `component-${contentId([product.type, product.name, product.version])}`;
}

function packageComponent(product: VexProduct): Models.Component {
  const purl = givenPurl(product);
  const type = text(product.type);
  const version = text(product.version);
  // A package known only by its purl is named as the purl names it.
  const component = new Models.Component(Enums.ComponentType.Library, text(product.name) ? product.name : purlName(purl!), {
    bomRef: componentRef(product),
    ...(version ? { version: product.version } : {}),
    ...(purl ? { purl } : {}),
  });
  if (type) component.properties.add(new Models.Property(CDX_PROPERTY.type, product.type));
  return component;
}

/** The name in a purl (one {@link givenPurl} found parsable), decoded. */
function purlName(purl: string): string {
  return PackageURL.fromString(purl).name;
}

type Analysis = CycloneDxVexVulnerability['analysis'];

function analysis(s: CycloneDxStatement & { status: VexStatus }, withDetail: boolean): Analysis {
  const j = s.justification;
  const justification = j && s.status === 'not_affected' ? CDX_JUSTIFICATION[j] : undefined;
  const detail = withDetail
    ? joinLines([
        j ? `VEX justification: ${justificationText(j)}` : undefined,
        text(s.impactStatement) ? `Impact statement: ${text(s.impactStatement)}` : undefined,
        text(s.actionStatement) ? `Action statement: ${text(s.actionStatement)}` : undefined,
        text(s.statusNotes) ? `Status notes: ${text(s.statusNotes)}` : undefined,
      ])
    : undefined;
  return {
    state: CDX_STATE[s.status],
    ...(justification ? { justification } : {}),
    ...(j === 'fix_not_planned' ? { response: ['will_not_fix' as const] } : {}),
    ...(detail ? { detail } : {}),
    lastUpdated: s.timestamp,
  };
}

/** Everything of a vulnerability entry but its bom-ref and affects, as plain data (what grouping compares). */
type Entry = Omit<CycloneDxVexVulnerability, 'bom-ref' | 'affects' | 'analysis'> & { analysis?: Analysis };

function vulnerabilityEntry(s: CycloneDxStatement, withDetail: boolean): Entry {
  const id = s.vulnerabilityId.trim();
  const name = sourceName(id);
  const url = text(s.url);
  const description = text(s.description);
  const aliases = uniqueSorted(s.aliases.map((a) => a.trim()).filter((a) => a !== '' && a !== id));
  return {
    id,
    ...(name || url ? { source: { ...(name ? { name } : {}), ...(url ? { url } : {}) } } : {}),
    ...(aliases.length ? { references: aliases.map((alias) => ({ id: alias, source: sourceName(alias) ? { name: sourceName(alias)! } : {} })) } : {}),
    ...(s.ratings?.length ? { ratings: s.ratings } : {}),
    ...(description ? { description } : {}),
    ...(s.properties?.length ? { properties: s.properties } : {}),
    ...(s.status ? { analysis: analysis({ ...s, status: s.status }, withDetail) } : {}),
  };
}

const sourceModel = (source: CycloneDxVexSource) => new Models.Vulnerability.Source({ ...(source.name ? { name: source.name } : {}), ...(source.url ? { url: source.url } : {}) });

function vulnerabilityModel(bomRef: string, entry: Entry, affected: Models.Component[]): Models.Vulnerability.Vulnerability {
  const a = entry.analysis;
  return new Models.Vulnerability.Vulnerability({
    bomRef,
    id: entry.id,
    ...(entry.source ? { source: sourceModel(entry.source) } : {}),
    references: new Models.Vulnerability.ReferenceRepository((entry.references ?? []).map((r) => new Models.Vulnerability.Reference(r.id, sourceModel(r.source)))),
    ratings: new Models.Vulnerability.RatingRepository(
      (entry.ratings ?? []).map(
        (r) =>
          new Models.Vulnerability.Rating({
            ...(r.source ? { source: sourceModel(r.source) } : {}),
            ...(r.score !== undefined ? { score: r.score } : {}),
            ...(r.severity ? { severity: r.severity as Enums.Vulnerability.Severity } : {}),
            method: r.method as Enums.Vulnerability.RatingMethod,
            ...(r.vector ? { vector: r.vector } : {}),
          }),
      ),
    ),
    ...(entry.description ? { description: entry.description } : {}),
    properties: new Models.PropertyRepository((entry.properties ?? []).map((p) => new Models.Property(p.name, p.value))),
    ...(a
      ? {
          analysis: new TimedAnalysis({
            state: a.state as Enums.Vulnerability.AnalysisState,
            ...(a.justification ? { justification: a.justification as Enums.Vulnerability.AnalysisJustification } : {}),
            response: new Enums.Vulnerability.AnalysisResponseRepository((a.response ?? []) as Enums.Vulnerability.AnalysisResponse[]),
            ...(a.detail ? { detail: a.detail } : {}),
            lastUpdated: a.lastUpdated,
          }),
        }
      : {}),
    affects: new Models.Vulnerability.AffectRepository(affected.map((c) => new Models.Vulnerability.Affect(c.bomRef))),
  });
}

/**
 * The CycloneDX model of `input`. An input without statements gives a BOM without vulnerabilities, which is valid
 * CycloneDX. Throws RangeError for a malformed digest, a blank author, a timestamp that is no RFC 3339 date-time, a
 * statement without vulnerability id, a package with neither purl nor name, or an unknown status or justification.
 */
export function cycloneDxVulnerabilityBom(input: CycloneDxDocumentInput): Models.Bom {
  checkInput(input, { statusOptional: true });
  const withDetail = input.analysisDetail ?? true;

  const components = new Map<string, Models.Component>();
  const entries = new Map<string, { entry: Entry; refs: string[] }>();
  // Sorted first, so that when two packages share a purl the same one names the component whatever the input order.
  const products = [...input.statements.map((s) => s.product)].sort(
    (a, b) => compareStrings(componentRef(a), componentRef(b)) || compareStrings(JSON.stringify([a.name, a.version, a.type]), JSON.stringify([b.name, b.version, b.type])),
  );
  for (const product of products) if (!components.has(componentRef(product))) components.set(componentRef(product), packageComponent(product));

  for (const s of input.statements) {
    const entry = vulnerabilityEntry(s, withDetail);
    const key = JSON.stringify(entry);
    let group = entries.get(key);
    if (!group) {
      group = { entry, refs: [] };
      entries.set(key, group);
    }
    group.refs.push(componentRef(s.product));
  }

  const imageName = text(input.imageName);
  const tool = new Models.Component(Enums.ComponentType.Application, input.toolName, { version: input.toolVersion });
  const bom = new Models.Bom({
    serialNumber: `urn:uuid:${documentUuid(input.documentId)}`,
    metadata: new Models.Metadata({
      timestamp: new Date(input.timestamp),
      tools: new Models.Tools({ components: new Models.ComponentRepository([tool]) }),
      authors: new Models.OrganizationalContactRepository([new Models.OrganizationalContact({ name: input.author })]),
      component: new Models.Component(Enums.ComponentType.Container, imageName ?? input.imageDigest, {
        bomRef: `image-${input.imageDigest}`,
        version: input.imageDigest,
        purl: imagePurl(input.imageDigest, input.imageName),
      }),
    }),
  });
  for (const ref of [...components.keys()].sort(compareStrings)) bom.components.add(components.get(ref)!);
  const vulnerabilities = [...entries.entries()].sort(([ka, a], [kb, b]) => compareStrings(a.entry.id, b.entry.id) || compareStrings(ka, kb));
  for (const [key, { entry, refs }] of vulnerabilities)
    bom.vulnerabilities.add(vulnerabilityModel(`vulnerability-${entry.id}-${contentId([key])}`, entry, uniqueSorted(refs).map((ref) => components.get(ref)!)));
  return bom;
}

/** The document as CycloneDX JSON (specVersion 1.5 unless asked for 1.6), a plain JSON value. */
export function writeCycloneDxJson(input: CycloneDxDocumentInput, specVersion: CycloneDxVexSpecVersion = '1.5'): CycloneDxVexDocument {
  const doc = cycloneDxJson(cycloneDxVulnerabilityBom(input), specVersion) as unknown as CycloneDxVexDocument;
  // The library leaves an empty list out; the document keeps it, so readers always find the member.
  return { ...doc, vulnerabilities: doc.vulnerabilities ?? [] };
}

/** The VEX export as CycloneDX JSON: every statement has a status, so every vulnerability an analysis. */
export function writeCycloneDxVex(input: VexDocumentInput, specVersion: CycloneDxVexSpecVersion = '1.5'): CycloneDxVexDocument {
  return writeCycloneDxJson(input, specVersion);
}

/** The document as CycloneDX XML (UTF-8 text). */
export function writeCycloneDxXml(input: CycloneDxDocumentInput, specVersion: CycloneDxVexSpecVersion = '1.6'): string {
  return cycloneDxXml(cycloneDxVulnerabilityBom(input), specVersion);
}
