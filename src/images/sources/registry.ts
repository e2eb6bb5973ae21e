/**
 * Client of the OCI Distribution API for pulling what analysis needs: resolve a tag or digest to one image
 * manifest (choosing a platform from an index), fetch and verify its config, and stream layer blobs with their
 * digests checked. Every failure is a typed error from ./errors.ts with a message the user can act on.
 */
import { pipeline, type Readable } from 'node:stream';
import { digestLike, sha256Digest, verifyBuffer, verifyingStream } from './digests.js';
import {
  BlobUnknownError,
  DigestMismatchError,
  ImageReferenceError,
  ManifestUnknownError,
  MalformedImageError,
  RegistryDeniedError,
  RegistryError,
  RegistryRateLimitedError,
  RepositoryUnknownError,
  RegistryTlsError,
  type RegistryErrorContext,
} from './errors.js';
import type { OutboundPolicy } from '../../outbound/policy.js';
import { bodyStream, discardBody, isLoopbackHost, NOT_TLS_CODE, readBody, registryGet, type HttpResponse } from './registry-http.js';
import { checkConfigMediaType, diffIdsForLayers, parseImageConfig } from './image-config.js';
import { parseManifestDocument, type ManifestDocument } from './manifests.js';
import { MANIFEST_ACCEPT } from './media-types.js';
import { checkRequestedPlatform, selectPlatformManifest, type Platform } from './platforms.js';
import {
  fullTag,
  isDigestReference,
  registryApiHost,
  validateDigest,
  validateRepository,
  validateTag,
  type ImageReference,
} from './references.js';
import { pullScope, RegistryAuthenticator, type Credentials } from './registry-auth.js';
import { platformOfConfig, type ImageLayer, type ResolvedImage } from './resolved-image.js';
import { appendAll } from '../../util/arrays.js';

export type { Credentials } from './registry-auth.js';

export interface RegistryClientOptions {
  /** Which addresses the registry (and its token service and storage) may resolve to: services.outbound.registry. */
  policy: OutboundPolicy;
  credentials?: Credentials;
  /** Allows plain HTTP to this registry (it is tried when HTTPS is not spoken). Loopback hosts always allow it. */
  insecure?: boolean;
  /** Verify the registry's TLS certificate (default true). */
  verifyTls?: boolean;
  /** Bound on connecting and on each silence of the registry, in ms (default 30 s). */
  timeoutMs?: number;
  userAgent?: string;
}

export interface ResolveOptions {
  /** Platform to pick from an index (default linux/amd64, or the only image the index has). */
  platform?: Platform;
  signal?: AbortSignal;
}

export interface FetchedManifest {
  /** sha256 of the bytes, checked against Docker-Content-Digest and against the reference when it is a digest. */
  digest: string;
  mediaType: string;
  bytes: Buffer;
  document: ManifestDocument;
}

export interface RegistryImage extends ResolvedImage {
  source: 'registry';
  registry: string;
  repository: string;
  /** The tag or digest that was resolved. */
  reference: string;
  manifestMediaType: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_USER_AGENT = 'vigil-image-analysis/0.1';
/** OCI recommends registries accept manifests of at least 4 MiB; nothing legitimate is larger. */
const MAX_MANIFEST_BYTES = 4 << 20;
const MAX_CONFIG_BYTES = 16 << 20;
const MAX_ERROR_BODY_BYTES = 64 << 10;
const MAX_INDEX_DEPTH = 3;

type RequestKind = { kind: 'manifest'; reference: string } | { kind: 'blob'; digest: string } | { kind: 'ping' };

interface RegistryErrorBody {
  code?: string;
  message?: string;
}

function firstRegistryError(body: Buffer): RegistryErrorBody {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: RegistryErrorBody[] };
    return parsed.errors?.[0] ?? {};
  } catch {
    return {};
  }
}

function validateManifestReference(reference: string): void {
  if (isDigestReference(reference)) validateDigest(reference);
  else validateTag(reference);
}

export class RegistryClient {
  /** Registry name as users write it (docker.io for Docker Hub). */
  readonly registry: string;
  private readonly host: string;
  private readonly auth: RegistryAuthenticator;
  private readonly timeoutMs: number;
  private readonly verifyTls: boolean;
  private readonly plainHttpAllowed: boolean;
  private readonly userAgent: string;
  private readonly policy: OutboundPolicy;
  /** Decided on the first request when plain HTTP is allowed: HTTPS is tried first, as docker does. */
  private scheme?: 'https:' | 'http:';

  constructor(registry: string, options: RegistryClientOptions) {
    this.registry = registry;
    this.policy = options.policy;
    this.host = registryApiHost(registry);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.verifyTls = options.verifyTls ?? true;
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    let hostname: string;
    try {
      hostname = new URL(`http://${this.host}`).hostname;
    } catch {
      throw new ImageReferenceError(`invalid registry host ${JSON.stringify(registry)}`, registry);
    }
    this.plainHttpAllowed = options.insecure === true || isLoopbackHost(hostname);
    if (!this.plainHttpAllowed) this.scheme = 'https:';
    this.auth = new RegistryAuthenticator(registry, {
      policy: options.policy,
      credentials: options.credentials,
      timeoutMs: this.timeoutMs,
      verifyTls: this.verifyTls,
      insecure: options.insecure === true,
    });
  }

  /** Resolves a tag or digest to one image: manifest, verified config, and layers ready to be opened. */
  async resolve(repository: string, reference: string, options: ResolveOptions = {}): Promise<RegistryImage> {
    validateRepository(repository);
    validateManifestReference(reference);
    const { signal } = options;

    let fetched = await this.fetchManifest(repository, reference, signal);
    let indexDigest: string | undefined;
    for (let depth = 0; fetched.document.kind === 'index'; depth++) {
      if (depth >= MAX_INDEX_DEPTH) throw new MalformedImageError(`indexes of ${repository}@${reference} nest deeper than ${MAX_INDEX_DEPTH} levels`);
      indexDigest ??= fetched.digest;
      const chosen = selectPlatformManifest(fetched.document.index.manifests, options.platform);
      const child = await this.fetchManifest(repository, chosen.digest, signal);
      if (child.bytes.length !== chosen.size) {
        throw new DigestMismatchError(`manifest ${chosen.digest}`, `${chosen.size} bytes`, `${child.bytes.length} bytes`);
      }
      fetched = child;
    }
    const manifest = fetched.document.manifest;

    checkConfigMediaType(manifest.config.mediaType);
    const configBytes = await this.fetchBlob(repository, manifest.config.digest, manifest.config.size, MAX_CONFIG_BYTES, 'image config', signal);
    const config = parseImageConfig(configBytes, `config ${manifest.config.digest}`);
    const platform = platformOfConfig(config);
    if (!indexDigest) checkRequestedPlatform(options.platform, platform);
    const diffIds = diffIdsForLayers(config, manifest.layers.length, `${repository}@${fetched.digest}`);
    const layers: ImageLayer[] = manifest.layers.map((l, i) => ({
      digest: l.digest,
      size: l.size,
      mediaType: l.mediaType,
      diffId: diffIds[i]!,
      open: () => this.openBlob(repository, l.digest, { expectedSize: l.size, signal }),
    }));

    return {
      source: 'registry',
      registry: this.registry,
      repository,
      reference,
      manifestDigest: fetched.digest,
      ...(indexDigest ? { indexDigest } : {}),
      manifest,
      manifestBytes: fetched.bytes,
      manifestMediaType: fetched.mediaType,
      configDigest: manifest.config.digest,
      config,
      layers,
      repoTags: isDigestReference(reference) ? [] : [fullTag({ registry: this.registry, repository, tag: reference })],
      platform,
    };
  }

  /** GET one manifest or index by tag or digest, digest-verified and classified. */
  async fetchManifest(repository: string, reference: string, signal?: AbortSignal): Promise<FetchedManifest> {
    validateManifestReference(reference);
    const ctx = { registry: this.registry, repository };
    const res = await this.get(`/v2/${repository}/manifests/${reference}`, { scope: pullScope(repository), accept: MANIFEST_ACCEPT, signal, ctx });
    if (res.status !== 200) throw await this.failure(res, { kind: 'manifest', reference }, ctx);
    const bytes = await readBody(res, MAX_MANIFEST_BYTES, `manifest ${reference}`, ctx);
    const what = `manifest ${repository}@${reference}`;

    const computed = sha256Digest(bytes);
    if (isDigestReference(reference)) {
      const actual = digestLike(reference, bytes);
      if (actual !== reference) throw new DigestMismatchError(what, reference, actual);
    }
    const header = res.headers['docker-content-digest'];
    if (typeof header === 'string' && header.startsWith('sha256:') && header !== computed) {
      throw new DigestMismatchError(`${what} (Docker-Content-Digest header)`, header, computed);
    }
    const document = parseManifestDocument(bytes, res.headers['content-type'], what);
    return { digest: isDigestReference(reference) ? reference : computed, mediaType: document.mediaType, bytes, document };
  }

  /** A small blob (config) read whole and verified. */
  async fetchBlob(repository: string, digest: string, expectedSize: number | undefined, maxBytes: number, what: string, signal?: AbortSignal): Promise<Buffer> {
    validateDigest(digest);
    const ctx = { registry: this.registry, repository };
    const res = await this.get(`/v2/${repository}/blobs/${digest}`, { scope: pullScope(repository), signal, ctx });
    if (res.status !== 200) throw await this.failure(res, { kind: 'blob', digest }, ctx);
    const bytes = await readBody(res, maxBytes, `${what} ${digest}`, ctx);
    verifyBuffer(bytes, digest, `${what} ${digest} of ${this.registry}/${repository}`, expectedSize);
    return bytes;
  }

  /**
   * Streams a blob (following the registry's redirect to storage). The stream verifies the digest (and size,
   * when given) and errors at its end with DigestMismatchError if the content does not match.
   */
  async openBlob(repository: string, digest: string, options: { expectedSize?: number; signal?: AbortSignal } = {}): Promise<Readable> {
    validateDigest(digest);
    const ctx = { registry: this.registry, repository };
    const res = await this.get(`/v2/${repository}/blobs/${digest}`, { scope: pullScope(repository), signal: options.signal, ctx });
    if (res.status !== 200) throw await this.failure(res, { kind: 'blob', digest }, ctx);
    const verifier = verifyingStream(digest, { what: `blob ${digest} of ${this.registry}/${repository}`, expectedSize: options.expectedSize });
    // pipeline destroys the verifier with the socket's error, so a broken download surfaces to the reader.
    return pipeline(bodyStream(res, ctx), verifier, () => {});
  }

  /** Every tag of a repository, following the registry's `Link: <...>; rel="next"` pagination (bounded). */
  async listTags(repository: string, signal?: AbortSignal): Promise<string[]> {
    const ctx = { registry: this.registry, repository };
    const tags: string[] = [];
    let path: string | null = `/v2/${repository}/tags/list?n=1000`;
    for (let page = 0; path && page < 100; page++) {
      const res: HttpResponse = await this.get(path, { scope: pullScope(repository), signal, ctx });
      if (res.status !== 200) throw await this.failure(res, { kind: 'manifest', reference: 'tags/list' }, ctx);
      const body = JSON.parse((await readBody(res, MAX_MANIFEST_BYTES, 'tag list', ctx)).toString('utf8')) as { tags?: unknown };
      if (Array.isArray(body.tags)) appendAll(tags, body.tags.filter((t): t is string => typeof t === 'string'));
      const link = res.headers['link'];
      const next = typeof link === 'string' ? /<([^>]+)>;\s*rel="?next"?/.exec(link)?.[1] : undefined;
      path = next ? (next.startsWith('/') ? next : `${new URL(next).pathname}${new URL(next).search}`) : null;
    }
    return tags;
  }

  /**
   * GET /v2/ with the auth flow: proves the registry speaks the API and, when it asks for authentication, that
   * our credentials are accepted. `authenticated` is false when the registry let us in without asking.
   */
  async ping(signal?: AbortSignal): Promise<{ authenticated: boolean }> {
    const ctx = { registry: this.registry };
    let challenged = false;
    const res = await this.get('/v2/', { signal, ctx, onChallenge: () => (challenged = true) });
    if (res.status === 200) {
      discardBody(res);
      return { authenticated: challenged };
    }
    throw await this.failure(res, { kind: 'ping' }, ctx);
  }

  /** GET with authentication: preemptive when a scheme is known, otherwise answering one 401 challenge. */
  private async get(
    path: string,
    o: { scope?: string; accept?: string; signal?: AbortSignal; ctx: RegistryErrorContext; onChallenge?: () => void },
  ): Promise<HttpResponse> {
    let authorization = this.auth.headerFor(o.scope);
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { 'User-Agent': this.userAgent };
      if (o.accept) headers.Accept = o.accept;
      if (authorization) headers.Authorization = authorization;
      const res = await this.send(path, headers, o.ctx, o.signal);
      if (res.status !== 401) return res;
      discardBody(res);
      if (attempt >= 1) throw this.auth.unauthorized(o.ctx);
      o.onChallenge?.();
      authorization = await this.auth.answerChallenge(res.headers['www-authenticate'], o.scope, res.url, o.ctx, o.signal);
    }
  }

  /** One request to the registry host, settling the scheme on first use where plain HTTP is allowed. */
  private async send(path: string, headers: Record<string, string>, ctx: RegistryErrorContext, signal?: AbortSignal): Promise<HttpResponse> {
    const request = (scheme: string) =>
      registryGet(new URL(`${scheme}//${this.host}${path}`), { headers, policy: this.policy, timeoutMs: this.timeoutMs, verifyTls: this.verifyTls, signal, context: ctx });
    if (this.scheme) return request(this.scheme);
    try {
      const res = await request('https:');
      this.scheme = 'https:';
      return res;
    } catch (err) {
      // Only "this port speaks plain HTTP" justifies the fallback; certificate problems are reported as such.
      if (!(err instanceof RegistryTlsError && err.causeCode === NOT_TLS_CODE)) throw err;
      this.scheme = 'http:';
      return request('http:');
    }
  }

  /** Maps a non-success answer to the typed error that says what the user can do. */
  private async failure(res: HttpResponse, request: RequestKind, ctx: RegistryErrorContext): Promise<Error> {
    let body: Buffer = Buffer.alloc(0);
    try {
      body = await readBody(res, MAX_ERROR_BODY_BYTES, 'error response', ctx);
    } catch {
      // The status alone still says enough.
    }
    const { code, message } = firstRegistryError(body);
    const c: RegistryErrorContext = { ...ctx, registryStatus: res.status, ...(code ? { registryCode: code } : {}) };
    if (code === 'DENIED' || res.status === 403) return new RegistryDeniedError(c, message);
    if (code === 'TOOMANYREQUESTS' || res.status === 429) {
      const retryAfter = Number(res.headers['retry-after']);
      return new RegistryRateLimitedError(c, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
    }
    if (code === 'NAME_UNKNOWN') return new RepositoryUnknownError(c);
    if (code === 'MANIFEST_UNKNOWN' || (res.status === 404 && request.kind === 'manifest')) {
      return new ManifestUnknownError(request.kind === 'manifest' ? request.reference : '(unknown)', c);
    }
    if (code === 'BLOB_UNKNOWN' || (res.status === 404 && request.kind === 'blob')) {
      return new BlobUnknownError(request.kind === 'blob' ? request.digest : '(unknown)', c);
    }
    if (request.kind === 'ping' && res.status === 404) {
      return new RegistryError(`${this.registry} does not serve the registry API (GET /v2/ answered 404): check the registry address`, c);
    }
    const target = request.kind === 'manifest' ? `manifest ${request.reference}` : request.kind === 'blob' ? `blob ${request.digest}` : 'API check';
    return new RegistryError(
      `registry ${this.registry} answered ${res.status} for ${target}${message ? `: ${message}` : ''}${code ? ` (${code})` : ''}`,
      c,
    );
  }
}

/** Resolves a parsed reference with a client made for its registry (the digest wins over the tag). */
export async function resolveImageReference(
  ref: ImageReference,
  options: RegistryClientOptions & ResolveOptions,
): Promise<RegistryImage> {
  const client = new RegistryClient(ref.registry, options);
  const image = await client.resolve(ref.repository, ref.digest ?? ref.tag ?? 'latest', options);
  // A `name:tag@digest` reference resolves the digest but still names the tag.
  if (ref.digest && ref.tag) image.repoTags = [fullTag(ref)];
  return image;
}

/**
 * Validates credentials against a registry (GET /v2/ through the auth flow). Resolves when they are accepted
 * (`authenticated` false when the registry did not ask for any); throws RegistryUnauthorizedError when rejected.
 */
export async function checkCredentials(
  registry: string,
  credentials: Credentials,
  options: Omit<RegistryClientOptions, 'credentials'> & { signal?: AbortSignal },
): Promise<{ authenticated: boolean }> {
  return new RegistryClient(registry, { ...options, credentials }).ping(options.signal);
}
