/**
 * The one way the CLI talks to Vigil: the generated typed client (generated/client.ts), with the connection's
 * headers, and `ok()` to turn an error answer or an unreachable server into a CliError (exit code 2). The one
 * exception is the reports GraphQL endpoint, which is not REST: `graphql()` posts to it with the same headers.
 */
import { createVigilClient, type VigilClient } from '../../generated/client.js';
import { connectionHeaders, type Connection } from './connection.js';
import { apiError, CliError } from './exit-codes.js';

export type Fetch = (input: Request) => Promise<Response>;

export function apiClient(connection: Connection, fetch: Fetch | undefined, userAgent: string): VigilClient {
  return createVigilClient(connection.url, {
    headers: { ...connectionHeaders(connection), 'user-agent': userAgent },
    ...(fetch ? { fetch } : {}),
  });
}

type Answer = { data?: unknown; error?: unknown; response: Response };

/** The request's answer, or a CliError naming why the server could not be reached. */
async function reach<R>(call: Promise<R>, url: string): Promise<R> {
  try {
    return await call;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`error: cannot reach Vigil at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
}

/** The answer's body when the API said yes; a CliError with the API's message and request id otherwise. */
export async function ok<R extends Answer>(call: Promise<R>, url: string): Promise<NonNullable<R['data']>> {
  const answer = await reach(call, url);
  if (!answer.response.ok) throw apiError(answer.response, answer.error);
  return answer.data as NonNullable<R['data']>;
}

/** The reports GraphQL endpoint (docs: /v2/reports/graphql; its schema is specs/reports.graphql). */
export const REPORTS_GRAPHQL_PATH = '/v2/reports/graphql';

export interface GraphqlAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[] }[];
}

/**
 * Runs a GraphQL document against the reports endpoint; the answer when it holds no errors. GraphQL errors (bad
 * query, bad argument) and refusals before GraphQL (authentication, authorization: the REST error shape) end
 * with exit code 2, naming each error and the request id.
 */
export async function graphql(connection: Connection, fetch: Fetch | undefined, userAgent: string, query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer> {
  const request = new Request(connection.url.replace(/\/+$/, '') + REPORTS_GRAPHQL_PATH, {
    method: 'POST',
    headers: { ...connectionHeaders(connection), 'user-agent': userAgent, 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
  const response = await reach((fetch ?? globalThis.fetch)(request), connection.url);
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    throw new CliError(`error: the reports endpoint answered HTTP ${response.status} with a body that is not JSON`);
  }
  const answer = (body && typeof body === 'object' ? body : {}) as GraphqlAnswer;
  if (Array.isArray(answer.errors) && answer.errors.length > 0) {
    const requestId = response.headers.get('x-request-id');
    const lines = answer.errors.map((e) => `  - ${e.message}${e.path ? ` (at ${e.path.join('.')})` : ''}`);
    throw new CliError([`error: the report query failed (HTTP ${response.status}${requestId ? `, request id ${requestId}` : ''})`, ...lines].join('\n'));
  }
  if (!response.ok) throw apiError(response, body);
  return answer;
}
