/**
 * The CLI's exit codes. They are part of its interface (CI pipelines branch on them), documented in docs/cli.md,
 * and never renumbered.
 */
export const EXIT = {
  ok: 0,
  /** A policy evaluation failed (with --fail-based-on-results) or a --fail-on threshold was met. */
  failed: 1,
  /** Bad usage, or the API refused the request or could not be reached. */
  error: 2,
  /** A --wait ran past its --timeout. */
  timeout: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Thrown by commands to end with a message and an exit code; `run()` prints the message to stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
  ) {
    super(message);
  }
}

/** The API's error body (ApiErrorResponse), as far as the CLI reads it. */
interface ApiErrorBody {
  code?: number;
  error_type?: string;
  message?: string;
  detail?: { request_id?: string; errors?: unknown[]; problems?: unknown[] } & Record<string, unknown>;
}

function listed(items: unknown[] | undefined): string[] {
  return (items ?? []).map((e) => `  - ${typeof e === 'string' ? e : JSON.stringify(e)}`);
}

/**
 * An API error as a person reads it: the API's own message, its status and kind, each listed violation or
 * policy problem, and the request id (from the x-request-id header, else the body) to find it in the server log.
 */
export function apiError(response: Response, body: unknown): CliError {
  const b = (body && typeof body === 'object' ? body : {}) as ApiErrorBody;
  const requestId = response.headers.get('x-request-id') ?? b.detail?.request_id;
  const kind = b.error_type ? ` ${b.error_type}` : '';
  const lines = [
    `error: ${b.message ?? (response.statusText || 'request failed')} (HTTP ${response.status}${kind}${requestId ? `, request id ${requestId}` : ''})`,
    ...listed(b.detail?.errors),
    ...listed(b.detail?.problems),
  ];
  return new CliError(lines.join('\n'), EXIT.error);
}
