/** One mapping from any thrown value to the documented error body; stack traces stay in the log. */
import type { Response } from 'express';
import { AppError } from '../errors.js';

export interface ApiErrorBody {
  code: number;
  error_type: string;
  message: string;
  detail: Record<string, unknown>;
}

export function errorBody(err: AppError, requestId: string): ApiErrorBody {
  return { code: err.status, error_type: err.errorType, message: err.message, detail: { ...err.detail, request_id: requestId } };
}

export function sendError(res: Response, err: unknown, requestId: string): void {
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
  res.json(errorBody(appError, requestId));
}
