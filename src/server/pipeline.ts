/**
 * The REST request pipeline. Each cross-cutting step happens here, once, in this order:
 * route match (404/405) -> authentication -> content type (415) -> request normalisation (query enum case, unknown
 * body properties) -> validation with coercion and defaults (400)
 * -> target account (the operation's account parameter, or x-service-account / x-anchore-account) -> authorization from
 * x-authz-action (403) -> handler -> response. Errors from any step go through one mapper.
 */
import type { NextFunction, Request, Response } from 'express';
import { Ajv as AjvClass, type Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { OpenAPIBackend, type Request as OabRequest } from 'openapi-backend';
import type { BodyParsing } from './body-parsing.js';
import { operationTable, type OperationId, type OperationMeta } from '../../generated/operations.js';
import type { AccountRecord } from '../auth/accounts.js';
import type { Principal } from '../auth/principal.js';
import { authorize } from '../auth/rbac.js';
import { AppError, InvalidError, NotFoundError } from '../errors.js';
import type { Services } from '../service.js';
import { readProjectJson } from '../util/project.js';
import { headerAccount, resolveTargetAccount } from './account-scope.js';
import { createAuthenticate } from './auth-strategies.js';
import { RequestNormalisation } from './request-normalisation.js';
import { RequestContext } from './context.js';
import { sendError } from './error-response.js';
import type { BodyCheck, BodyChecks, Handlers } from './handler-types.js';
import { StreamedJsonArray, writeStreamedJson } from './json-stream.js';

const API_ROOT = '/v2';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Bodies of these types are streamed to the handler, never buffered or parsed here. */
const STREAMED_MEDIA_TYPES = new Set(['application/x-tar', 'application/gzip', 'application/octet-stream', 'application/zip', 'multipart/form-data']);
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
/** Answers an operation produces as text (its first `produces` type): the handler's body is sent as it is. */
const TEXT_MEDIA_TYPES = new Set(['text/plain', 'application/xml']);

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** "/requestBody/name" -> "body.name"; a missing property is named as the property itself. */
function locationOf(e: AjvError): string {
  const parts = e.instancePath.split('/').filter(Boolean);
  if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') parts.push(e.params.missingProperty);
  if (e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string') parts.push(e.params.additionalProperty);
  if (parts[0] === 'requestBody') parts[0] = 'body';
  return parts.join('.') || 'request';
}

function describe(e: AjvError): string {
  if (e.keyword === 'required') return 'is required';
  if (e.keyword === 'additionalProperties') return 'is not an allowed property';
  if (e.keyword === 'enum') return `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  return e.message ?? 'is invalid';
}

/** At most this many violations are listed in one answer. */
const MAX_LISTED_VIOLATIONS = 100;
/** Bodies with more JSON values than this are reported with their first violation only (see createPipeline). */
const FULL_LISTING_MAX_VALUES = 10_000;

function validationError(errors: AjvError[]): InvalidError {
  // Ajv reports one "required" error per missing body when the body is absent; say it plainly.
  const byText = new Map<string, { location: string; message: string }>();
  for (const e of errors) {
    const entry = { location: locationOf(e), message: describe(e) };
    const key = `${entry.location}\u0000${entry.message}`;
    if (!byText.has(key)) byText.set(key, entry);
  }
  const unique = [...byText.values()];
  const listed = unique.slice(0, MAX_LISTED_VIOLATIONS);
  const more = unique.length > listed.length ? ` (the first ${listed.length} of ${unique.length} listed)` : '';
  return new InvalidError(`request validation failed${more}: ${listed.map((e) => `${e.location} ${e.message}`).join('; ')}`, { errors: listed });
}

/** A checked document's path as validation locations spell it: ('body.policy', 'rule_sets[0].id') -> 'body.policy.rule_sets.0.id'. */
function locationIn(within: string, path: string): string {
  return `${within}.${path.replace(/\[(\d+)\]/g, '.$1')}`;
}

/**
 * The schema's violations and the body check's problems in one error: `detail.errors` as ever, `detail.problems` as
 * the check reports them when the schema passes. A problem at (or below) a place the schema refused is its
 * violation said again, and left out.
 */
function withBodyProblems(error: InvalidError, checked: ReturnType<BodyCheck>): InvalidError {
  const refused = (error.detail.errors as { location: string }[]).map((e) => e.location);
  const problems = checked.problems.filter((p) => {
    const at = locationIn(checked.within, p.path);
    return !refused.some((location) => at === location || at.startsWith(`${location}.`));
  });
  if (!problems.length) return error;
  const listed = problems.slice(0, 3).map((p) => `${locationIn(checked.within, p.path)} ${p.message}`).join('; ');
  const also = `; and ${problems.length} more problem${problems.length === 1 ? '' : 's'}: ${listed}${problems.length > 3 ? '; ...' : ''}`;
  return new InvalidError(error.message + also, { ...error.detail, problems });
}

/**
 * Where a string (or object key) of the request holds U+0000, if anywhere. PostgreSQL stores no NUL in text or jsonb,
 * so no request may carry one, whichever database is in use.
 */
function nulCharacterAt(input: Record<string, unknown>): string | undefined {
  // Locations are spelled out only for the hit: a large body has millions of values.
  interface Node {
    value: unknown;
    key: string;
    parent: Node | null;
  }
  const locate = (node: Node) => {
    const keys: string[] = [];
    for (let n: Node | null = node; n; n = n.parent) keys.unshift(n.key.replaceAll('\u0000', '\\u0000'));
    return keys.join('.');
  };
  const stack: Node[] = Object.entries(input).map(([key, value]) => ({ value, key, parent: null }));
  while (stack.length) {
    const node = stack.pop()!;
    if (typeof node.value === 'string') {
      if (node.value.includes('\u0000')) return locate(node);
    } else if (node.value && typeof node.value === 'object') {
      for (const [key, value] of Object.entries(node.value)) {
        const child = { value, key, parent: node };
        if (key.includes('\u0000')) return locate(child);
        stack.push(child);
      }
    }
  }
  return undefined;
}

/** Whether a parsed JSON value holds more than `limit` values (counting stops there). */
function valueCountExceeds(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    count += 1;
    if (v && typeof v === 'object') for (const child of Object.values(v)) stack.push(child);
    if (count + stack.length > limit) return true;
  }
  return false;
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * The first path segment that is not valid percent-encoded UTF-8 (`%FF`, `%E0%A4%A`, a lone `%`), if any. The router
 * decodes path parameters with decodeURIComponent, which throws on those.
 */
function malformedPathSegment(path: string): string | undefined {
  for (const segment of path.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }
  return undefined;
}

/**
 * openapi-backend validates JSON and form bodies only. Text bodies (text/plain) are validated here against their
 * schema, wrapped as `{requestBody}` like the others so violations read `body ...`.
 */
function compileTextBodyValidators(definition: any): Map<string, ValidateFunction> {
  const ajv = new AjvClass({ allErrors: true, strict: false });
  const validators = new Map<string, ValidateFunction>();
  for (const item of Object.values<any>(definition.paths))
    for (const method of METHODS) {
      const body = item[method]?.requestBody;
      const schema = body?.content?.['text/plain']?.schema;
      if (!schema) continue;
      validators.set(
        item[method].operationId,
        ajv.compile({ type: 'object', properties: { requestBody: schema }, required: body.required ? ['requestBody'] : [] }),
      );
    }
  return validators;
}

/** Operations whose spec declares OAuth-shaped errors (RFC 6749 §5.2: `error`, `error_description`) for 400. */
function oauthShapedOperations(definition: any): Set<string> {
  const shaped = new Set<string>();
  for (const item of Object.values<any>(definition.paths))
    for (const method of METHODS) {
      const ref = item[method]?.responses?.['400']?.content?.['application/json']?.schema?.$ref;
      if (typeof ref === 'string' && ref.endsWith('/OAuthErrorResponse')) shaped.add(item[method].operationId);
    }
  return shaped;
}

export function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v !== '') return v;
  return undefined;
}

export interface Pipeline {
  /** Express middleware for everything under /v2. */
  handle(req: Request, res: Response, next: NextFunction): Promise<void>;
}

export async function createPipeline(services: Services, handlers: Handlers, bodies: BodyParsing, bodyChecks: BodyChecks = {}): Promise<Pipeline> {
  const definition = readProjectJson<any>('generated/openapi3.json');
  const sharedAjv = new Map<string, Ajv>();
  const backend = (allErrors: boolean) =>
    new OpenAPIBackend({
      definition,
      apiRoot: API_ROOT,
      strict: true,
      // quick: skip re-validating the document (codegen did) and compile validators lazily; request validators
      // are compiled right after init, response validators are never needed at run time.
      quick: true,
      validate: true, // builds the validator; it runs as a step below, after authentication (handleRequest is not used)
      coerceTypes: true,
      ajvOpts: { useDefaults: true, allErrors, strict: false },
      // openapi-backend builds a fresh Ajv per validator; sharing one per option set makes start-up fast.
      customizeAjv: (ajv, options) => {
        const key = JSON.stringify(options);
        let shared = sharedAjv.get(key);
        if (!shared) {
          shared = ajvFormats.default(ajv, ['date-time', 'email', 'uri', 'uuid', 'date']);
          sharedAjv.set(key, shared);
        }
        return shared;
      },
    });
  // Routing and validation stop at a request's first violation, so work and memory stay bounded whatever the body
  // (Ajv's allErrors on a body of a million wrong elements collects a million errors). Requests found invalid
  // that are small are validated again in full, to list every violation.
  const api = backend(false);
  const lister = backend(true);
  await Promise.all([api.init(), lister.init()]);
  api.validator.preCompileRequestValidators();
  const authenticate = createAuthenticate(services.authenticator);
  const textBodyValidators = compileTextBodyValidators(definition);
  const oauthShaped = oauthShapedOperations(definition);
  const normalisation = new RequestNormalisation(definition);

  function allowedMethods(request: OabRequest): string[] {
    return METHODS.filter((method) => api.router.matchOperation({ ...request, method }, false)).map((m) => m.toUpperCase());
  }

  async function handle(req: Request, res: Response): Promise<void> {
    const requestId = res.getHeader('x-request-id') as string;
    const request: OabRequest = {
      method: req.method,
      path: req.baseUrl + req.path,
      headers: req.headers as Record<string, string | string[]>,
      query: req.query as Record<string, string | string[]>,
      body: req.body,
    };
    let operationId: OperationId | undefined;
    try {
      let operation;
      try {
        operation = api.router.matchOperation(request, true);
      } catch {
        const allowed = allowedMethods(request);
        if (allowed.length) {
          res.setHeader('Allow', allowed.join(', '));
          throw new AppError(405, 'method_not_allowed', `${req.method} is not allowed on ${request.path}; use ${allowed.join(', ')}`, { allowed });
        }
        throw new NotFoundError(`no operation at ${req.method} ${request.path}`, { path: request.path });
      }
      operationId = operation.operationId as OperationId;
      res.locals.operationId = operationId;
      const meta: OperationMeta = operationTable[operationId];

      const principal = meta.public ? null : await authenticate(req);

      if (meta.consumes.length && hasBody(req) && !meta.consumes.includes(mediaType(req)))
        throw new AppError(415, 'unsupported_media_type', `send the body as ${meta.consumes.join(' or ')}; got '${mediaType(req) || 'none'}'`, {
          accepted: meta.consumes,
        });
      const streamed = meta.consumes.some((c) => STREAMED_MEDIA_TYPES.has(c));
      // Read only now: the route takes a body of this type and the caller is who it claims (streamed uploads are
      // the handler's to read).
      if (!streamed && meta.consumes.length && hasBody(req)) {
        await bodies.parse(req, res);
        request.body = req.body;
      }
      // No body at all is an empty form for form operations (none of whose fields the token endpoint requires).
      if (meta.consumes.length && !hasBody(req)) request.body = meta.consumes.includes(FORM_MEDIA_TYPE) ? {} : undefined;
      if (streamed) request.body = undefined;

      const malformed = malformedPathSegment(request.path)?.slice(0, 64);
      if (malformed !== undefined)
        throw new InvalidError(`the request path is not valid percent-encoded UTF-8 at '${malformed}'`, {
          errors: [{ location: 'path', message: `segment '${malformed}' is not valid percent-encoding` }],
        });

      request.query = normalisation.foldQueryCase(operationId, request.query as Record<string, string | string[]>) as Record<string, string | string[]>;
      const properties = normalisation.stripUnknownProperties(operationId, mediaType(req), request.body);
      if (properties.refused.length)
        throw new InvalidError(`request validation failed: ${properties.refused.map((l) => `${l} is not an allowed property`).join('; ')}`, {
          errors: properties.refused.map((location) => ({ location, message: 'is not an allowed property' })),
        });
      if (properties.ignoredCount)
        (res.log ?? services.log).debug(
          { operation_id: operationId, ignored_properties: properties.ignored, ignored_count: properties.ignoredCount },
          'ignored request body properties the operation does not take',
        );
      const validation = api.validator.validateRequest(request, operation);
      if (!validation.valid) {
        const fullListing = !valueCountExceeds(request.body, FULL_LISTING_MAX_VALUES);
        const listed = fullListing ? lister.validator.validateRequest(request, operationId) : validation;
        const error = validationError((listed.errors ?? validation.errors ?? []) as AjvError[]);
        const check = fullListing ? bodyChecks[operationId] : undefined;
        throw check ? withBodyProblems(error, check(request.body)) : error;
      }
      const missing = normalisation.missingOneOf(operationId, request.query as Record<string, string | string[]>);
      if (missing.length)
        throw new InvalidError(`request validation failed: ${missing.map((e) => `${e.location} ${e.message}`).join('; ')}`, { errors: missing });
      const validateText = textBodyValidators.get(operationId);
      if (validateText && !validateText({ requestBody: request.body })) throw validationError((validateText.errors ?? []) as AjvError[]);
      const input = {
        params: (validation.coerced?.params ?? {}) as Record<string, unknown>,
        query: (validation.coerced?.query ?? {}) as Record<string, unknown>,
        body: request.body,
      };
      const nul = nulCharacterAt({ path: input.params, query: input.query, body: input.body });
      if (nul !== undefined)
        throw new InvalidError(`request validation failed: ${nul} contains a NUL character (U+0000)`, { errors: [{ location: nul, message: 'contains a NUL character (U+0000)' }] });

      let account: AccountRecord | null = null;
      if (principal) {
        const body = (input.body && typeof input.body === 'object' ? input.body : {}) as Record<string, unknown>;
        const named = firstString(...meta.accountParams.flatMap((p) => [input.params[p], input.query[p], body[p]]));
        account = await resolveTargetAccount(services.db, principal, meta.authzAction, { named, header: meta.scoped ? headerAccount(req.headers) : undefined });
        await authorize(services.db, services.permissions, principal, meta.authzAction, account.name);
      }

      const log = res.log ?? services.log;
      const ctx = new RequestContext(services, log, requestId, req.ip ?? 'unknown', principal, account, streamed ? req : null, req.headers.cookie ?? null);
      const handler = handlers[operationId] as (ctx: RequestContext, input: unknown) => Promise<{ status: number; body?: unknown; headers?: Record<string, string> }>;
      const reply = await handler(ctx, input);

      // Authenticated answers carry account data, and some a secret shown once (API keys, tokens, signing
      // secrets): no cache, shared or private, may keep them, unless the handler says otherwise.
      if (principal) res.setHeader('Cache-Control', 'no-store');
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      res.status(reply.status);
      if (reply.body === undefined) {
        res.end();
      } else if (reply.body instanceof StreamedJsonArray) {
        await writeStreamedJson(res, reply.body);
      } else if (TEXT_MEDIA_TYPES.has(meta.produces[0] ?? '')) {
        res.type(meta.produces[0]!).send(String(reply.body));
      } else {
        res.json(reply.body);
      }
    } catch (err) {
      sendError(res, err, requestId, { oauth: operationId !== undefined && oauthShaped.has(operationId) });
    }
  }

  return {
    async handle(req, res) {
      await handle(req, res);
    },
  };
}
