/**
 * OpenVEX v0.2.0, as a JSON Schema (draft-07) written from the field tables of the OpenVEX specification
 * (OPENVEX-SPEC.md: Document, Statement, Product/Component and Vulnerability struct fields, Status Labels, Status
 * Justifications). The official JSON schema (openvex_json_schema.json in the spec repository) is not shipped by any
 * package this workplace can install and cannot be fetched offline, so this one encodes the spec's requirements
 * directly. (A copy of the official schema, read for reference only, differs from the spec's text in one rule: it
 * allows exactly one of justification and impact_statement, where the spec recommends a justification enriched by
 * an impact statement; this schema follows the spec.)
 * - the document's required fields (`@context`, `@id`, `author`, `timestamp`, `version`, `statements`), with a
 *   document grouping "one or more" statements;
 * - a statement's `vulnerability` (with its required `name`) and `status` from the four labels; `products` required
 *   and non-empty, because these documents stand alone (no encapsulating document a product could cascade from) and
 *   "a valid statement MUST identify a product"; every product/subcomponent identified by `@id`, identifiers or
 *   hashes;
 * - `not_affected` needs a `justification` (one of the five labels) or an `impact_statement` (either or both: the
 *   spec recommends a justification optionally enriched with an impact statement);
 * - `affected` needs an `action_statement`;
 * - and, as the reference implementation go-vex validates, `justification`/`impact_statement` only with
 *   `not_affected` and `action_statement` only with `affected`.
 * Unknown fields are refused (catching typos the spec would silently ignore).
 */
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';

const OPENVEX_JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
];
/** Appendix A: hash labels (IANA Hash Function Textual Names, extended). */
const HASH_LABELS = ['md5', 'sha1', 'sha-256', 'sha-384', 'sha-512', 'sha3-224', 'sha3-256', 'sha3-384', 'sha3-512', 'blake2s-256', 'blake2b-256', 'blake2b-512'];
/** Appendix B: software identifier labels. */
const IDENTIFIER_LABELS = ['purl', 'cpe22', 'cpe23'];

const nonEmpty = { type: 'string', minLength: 1 };
const dateTime = { type: 'string', format: 'date-time' };
/** IRIs; our documents only hold ASCII ones (purls and URNs are percent-encoded), so `uri` checks them fully. */
const iri = { type: 'string', format: 'uri' };

const componentProperties = {
  '@id': iri,
  identifiers: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: Object.fromEntries(IDENTIFIER_LABELS.map((k) => [k, nonEmpty])),
  },
  hashes: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: Object.fromEntries(HASH_LABELS.map((k) => [k, { type: 'string', pattern: '^[0-9a-fA-F]+$' }])),
  },
};
/** "All mechanisms to address the product are optional but a valid statement MUST identify a product." */
const identified = { anyOf: [{ required: ['@id'] }, { required: ['identifiers'] }, { required: ['hashes'] }] };

const subcomponentSchema = { type: 'object', additionalProperties: false, properties: componentProperties, ...identified };
const productSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...componentProperties, subcomponents: { type: 'array', uniqueItems: true, items: subcomponentSchema } },
  ...identified,
};

const vulnerabilitySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    '@id': iri,
    name: nonEmpty,
    description: { type: 'string' },
    aliases: { type: 'array', uniqueItems: true, items: nonEmpty },
  },
};

const statementSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['vulnerability', 'status', 'products'],
  properties: {
    '@id': iri,
    version: { type: 'integer', minimum: 0 },
    vulnerability: vulnerabilitySchema,
    timestamp: dateTime,
    last_updated: dateTime,
    products: { type: 'array', minItems: 1, uniqueItems: true, items: productSchema },
    status: { enum: ['not_affected', 'affected', 'fixed', 'under_investigation'] },
    supplier: nonEmpty,
    status_notes: nonEmpty,
    justification: { enum: OPENVEX_JUSTIFICATIONS },
    impact_statement: nonEmpty,
    action_statement: nonEmpty,
    action_statement_timestamp: dateTime,
  },
  allOf: [
    {
      if: { properties: { status: { const: 'not_affected' } } },
      then: { anyOf: [{ required: ['justification'] }, { required: ['impact_statement'] }] },
      else: { not: { anyOf: [{ required: ['justification'] }, { required: ['impact_statement'] }] } },
    },
    {
      if: { properties: { status: { const: 'affected' } } },
      then: { required: ['action_statement'] },
      else: { not: { required: ['action_statement'] } },
    },
  ],
};

const documentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['@context', '@id', 'author', 'timestamp', 'version', 'statements'],
  properties: {
    '@context': { const: 'https://openvex.dev/ns/v0.2.0' },
    '@id': iri,
    author: nonEmpty,
    role: nonEmpty,
    timestamp: dateTime,
    last_updated: dateTime,
    version: { type: 'integer', minimum: 1 },
    tooling: nonEmpty,
    statements: { type: 'array', minItems: 1, items: statementSchema },
  },
};

// strictRequired and strictTypes off: the status rules name properties inside if/then/anyOf, which those checks cannot see.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
ajvFormats.default(ajv);
export const validateOpenVex = ajv.compile(documentSchema);
