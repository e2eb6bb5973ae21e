/**
 * Domain errors. Domain modules throw these; the request pipeline maps them to ApiErrorResponse
 * ({code, error_type, message, detail}) in one place.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
    readonly detail: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(400, 'validation_error', message, detail);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(401, 'unauthorized', message, detail, { 'WWW-Authenticate': 'Basic realm="vigil", Bearer realm="vigil"' });
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(403, 'forbidden', message, detail);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(404, 'not_found', message, detail);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(409, 'conflict', message, detail);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'too_many_requests', message, { retry_after_seconds: retryAfterSeconds }, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

export class UnavailableError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(503, 'service_unavailable', message, detail);
  }
}
