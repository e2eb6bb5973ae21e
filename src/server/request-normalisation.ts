/**
 * What the pipeline does to a request before validating it, driven by the spec (generated/openapi3.json):
 * - query parameters marked `x-case-insensitive: true` (enums upstream declares as free strings) have a value that
 *   matches one of their enum values in another case replaced by that value, so `level=info` validates as `INFO`;
 * - `x-one-of-required` on an operation names query parameters of which at least one must be given;
 * - request body objects lose the properties their schema does not declare (upstream's schemas accept them), so
 *   an ignored property never reaches a handler or storage; the caller logs their names. Objects whose schema says
 *   `x-unknown-properties: reject` (security-relevant ones) refuse them instead, and schemas that allow extra
 *   properties (`additionalProperties` true or a schema) or forbid them (`false`: Ajv refuses) are left as they are.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Ignored property names kept for the log line; the count covers the rest. */
const MAX_NAMED_IGNORED = 20;
/** Refused properties listed in one answer, as for other violations. */
const MAX_LISTED_REFUSED = 100;

type QueryValue = string | string[] | undefined;
type Json = any;

export interface ParameterViolation {
  location: string;
  message: string;
}

interface OperationRules {
  /** Per case-insensitive query parameter: lower-cased value -> canonical enum value. */
  caseFolded: Map<string, Map<string, string>>;
  /** Comma-separated array parameters (`style: form`, `explode: false`) among them, folded item by item. */
  commaSeparated: Set<string>;
  /** At least one of these query parameters must be present. */
  oneOfRequired: string[];
}

/** What a body schema (with its $refs and allOf/oneOf/anyOf members merged) says about an object's properties. */
interface ObjectView {
  /** Declared properties, each with the schemas of every member that declares it. */
  properties: Map<string, Json[]>;
  /** Schemas extra properties must match (`additionalProperties` as a schema). */
  extra: Json[];
  /** Extra properties are allowed as they are (`additionalProperties: true` or a schema). */
  open: boolean;
  /** `additionalProperties: false`: Ajv refuses extra properties. */
  closed: boolean;
  /** `x-unknown-properties: reject`: extra properties are refused by name. */
  reject: boolean;
  /** Schemas of array items. */
  items: Json[];
}

export interface BodyProperties {
  /** Locations (`body.a.b`) of ignored and removed properties, the first few. */
  ignored: string[];
  ignoredCount: number;
  /** Locations of refused properties (at most 100 listed). */
  refused: string[];
}

export class RequestNormalisation {
  private readonly rules = new Map<string, OperationRules>();
  /** Per operation and media type, the request body schema. */
  private readonly bodySchemas = new Map<string, Map<string, Json>>();
  private readonly views = new WeakMap<object, ObjectView>();

  constructor(private readonly definition: Json) {
    for (const item of Object.values<Json>(definition.paths))
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const body = resolve(definition, op.requestBody);
        if (body?.content)
          this.bodySchemas.set(op.operationId, new Map(Object.entries<Json>(body.content).filter(([, c]) => c?.schema).map(([type, c]) => [type, c.schema])));
        const rules: OperationRules = { caseFolded: new Map(), commaSeparated: new Set(), oneOfRequired: op['x-one-of-required'] ?? [] };
        for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
          const p = resolve(definition, raw);
          if (p.in !== 'query' || p['x-case-insensitive'] !== true) continue;
          const values: unknown[] = p.schema?.enum ?? p.schema?.items?.enum ?? [];
          rules.caseFolded.set(p.name, new Map(values.filter((v): v is string => typeof v === 'string').map((v) => [v.toLowerCase(), v])));
          if (p.schema?.type === 'array' && p.explode === false) rules.commaSeparated.add(p.name);
        }
        if (rules.caseFolded.size || rules.oneOfRequired.length) this.rules.set(op.operationId, rules);
      }
  }

  /** The query with case-insensitive enum values replaced by their canonical spelling (a new object when changed). */
  foldQueryCase(operationId: string, query: Record<string, QueryValue>): Record<string, QueryValue> {
    const rules = this.rules.get(operationId);
    if (!rules?.caseFolded.size) return query;
    let folded: Record<string, QueryValue> | undefined;
    for (const [name, canonical] of rules.caseFolded) {
      const value = query[name];
      if (value === undefined) continue;
      const fold = (v: string) =>
        rules.commaSeparated.has(name) ? v.split(',').map((part) => canonical.get(part.toLowerCase()) ?? part).join(',') : (canonical.get(v.toLowerCase()) ?? v);
      const next = Array.isArray(value) ? value.map(fold) : fold(value);
      if (JSON.stringify(next) === JSON.stringify(value)) continue;
      folded ??= { ...query };
      folded[name] = next;
    }
    return folded ?? query;
  }

  /** Violations of the operation's `x-one-of-required` (none given), to report like any validation failure. */
  missingOneOf(operationId: string, query: Record<string, QueryValue>): ParameterViolation[] {
    const names = this.rules.get(operationId)?.oneOfRequired ?? [];
    if (!names.length || names.some((n) => query[n] !== undefined && query[n] !== '')) return [];
    return [{ location: 'query', message: `needs at least one of ${names.join(', ')}` }];
  }

  /**
   * Removes the body's undeclared properties (see the file comment) in place and says which went, or which are
   * refused. Linear in the body's size; the body has passed the nesting-depth check, so recursion is bounded.
   */
  stripUnknownProperties(operationId: string, mediaType: string, body: unknown): BodyProperties {
    const result: BodyProperties = { ignored: [], ignoredCount: 0, refused: [] };
    const schema = this.bodySchemas.get(operationId)?.get(mediaType);
    if (schema && body && typeof body === 'object') this.walk(body, [schema], 'body', result);
    return result;
  }

  private walk(value: unknown, schemas: Json[], location: string, result: BodyProperties): void {
    const view = this.viewOf(schemas);
    if (Array.isArray(value)) {
      if (view.items.length) value.forEach((item, i) => item && typeof item === 'object' && this.walk(item, view.items, `${location}.${i}`, result));
      return;
    }
    if (!value || typeof value !== 'object' || (!view.properties.size && !view.extra.length)) return;
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const declared = view.properties.get(key);
      const at = `${location}.${key}`;
      if (declared) {
        if (object[key] && typeof object[key] === 'object') this.walk(object[key], declared, at, result);
      } else if (view.extra.length) {
        if (object[key] && typeof object[key] === 'object') this.walk(object[key], view.extra, at, result);
      } else if (view.reject) {
        if (result.refused.length < MAX_LISTED_REFUSED) result.refused.push(at);
      } else if (!view.open && !view.closed && view.properties.size) {
        delete object[key];
        result.ignoredCount += 1;
        if (result.ignored.length < MAX_NAMED_IGNORED) result.ignored.push(at);
      }
    }
  }

  private viewOf(schemas: Json[]): ObjectView {
    if (schemas.length === 1 && schemas[0] && typeof schemas[0] === 'object') {
      const cached = this.views.get(schemas[0]);
      if (cached) return cached;
    }
    const view: ObjectView = { properties: new Map(), extra: [], open: false, closed: false, reject: false, items: [] };
    const seen = new Set<Json>();
    const merge = (raw: Json) => {
      const schema = resolve(this.definition, raw);
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
      seen.add(schema);
      for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
        const list = view.properties.get(name) ?? [];
        list.push(property);
        view.properties.set(name, list);
      }
      if (schema.additionalProperties === true) view.open = true;
      else if (schema.additionalProperties === false) view.closed = true;
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        view.open = true;
        view.extra.push(schema.additionalProperties);
      }
      if (schema['x-unknown-properties'] === 'reject') view.reject = true;
      if (schema.items) view.items.push(schema.items);
      for (const member of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) merge(member);
    };
    schemas.forEach(merge);
    if (schemas.length === 1 && schemas[0] && typeof schemas[0] === 'object') this.views.set(schemas[0], view);
    return view;
  }
}

function resolve(definition: Json, p: Json): Json {
  if (!p?.$ref) return p;
  const path = String(p.$ref).replace(/^#\//, '').split('/');
  return path.reduce((node: Json, key: string) => node?.[key], definition);
}
