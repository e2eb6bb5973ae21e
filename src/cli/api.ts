/**
 * The one way the CLI talks to Vigil: the generated typed client (generated/client.ts), with the connection's
 * headers, and `ok()` to turn an error answer or an unreachable server into a CliError (exit code 2).
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

/** The answer's body when the API said yes; a CliError with the API's message and request id otherwise. */
export async function ok<R extends Answer>(call: Promise<R>, url: string): Promise<NonNullable<R['data']>> {
  let answer: R;
  try {
    answer = await call;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`error: cannot reach Vigil at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  if (!answer.response.ok) throw apiError(answer.response, answer.error);
  return answer.data as NonNullable<R['data']>;
}
