/** Sign-in (password grant, API key or single sign-on), the accounts a user may switch to, and sign-out. */
import createClient from 'openapi-fetch';
import type { paths } from '../../../generated/openapi-types';
import { type Session, apiKeyAuthorization } from '../session';
import { type Api, API_BASE, createApi, data } from './client';
import { ApiError, apiErrorFrom, networkError } from './errors';

/** A client for one set of credentials, outside the app's session (used while signing in and out). */
function apiFor(session: Session | null): Api {
  return createApi({ session: () => session, onUnauthorized: () => undefined });
}

/** Completes a session from credentials: the server must accept them, and says who they belong to. */
async function sessionFor(authorization: string, method: Session['method'], refreshToken?: string): Promise<Session> {
  const draft: Session = { authorization, method, refreshToken, username: '', userAccount: '', account: '' };
  const user = await data(apiFor(draft).rest.GET('/user'));
  return { ...draft, username: user.username, userAccount: user.account_name, account: user.account_name };
}

export async function signInWithPassword(username: string, password: string): Promise<Session> {
  const token = await data(
    apiFor(null).rest.POST('/oauth/token', {
      body: { grant_type: 'password', client_id: 'anonymous', username, password },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    }),
  );
  return sessionFor(`Bearer ${token.access_token}`, 'password', token.refresh_token);
}

export function signInWithApiKey(key: string): Promise<Session> {
  return sessionFor(apiKeyAuthorization(key.trim()), 'api_key');
}

/** The single sign-on providers the sign-in page offers (a public call). */
export function ssoSignInOptions() {
  return data(apiFor(null).rest.GET('/rbac-manager/sso/providers'));
}

/**
 * Exchanges the one-time code a single sign-on login ended with for a session. The one request of the interface
 * that sends a cookie: the HttpOnly browser binding the login start set, which proves this is the browser that
 * started the login (the page itself never reads it).
 */
export async function signInWithSsoCode(code: string): Promise<Session> {
  const rest = createClient<paths>({ baseUrl: API_BASE, credentials: 'same-origin' });
  let answer;
  try {
    answer = await rest.POST('/rbac-manager/sso/code', { body: { code } });
  } catch (cause) {
    throw networkError(cause);
  }
  const { data: token, error, response } = answer;
  if (!token) throw apiErrorFrom(response.status, error, response.statusText);
  return sessionFor(`Bearer ${token.token}`, 'sso', token.refresh_token);
}

/**
 * Revokes a token session's tokens (an API key stays valid: it is revoked under Administration). Resolves to
 * a message when the server could not revoke them, for the sign-in page to show.
 */
export async function revokeSession(session: Session): Promise<string | null> {
  if (session.method === 'api_key') return null;
  const api = apiFor(null);
  const tokens: [string, 'access_token' | 'refresh_token'][] = [[session.authorization.replace(/^Bearer /, ''), 'access_token']];
  if (session.refreshToken) tokens.push([session.refreshToken, 'refresh_token']);
  try {
    for (const [token, hint] of tokens) {
      await api.rest.POST('/oauth/revoke', {
        body: { token, token_type_hint: hint },
        bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    }
    return null;
  } catch (error) {
    return `Signed out here, but the server could not revoke the token: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * The accounts the user may act in: their own, those they hold roles in, and every enabled account for an
 * administrator (whose own account is of type admin).
 */
export async function switchableAccounts(api: Api, session: Session): Promise<string[]> {
  // Asked in the user's own account, whichever account is selected now.
  const own = { headers: { 'x-anchore-account': session.userAccount } };
  const [roles, account] = await Promise.all([data(api.rest.GET('/rbac-manager/my-roles', own)), data(api.rest.GET('/account', own))]);
  const names = new Set<string>([session.userAccount, ...roles.map((r) => r.domain_name)]);
  if (account.type === 'admin') {
    try {
      for (const a of await data(api.rest.GET('/accounts', { ...own, params: { query: { state: 'enabled' } } }))) names.add(a.name);
    } catch (error) {
      // An administrator account's user without the listAccounts permission still switches among their roles.
      if (!(error instanceof ApiError && error.status === 403)) throw error;
    }
  }
  return [...names].sort((a, b) => a.localeCompare(b));
}
