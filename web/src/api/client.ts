/**
 * The interface's one way to the API: a typed REST client (openapi-fetch over the types generated from
 * specs/openapi.yaml) and a typed GraphQL helper for /v2/reports/graphql. Both send the session's Authorization
 * and account headers, and both turn every failure into an ApiError (api/errors.ts) for the page to show.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../../generated/openapi-types';
import { type Session, sessionHeaders } from '../session';
import { ApiError, apiErrorFrom, networkError } from './errors';

export type RestClient = Client<paths>;

export interface Api {
  rest: RestClient;
  /** Runs a GraphQL operation; `TData` is built from generated/graphql-types.ts (Pick of Query and its types). */
  graphql<TData>(query: string, variables?: Record<string, unknown>): Promise<TData>;
}

export const API_BASE = '/v2';

export interface ApiOptions {
  /** The current session (read per request, so an account switch applies at once). */
  session(): Session | null;
  /** Called when the server no longer accepts the session's credentials. */
  onUnauthorized(error: ApiError): void;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** fetch with the session's headers; a 401 ends the session, any failure to connect becomes an ApiError. */
function sessionFetch(options: ApiOptions) {
  return async (input: Request): Promise<Response> => {
    const session = options.session();
    const request = new Request(input, { credentials: 'omit' });
    // A header the caller set wins (e.g. x-anchore-account naming the user's own account).
    if (session) for (const [name, value] of Object.entries(sessionHeaders(session))) if (!request.headers.has(name)) request.headers.set(name, value);
    let response: Response;
    try {
      response = await fetch(request);
    } catch (cause) {
      throw networkError(cause);
    }
    if (response.status === 401 && session) {
      const body = await readBody(response.clone());
      options.onUnauthorized(apiErrorFrom(401, body, response.statusText));
    }
    return response;
  };
}

export function createApi(options: ApiOptions): Api {
  const fetchWithSession = sessionFetch(options);
  const rest = createClient<paths>({ baseUrl: API_BASE, fetch: fetchWithSession });
  rest.use({
    // openapi-fetch hands back {error} for a failed response; the interface wants one exception type instead.
    async onResponse({ response }) {
      if (response.ok) return undefined;
      throw apiErrorFrom(response.status, await readBody(response.clone()), response.statusText);
    },
  });

  async function graphql<TData>(query: string, variables?: Record<string, unknown>): Promise<TData> {
    const response = await fetchWithSession(
      new Request(`${API_BASE}/reports/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json, application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    );
    const body = (await readBody(response)) as { data?: TData | null; errors?: { message: string }[] } | undefined;
    if (body && typeof body === 'object' && Array.isArray(body.errors) && body.errors.length > 0) {
      throw new ApiError(response.status, body.errors.map((e) => e.message).join('; '), 'graphql_error', { errors: body.errors });
    }
    if (!response.ok) throw apiErrorFrom(response.status, body, response.statusText);
    if (!body || typeof body !== 'object' || body.data == null) throw new ApiError(response.status, 'The GraphQL answer had no data.', 'graphql_error');
    return body.data;
  }

  return { rest, graphql };
}

/** The data of an openapi-fetch call (failures were already thrown as ApiError by the middleware). */
export async function data<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data: body, response } = await call;
  if (body === undefined && response.status !== 204) throw new ApiError(response.status, `The server answered ${response.status} with no body.`, 'empty_response');
  return body as T;
}

/** The GraphQL schema's types (generated from specs/reports.graphql), to build `graphql<TData>` answers from. */
export type * as Gql from '../../../generated/graphql-schema-types';
