/**
 * The contract test's harness (issue 15): Vigil driven by a client that an independent generator
 * (@hey-api/openapi-ts, in generated/contract-client/) produced from the served spec, operation by operation.
 *
 * Every answer the contract client receives is checked here, whether a contract call or a fixture asked for it:
 * - its status must be one the operation declares (else a failure);
 * - a 2xx answer with a declared schema must have a declared content type, and its JSON body must pass the zod
 *   schema the generator wrote (the SDK function's own responseValidator, which the harness wraps to record the
 *   outcome instead of letting a ZodError escape without saying which answer it was); a 2xx answer without a
 *   schema must have no body;
 * - any other answer must be JSON that passes the zod schema of the operation's declared schema for that status
 *   (ApiErrorResponse on every Vigil operation).
 * zod objects accept properties a schema does not list (the generator ignores `additionalProperties: false`), so
 * every answer also goes through Vigil's own Ajv check (test/support/spec-validator.ts), which does not.
 *
 * An area (test/contract/areas/*.ts) maps each operationId it covers to the call(s) that drive it; `runArea` runs
 * them in order, one test per operation, then checks that each was driven to a 2xx (or to the error the call
 * declares with `expectStatus`) and that no answer anywhere in the file failed validation. Known mismatches
 * between Vigil and its spec that belong to other work are listed per area with `knownMismatch` and printed;
 * one that no longer happens fails, so the list cannot go stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingTools, type Tool } from '../support/tools.js';
import * as z from 'zod';
import { createClient, type Client, type Config } from '../../generated/contract-client/client/index.js';
import { client as defaultClient } from '../../generated/contract-client/client.gen.js';
import * as sdk from '../../generated/contract-client/sdk.gen.js';
import * as zod from '../../generated/contract-client/zod.gen.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../support/server.js';
import { assertResponseMatchesSpec } from '../support/spec-validator.js';

const root = join(import.meta.dirname, '..', '..');

/** The document the contract client was generated from (codegen writes both from the same object). */
export const generatedDocument: Record<string, any> = JSON.parse(readFileSync(join(root, 'generated', 'swagger.json'), 'utf8'));

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  responses: Record<string, any>;
  produces: string[];
}

/** The operations a Swagger 2.0 document declares, by operationId. */
export function operationsOf(doc: Record<string, any>): Map<string, SpecOperation> {
  const ops = new Map<string, SpecOperation>();
  for (const [path, item] of Object.entries<any>(doc.paths ?? {}))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      ops.set(op.operationId, { operationId: op.operationId, method: method.toUpperCase(), path, responses: op.responses ?? {}, produces: op.produces ?? doc.produces ?? [] });
    }
  return ops;
}

const specOperations = operationsOf(generatedDocument);
const byRoute = new Map([...specOperations.values()].map((op) => [`${op.method} ${op.path}`, op]));

// -------------------------------------------------------------------------------------------------------------
// Checking answers

/** One answer the contract client received. */
export interface Answer {
  operationId: string;
  status: number;
  /** Why it does not conform; empty when it does. */
  problems: string[];
  /** True once the generated zod schema accepted a 2xx JSON body. */
  schemaChecked: boolean;
}

const answers: Answer[] = [];

function resolveResponse(response: any): any {
  if (response?.$ref) return generatedDocument.responses[String(response.$ref).replace('#/responses/', '')];
  return response;
}

/** The zod schema the generator wrote for a definition (`#/definitions/ApiErrorResponse` → zApiErrorResponse). */
function zodForSchema(schema: any): z.ZodType | undefined {
  const ref: string | undefined = schema?.$ref;
  if (!ref) return undefined;
  const name = `z${ref.replace('#/definitions/', '')}`;
  const found = (zod as Record<string, unknown>)[name];
  if (!found) throw new Error(`the contract client has no zod schema ${name} for ${ref}`);
  return found as z.ZodType;
}

const media = (contentType: string | null) => (contentType ?? '').split(';')[0].trim().toLowerCase();
const isJson = (contentType: string | null) => /^application\/(.+\+)?json$/.test(media(contentType));

function describeZodError(err: unknown): string {
  return err instanceof z.ZodError ? z.prettifyError(err) : String(err);
}

async function checkAnswer(answer: Answer, op: SpecOperation, response: Response, opts: Record<string, any>): Promise<void> {
  const declared = resolveResponse(op.responses[String(answer.status)]);
  if (!declared) {
    answer.problems.push(`status ${answer.status} is not declared (declared: ${Object.keys(op.responses).join(', ')})`);
    return;
  }
  const contentType = response.headers.get('content-type');
  const text = await response.clone().text();
  try {
    assertResponseMatchesSpec(op.method, response.url, answer.status, contentType, text);
  } catch (err) {
    answer.problems.push(`Vigil's own spec check: ${(err as Error).message}`);
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (!declared.schema) {
      if (text.length) answer.problems.push(`no body is declared, but one was sent (${contentType}): ${text.slice(0, 200)}`);
      return;
    }
    if (!op.produces.map((m) => m.toLowerCase()).includes(media(contentType)))
      answer.problems.push(`content type ${contentType} is not one the operation produces (${op.produces.join(', ')})`);
    if (isJson(contentType)) {
      // The SDK function validates the parsed body with its zod schema after this interceptor: wrap that
      // validator so the outcome is recorded on this answer (and the caller still gets the data to go on).
      const validate = opts.responseValidator as ((data: unknown) => Promise<unknown>) | undefined;
      if (!validate) {
        answer.problems.push('a JSON body is declared, but the generated SDK function has no response validator for it');
        return;
      }
      opts.responseValidator = async (data: unknown) => {
        try {
          await validate(data);
          answer.schemaChecked = true;
        } catch (err) {
          answer.problems.push(`body does not match the generated schema:\n${describeZodError(err)}\nbody: ${text.slice(0, 400)}`);
        }
      };
    } else if (declared.schema.type !== 'string') {
      answer.problems.push(`a ${declared.schema.type ?? 'structured'} body is declared, but the answer is ${contentType}`);
    }
    return;
  }
  // A declared redirect without a body schema (SAML login): only its Location matters.
  if (answer.status >= 300 && answer.status < 400 && !declared.schema) {
    if (!response.headers.get('location')) answer.problems.push(`redirect ${answer.status} without a Location header`);
    return;
  }
  // Any other status: the operation's declared (error) schema.
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    answer.problems.push(`error answer is not JSON (${contentType}): ${text.slice(0, 200)}`);
    return;
  }
  const schema = zodForSchema(declared.schema);
  if (!schema) {
    answer.problems.push(`no schema is declared for status ${answer.status}`);
    return;
  }
  const result = schema.safeParse(body);
  if (!result.success) answer.problems.push(`error body does not match the generated schema:\n${describeZodError(result.error)}\nbody: ${text.slice(0, 400)}`);
}

/** Credentials as the generated client sends them: Basic (user:password, or an API key) or a bearer token. */
export type Credentials = { basic: [string, string] } | { apiKey: string } | { bearer: string };

export const ADMIN: Credentials = { basic: ['admin', ADMIN_PASSWORD] };

function authCallback(credentials: Credentials): Config['auth'] {
  return (auth) => {
    if ('bearer' in credentials) return auth.type === 'apiKey' ? `Bearer ${credentials.bearer}` : undefined;
    if (auth.scheme !== 'basic') return undefined;
    return 'apiKey' in credentials ? `_api_key:${credentials.apiKey}` : `${credentials.basic[0]}:${credentials.basic[1]}`;
  };
}

const instrumented = new WeakSet<Client>();

function instrument(c: Client): Client {
  instrumented.add(c);
  c.interceptors.response.use(async (response, request, opts) => {
    const op = byRoute.get(`${request.method.toUpperCase()} ${opts.url}`);
    if (!op) throw new Error(`the contract client called ${request.method} ${opts.url}, which the spec does not declare`);
    const answer: Answer = { operationId: op.operationId, status: response.status, problems: [], schemaChecked: false };
    answers.push(answer);
    await checkAnswer(answer, op, response, opts as Record<string, any>);
    return response;
  });
  return c;
}

let baseUrl = '';

/**
 * Starts a test server and points the generated SDK's default client (which its functions use unless given
 * another) at it, as the administrator.
 */
export async function startContractServer(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer(env);
  baseUrl = `${server.url}/v2`;
  defaultClient.setConfig({ baseUrl, auth: authCallback(ADMIN) });
  if (!instrumented.has(defaultClient)) instrument(defaultClient);
  return server;
}

/** Another client of the same server (pass it as `client:` to an SDK function); `url` names another service. */
export function as(credentials: Credentials, headers: Record<string, string> = {}, url = baseUrl): Client {
  return instrument(createClient({ baseUrl: url, auth: authCallback(credentials), headers }));
}

/** How many answers have been checked so far, and the ones since a count (for the harness's own test). */
export function answerCount(): number {
  return answers.length;
}

export function answersSince(count: number): Answer[] {
  return answers.slice(count);
}

/**
 * Options for an SDK call that uploads bytes (`format: binary` bodies: image archives, feed files). The generator
 * types such a body as Blob but writes its zod request schema as a string, so the SDK's request validator would
 * refuse every Blob: it is left out for these calls (the answers are checked as always). `contentType` picks one
 * of the types the operation consumes.
 */
export function binaryBody(bytes: Buffer | string, contentType: string) {
  return {
    body: new Blob([typeof bytes === 'string' ? Buffer.from(bytes) : bytes]),
    bodySerializer: null,
    requestValidator: undefined,
    headers: { 'Content-Type': contentType },
  };
}

type AnySdkFunction = (options?: any) => Promise<{ data?: any; error?: unknown; request: Request; response: Response }>;

/** The generated SDK function of an operation (its camel-cased operationId), for operations called by pattern. */
export function sdkFunction(operationId: string): AnySdkFunction {
  const name = operationId.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
  const fn = (sdk as Record<string, unknown>)[name];
  if (typeof fn !== 'function') throw new Error(`the contract client has no SDK function ${name} for ${operationId}`);
  return fn as AnySdkFunction;
}

export function sdkCall(operationId: string, options?: Record<string, unknown>) {
  return sdkFunction(operationId)(options);
}

/** The data of a 2xx answer (fails with the status and error body otherwise). */
export async function ok<R extends { data?: unknown; error?: unknown; response?: Response }>(call: Promise<R>): Promise<NonNullable<R['data']>> {
  const result = await call;
  if (!result.response) throw new Error(`no answer: ${String(result.error)}`);
  if (!result.response.ok) throw new Error(`${result.response.status} from ${result.response.url}: ${JSON.stringify(result.error)}`);
  return result.data as NonNullable<R['data']>;
}

/**
 * Fails unless the answer has this (error) status; the body is checked like every answer. For error probes
 * inside a call that also drives its operation to a 2xx.
 */
export async function expectAnswer<R extends { response?: Response; error?: unknown }>(expected: number, call: Promise<R>): Promise<void> {
  const got = await status(call);
  if (got !== expected) throw new Error(`expected ${expected}, got ${got}`);
}

/** The answer's status, whatever it is (for calls that expect an error). */
export async function status<R extends { response?: Response; error?: unknown }>(call: Promise<R>): Promise<number> {
  const result = await call;
  if (!result.response) throw new Error(`no answer: ${String(result.error)}`);
  return result.response.status;
}

// -------------------------------------------------------------------------------------------------------------
// Areas

export type Run<S> = (s: S) => Promise<unknown>;

export interface ExpectedError<S> {
  expectStatus: number;
  why: string;
  run: Run<S>;
}

export type Call<S> = Run<S> | ExpectedError<S>;

/** A call that is meant to end in an error status (the error body is still validated). */
export function expectStatus<S>(expected: number, why: string, run: Run<S>): ExpectedError<S> {
  return { expectStatus: expected, why, run };
}

export interface KnownMismatch {
  operationId: string;
  reason: string;
}

/**
 * A known disagreement between Vigil's answer and its spec, outside this test's remit and due to be fixed by
 * other work; the lead removes the entry once it is. The operation's call still runs and its problems are
 * printed, but they do not fail the run; when the call passes, the entry fails the run as stale.
 */
export function knownMismatch(operationId: string, reason: string): KnownMismatch {
  return { operationId, reason };
}

export interface Area<S> {
  name: string;
  /** Fixtures; server environment is given in `env`. Calls made here through the SDK are checked too. */
  setup(url: string, server: TestServer): Promise<S>;
  teardown?(s: S): Promise<void>;
  env?: () => Promise<Record<string, string>> | Record<string, string>;
  /** operationId → the call that drives it, run in this order. */
  calls: Record<string, Call<S>>;
  knownMismatches?: KnownMismatch[];
  /** System tools the fixtures run; the area is skipped (one line naming the package) without them. */
  tools?: Tool[];
}

export function defineArea<S>(area: Area<S>): Area<S> {
  return area;
}

const is2xx = (s: number) => s >= 200 && s < 300;

interface Outcome {
  operationId: string;
  expected: number | 'success';
  answers: Answer[];
}

/** Registers the tests of one area: a server and fixtures for the file, one test per operation, a summary. */
export function runArea<S>(area: Area<S>): void {
  let server: TestServer;
  let state: S;
  const outcomes = new Map<string, Outcome>();
  const known = new Map((area.knownMismatches ?? []).map((k) => [k.operationId, k.reason]));
  const knownSeen = new Map<string, string[]>();

  beforeAll(async () => {
    server = await startContractServer(area.env ? await area.env() : {});
    state = await area.setup(server.url, server);
  }, 180_000);
  afterAll(async () => {
    if (state !== undefined) await area.teardown?.(state);
    await server?.close();
  });

  describe.skipIf(missingTools(...(area.tools ?? [])))(`contract: ${area.name}`, () => {
    for (const [operationId, call] of Object.entries(area.calls)) {
      it(operationId, async () => {
        expect(specOperations.has(operationId), `${operationId} is not an operation of the spec`).toBe(true);
        const run = typeof call === 'function' ? call : call.run;
        const expected = typeof call === 'function' ? 'success' : call.expectStatus;
        const from = answers.length;
        const problemsSince = () => answers.slice(from).flatMap((a) => a.problems.map((p) => `${a.operationId} → ${a.status}: ${p}`));
        try {
          await run(state);
        } catch (err) {
          const problems = problemsSince();
          if (problems.length && err instanceof Error) err.message += `\nanswers that do not conform to the spec:\n${problems.join('\n')}`;
          throw err;
        }
        const mine = answers.slice(from);
        outcomes.set(operationId, { operationId, expected, answers: mine.filter((a) => a.operationId === operationId) });
        const problems = problemsSince();
        const ownProblems = mine.filter((a) => a.operationId === operationId && a.problems.length);
        if (known.has(operationId) && ownProblems.length) {
          knownSeen.set(operationId, problems);
          const others = mine.filter((a) => a.operationId !== operationId && a.problems.length);
          expect(others.flatMap((a) => a.problems), 'answers of other operations in this call').toEqual([]);
          return;
        }
        expect(problems, 'answers that do not conform to the spec').toEqual([]);
        const driven = outcomes.get(operationId)!.answers;
        expect(driven.length, `the call never reached ${operationId}`).toBeGreaterThan(0);
        if (expected === 'success') {
          expect(driven.map((a) => a.status).filter(is2xx), `${operationId} was not driven to a 2xx (got ${driven.map((a) => a.status).join(', ')})`).not.toEqual([]);
        } else {
          expect(driven.map((a) => a.status), `${operationId} was expected to answer ${expected}`).toContain(expected);
        }
        if (known.has(operationId)) throw new Error(`knownMismatch('${operationId}') no longer happens: remove it from the ${area.name} area`);
      });
    }

    it('drove every operation of the area, and every answer in this file conformed', () => {
      const misplaced = [...known.keys()].filter((op) => !(op in area.calls));
      expect(misplaced, 'known mismatches of operations this area does not call').toEqual([]);
      const missing = Object.keys(area.calls).filter((op) => !outcomes.has(op));
      expect(missing, 'operations whose call did not complete').toEqual([]);
      const stray = answers.filter((a) => a.problems.length && !known.has(a.operationId));
      expect(stray.map((a) => `${a.operationId} → ${a.status}: ${a.problems.join('; ')}`), 'non-conforming answers (fixtures included)').toEqual([]);
      const unchecked = answers.filter((a) => is2xx(a.status) && !a.problems.length && needsSchemaCheck(a) && !a.schemaChecked);
      expect(unchecked.map((a) => `${a.operationId} → ${a.status}`), '2xx JSON answers the generated schema never saw').toEqual([]);
      const toSuccess = [...outcomes.values()].filter((o) => o.expected === 'success').length;
      const lines = [
        `contract ${area.name}: ${outcomes.size} operations, ${toSuccess} driven to 2xx, ${outcomes.size - toSuccess} to an expected error; ` +
          `${answers.length} answers checked (${answers.filter((a) => !is2xx(a.status)).length} error answers)`,
        ...[...outcomes.values()].filter((o) => o.expected !== 'success').map((o) => `  expected error: ${o.operationId} → ${o.expected}`),
        ...[...known].map(([op, reason]) => `  KNOWN MISMATCH ${op}: ${reason}${knownSeen.has(op) ? `\n    ${knownSeen.get(op)!.join('\n    ')}` : ''}`),
      ];
      console.log(lines.join('\n'));
    });
  });
}

function needsSchemaCheck(a: Answer): boolean {
  const op = specOperations.get(a.operationId)!;
  const declared = resolveResponse(op.responses[String(a.status)]);
  return Boolean(declared?.schema) && op.produces.some((m) => isJson(m)) && declared.schema.type !== 'string';
}
