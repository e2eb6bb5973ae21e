/**
 * Validates every HTTP response a test receives against the served Swagger 2.0 document (generated/swagger.json),
 * so the spec and the server cannot drift: the status must be declared for the operation, and the body must
 * match the declared schema. Responses from no operation (404/405) must still be ApiErrorResponse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { samples } from './prometheus-text.js';

const root = join(import.meta.dirname, '..', '..');
const swagger = JSON.parse(readFileSync(join(root, 'generated', 'swagger.json'), 'utf8'));
const basePath: string = swagger.basePath;

/**
 * Swagger 2.0 has no null; `x-nullable: true` (the extension swagger2openapi turns into OpenAPI 3 `nullable`)
 * marks fields that may be null. JSON Schema says that with a type list.
 */
function withNullables(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNullables);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = withNullables(v);
  if (out['x-nullable'] === true && typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
ajvFormats.default(ajv);
// Swagger 2.0 schemas are JSON Schema draft-4 subsets with refs into #/definitions.
ajv.addSchema({ $id: 'swagger', definitions: withNullables(swagger.definitions) });

const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) {
    const rewritten = withNullables(JSON.parse(key.replaceAll('"#/definitions/', '"swagger#/definitions/'))) as object;
    v = ajv.compile(rewritten);
    validators.set(key, v);
  }
  return v;
}

interface Route {
  method: string;
  regex: RegExp;
  operation: any;
}

const routes: Route[] = [];
for (const [path, item] of Object.entries<any>(swagger.paths)) {
  for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
    if (!item[method]) continue;
    const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+');
    routes.push({ method: method.toUpperCase(), regex: new RegExp(`^${basePath}${pattern === '/' ? '/?' : pattern}$`), operation: item[method] });
  }
}

/** Legacy v1 aliases and the routes they answer like (GET /v2/accounts is a bare array too). */
const LEGACY: Record<string, { to: string }> = {
  'POST /v1/oauth/token': { to: '/v2/oauth/token' },
  'GET /v1/accounts': { to: '/v2/accounts' },
  'GET /v1/account': { to: '/v2/account' },
};

export function findOperation(method: string, pathname: string): any | undefined {
  return routes.find((r) => r.method === method.toUpperCase() && r.regex.test(pathname))?.operation;
}

function resolveResponse(response: any): any {
  if (response?.$ref) return swagger.responses[response.$ref.replace('#/responses/', '')];
  return response;
}

export class SpecViolation extends Error {}

/** Throws SpecViolation when the response does not conform. */
export function assertResponseMatchesSpec(method: string, url: string, status: number, contentType: string | null, bodyText: string): void {
  let pathname = new URL(url).pathname;
  const where = `${method} ${pathname} -> ${status}`;
  let parsed: unknown = undefined;
  const isJson = (contentType ?? '').startsWith('application/json');
  if (isJson && bodyText.length) {
    try {
      parsed = JSON.parse(bodyText);
    } catch {
      throw new SpecViolation(`${where}: content-type is JSON but the body does not parse`);
    }
  }
  // Outside the API: Prometheus' scrape endpoint answers its text format, or the API's error shape.
  if (pathname === '/metrics' && method.toUpperCase() === 'GET') {
    if (status === 200) {
      if (!(contentType ?? '').startsWith('text/plain; version=0.0.4')) throw new SpecViolation(`${where}: content-type ${contentType} is not Prometheus text 0.0.4`);
      samples(bodyText);
    } else check(where, { $ref: '#/definitions/ApiErrorResponse' }, parsed);
    return;
  }
  // The web interface (src/server/web-ui.ts) is outside the spec, like the docs; its errors are the API's shape.
  if (pathname === '/ui' || pathname.startsWith('/ui/') || (pathname === '/' && status === 302)) {
    if (status >= 400) check(where, { $ref: '#/definitions/ApiErrorResponse' }, parsed);
    return;
  }
  // A node without the api role (VIGIL_ROLES) serves no operation but its probes: it answers 404 in the error shape,
  // naming its roles, whatever the spec declares for the path.
  const roles = (parsed as { detail?: { vigil_roles?: unknown } } | undefined)?.detail?.vigil_roles;
  if (status === 404 && Array.isArray(roles) && !roles.includes('api')) {
    check(where, { $ref: '#/definitions/ApiErrorResponse' }, parsed);
    return;
  }
  const legacy = LEGACY[`${method.toUpperCase()} ${pathname}`];
  if (legacy) pathname = legacy.to;
  const operation = findOperation(method, pathname);
  if (!operation) {
    if (status !== 404 && status !== 405) throw new SpecViolation(`${where}: no operation matches, so only 404/405 are expected`);
    check(where, { $ref: '#/definitions/ApiErrorResponse' }, parsed);
    return;
  }
  const response = resolveResponse(operation.responses[String(status)]);
  if (!response) throw new SpecViolation(`${where}: status ${status} is not declared for ${operation.operationId}`);
  if (!response.schema) {
    if (bodyText.length && status !== 200) throw new SpecViolation(`${where}: no body is declared, but one was sent`);
    return;
  }
  const produces: string[] = operation.produces ?? swagger.produces;
  // Errors are ApiErrorResponse JSON on every operation, text/plain and XML ones included.
  if ((produces[0] === 'text/plain' || produces[0] === 'application/xml') && status < 400) {
    if (!(contentType ?? '').startsWith(produces[0])) throw new SpecViolation(`${where}: expected ${produces[0]}, got ${contentType}`);
    return;
  }
  if (!isJson) throw new SpecViolation(`${where}: expected a JSON body, got content-type ${contentType}`);
  check(where, response.schema, parsed);
}

function check(where: string, schema: object, body: unknown): void {
  const validate = validatorFor(schema);
  if (!validate(body))
    throw new SpecViolation(`${where}: body does not match the spec: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
