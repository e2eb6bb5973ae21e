/**
 * Request generators for the spec-driven fuzz test: for one operation of generated/swagger.json, a fast-check
 * arbitrary of raw HTTP requests whose path, query, headers and body are each either valid by the spec (drawn from
 * its types, enums, patterns and limits, or from real values the test created) or broken on purpose (boundary and
 * wrong-type values, malformed encodings, mutated JSON bodies, wrong content types, garbage uploads).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

const root = join(import.meta.dirname, '..', '..');
const swagger = JSON.parse(readFileSync(join(root, 'generated', 'swagger.json'), 'utf8'));
const BASE_PATH: string = swagger.basePath;

// ---------------------------------------------------------------------------------------------------------------
// The spec, as the generators need it

type Schema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'formData' | 'body';
  required?: boolean;
  type?: string;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  schema?: Schema;
}

export interface FuzzOperation {
  operationId: string;
  method: string;
  /** Path template under the base path, e.g. /images/{image_digest}. */
  template: string;
  params: Param[];
  consumes: string[];
  isPublic: boolean;
}

function resolve(node: Schema): Schema {
  let n = node;
  while (n && typeof n.$ref === 'string') {
    const [, kind, name] = n.$ref.split('/');
    n = swagger[kind][name];
  }
  return n;
}

/** Every operation of the spec, in spec order. */
export function specOperations(): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [template, item] of Object.entries<any>(swagger.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => resolve(p) as Param);
      const hasBody = params.some((p) => p.in === 'body' || p.in === 'formData');
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        params,
        consumes: hasBody ? (op.consumes ?? swagger.consumes) : [],
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The request

export interface FuzzRequest {
  operationId: string;
  method: string;
  /** As sent: encoded path and query string. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Decoded path parameters and query values, so the test can recognise requests it must not send. */
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  /** The form fields of a urlencoded body, or the parsed JSON body, when there is one. */
  form?: Record<string, string | string[]>;
  json?: unknown;
  /** What was broken on purpose, for the failure report. */
  notes: string[];
}

const SHOWN = 300;
function excerpt(s: string): string {
  return s.length > SHOWN ? `${s.slice(0, SHOWN)}… (${s.length} chars)` : s;
}

/** A failure report names the request briefly; multi-megabyte bodies would drown it. */
export function describeRequest(r: FuzzRequest): string {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, excerpt(v)]));
  const body = r.body === undefined ? 'no body' : `body (${r.body.length} bytes): ${JSON.stringify(excerpt(r.body.toString('latin1')))}`;
  return `${r.operationId}: ${r.method} ${excerpt(r.path)} headers ${JSON.stringify(headers)} ${body} [${r.notes.join('; ')}]`;
}

function withToString(r: FuzzRequest): FuzzRequest {
  Object.defineProperty(r, fc.toStringMethod, { value: () => describeRequest(r), enumerable: false });
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// What the test provides

export interface FuzzFixtures {
  /** Real values by parameter name (path, query or form field) so valid-looking requests reach the handlers. */
  values: Record<string, string[]>;
  /**
   * Paths of real resources, as decoded segments (`['images', digest, 'vuln-annotations', uuid]`). An operation
   * whose template matches one takes all its path parameters from it at once, so related ids (a configuration and
   * its selector) fit together.
   */
  resources: string[][];
  /** Authorization header of the administrator, used for most requests. */
  adminAuthorization: string;
  /** Authorization headers of other, non-administrator callers. */
  otherAuthorizations: string[];
  /** Per operation: the caller that replaces the administrator (operations that would change the admin's own login). */
  authorizationOverrides: Record<string, string>;
  /** Per operation: known-good JSON bodies, used as they are and as the base of mutations. */
  exampleBodies: Record<string, unknown[]>;
  /** Per operation: known-good raw bodies (an image archive) with their content type. */
  exampleUploads: Record<string, Array<{ contentType: string; body: Buffer }>>;
  /**
   * Per operation: rewrites a generated request's network-facing values (image references, registry hosts,
   * notification URLs) so it can only ever address loopback. Applied to every generated request.
   */
  sanitize: Record<string, (parts: RequestParts) => void>;
}

/** The mutable pieces of a request before it is encoded; sanitizers edit these. */
export interface RequestParts {
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  /** Query pieces sent as they are (`name=%ZZ`, `name[]=1`). */
  rawQuery: string[];
  json?: unknown;
  form?: Record<string, string | string[]>;
}

// ---------------------------------------------------------------------------------------------------------------
// Values

/** Strings that break assumptions: empty, blank, long, odd unicode, traversal, injection, numbers and keywords. */
const BOUNDARY_STRINGS = [
  '',
  ' ',
  '\t',
  '0',
  '-1',
  '2147483648',
  '9007199254740993',
  '-9007199254740993',
  '1e309',
  '0x1f',
  '1.5',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '.',
  '..',
  '../../etc/passwd',
  '..%2f..%2f',
  '%00',
  '\u0000',
  'a\u0000b',
  'ü',
  'Ω≈ç√∫',
  '𝕏𝕐𝕫',
  '😀👍🏽',
  '\u202egnp.exe',
  '\ufeffbom',
  'ＡＢＣ',
  "' OR '1'='1",
  '"; DROP TABLE images; --',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  '*',
  '%',
  '\\',
  ' leading',
  'trailing ',
  'line\nbreak',
  'sha256:' + '0'.repeat(64),
  'sha256:' + 'G'.repeat(64),
  'sha512:' + 'a'.repeat(128),
  '00000000-0000-0000-0000-000000000000',
  'a'.repeat(129),
  'a'.repeat(10_000),
];

/** Only in JSON bodies: unpaired surrogates cannot be percent-encoded into a URL. */
const BODY_ONLY_STRINGS = ['\ud800', 'x\udfffy', 'é'.repeat(50_000)];

/** Values of every JSON type, for fields that expect another one. */
const WRONG_TYPED_VALUES: unknown[] = [
  0,
  -1,
  1.5,
  -0,
  2 ** 31,
  2 ** 53 + 1,
  -(2 ** 53) - 1,
  1e308,
  '',
  'x',
  'true',
  '1',
  true,
  false,
  null,
  [],
  [null],
  ['a', 1],
  {},
  { a: 1 },
  { __proto__: { polluted: true } },
];

const BOUNDARY_INTEGERS = ['-1', '0', '1', '2147483647', '2147483648', '4294967296', '9007199254740993', '-9007199254740993', '10000000000000000', '18446744073709551616', '1e308', '-1e308', '1e3', '1.5', '0x10', '010', '+1', ' 1', '1 ', 'NaN', 'Infinity', '', 'one', '[1]', '1,2'];
const BOUNDARY_BOOLEANS = ['', 'TRUE', 'True', 'yes', 'no', '1', '0', 'on', 'null', 'truee', 't', '[true]'];

function stringForSchema(s: Schema): fc.Arbitrary<string> {
  if (s.enum) return fc.constantFrom(...(s.enum as string[]));
  if (s.format === 'date-time') return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'email') return fc.emailAddress();
  if (s.format === 'byte') return fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64'));
  if (s.pattern) {
    const max = s.maxLength ?? Infinity;
    return fc.stringMatching(new RegExp(s.pattern)).map((v) => (v.length > max ? v.slice(0, max) : v));
  }
  const min = s.minLength ?? 0;
  return fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.max(min, Math.min(s.maxLength ?? 24, 24)) });
}

/** A value near a string's rules: enum values with another case or an extra character, a pattern value altered. */
function nearMissString(s: Schema): fc.Arbitrary<string> {
  return fc.tuple(stringForSchema(s), fc.constantFrom('upper', 'append', 'prepend', 'chop', 'space', 'overlong')).map(([v, how]) => {
    switch (how) {
      case 'upper':
        return v.toUpperCase() === v ? v.toLowerCase() + 'X' : v.toUpperCase();
      case 'append':
        return `${v}x`;
      case 'prepend':
        return `-${v}`;
      case 'chop':
        return [...v].slice(0, -1).join('');
      case 'space':
        return ` ${v} `;
      default:
        return v + 'a'.repeat(Math.max(1, (s.maxLength ?? 256) + 1 - v.length));
    }
  });
}

/** A JSON value valid (as far as the schema says) for a body schema. */
export function valueForSchema(schemaIn: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  if (schema.allOf) {
    const parts = (schema.allOf as Schema[]).map(resolve);
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const p of parts) {
      Object.assign(merged.properties, p.properties ?? {});
      merged.required.push(...(p.required ?? []));
      if (p.additionalProperties === false) merged.additionalProperties = false;
    }
    return valueForSchema(merged, depth);
  }
  let arb: fc.Arbitrary<unknown>;
  if (schema.enum) arb = fc.constantFrom(...schema.enum);
  else if (schema.type === 'string') arb = stringForSchema(schema);
  else if (schema.type === 'integer') arb = fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
  else if (schema.type === 'number') arb = fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
  else if (schema.type === 'boolean') arb = fc.boolean();
  else if (schema.type === 'array') {
    const minLength = schema.minItems ?? 0;
    arb = depth > 6 ? fc.constant([]) : fc.array(valueForSchema(schema.items ?? {}, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) });
  } else if (schema.type === 'object' || schema.properties) {
    const properties: Record<string, Schema> = schema.properties ?? {};
    const keys = Object.keys(properties);
    if (depth > 6) arb = fc.constant({});
    else if (schema.maxProperties === 1 && keys.length) {
      // "exactly one of" objects (an image source): one property at a time.
      arb = fc.oneof(...keys.map((k) => valueForSchema(properties[k], depth + 1).map((v) => ({ [k]: v }))));
    } else {
      const model = Object.fromEntries(keys.map((k) => [k, valueForSchema(properties[k], depth + 1)]));
      const record = fc.record(model, { requiredKeys: (schema.required ?? []).filter((k: string) => k in model) });
      const extra = schema.additionalProperties;
      arb =
        extra && typeof extra === 'object'
          ? fc.tuple(record, fc.dictionary(fc.string({ maxLength: 12 }), valueForSchema(extra, depth + 1), { maxKeys: 3 })).map(([r, d]) => ({ ...d, ...r }))
          : extra === true && !keys.length
            ? fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
            : record;
    }
  } else {
    arb = fc.jsonValue({ maxDepth: 2 });
  }
  return schema['x-nullable'] ? fc.option(arb, { nil: null, freq: 6 }) : arb;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON mutations

type JsonPath = Array<string | number>;

function pathsOf(value: unknown, prefix: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  out.push(prefix);
  if (out.length > 200) return out;
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: JsonPath, replace: (old: unknown) => unknown | typeof DELETE): unknown {
  if (!path.length) {
    const v = replace(root);
    return v === DELETE ? undefined : v;
  }
  let parent = root as any;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const last = path[path.length - 1];
  const v = replace(parent[last]);
  if (v === DELETE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = v;
  return root;
}
const DELETE = Symbol('delete');

function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { n: v };
  return v;
}

const MUTATIONS = ['drop', 'wrongType', 'null', 'extraField', 'protoKey', 'boundaryString', 'hugeString', 'hugeArray', 'deep'] as const;
type MutationKind = (typeof MUTATIONS)[number];
interface Mutation {
  kind: MutationKind;
  at: number;
  wrong: unknown;
  text: string;
  depth: number;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(...MUTATIONS),
  at: fc.nat(),
  wrong: fc.constantFrom(...WRONG_TYPED_VALUES),
  text: fc.constantFrom(...BOUNDARY_STRINGS, ...BODY_ONLY_STRINGS),
  depth: fc.constantFrom(32, 256, 2000),
});

/** Applies mutations to a deep copy; returns the value and what was done. */
function mutate(value: unknown, mutations: Mutation[]): { value: unknown; notes: string[] } {
  let v: unknown = value === undefined ? undefined : structuredClone(value);
  const notes: string[] = [];
  for (const m of mutations) {
    const paths = pathsOf(v);
    const path = paths[m.at % paths.length];
    const where = path.join('.') || '(root)';
    switch (m.kind) {
      case 'drop':
        if (!path.length) continue;
        v = setAt(v, path, () => DELETE);
        break;
      case 'wrongType':
        v = setAt(v, path, () => structuredClone(m.wrong));
        break;
      case 'null':
        v = setAt(v, path, () => null);
        break;
      case 'extraField':
      case 'protoKey': {
        const key = m.kind === 'protoKey' ? (m.at % 2 ? '__proto__' : 'constructor') : `unexpected_${m.at % 7}`;
        v = setAt(v, path, (old) => {
          if (!old || typeof old !== 'object' || Array.isArray(old)) return old;
          // JSON.parse makes __proto__ an own property; an object literal would set the prototype instead.
          Object.defineProperty(old, key, { value: structuredClone(m.wrong), enumerable: true, writable: true, configurable: true });
          return old;
        });
        break;
      }
      case 'boundaryString':
        v = setAt(v, path, () => m.text);
        break;
      case 'hugeString':
        v = setAt(v, path, () => 'x'.repeat(200_000));
        break;
      case 'hugeArray':
        v = setAt(v, path, (old) => Array.from({ length: 20_000 }, () => (Array.isArray(old) && old.length ? old[0] : old ?? 0)));
        break;
      case 'deep':
        v = setAt(v, path, () => nested(m.depth));
        break;
    }
    notes.push(`${m.kind}${m.kind === 'deep' ? `(${m.depth})` : ''} at ${where}`);
    // The big ones share references (an array of one element repeated); mutating further could multiply them.
    if (m.kind === 'hugeString' || m.kind === 'hugeArray' || m.kind === 'deep') break;
  }
  return { value: v, notes };
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters

/** Safe in a path segment, a query value and a header value alike: no unpaired surrogates. */
const boundaryText = fc.constantFrom(...BOUNDARY_STRINGS);
const randomText = fc.string({ unit: 'grapheme', maxLength: 40 });

/** Pre-encoded path segments the URL encoder would never produce. */
const RAW_SEGMENTS = ['..', '.', '%2e%2e', '%2E', '%00', '%2F', '%2f..%2f', '%ZZ', '%', '%E0%A4%A', '%C0%AE', '%FF', ';', 'a;b=c', '%20', '+', 'a%0Ab', '%u002e'];

function validParamValue(p: Param, fixtures: FuzzFixtures): fc.Arbitrary<string> {
  const pool = fixtures.values[p.name] ?? [];
  const generated =
    p.type === 'integer'
      ? fc.integer({ min: p.minimum ?? -1000, max: p.maximum ?? Math.max(1000, (p.minimum ?? 0) + 1000) }).map(String)
      : p.type === 'boolean'
        ? fc.constantFrom('true', 'false')
        : p.type === 'array'
          ? fc
              .array(stringForSchema(p.items ?? { type: 'string' }), { minLength: Math.max(1, p.minItems ?? 0), maxLength: Math.min(p.maxItems ?? 4, 4) })
              .map((xs) => xs.join(','))
          : stringForSchema(p);
  return pool.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 2, arbitrary: generated }) : generated;
}

function invalidParamValue(p: Param): fc.Arbitrary<string> {
  const typed =
    p.type === 'integer'
      ? fc.constantFrom(...BOUNDARY_INTEGERS, String((p.minimum ?? 0) - 1), String((p.maximum ?? 2 ** 31) + 1))
      : p.type === 'boolean'
        ? fc.constantFrom(...BOUNDARY_BOOLEANS)
        : p.type === 'array'
          ? fc.constantFrom(',', ',,', 'a,,b', Array.from({ length: (p.maxItems ?? 100) + 1 }, (_, i) => `sha256:${String(i).padStart(64, '0')}`).join(','))
          : nearMissString(p);
  return fc.oneof(typed, boundaryText, randomText, fc.integer().map(String), fc.double().map(String));
}

/** The path parameters of the operation taken from each resource path its template matches (up to its last parameter). */
export function resourceExamples(op: FuzzOperation, resources: string[][]): Array<Record<string, string>> {
  const template = op.template.split('/').filter(Boolean);
  const last = template.reduce((at, seg, i) => (seg.startsWith('{') ? i : at), -1);
  if (last < 0) return [];
  const out: Array<Record<string, string>> = [];
  for (const resource of resources) {
    if (resource.length <= last) continue;
    const params: Record<string, string> = {};
    const fits = template.slice(0, last + 1).every((seg, i) => {
      if (!seg.startsWith('{')) return seg === resource[i];
      params[seg.slice(1, -1)] = resource[i];
      return true;
    });
    if (fits) out.push(params);
  }
  return out;
}

function pathSegment(p: Param, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<{ value: string; encoded: string; note?: string }> {
  const valid = validParamValue(p, fixtures).map((value) => ({ value, encoded: encodeURIComponent(value) }));
  if (wellFormed) return valid;
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 2, arbitrary: invalidParamValue(p).map((value) => ({ value, encoded: encodeURIComponent(value), note: `path ${p.name} invalid` })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((encoded) => ({ value: encoded, encoded, note: `path ${p.name} raw ${encoded}` })) },
  );
}

/** The query fragments of one parameter: none, one or several `name=value`, or a malformed piece. */
interface QueryFragments {
  pairs: Array<[string, string]>;
  raw: string[];
  note?: string;
}

function queryFragments(p: Param, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<QueryFragments> {
  const one = (arb: fc.Arbitrary<string>, note?: string) => arb.map((v): QueryFragments => ({ pairs: [[p.name, v]], raw: [], note }));
  if (wellFormed)
    return p.required ? one(validParamValue(p, fixtures)) : fc.oneof(fc.constant<QueryFragments>({ pairs: [], raw: [] }), one(validParamValue(p, fixtures)));
  return fc.oneof(
    { weight: p.required ? 1 : 5, arbitrary: fc.constant<QueryFragments>({ pairs: [], raw: [], note: p.required ? `query ${p.name} missing` : undefined }) },
    { weight: 5, arbitrary: one(validParamValue(p, fixtures)) },
    { weight: 2, arbitrary: one(invalidParamValue(p), `query ${p.name} invalid`) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof(validParamValue(p, fixtures), invalidParamValue(p)), { minLength: 2, maxLength: 3 })
        .map((vs) => ({ pairs: vs.map((v) => [p.name, v] as [string, string]), raw: [], note: `query ${p.name} repeated` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(p.name, `${p.name}=`, `${p.name}[]=1`, `${p.name}[a]=1`, `${p.name}=%ZZ`, `${p.name}=%00`, `${p.name}=%E0%A4%A`, `${p.name}=a%26b%3Dc`, `${encodeURIComponent(p.name)}=${'9'.repeat(400)}`)
        .map((raw) => ({ pairs: [], raw: [raw], note: `query raw ${raw.slice(0, 40)}` })),
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Headers

const BAD_AUTHORIZATIONS = [
  'Basic',
  'Basic ',
  'Basic !!!not-base64!!!',
  `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
  `Basic ${Buffer.from('fuzz-nobody:wrong-password').toString('base64')}`,
  `Basic ${Buffer.from(':').toString('base64')}`,
  `Basic ${Buffer.from('_api_key:vk_nokey.nosecret').toString('base64')}`,
  `Basic ${Buffer.from('_api_key:garbage').toString('base64')}`,
  `Basic ${Buffer.from(`${'u'.repeat(4000)}:p`).toString('base64')}`,
  'Bearer',
  'Bearer garbage',
  'Bearer a.b.c',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
  `Bearer ${'x'.repeat(8000)}`,
  'Digest username="admin"',
  `basic ${Buffer.from('fuzz-nobody:x').toString('base64')}`,
  '',
];

/** Header values must be latin-1 without control characters, or node refuses to send them. */
function headerSafe(s: string): string {
  return s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

const CONTENT_TYPES_WRONG = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=fuzz',
  'application/octet-stream',
  'application/vnd.fuzz+json',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'APPLICATION/JSON',
  'application/json;;',
  'application/jsonx',
  '*/*',
  'garbage',
];

// ---------------------------------------------------------------------------------------------------------------
// Bodies

interface BodyChoice {
  contentType?: string;
  body?: Buffer;
  json?: unknown;
  form?: Record<string, string | string[]>;
  notes: string[];
}

const NON_JSON = ['{', '{"a":', '[1,2', 'nul', "{'a':1}", '{"a":1}}', 'garbage', '\u0000\u0001\u0002', '{"a":1,}', '/* */ {}', '\ufeff{}', '{"a":"\\uZZZZ"}', '1'.repeat(400)];
const TOP_LEVEL = ['null', '1', '-1', '"text"', 'true', '[]', '[{}]', '[null]', '{}'];

function jsonBody(op: FuzzOperation, schema: Schema, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<BodyChoice> {
  const examples = fixtures.exampleBodies[op.operationId] ?? [];
  const base = examples.length
    ? fc.oneof({ weight: 1, arbitrary: valueForSchema(schema) }, { weight: 1, arbitrary: fc.constantFrom(...examples).map((e) => structuredClone(e)) })
    : valueForSchema(schema);
  const asJson = (value: unknown, notes: string[], contentType = 'application/json'): BodyChoice => ({ contentType, json: value, body: Buffer.from(JSON.stringify(value) ?? ''), notes });
  if (wellFormed) return base.map((v) => asJson(v, []));
  return fc.oneof(
    { weight: 5, arbitrary: base.map((v) => asJson(v, [])) },
    {
      weight: 6,
      arbitrary: fc.tuple(base, fc.array(mutationArb, { minLength: 1, maxLength: 3 })).map(([v, ms]) => {
        const m = mutate(v, ms);
        return asJson(m.value, m.notes);
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(...NON_JSON).map((text) => ({ contentType: 'application/json', body: Buffer.from(text), notes: ['not JSON'] })) },
    { weight: 1, arbitrary: fc.constantFrom(...TOP_LEVEL).map((text) => ({ contentType: 'application/json', body: Buffer.from(text), json: JSON.parse(text), notes: ['top-level value'] })) },
    { weight: 1, arbitrary: fc.constantFrom<BodyChoice>({ contentType: 'application/json', notes: ['no body'] }, { notes: ['no body, no content type'] }) },
    {
      weight: 1,
      // Some of these still reach the JSON parser ('application/json;;', 'APPLICATION/JSON'): sanitizers must see them.
      arbitrary: fc.tuple(base, fc.constantFrom(...CONTENT_TYPES_WRONG)).map(([v, contentType]) => asJson(v, [`content type ${contentType}`], contentType)),
    },
    {
      weight: 1,
      // Many copies of a body, just under or just over the default 1 MiB body limit.
      arbitrary: fc.tuple(base, fc.constantFrom(900_000, 1_100_000)).map(([v, bytes]) => {
        const n = Math.max(1, Math.floor(bytes / ((JSON.stringify(v) ?? 'null').length + 1)));
        return asJson(Array.from({ length: n }, () => v), [`top-level array of ${n}`]);
      }),
    },
  );
}

function formEncode(form: Record<string, string | string[]>): Buffer {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
  return Buffer.from(params.toString());
}

function formBody(op: FuzzOperation, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<BodyChoice> {
  const fields = op.params.filter((p) => p.in === 'formData');
  const fieldArb = (p: Param) =>
    (wellFormed ? validParamValue(p, fixtures) : fc.oneof({ weight: 4, arbitrary: validParamValue(p, fixtures) }, { weight: 1, arbitrary: invalidParamValue(p) })).map(
      (v) => [p.name, v] as [string, string],
    );
  const record = fc.tuple(...fields.map((p) => fc.option(fieldArb(p), { freq: 4, nil: undefined }))).map((entries) => {
    const form: Record<string, string | string[]> = {};
    for (const e of entries) if (e) form[e[0]] = e[1];
    return form;
  });
  const encode = formEncode;
  const FORM = 'application/x-www-form-urlencoded';
  const wellFormedBody = record.map((form): BodyChoice => ({ contentType: FORM, form, body: encode(form), notes: [] }));
  if (wellFormed) return wellFormedBody;
  return fc.oneof(
    { weight: 6, arbitrary: wellFormedBody },
    {
      weight: 1,
      arbitrary: fc.tuple(record, fc.constantFrom(...fields.map((f) => f.name))).map(([form, dup]) => {
        const doubled = { ...form, [dup]: [String(form[dup] ?? 'a'), 'second'] };
        return { contentType: FORM, form: doubled, body: encode(doubled), notes: [`form ${dup} repeated`] };
      }),
    },
    {
      weight: 1,
      // Over 100 fields body-parser fails with 'parameters.too.many': a 400 like every parser failure.
      arbitrary: fc.constantFrom(99, 100, 150, 2000).map((n) => {
        const form = Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 'v']));
        return { contentType: FORM, form, body: encode(form), notes: [`${n} form fields`] };
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom('%ZZ=1', 'a=%E0%A4%A', '&&&', '=', 'grant_type', 'a[b][c]=1', `username=${'x'.repeat(5000)}`).map((text) => ({ contentType: FORM, body: Buffer.from(text), notes: ['raw form'] })) },
    { weight: 1, arbitrary: fc.tuple(record, fc.constantFrom('application/json', 'text/plain', 'multipart/form-data')).map(([form, contentType]) => ({ contentType, body: Buffer.from(JSON.stringify(form)), notes: [`content type ${contentType}`] })) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ contentType: FORM, notes: ['no body'] }) },
  );
}

function textBody(wellFormed: boolean): fc.Arbitrary<BodyChoice> {
  const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }).map((t): BodyChoice => ({ contentType: 'text/plain', body: Buffer.from(t), notes: [] }));
  if (wellFormed) return text;
  return fc.oneof(
    { weight: 4, arbitrary: text },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ contentType: 'text/plain', body: Buffer.from('FROM scratch\n'.repeat(70_000)), notes: ['large text'] }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((b) => ({ contentType: 'text/plain', body: Buffer.from(b), notes: ['binary text'] })) },
    { weight: 1, arbitrary: fc.constantFrom('text/plain; charset=utf-16le', 'text/plain; charset=bogus', 'application/json', 'text/html').map((contentType) => ({ contentType, body: Buffer.from('FROM x'), notes: [`content type ${contentType}`] })) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ contentType: 'text/plain', notes: ['no body'] }) },
  );
}

const MAGIC_PREFIXES = [Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from('PK\x03\x04'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.from('ustar\x0000'), Buffer.alloc(512), Buffer.from('{"schema":')];

function multipart(boundary: string, parts: Array<{ name: string; filename?: string; body: Buffer }>, close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: application/octet-stream\r\n\r\n`), p.body, Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function uploadBody(op: FuzzOperation, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<BodyChoice> {
  const examples = fixtures.exampleUploads[op.operationId] ?? [];
  if (wellFormed && examples.length) return fc.constantFrom(...examples).map((e): BodyChoice => ({ contentType: e.contentType, body: e.body, notes: ['example upload'] }));
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
    fc.tuple(fc.constantFrom(...MAGIC_PREFIXES), fc.uint8Array({ maxLength: 2048 })).map(([m, b]) => Buffer.concat([m, Buffer.from(b)])),
  );
  const types = fc.constantFrom(...op.consumes, ...CONTENT_TYPES_WRONG);
  const arbitraries: Array<fc.WeightedArbitrary<BodyChoice>> = [
    { weight: 4, arbitrary: fc.tuple(bytes, fc.constantFrom(...op.consumes)).map(([body, contentType]) => ({ contentType, body, notes: ['garbage upload'] })) },
    { weight: 1, arbitrary: fc.tuple(bytes, types).map(([body, contentType]) => ({ contentType, body, notes: [`garbage upload as ${contentType}`] })) },
    { weight: 1, arbitrary: fc.constantFrom(...op.consumes).map((contentType) => ({ contentType, notes: ['no body'] })) },
  ];
  if (op.consumes.includes('multipart/form-data')) {
    arbitraries.push({
      weight: 2,
      arbitrary: fc
        .tuple(bytes, fc.constantFrom('file', 'other', ''), fc.constantFrom('f.zip', '', '../../x', undefined), fc.boolean(), fc.boolean(), fc.constantFrom('fuzzboundary', 'x'.repeat(80), 'b'))
        .map(([body, name, filename, twice, close, boundary]) => ({
          contentType: `multipart/form-data; boundary=${boundary}`,
          body: multipart(boundary, twice ? [{ name, filename, body }, { name: 'file', filename: 'g.zip', body }] : [{ name, filename, body }], close),
          notes: [`multipart (${name || 'unnamed'} part${twice ? ', twice' : ''}${close ? '' : ', unterminated'})`],
        })),
    });
  }
  if (examples.length) {
    const example = fc.constantFrom(...examples);
    arbitraries.push(
      { weight: 2, arbitrary: example.map((e) => ({ contentType: e.contentType, body: e.body, notes: ['example upload'] })) },
      {
        weight: 2,
        arbitrary: fc.tuple(example, fc.double({ min: 0, max: 1, noNaN: true })).map(([e, cut]) => ({
          contentType: e.contentType,
          body: e.body.subarray(0, Math.floor(e.body.length * cut)),
          notes: [`example upload truncated at ${Math.floor(e.body.length * cut)}`],
        })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(example, fc.nat(), fc.nat({ max: 255 })).map(([e, at, byte]) => {
          const body = Buffer.from(e.body);
          if (body.length) body[at % body.length] = byte;
          return { contentType: e.contentType, body, notes: [`example upload with byte ${at % Math.max(1, body.length)} set to ${byte}`] };
        }),
      },
    );
  }
  return fc.oneof(...arbitraries);
}

/** A body now and then for operations that take none: it must be ignored, whatever it is. */
function strayBody(wellFormed: boolean): fc.Arbitrary<BodyChoice> {
  if (wellFormed) return fc.constant<BodyChoice>({ notes: [] });
  // Bodies are parsed only for operations that take one, so any content type, charsets included, is ignored here.
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<BodyChoice>({ notes: [] }) },
    { weight: 1, arbitrary: fc.constantFrom('{"a":1}', '[]', '{"__proto__":{"x":1}}', '{', 'x=1', 'not json').map((t) => ({ contentType: 'application/json', body: Buffer.from(t), notes: ['unexpected body'] })) },
    { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES_WRONG).map((contentType) => ({ contentType, body: Buffer.from('{"a":1}'), notes: [`unexpected body as ${contentType}`] })) },
  );
}

function bodyFor(op: FuzzOperation, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<BodyChoice> {
  const bodyParam = op.params.find((p) => p.in === 'body');
  if (op.params.some((p) => p.in === 'formData')) return formBody(op, fixtures, wellFormed);
  if (!bodyParam) return strayBody(wellFormed);
  const schema = resolve(bodyParam.schema ?? {});
  if (schema.format === 'binary') return uploadBody(op, fixtures, wellFormed);
  if (schema.type === 'string') return textBody(wellFormed);
  return jsonBody(op, schema, fixtures, wellFormed);
}

// ---------------------------------------------------------------------------------------------------------------
// The whole request

/** Node's HTTP parser refuses request heads over 16 KiB before the application sees them. */
const MAX_HEAD_BYTES = 14_000;

/**
 * Requests for one operation: two in five well-formed throughout (valid by the spec, as the administrator, so they
 * reach the handlers and the domain code), the others with any part broken.
 */
export function requestArbitrary(op: FuzzOperation, fixtures: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 2, arbitrary: requestsOf(op, fixtures, true) }, { weight: 3, arbitrary: requestsOf(op, fixtures, false) });
}

function requestsOf(op: FuzzOperation, fixtures: FuzzFixtures, wellFormed: boolean): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const scoped = op.params.some((p) => p.in === 'header' && p.name === 'x-service-account');

  const examples = resourceExamples(op, fixtures.resources);
  const perParam = fc.tuple(...pathParams.map((p) => pathSegment(p, fixtures, wellFormed)));
  const segments =
    wellFormed && examples.length
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...examples).map((ex) => pathParams.map((p) => ({ value: ex[p.name], encoded: encodeURIComponent(ex[p.name]) }))) },
          { weight: 1, arbitrary: perParam },
        )
      : perParam;
  const query = fc.tuple(...queryParams.map((p) => queryFragments(p, fixtures, wellFormed)));
  const adminAuth = fixtures.authorizationOverrides[op.operationId] ?? fixtures.adminAuthorization;
  const accounts = fixtures.values.account_name ?? [];
  if (wellFormed)
    return fc
      .record({
        segments,
        query,
        serviceAccount: scoped && accounts.length ? fc.option(fc.constantFrom(...accounts), { nil: undefined, freq: 3 }) : fc.constant(undefined),
        body: bodyFor(op, fixtures, true),
      })
      .map(({ segments: segs, query: q, serviceAccount: sa, body }) => assemble(op, fixtures, { segs, q, auth: adminAuth, sa, extra: {}, unknown: [], body }));
  const authorization = fc.oneof(
    { weight: 16, arbitrary: fc.constant<string | undefined>(adminAuth) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>(...BAD_AUTHORIZATIONS) },
    ...(fixtures.otherAuthorizations.length ? [{ weight: 1, arbitrary: fc.constantFrom<string | undefined>(...fixtures.otherAuthorizations) }] : []),
  );
  const serviceAccount = fc.oneof(
    { weight: scoped ? 8 : 30, arbitrary: fc.constant<string | undefined>(undefined) },
    ...(accounts.length ? [{ weight: 1, arbitrary: fc.constantFrom<string | undefined>(...accounts) }] : []),
    { weight: 1, arbitrary: fc.oneof(boundaryText, randomText).map((s) => headerSafe(s) as string | undefined) },
  );
  const extraHeaders = fc.oneof(
    { weight: 10, arbitrary: fc.constant<Record<string, string>>({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { 'x-request-id': 'x'.repeat(100) },
        { 'x-request-id': '../../etc' },
        { accept: 'application/xml' },
        { accept: 'text/html;q=0.1, */*;q=0' },
        { 'accept-encoding': 'br;q=2, gzip' },
        { 'x-http-method-override': 'DELETE' },
        { 'x-forwarded-for': '10.0.0.1' },
        { 'content-language': 'ü'.repeat(20) },
      ),
    },
  );
  const unknownQuery = fc.oneof({ weight: 8, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: fc.constantFrom<string[]>(['unknown_param=1'], ['__proto__[x]=1'], ['a=1&a=2&a=3'], ['&'], ['=']) });

  return fc
    .record({ segments, query, authorization, serviceAccount, extraHeaders, unknownQuery, body: bodyFor(op, fixtures, false) })
    .map(({ segments: segs, query: q, authorization: auth, serviceAccount: sa, extraHeaders: extra, unknownQuery: unknown, body }) =>
      assemble(op, fixtures, { segs, q, auth, sa, extra, unknown, body }),
    );
}

interface Pieces {
  segs: Array<{ value: string; encoded: string; note?: string }>;
  q: QueryFragments[];
  auth: string | undefined;
  sa: string | undefined;
  extra: Record<string, string>;
  unknown: string[];
  body: BodyChoice;
}

/** Encodes the generated pieces as the request that is sent, after the operation's sanitizer had its say. */
function assemble(op: FuzzOperation, fixtures: FuzzFixtures, { segs, q, auth, sa, extra, unknown, body }: Pieces): FuzzRequest {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const adminAuth = fixtures.authorizationOverrides[op.operationId] ?? fixtures.adminAuthorization;
  const notes: string[] = [...body.notes];
  const parts: RequestParts = { pathParams: {}, query: [], rawQuery: [], json: body.json, form: body.form };
  segs.forEach((s, i) => {
    parts.pathParams[pathParams[i].name] = s.value;
    if (s.note) notes.push(s.note);
  });
  for (const f of q) {
    parts.query.push(...f.pairs);
    parts.rawQuery.push(...f.raw);
    if (f.note) notes.push(f.note);
  }
  const sanitize = fixtures.sanitize[op.operationId];
  let bodyBytes = body.body;
  if (sanitize) {
    const before = JSON.stringify(parts);
    sanitize(parts);
    // A sanitizer that changed the JSON or form body re-encodes it.
    if (JSON.stringify(parts) !== before) {
      if (parts.json !== undefined && body.json !== undefined) bodyBytes = Buffer.from(JSON.stringify(parts.json));
      else if (parts.form && body.form) bodyBytes = formEncode(parts.form);
    }
  }
  let path =
    BASE_PATH +
    op.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const seg = segs[pathParams.findIndex((p) => p.name === name)];
      // A sanitized value is re-encoded; otherwise the segment goes as generated (raw segments included).
      return parts.pathParams[name] === seg.value ? seg.encoded : encodeURIComponent(parts.pathParams[name]);
    });
  const fragments = [...parts.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), ...parts.rawQuery, ...unknown];
  const headers: Record<string, string> = { ...extra };
  if (auth !== undefined) headers.authorization = auth;
  if (sa !== undefined) headers['x-service-account'] = sa;
  if (body.contentType !== undefined) headers['content-type'] = body.contentType;
  const headBytes = () => path.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v, 'latin1') + 4, 0);
  // Keep the head under node's limit, dropping query pieces first.
  while (fragments.length && headBytes() + fragments.join('&').length + 1 > MAX_HEAD_BYTES) {
    fragments.pop();
    notes.push('query trimmed to fit the request head limit');
  }
  if (fragments.length) path += `?${fragments.join('&')}`;
  if (headBytes() > MAX_HEAD_BYTES) {
    path = path.slice(0, MAX_HEAD_BYTES - (headBytes() - path.length));
    notes.push('path cut to fit the request head limit');
  }
  if (auth === undefined) notes.push('no credentials');
  else if (auth !== adminAuth) notes.push('other credentials');
  return withToString({
    operationId: op.operationId,
    method: op.method,
    path,
    headers,
    body: bodyBytes,
    pathParams: parts.pathParams,
    query: parts.query,
    form: parts.form,
    json: parts.json,
    notes,
  });
}

/** A fixed per-operation seed from the run's seed, so operations can be added without reshuffling the others. */
export function operationSeed(runSeed: number, operationId: string): number {
  return createHash('sha256').update(`${runSeed}:${operationId}`).digest().readInt32LE(0);
}
