/**
 * Domain errors. Domain modules throw these; the request pipeline maps them to ApiErrorResponse
 * ({code, error_type, message, detail}) in one place.
 */

/**
 * Every `error_type` an error answer can carry, with what it means. An AppError only takes a name from this
 * catalog (the type checker refuses any other), so the catalog is complete by construction; `GET
 * /v2/system/error-codes` lists it.
 */
export const ERROR_CODES = {
  validation_error: 'The request, or a document it carries, is malformed or violates the schema; detail.errors lists each violation.',
  unauthorized: 'No valid credentials were presented, or they are not accepted (wrong, expired, revoked, or the user or account is disabled).',
  forbidden: 'The caller may not perform this action on the target account.',
  not_found: 'The named resource does not exist, or the caller may not see it.',
  conflict: 'The resource already exists, or its current state does not allow the change.',
  method_not_allowed: 'The path exists but not with this HTTP method; the Allow header lists the methods it takes.',
  payload_too_large: 'The request body or upload is larger than the configured limit.',
  unsupported_media_type: 'The content type or encoding of the body is not accepted by the operation, or a media type inside an image is not supported.',
  too_many_requests: 'Too many failed authentication attempts from this client for this user; retry after Retry-After seconds.',
  internal_error: 'An unexpected error; the request id in the detail ties it to the service log.',
  service_unavailable: 'The service cannot serve requests right now (for example, the database does not answer).',
  invalid_image_reference: 'An image reference (tag or digest pull string) cannot be parsed.',
  malformed_image: 'The image manifest, index or configuration is malformed.',
  platform_not_found: 'The image has no variant for the requested platform.',
  digest_mismatch: 'Content fetched for an image does not match its digest.',
  digest_changed: 'The source now serves another digest than the image being analyzed.',
  invalid_image_archive: 'An uploaded image archive (docker save or OCI layout) cannot be read.',
  archive_entry_missing: 'An uploaded image archive lacks an entry it needs.',
  archive_unsafe_path: 'An uploaded image archive holds an absolute path or one with .. in it.',
  registry_error: 'The registry answered unexpectedly.',
  registry_unreachable: 'The registry could not be reached or did not answer in time (an address the outbound policy refuses looks the same).',
  registry_tls_error: 'The TLS connection to the registry failed (certificate or handshake).',
  registry_unauthorized: 'The registry did not accept the credentials, or needs some and none are configured.',
  registry_denied: 'The registry accepted the credentials but they lack pull permission on the repository.',
  registry_rate_limited: 'The registry refused the request because of its rate limit.',
  manifest_unknown: 'The registry has no manifest for the tag or digest.',
  repository_unknown: 'The registry has no such repository.',
  blob_unknown: 'The registry is missing a blob the image refers to.',
  invalid_feed: 'A vulnerability feed file is not in the format its source declares.',
  feed_fetch_failed: 'A vulnerability feed could not be downloaded.',
  authorization_pending: 'A device sign-in is waiting for the user to approve it at the identity provider; poll again after the interval.',
  slow_down: 'A device sign-in was polled faster than its interval; wait Retry-After seconds.',
  expired_token: 'A device sign-in expired before the user approved it; start it again.',
  notification_delivery_failed: 'A test notification was sent but the receiver did not accept it; the detail has what it answered.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: ErrorCode,
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

/** The catalog as the error-codes listing shows it, in catalog order. */
export function errorCodeList(): { name: ErrorCode; description: string }[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).map((name) => ({ name, description: ERROR_CODES[name] }));
}
