/**
 * Typed errors of the image sources (registries and uploaded archives). Each extends AppError so the request
 * pipeline and job runner can report them uniformly; `errorType` is the stable kind, the message says what the
 * user can do about it. Registry failures are reported as 502/422 rather than 401/403: those statuses on our
 * API mean "your Vigil credentials", not "the registry's".
 */
import { AppError, type ErrorCode } from '../../errors.js';

/** The image reference string could not be parsed (syntax, case, length). */
export class ImageReferenceError extends AppError {
  constructor(message: string, readonly reference: string) {
    super(400, 'invalid_image_reference', message, { reference });
  }
}

/** The manifest, index or config is not what the format requires (bad JSON, missing fields, layer count). */
export class MalformedImageError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}) {
    super(422, 'malformed_image', message, detail);
  }
}

/** A manifest or config of a kind we do not analyse (Docker schema 1, artifacts, unknown types). */
export class UnsupportedMediaTypeError extends AppError {
  constructor(readonly mediaType: string, hint = '') {
    super(422, 'unsupported_media_type', `unsupported media type ${JSON.stringify(mediaType)}${hint ? `: ${hint}` : ''}`, {
      media_type: mediaType,
    });
  }
}

/** An index / manifest list has no image for the requested platform. */
export class PlatformNotFoundError extends AppError {
  constructor(readonly requested: string, readonly available: string[]) {
    super(
      422,
      'platform_not_found',
      `the image has no variant for platform ${requested}; available: ${available.length ? available.join(', ') : 'none'}`,
      { requested, available },
    );
  }
}

/** Content did not hash (or size) to what its descriptor promised: corruption, tampering or a broken source. */
export class DigestMismatchError extends AppError {
  constructor(readonly what: string, readonly expected: string, readonly actual: string) {
    super(422, 'digest_mismatch', `${what}: content does not match its digest (expected ${expected}, got ${actual})`, {
      expected,
      actual,
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Registry errors

export interface RegistryErrorContext {
  registry: string;
  repository?: string;
  /** HTTP status the registry answered with, when it answered. */
  registryStatus?: number;
  /** Distribution API error code (MANIFEST_UNKNOWN, DENIED, ...), when the body had one. */
  registryCode?: string;
}

/** Base of everything a registry conversation can fail with; used as is for unexpected answers. */
export class RegistryError extends AppError {
  readonly registry: string;
  readonly repository?: string;
  readonly registryStatus?: number;
  readonly registryCode?: string;

  constructor(message: string, ctx: RegistryErrorContext, status = 502, errorType: ErrorCode = 'registry_error') {
    super(status, errorType, message, {
      registry: ctx.registry,
      ...(ctx.repository ? { repository: ctx.repository } : {}),
      ...(ctx.registryStatus ? { registry_status: ctx.registryStatus } : {}),
      ...(ctx.registryCode ? { registry_code: ctx.registryCode } : {}),
    });
    this.registry = ctx.registry;
    this.repository = ctx.repository;
    this.registryStatus = ctx.registryStatus;
    this.registryCode = ctx.registryCode;
  }
}

export class ManifestUnknownError extends RegistryError {
  constructor(readonly reference: string, ctx: RegistryErrorContext) {
    super(`manifest ${reference} not found in ${ctx.registry}/${ctx.repository ?? ''}: check the tag or digest`, ctx, 404, 'manifest_unknown');
  }
}

export class RepositoryUnknownError extends RegistryError {
  constructor(ctx: RegistryErrorContext) {
    super(`repository ${ctx.repository ?? ''} not found on ${ctx.registry}: check the image name`, ctx, 404, 'repository_unknown');
  }
}

export class BlobUnknownError extends RegistryError {
  constructor(readonly digest: string, ctx: RegistryErrorContext) {
    super(`blob ${digest} not found in ${ctx.registry}/${ctx.repository ?? ''}: the image is incomplete on the registry`, ctx, 404, 'blob_unknown');
  }
}

/** The registry wants credentials we do not have, or rejected the ones we sent. */
export class RegistryUnauthorizedError extends RegistryError {
  constructor(message: string, ctx: RegistryErrorContext) {
    super(message, ctx, 422, 'registry_unauthorized');
  }
}

/** Authenticated, but not allowed to pull this repository. */
export class RegistryDeniedError extends RegistryError {
  constructor(ctx: RegistryErrorContext, registryMessage?: string) {
    super(
      `access to ${ctx.registry}/${ctx.repository ?? ''} denied${registryMessage ? ` (${registryMessage})` : ''}: the credentials lack pull permission`,
      ctx,
      422,
      'registry_denied',
    );
  }
}

export class RegistryRateLimitedError extends RegistryError {
  constructor(ctx: RegistryErrorContext, readonly retryAfterSeconds?: number) {
    super(
      `${ctx.registry} is rate limiting requests${retryAfterSeconds ? `; retry after ${retryAfterSeconds}s` : '; retry later or authenticate for a higher limit'}`,
      ctx,
      503,
      'registry_rate_limited',
    );
  }
}

/** No HTTP answer at all: refused, DNS failure, reset, timeout. */
export class RegistryUnreachableError extends RegistryError {
  constructor(message: string, ctx: RegistryErrorContext, readonly causeCode?: string) {
    super(message, ctx, 502, 'registry_unreachable');
  }
}

/** The TLS handshake failed: untrusted or mismatched certificate, or the port does not speak TLS. */
export class RegistryTlsError extends RegistryError {
  constructor(message: string, ctx: RegistryErrorContext, readonly causeCode?: string) {
    super(message, ctx, 502, 'registry_tls_error');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Archive errors (docker save / OCI layout uploads)

/** The upload is not a readable image archive (not a tar, ambiguous content, unknown layout). */
export class ImageArchiveError extends AppError {
  constructor(message: string, detail: Record<string, unknown> = {}, errorType: ErrorCode = 'invalid_image_archive') {
    super(422, errorType, message, detail);
  }
}

/** A file the format requires (manifest.json, index.json, a blob) is not in the archive. */
export class ArchiveEntryMissingError extends ImageArchiveError {
  constructor(readonly entry: string, why: string) {
    super(`the archive has no ${entry}: ${why}`, { entry }, 'archive_entry_missing');
  }
}

/** An entry name or reference escapes the archive root (absolute path or `..`): never legitimate, so refused. */
export class ArchivePathError extends ImageArchiveError {
  constructor(readonly entry: string) {
    super(`the archive contains an unsafe path ${JSON.stringify(entry)} (absolute or with ..); refusing to read it`, { entry }, 'archive_unsafe_path');
  }
}
