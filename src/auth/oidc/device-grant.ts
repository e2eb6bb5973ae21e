/**
 * The device-authorization grant (RFC 8628) for the CLI, brokered by Vigil: Vigil asks the provider for a device
 * code with its own client credentials and hands the CLI the user code, the verification URI and an opaque
 * handle, so the CLI needs no client secret. The CLI polls Vigil with the handle; Vigil polls the provider (never
 * faster than the provider's interval) and, once the user has approved, signs the user in as the browser login does.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { AppError, NotFoundError } from '../../errors.js';
import { isoFromNow, nowIso } from '../../util/time.js';
import { failureReason } from './relying-party.js';
import { activeProvider, OidcRefusedError, signInWithClaims, verifiedClaims, type OidcContext, type OidcSignIn } from './sign-in.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.2: 5 seconds when the provider names no interval; §3.5: slow_down adds 5. */
const DEFAULT_INTERVAL_SECONDS = 5;
const SLOW_DOWN_STEP_SECONDS = 5;
/** Bounds what a provider may ask for. */
const MAX_INTERVAL_SECONDS = 60;
const MAX_LIFETIME_SECONDS = 3600;

export interface DeviceStart {
  handle: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

function pending(): AppError {
  return new AppError(400, 'authorization_pending', 'the user has not yet approved the sign-in at the provider; poll again after the interval', { error: 'authorization_pending' });
}

function slowDown(retryAfterSeconds: number, intervalSeconds: number): AppError {
  return new AppError(
    429,
    'slow_down',
    `polling too fast: poll again in ${retryAfterSeconds} seconds, and every ${intervalSeconds} seconds after that`,
    { error: 'slow_down', interval: intervalSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

function expired(): AppError {
  return new AppError(410, 'expired_token', 'the device code has expired; start the sign-in again', { error: 'expired_token' });
}

/** Starts a device sign-in at the provider. */
export async function startDeviceGrant(ctx: OidcContext, name: string): Promise<DeviceStart> {
  const provider = await activeProvider(ctx, name);
  if (!provider.settings.discovery.device_authorization_endpoint)
    throw new OidcRefusedError(name, 'the provider offers no device authorization endpoint (enable the device grant for this client at the provider)');
  let answer: client.DeviceAuthorizationResponse;
  try {
    answer = await client.initiateDeviceAuthorization(provider.config, { scope: provider.record.scopes });
  } catch (err) {
    throw new OidcRefusedError(name, failureReason(err));
  }
  const interval = Math.min(Math.max(answer.interval ?? DEFAULT_INTERVAL_SECONDS, 1), MAX_INTERVAL_SECONDS);
  const expiresIn = Math.min(Math.max(Math.floor(answer.expires_in), 1), MAX_LIFETIME_SECONDS);
  const handle = randomBytes(32).toString('base64url');
  await ctx.db('oidc_device_grants').where('expires_at', '<', nowIso()).delete();
  await ctx.db('oidc_device_grants').insert({
    handle_hash: hash(handle),
    provider_name: name,
    device_code: answer.device_code,
    interval_seconds: interval,
    // The first poll may come at once: the user may have approved before the CLI asks.
    next_poll_at: nowIso(),
    expires_at: isoFromNow(expiresIn),
  });
  return {
    handle,
    user_code: answer.user_code,
    verification_uri: answer.verification_uri,
    ...(answer.verification_uri_complete ? { verification_uri_complete: answer.verification_uri_complete } : {}),
    expires_in: expiresIn,
    interval,
  };
}

/**
 * One poll of a device sign-in: the Vigil token once the user approved; otherwise authorization_pending (400),
 * slow_down (429, Retry-After), expired_token (410), or a refusal (401) when the user denied it.
 */
export async function pollDeviceGrant(ctx: OidcContext, name: string, handle: string): Promise<OidcSignIn> {
  const provider = await activeProvider(ctx, name);
  const key = { handle_hash: hash(handle), provider_name: name };
  const grant = await ctx.db('oidc_device_grants').where(key).first();
  if (!grant) throw new NotFoundError('no device sign-in has this handle (it completed, failed, or was never started)', { provider: name });
  const now = nowIso();
  if (grant.expires_at < now) {
    await ctx.db('oidc_device_grants').where(key).delete();
    throw expired();
  }
  const interval = Number(grant.interval_seconds);
  // Claimed by a conditional update, so of polls that arrive together only one reaches the provider.
  const claimed = grant.next_poll_at <= now && (await ctx.db('oidc_device_grants').where({ ...key, next_poll_at: grant.next_poll_at }).update({ next_poll_at: isoFromNow(interval) })) === 1;
  if (!claimed) throw slowDown(Math.max(1, Math.ceil((Date.parse(grant.next_poll_at) - Date.now()) / 1000)), interval);
  let tokens: client.TokenEndpointResponse;
  try {
    tokens = await client.genericGrantRequest(provider.config, DEVICE_GRANT, { device_code: grant.device_code });
  } catch (err) {
    const code = err instanceof client.ResponseBodyError ? err.error : null;
    if (code === 'authorization_pending') throw pending();
    if (code === 'slow_down') {
      const slower = Math.min(interval + SLOW_DOWN_STEP_SECONDS, MAX_INTERVAL_SECONDS);
      await ctx.db('oidc_device_grants').where(key).update({ interval_seconds: slower, next_poll_at: isoFromNow(slower) });
      throw slowDown(slower, slower);
    }
    await ctx.db('oidc_device_grants').where(key).delete();
    if (code === 'expired_token') throw expired();
    throw new OidcRefusedError(name, failureReason(err));
  }
  await ctx.db('oidc_device_grants').where(key).delete();
  // The device grant carries no nonce: the ID token came straight from the token endpoint over TLS.
  const claims = await verifiedClaims(ctx, provider, tokens.id_token, null);
  return signInWithClaims(ctx, provider, claims);
}
