/**
 * What the pipeline does to a request before validating it, driven by the spec (generated/openapi3.json):
 * - query parameters marked `x-case-insensitive: true` (enums upstream declares as free strings) have a value that
 *   matches one of their enum values in another case replaced by that value, so `level=info` validates as `INFO`;
 * - `x-one-of-required` on an operation names query parameters of which at least one must be given.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

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

export class RequestNormalisation {
  private readonly rules = new Map<string, OperationRules>();

  constructor(definition: Json) {
    for (const item of Object.values<Json>(definition.paths))
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
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
}

function resolve(definition: Json, p: Json): Json {
  if (!p?.$ref) return p;
  const path = String(p.$ref).replace(/^#\//, '').split('/');
  return path.reduce((node: Json, key: string) => node?.[key], definition);
}
