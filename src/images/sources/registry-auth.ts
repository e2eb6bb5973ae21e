/**
 * Registry authentication as docker clients do it (distribution "token authentication specification"): a 401
 * carries `WWW-Authenticate: Bearer realm,service,scope` -> fetch a token from the realm (Basic credentials when
 * configured, anonymous otherwise) and cache it per scope until it expires; or `WWW-Authenticate: Basic` -> send
 * the credentials directly. The scheme is remembered so later requests authenticate without a 401 round trip.
 */
import type { OutboundPolicy } from '../../outbound/policy.js';
import { isLoopbackHost, readBody, registryGet } from './registry-http.js';
import { RegistryError, RegistryUnauthorizedError, type RegistryErrorContext } from './errors.js';

export interface Credentials {
  username: string;
  password: string;
}

export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;
const MAX_TOKEN_RESPONSE_BYTES = 1 << 20;
/** Tokens without expires_in are valid for 60 s (token spec). */
const DEFAULT_TOKEN_LIFETIME_S = 60;

/** Parses a WWW-Authenticate header into its challenges (several may share one header). */
export function parseAuthChallenges(header: string | undefined): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  if (!header) return challenges;
  let i = 0;
  const skip = (re: RegExp) => {
    while (i < header.length && re.test(header[i]!)) i++;
  };
  const token = () => {
    const start = i;
    while (i < header.length && TOKEN_CHAR.test(header[i]!)) i++;
    return header.slice(start, i);
  };
  while (i < header.length) {
    skip(/[\s,]/);
    const word = token();
    if (!word) {
      i++;
      continue;
    }
    skip(/\s/);
    if (header[i] === '=' && challenges.length > 0) {
      i++;
      skip(/\s/);
      let value = '';
      if (header[i] === '"') {
        i++;
        while (i < header.length && header[i] !== '"') {
          if (header[i] === '\\') i++;
          value += header[i] ?? '';
          i++;
        }
        i++;
      } else {
        const start = i;
        while (i < header.length && header[i] !== ',' && !/\s/.test(header[i]!)) i++;
        value = header.slice(start, i);
      }
      challenges[challenges.length - 1]!.params[word.toLowerCase()] = value;
    } else {
      challenges.push({ scheme: word.toLowerCase(), params: {} });
    }
  }
  return challenges;
}

/** `repository:<name>:pull`, the scope for reading an image. */
export function pullScope(repository: string): string {
  return `repository:${repository}:pull`;
}

function basicHeader(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

export interface AuthenticatorOptions {
  /** Token services are outbound requests like any other, under the registry's policy. */
  policy: OutboundPolicy;
  credentials?: Credentials;
  timeoutMs: number;
  verifyTls: boolean;
  /** Whether credentials may travel over plain HTTP to a non-loopback host (the registry is marked insecure). */
  insecure: boolean;
}

interface CachedToken {
  header: string;
  expiresAt: number;
}

export class RegistryAuthenticator {
  private scheme?: 'basic' | 'bearer';
  private readonly tokens = new Map<string, CachedToken>();

  constructor(
    private readonly registry: string,
    private readonly options: AuthenticatorOptions,
  ) {}

  get hasCredentials(): boolean {
    return this.options.credentials !== undefined;
  }

  /** The Authorization header to send up front for `scope`, when an earlier challenge taught us one. */
  headerFor(scope: string | undefined): string | undefined {
    if (this.scheme === 'basic' && this.options.credentials) return basicHeader(this.options.credentials);
    if (this.scheme === 'bearer') {
      const cached = this.tokens.get(scope ?? '');
      if (cached && cached.expiresAt > Date.now()) return cached.header;
    }
    return undefined;
  }

  /**
   * Answers a 401: learns the scheme from its challenge and returns a fresh Authorization header to retry with.
   * Throws RegistryUnauthorizedError when there is nothing to retry with.
   */
  async answerChallenge(
    wwwAuthenticate: string | undefined,
    scope: string | undefined,
    requestUrl: URL,
    ctx: RegistryErrorContext,
    signal?: AbortSignal,
  ): Promise<string> {
    const challenges = parseAuthChallenges(wwwAuthenticate);
    const bearer = challenges.find((c) => c.scheme === 'bearer' && c.params.realm);
    if (bearer) {
      this.scheme = 'bearer';
      return this.fetchToken(bearer, scope, ctx, signal);
    }
    if (challenges.some((c) => c.scheme === 'basic')) {
      this.scheme = 'basic';
      if (!this.options.credentials) throw this.unauthorized(ctx);
      this.checkCredentialTransport(requestUrl, ctx);
      return basicHeader(this.options.credentials);
    }
    throw new RegistryUnauthorizedError(
      `registry ${this.registry} refused the request (401) without a usable authentication challenge${wwwAuthenticate ? ` (${wwwAuthenticate})` : ''}`,
      ctx,
    );
  }

  /** The error for "authenticated as well as we could and still got 401". */
  unauthorized(ctx: RegistryErrorContext): RegistryUnauthorizedError {
    const what = ctx.repository ? `pull ${ctx.registry}/${ctx.repository}` : `access ${ctx.registry}`;
    return this.options.credentials
      ? new RegistryUnauthorizedError(
          `registry ${ctx.registry} rejected the credentials of user ${JSON.stringify(this.options.credentials.username)} to ${what}: check the username and password (or token), and that the account may pull this repository`,
          ctx,
        )
      : new RegistryUnauthorizedError(
          `registry ${ctx.registry} requires authentication to ${what}: add credentials for this registry (the repository may also be private or not exist)`,
          ctx,
        );
  }

  /** Refuses to send a password in clear text over a network unless the registry is explicitly insecure. */
  private checkCredentialTransport(url: URL, ctx: RegistryErrorContext): void {
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !this.options.insecure) {
      throw new RegistryError(
        `registry ${ctx.registry} asks for credentials over plain HTTP (${url.origin}); refusing to send them unless the registry is marked insecure`,
        ctx,
      );
    }
  }

  private async fetchToken(challenge: AuthChallenge, requestScope: string | undefined, ctx: RegistryErrorContext, signal?: AbortSignal): Promise<string> {
    // The challenge's own scope is what the server wants for this request; ours is the fallback.
    const scope = challenge.params.scope ?? requestScope;
    let realm: URL;
    try {
      realm = new URL(challenge.params.realm!);
    } catch {
      throw new RegistryError(`registry ${this.registry} sent an invalid token realm ${JSON.stringify(challenge.params.realm)}`, ctx);
    }
    if (challenge.params.service) realm.searchParams.set('service', challenge.params.service);
    for (const s of (scope ?? '').split(' ').filter(Boolean)) realm.searchParams.append('scope', s);

    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.options.credentials) {
      this.checkCredentialTransport(realm, ctx);
      headers.Authorization = basicHeader(this.options.credentials);
    }
    const res = await registryGet(realm, { headers, policy: this.options.policy, timeoutMs: this.options.timeoutMs, verifyTls: this.options.verifyTls, signal, context: ctx });
    const body = await readBody(res, MAX_TOKEN_RESPONSE_BYTES, 'token response', ctx);
    if (res.status === 401 || res.status === 403) throw this.unauthorized(ctx);
    if (res.status !== 200) {
      throw new RegistryError(`token service of ${this.registry} (${realm.origin}) answered ${res.status}`, { ...ctx, registryStatus: res.status });
    }
    let parsed: { token?: unknown; access_token?: unknown; expires_in?: unknown; issued_at?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new RegistryError(`token service of ${this.registry} returned invalid JSON`, ctx);
    }
    const token = typeof parsed.token === 'string' ? parsed.token : typeof parsed.access_token === 'string' ? parsed.access_token : undefined;
    if (!token) throw new RegistryError(`token service of ${this.registry} returned no token`, ctx);

    const lifetimeMs = (typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : DEFAULT_TOKEN_LIFETIME_S) * 1000;
    const issuedAt = typeof parsed.issued_at === 'string' && !Number.isNaN(Date.parse(parsed.issued_at)) ? Math.min(Date.parse(parsed.issued_at), Date.now()) : Date.now();
    // Renew a little early so a token does not expire between being picked and being checked.
    const expiresAt = issuedAt + lifetimeMs - Math.min(10_000, lifetimeMs / 2);
    const header = `Bearer ${token}`;
    this.tokens.set(requestScope ?? '', { header, expiresAt });
    if (scope !== requestScope) this.tokens.set(scope ?? '', { header, expiresAt });
    return header;
  }
}
