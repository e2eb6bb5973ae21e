/**
 * Vigil as an OpenID Connect relying party: openid-client speaks the protocol (discovery, authorization URL with
 * PKCE, code and device-code exchanges), jose checks ID token signatures against the provider's JWKS. Both reach
 * the provider only through the guarded outbound client, under the `identity` policy (so loopback and private
 * addresses only where VIGIL_OUTBOUND_ALLOW allows them).
 *
 * One JWKS per key-set URL is kept for the life of the process: a token signed with a key it does not know makes
 * jose fetch the set again (at most once per cooldown), so a provider's key rotation needs nothing from us.
 */
import * as client from 'openid-client';
import { createRemoteJWKSet, customFetch as joseFetch, jwtVerify, type FetchImplementation, type JWTPayload } from 'jose';
import { OutboundError } from '../../outbound/errors.js';
import { guardedFetch, type GuardedFetch } from '../../outbound/fetch.js';
import type { OutboundPolicy } from '../../outbound/policy.js';

/** How far the provider's clock may be from ours. */
export const CLOCK_SKEW_SECONDS = 60;
/** ID tokens older than this (by `iat`) are refused, whatever their `exp`. */
export const MAX_ID_TOKEN_AGE_SECONDS = 10 * 60;
/** Discovery documents, key sets and token answers are a few KiB. */
const MAX_ANSWER_BYTES = 256 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
/** Only public-key signatures: a symmetric one would be checked with the client secret, which JWKS does not carry. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Bounds the kept key sets; a deployment has a handful of providers. */
const MAX_KEY_SETS = 64;

export interface RelyingPartyOptions {
  policy: OutboundPolicy;
  userAgent: string;
  /** How long after a JWKS fetch an unknown key id may not fetch it again (VIGIL_OIDC_JWKS_COOLDOWN_SECONDS). */
  jwksCooldownSeconds: number;
}

/** What a client configuration is built from: the stored discovery document and client credentials. */
export interface ClientSettings {
  issuer: string;
  discovery: client.ServerMetadata;
  clientId: string;
  clientSecret: string | null;
}

/** http issuers are accepted only on the local machine (a provider run beside Vigil, or a test peer). */
export function isLoopbackHttp(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
}

/** Why a library or transport failure refused a sign-in, without URLs or secrets. */
export function failureReason(err: unknown): string {
  if (err instanceof client.AuthorizationResponseError || err instanceof client.ResponseBodyError)
    return `the provider answered ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`;
  // openid-client wraps the precise error (a claim that did not match, the transport's) as its cause.
  const messages: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof OutboundError) return `the provider could not be reached: ${e.message}`;
    if (e.message && !messages.includes(e.message)) messages.push(e.message);
  }
  return messages.join(': ') || 'the answer is not valid';
}

export class OidcRelyingParty {
  readonly fetch: GuardedFetch;
  private readonly keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  constructor(private readonly options: RelyingPartyOptions) {
    this.fetch = guardedFetch({ policy: options.policy, timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_ANSWER_BYTES, userAgent: options.userAgent });
  }

  private prepare(config: client.Configuration, issuer: string): client.Configuration {
    config[client.customFetch] = this.fetch as client.CustomFetch;
    config.timeout = FETCH_TIMEOUT_MS / 1000;
    if (isLoopbackHttp(issuer)) client.allowInsecureRequests(config);
    return config;
  }

  /** Fetches the provider's discovery document (`/.well-known/openid-configuration`); openid-client checks its issuer. */
  async discover(issuer: string, clientId: string): Promise<client.ServerMetadata> {
    const config = await client.discovery(new URL(issuer), clientId, undefined, client.None(), {
      [client.customFetch]: this.fetch as client.CustomFetch,
      timeout: FETCH_TIMEOUT_MS / 1000,
      ...(isLoopbackHttp(issuer) ? { execute: [client.allowInsecureRequests] } : {}),
    });
    return { ...config.serverMetadata() };
  }

  /** A client configuration from stored settings; no request is made. */
  configuration(settings: ClientSettings): client.Configuration {
    // A confidential client authenticates with its secret; without one it is a public client relying on PKCE.
    const auth = settings.clientSecret ? client.ClientSecretPost(settings.clientSecret) : client.None();
    const metadata: Partial<client.ClientMetadata> = { [client.clockTolerance]: CLOCK_SKEW_SECONDS };
    if (settings.clientSecret) metadata.client_secret = settings.clientSecret;
    return this.prepare(new client.Configuration(settings.discovery, settings.clientId, metadata, auth), settings.issuer);
  }

  private keySet(jwksUri: string): ReturnType<typeof createRemoteJWKSet> {
    let set = this.keySets.get(jwksUri);
    if (!set) {
      if (this.keySets.size >= MAX_KEY_SETS) this.keySets.delete(this.keySets.keys().next().value!);
      set = createRemoteJWKSet(new URL(jwksUri), {
        cooldownDuration: this.options.jwksCooldownSeconds * 1000,
        timeoutDuration: FETCH_TIMEOUT_MS,
        [joseFetch]: this.fetch as FetchImplementation,
      });
      this.keySets.set(jwksUri, set);
    }
    return set;
  }

  /**
   * Verifies an ID token's signature against the provider's published keys, and its issuer, audience, expiry and
   * age with bounded skew. Throws jose's error (whose message says what failed) on any problem.
   */
  async verifyIdToken(settings: ClientSettings, idToken: string): Promise<JWTPayload> {
    const jwksUri = settings.discovery.jwks_uri;
    if (!jwksUri) throw new Error('the provider publishes no jwks_uri');
    const { payload } = await jwtVerify(idToken, this.keySet(jwksUri), {
      issuer: settings.discovery.issuer,
      audience: settings.clientId,
      algorithms: ID_TOKEN_ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      maxTokenAge: MAX_ID_TOKEN_AGE_SECONDS,
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    return payload;
  }
}
