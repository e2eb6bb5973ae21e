/**
 * CycloneDX 1.5/1.6 JSON used as VEX (https://cyclonedx.org/capabilities/vex/): a BOM whose `vulnerabilities` carry
 * the analysis, each pointing at the packages it `affects` by bom-ref. Written by hand rather than through
 * @cyclonedx/cyclonedx-library's models: only a handful of fields are involved, 1.5 and 1.6 do not differ in any of
 * them, and the tests hold the result against the official schemas.
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
 *
 * Deterministic: no clock or randomness (times and ids are input), everything sorted in code-unit order, so the
 * input statements' order does not matter either.
 */
import { PackageURL } from 'packageurl-js';
import { CDX_PROPERTY } from '../../images/sbom/cyclonedx.js';
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

export interface CycloneDxVexVulnerability {
  'bom-ref': string;
  id: string;
  source?: CycloneDxVexSource;
  references?: Array<{ id: string; source: CycloneDxVexSource }>;
  description?: string;
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
  vulnerabilities: CycloneDxVexVulnerability[];
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

function packageComponent(product: VexProduct): CycloneDxVexComponent {
  const purl = givenPurl(product);
  const type = text(product.type);
  const version = text(product.version);
  return {
    type: 'library',
    'bom-ref': componentRef(product),
    // A package known only by its purl is named as the purl names it.
    name: text(product.name) ? product.name : purlName(purl!),
    ...(version ? { version: product.version } : {}),
    ...(purl ? { purl } : {}),
    ...(type ? { properties: [{ name: CDX_PROPERTY.type, value: product.type }] } : {}),
  };
}

/** The name in a purl (one {@link givenPurl} found parsable), decoded. */
function purlName(purl: string): string {
  return PackageURL.fromString(purl).name;
}

function analysis(s: VexStatement): CycloneDxVexVulnerability['analysis'] {
  const j = s.justification;
  const justification = j && s.status === 'not_affected' ? CDX_JUSTIFICATION[j] : undefined;
  const detail = joinLines([
    j ? `VEX justification: ${justificationText(j)}` : undefined,
    text(s.impactStatement) ? `Impact statement: ${text(s.impactStatement)}` : undefined,
    text(s.actionStatement) ? `Action statement: ${text(s.actionStatement)}` : undefined,
    text(s.statusNotes) ? `Status notes: ${text(s.statusNotes)}` : undefined,
  ]);
  return {
    state: CDX_STATE[s.status],
    ...(justification ? { justification } : {}),
    ...(j === 'fix_not_planned' ? { response: ['will_not_fix' as const] } : {}),
    ...(detail ? { detail } : {}),
    lastUpdated: s.timestamp,
  };
}

/** Everything of the vulnerability entry but its bom-ref and affects. */
function vulnerabilityEntry(s: VexStatement): Omit<CycloneDxVexVulnerability, 'bom-ref' | 'affects'> {
  const id = s.vulnerabilityId.trim();
  const name = sourceName(id);
  const url = text(s.url);
  const description = text(s.description);
  const aliases = uniqueSorted(s.aliases.map((a) => a.trim()).filter((a) => a !== '' && a !== id));
  return {
    id,
    ...(name || url ? { source: { ...(name ? { name } : {}), ...(url ? { url } : {}) } } : {}),
    ...(aliases.length ? { references: aliases.map((alias) => ({ id: alias, source: sourceName(alias) ? { name: sourceName(alias)! } : {} })) } : {}),
    ...(description ? { description } : {}),
    analysis: analysis(s),
  };
}

/**
 * The CycloneDX VEX BOM for `input` (specVersion 1.5 unless asked for 1.6). An input without statements gives a BOM
 * without vulnerabilities, which is valid CycloneDX. Throws RangeError for a malformed digest, a blank author, a
 * timestamp that is no RFC 3339 date-time, a statement without vulnerability id, a package with neither purl nor
 * name, or an unknown status or justification.
 */
export function writeCycloneDxVex(input: VexDocumentInput, specVersion: CycloneDxVexSpecVersion = '1.5'): CycloneDxVexDocument {
  checkInput(input);

  const components = new Map<string, CycloneDxVexComponent>();
  const entries = new Map<string, { entry: Omit<CycloneDxVexVulnerability, 'bom-ref' | 'affects'>; refs: string[] }>();
  // Sorted first, so that when two packages share a purl the same one names the component whatever the input order.
  const products = [...input.statements.map((s) => s.product)].sort(
    (a, b) => compareStrings(componentRef(a), componentRef(b)) || compareStrings(JSON.stringify([a.name, a.version, a.type]), JSON.stringify([b.name, b.version, b.type])),
  );
  for (const product of products) if (!components.has(componentRef(product))) components.set(componentRef(product), packageComponent(product));

  for (const s of input.statements) {
    const entry = vulnerabilityEntry(s);
    const key = JSON.stringify(entry);
    let group = entries.get(key);
    if (!group) {
      group = { entry, refs: [] };
      entries.set(key, group);
    }
    group.refs.push(componentRef(s.product));
  }

  const vulnerabilities = [...entries.entries()]
    .sort(([ka, a], [kb, b]) => compareStrings(a.entry.id, b.entry.id) || compareStrings(ka, kb))
    .map(([key, { entry, refs }]): CycloneDxVexVulnerability => ({
      'bom-ref': `vulnerability-${entry.id}-${contentId([key])}`,
      ...entry,
      affects: uniqueSorted(refs).map((ref) => ({ ref })),
    }));

  const imageName = text(input.imageName);
  const purl = imagePurl(input.imageDigest, input.imageName);
  return {
    $schema: `http://cyclonedx.org/schema/bom-${specVersion}.schema.json`,
    bomFormat: 'CycloneDX',
    specVersion,
    serialNumber: `urn:uuid:${documentUuid(input.documentId)}`,
    version: 1,
    metadata: {
      timestamp: input.timestamp,
      tools: { components: [{ type: 'application', name: input.toolName, version: input.toolVersion }] },
      authors: [{ name: input.author }],
      component: {
        type: 'container',
        'bom-ref': `image-${input.imageDigest}`,
        name: imageName ?? input.imageDigest,
        version: input.imageDigest,
        purl,
      },
    },
    components: [...components.keys()].sort(compareStrings).map((ref) => components.get(ref)!),
    vulnerabilities,
  };
}
