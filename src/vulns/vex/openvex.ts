/**
 * OpenVEX v0.2.0 (https://github.com/openvex/spec/blob/main/OPENVEX-SPEC.md) for one image's statements.
 *
 * Shape: every statement has one product, the image as an OCI purl (see {@link imagePurl}), whose `subcomponents`
 * are the packages the statement is about (their stored purl, else `pkg:generic/<name>@<version>`, see
 * {@link productPurl}). Statements that say exactly the same thing (vulnerability, status, justification, texts and
 * timestamp) about different packages become one statement with several subcomponents; any difference, including
 * the time the status was set, keeps them apart, since merging would lose it.
 *
 * Status rules (the spec's statement-field table, plus the reference implementation go-vex's rule that a field
 * belonging to one status is not set on another):
 * - `not_affected` carries `justification` when the label is one of OpenVEX's five, and/or `impact_statement`. Our
 *   extra label `fix_not_planned` is no OpenVEX justification, so it is never written as one: it becomes a sentence
 *   of `impact_statement`, after the recorded impact statement. With neither a justification nor an impact statement
 *   recorded, the impact statement says so, since the spec requires one of the two.
 * - `affected` carries `action_statement`: the recorded one, or a sentence saying none was recorded.
 * - Justifications, impact statements and action statements recorded with a status they do not belong to are
 *   kept, as labelled lines of `status_notes` after the recorded notes ("how status was determined").
 *
 * Deterministic: no clock or randomness (times and ids are input), statements and subcomponents sorted in code-unit
 * order, so the input statements' order does not matter either.
 */
import {
  checkInput,
  compareStrings,
  documentIri,
  imagePurl,
  isIri,
  joinLines,
  justificationText,
  productPurl,
  text,
  uniqueSorted,
} from './identify.js';
import type { VexDocumentInput, VexJustification, VexStatement, VexStatus } from './types.js';

export const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';

/** The five justification labels of OpenVEX (from CISA's Status Justifications). */
export type OpenVexJustification = Exclude<VexJustification, 'fix_not_planned'>;
const OPENVEX_JUSTIFICATIONS: ReadonlySet<VexJustification> = new Set<OpenVexJustification>([
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
]);

export interface OpenVexVulnerability {
  '@id'?: string;
  name: string;
  description?: string;
  aliases?: string[];
}

export interface OpenVexSubcomponent {
  '@id': string;
}

export interface OpenVexProduct {
  '@id': string;
  subcomponents: OpenVexSubcomponent[];
}

export interface OpenVexStatement {
  vulnerability: OpenVexVulnerability;
  timestamp: string;
  products: OpenVexProduct[];
  status: VexStatus;
  status_notes?: string;
  justification?: OpenVexJustification;
  impact_statement?: string;
  action_statement?: string;
}

export interface OpenVexDocument {
  '@context': typeof OPENVEX_CONTEXT;
  '@id': string;
  author: string;
  timestamp: string;
  version: 1;
  tooling: string;
  statements: OpenVexStatement[];
}

/** `affected` without a recorded action statement: the spec requires one, and inventing advice would be worse. */
export const NO_ACTION_STATEMENT = 'No action statement was recorded for this vulnerability.';
/** `not_affected` with neither justification nor impact statement recorded: the spec requires one of the two. */
export const NO_IMPACT_STATEMENT = 'No justification or impact statement was recorded for this not_affected status.';
/** `fix_not_planned` on a `not_affected` statement, as impact statement text. */
export const FIX_NOT_PLANNED_IMPACT = 'No fix is planned (recorded justification: fix_not_planned, which is not an OpenVEX justification label).';

function vulnerability(s: VexStatement): OpenVexVulnerability {
  const name = s.vulnerabilityId.trim();
  const url = text(s.url);
  const description = text(s.description);
  // The spec allows the name among the aliases; leaving it out says nothing less.
  const aliases = uniqueSorted(s.aliases.map((a) => a.trim()).filter((a) => a !== '' && a !== name));
  return {
    // `@id` must be an IRI: a recorded URL that is not one stays out rather than making the document invalid.
    ...(url && isIri(url) ? { '@id': url } : {}),
    name,
    ...(description ? { description } : {}),
    ...(aliases.length ? { aliases } : {}),
  };
}

/** The status-dependent fields of one statement, per the rules in this module's comment. */
function statusFields(s: VexStatement): Pick<OpenVexStatement, 'status_notes' | 'justification' | 'impact_statement' | 'action_statement'> {
  const j = s.justification;
  const impact = text(s.impactStatement);
  const action = text(s.actionStatement);
  const misplaced: Array<string | undefined> = [];
  let justification: OpenVexJustification | undefined;
  let impactStatement: string | undefined;
  let actionStatement: string | undefined;

  if (s.status === 'not_affected') {
    if (j && OPENVEX_JUSTIFICATIONS.has(j)) justification = j as OpenVexJustification;
    impactStatement = joinLines([impact, j === 'fix_not_planned' ? FIX_NOT_PLANNED_IMPACT : undefined]);
    if (!justification && !impactStatement) impactStatement = NO_IMPACT_STATEMENT;
  } else {
    if (j) misplaced.push(`Justification recorded with this status: ${justificationText(j)}.`);
    if (impact) misplaced.push(`Impact statement: ${impact}`);
  }
  if (s.status === 'affected') actionStatement = action ?? NO_ACTION_STATEMENT;
  else if (action) misplaced.push(`Action statement: ${action}`);

  const notes = joinLines([text(s.statusNotes), ...misplaced]);
  return {
    ...(notes ? { status_notes: notes } : {}),
    ...(justification ? { justification } : {}),
    ...(impactStatement ? { impact_statement: impactStatement } : {}),
    ...(actionStatement ? { action_statement: actionStatement } : {}),
  };
}

/**
 * The OpenVEX document for `input`. Throws RangeError for input no valid document can be made of: no statements
 * (the spec defines a document as grouping one or more; callers should offer no export instead), a malformed
 * digest, a blank author, a timestamp that is no RFC 3339 date-time, a statement without vulnerability id, a package
 * with neither purl nor name, or an unknown status or justification.
 */
export function writeOpenVex(input: VexDocumentInput): OpenVexDocument {
  checkInput(input);
  if (input.statements.length === 0) throw new RangeError('an OpenVEX document needs at least one statement');
  const image = imagePurl(input.imageDigest, input.imageName);

  // Group by everything but the package: the statement as it will be written, without its products.
  const groups = new Map<string, { sortKey: [string, string, string]; statement: Omit<OpenVexStatement, 'products'>; packages: string[] }>();
  for (const s of input.statements) {
    const statement = { vulnerability: vulnerability(s), timestamp: s.timestamp, status: s.status, ...statusFields(s) };
    const key = JSON.stringify(statement);
    let group = groups.get(key);
    if (!group) {
      group = { sortKey: [statement.vulnerability.name, statement.timestamp, key], statement, packages: [] };
      groups.set(key, group);
    }
    group.packages.push(productPurl(s.product));
  }

  const statements = [...groups.values()]
    .sort((a, b) => compareStrings(a.sortKey[0], b.sortKey[0]) || compareStrings(a.sortKey[1], b.sortKey[1]) || compareStrings(a.sortKey[2], b.sortKey[2]))
    .map(({ statement, packages }): OpenVexStatement => {
      const { vulnerability: v, timestamp, status, ...rest } = statement;
      const subcomponents = uniqueSorted(packages).map((id) => ({ '@id': id }));
      // Key order as the spec's tables list the fields.
      return { vulnerability: v, timestamp, products: [{ '@id': image, subcomponents }], status, ...rest };
    });

  return {
    '@context': OPENVEX_CONTEXT,
    '@id': documentIri(input.documentId),
    author: input.author,
    timestamp: input.timestamp,
    version: 1,
    // The spec's `tooling` is free text ("how the VEX document and contained VEX statements were generated").
    tooling: `${input.toolName}/${input.toolVersion}`,
    statements,
  };
}
