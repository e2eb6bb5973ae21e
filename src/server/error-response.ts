/** One mapping from any thrown value to the documented error body; stack traces stay in the log. */
import type { Response } from 'express';
import { AppError } from '../errors.js';

export interface ApiErrorBody {
  code: number;
  error_type: string;
  message: string;
  detail: Record<string, unknown>;
}

/** The error codes of RFC 6749 §5.2 (and RFC 7009 §2.2.1) that Vigil's OAuth endpoints answer. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type';

/**
 * The OAuth error code of an error answered by an OAuth endpoint, or undefined where OAuth defines none (throttling,
 * server errors). A missing, malformed or unreadable request is invalid_request; a grant_type the server does not
 * support is unsupported_grant_type; credentials or a refresh token that are not accepted are invalid_grant.
 */
export function oauthErrorCode(err: AppError): OAuthErrorCode | undefined {
  if (err.status === 401) return 'invalid_grant';
  if (err.status !== 400 && err.status !== 413 && err.status !== 415) return undefined;
  const errors = err.detail.errors;
  const aboutGrantType = Array.isArray(errors) && errors.some((e) => (e as { location?: unknown })?.location === 'body.grant_type');
  return aboutGrantType ? 'unsupported_grant_type' : 'invalid_request';
}

export interface ErrorShape {
  /** The operation is an OAuth endpoint: 4xx bodies also carry RFC 6749's `error` and `error_description`. */
  oauth?: boolean;
}

export function errorBody(err: AppError, requestId: string, shape: ErrorShape = {}): ApiErrorBody & { error?: OAuthErrorCode; error_description?: string } {
  const body = { code: err.status, error_type: err.errorType, message: err.message, detail: { ...err.detail, request_id: requestId } };
  const oauth = shape.oauth ? oauthErrorCode(err) : undefined;
  return oauth ? { ...body, error: oauth, error_description: err.message } : body;
}

export function sendError(res: Response, err: unknown, requestId: string, shape: ErrorShape = {}): void {
  const appError =
    err instanceof AppError
      ? err
      : new AppError(500, 'internal_error', 'an unexpected error occurred; the request id identifies it in the service log');
  if (!(err instanceof AppError)) res.log?.error({ err }, 'unhandled error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(appError.status);
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  res.json(errorBody(appError, requestId, shape));
}
