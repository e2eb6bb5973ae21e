/**
 * The browser's authorization-code login with PKCE (S256). Starting it stores the state, nonce and code verifier
 * server-side (in the database, so any node can receive the callback), keyed by the state's hash, for a limited
 * time; the callback takes them out again, so each login completes at most once.
 */
import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { isoFromNow, nowIso } from '../../util/time.js';
import { failureReason } from './relying-party.js';
import { activeProvider, OidcRefusedError, signInWithClaims, verifiedClaims, type OidcContext, type OidcSignIn } from './sign-in.js';

export const LOGIN_LIFETIME_SECONDS = 10 * 60;

/** What the provider sends back to the redirect URI. */
export interface CallbackParameters {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  error_description?: string;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

/** The provider's authorization URL that starts a login (with `state`, a fresh one unless given). */
export async function loginRedirectUrl(ctx: OidcContext, name: string, state: string = client.randomState()): Promise<string> {
  const provider = await activeProvider(ctx, name);
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  // Logins never completed would pile up: drop the expired ones whenever a new one starts.
  await ctx.db('oidc_logins').where('expires_at', '<', nowIso()).delete();
  await ctx.db('oidc_logins').insert({
    state_hash: hash(state),
    provider_name: name,
    code_verifier: codeVerifier,
    nonce,
    expires_at: isoFromNow(LOGIN_LIFETIME_SECONDS),
  });
  return client
    .buildAuthorizationUrl(provider.config, {
      redirect_uri: provider.record.redirect_uri,
      scope: provider.record.scopes,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    })
    .toString();
}

/** A fresh state, for a caller that keeps it beside the login (the web interface's browser binding). */
export const newState = (): string => client.randomState();

/** Ends a login without completing it (a callback refused before the code exchange), so its state serves no other callback. */
export async function abandonLogin(ctx: OidcContext, name: string, state: string): Promise<void> {
  await ctx.db('oidc_logins').where({ state_hash: hash(state), provider_name: name }).delete();
}

/** Exchanges the code of a callback for tokens, verifies the ID token and signs its user in. */
export async function completeLogin(ctx: OidcContext, name: string, params: CallbackParameters): Promise<OidcSignIn> {
  const refuse = (reason: string) => new OidcRefusedError(name, reason);
  const provider = await activeProvider(ctx, name);
  if (!params.state) throw refuse('the callback carries no state');
  const key = { state_hash: hash(params.state), provider_name: name };
  const login = await ctx.db('oidc_logins').where(key).where('expires_at', '>', nowIso()).first('code_verifier', 'nonce');
  // Whoever deletes the row takes the login: of two callbacks with one state, only one gets past here.
  if (!login || (await ctx.db('oidc_logins').where(key).delete()) !== 1) throw refuse('the state is unknown, expired or already used');
  if (params.error) throw refuse(`the provider answered ${params.error}${params.error_description ? ` (${params.error_description})` : ''}`);
  // openid-client reads the answer from the URL the provider redirected to.
  const callbackUrl = new URL(provider.record.redirect_uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) callbackUrl.searchParams.set(key, value);
  let tokens: client.TokenEndpointResponse;
  try {
    tokens = await client.authorizationCodeGrant(provider.config, callbackUrl, {
      pkceCodeVerifier: login.code_verifier,
      expectedState: params.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw refuse(failureReason(err));
  }
  const claims = await verifiedClaims(ctx, provider, tokens.id_token, login.nonce);
  return signInWithClaims(ctx, provider, claims);
}
