/** Turning every failure the API can answer into one typed error the interface shows as it is. */
import type { components } from '../../../generated/openapi-types';

export type ApiErrorBody = components['schemas']['ApiErrorResponse'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorType: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The request id the server logged the failure under, when it gave one. */
  get requestId(): string | undefined {
    const id = this.detail.request_id;
    return typeof id === 'string' ? id : undefined;
  }
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return typeof b.message === 'string' && typeof b.error_type === 'string';
}

/** An ApiError from a failed response's status and parsed body (the error shape, OAuth's, or anything else). */
export function apiErrorFrom(status: number, body: unknown, statusText = ''): ApiError {
  if (isErrorBody(body)) return new ApiError(status, body.message, body.error_type, body.detail ?? {});
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    // OAuth's own shape (RFC 6749 §5.2) when the usual fields are missing.
    if (typeof b.error === 'string') {
      const description = typeof b.error_description === 'string' ? b.error_description : b.error;
      return new ApiError(status, description, b.error);
    }
  }
  const text = typeof body === 'string' && body.trim() ? `: ${body.trim().slice(0, 200)}` : '';
  return new ApiError(status, `The server answered ${status}${statusText ? ` ${statusText}` : ''}${text}`, 'http_error');
}

/** A network failure (no response at all) in the same shape. */
export function networkError(cause: unknown): ApiError {
  const reason = cause instanceof Error ? ` (${cause.message})` : '';
  return new ApiError(0, `Could not reach the server; check the connection and try again${reason}.`, 'network_error');
}

/** A message for anything thrown while talking to the API. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.requestId ? `${error.message} (request ${error.requestId})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
