/**
 * Single sign-on logins started by the web interface (`return_to`), for SAML and OpenID Connect alike.
 *
 * Login CSRF: without a binding, an attacker could finish a login of their own in a victim's browser (hand it the
 * callback URL, or post their own assertion to the ACS) and the victim would work, unknowingly, as the attacker.
 * So a login started with `return_to` is bound to the browser that started it: an HttpOnly, SameSite=Lax cookie
 * holds a random value, and the login (keyed by the hash of the OIDC state or of the SAML RelayState Vigil makes)
 * keeps that value's hash. The callback ends with a one-time code in the URL fragment (never the token in a URL:
 * URLs reach history, logs and Referer headers); the code keeps the same hash, and only a request carrying the
 * cookie exchanges it. The OIDC callback, a top-level GET, also checks the cookie itself; the SAML assertion
 * consumer cannot (a cross-site POST carries no SameSite=Lax cookie), so for SAML the exchange is the check.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { AppError, InvalidError } from '../../errors.js';
import { isoFromNow, nowIso } from '../../util/time.js';
import type { IssuedTokens, TokenService } from '../tokens.js';

export const BROWSER_COOKIE = 'vigil_sso_browser';
export const BROWSER_LOGIN_LIFETIME_SECONDS = 10 * 60;
export const CODE_LIFETIME_SECONDS = 60;
/** Marks a SAML RelayState Vigil made for a browser login (any other RelayState is the caller's, passed through). */
export const BROWSER_RELAY_STATE_PREFIX = 'vigil-ui.';
const COOKIE_PATH = '/v2/rbac-manager/';
const RANDOM = /^[A-Za-z0-9_-]{43}$/;

export type SsoProtocol = 'saml' | 'oidc';

export interface BrowserLogin {
  returnTo: string;
  browserHash: string;
}

/** Who signed in, to issue the token at the exchange (no token is kept at rest). */
export interface SignedInUser {
  username: string;
  accountName: string;
  generation: number;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');
const random = () => randomBytes(32).toString('base64url');

/** A `return_to` that is a path of the web interface on this service, or a 400. */
export function checkedReturnTo(value: string): string {
  const refuse = (message: string) => new InvalidError(`return_to: ${message}`, { errors: [{ location: 'query.return_to', message }] });
  if (!value.startsWith('/ui/') || /[?#\\]/.test(value)) throw refuse('must be a path under /ui/ of this service');
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    throw refuse('is not valid percent-encoding');
  }
  // Decoded too: `%2e%2e` or `%2f%2f` would leave /ui/ (or the origin) once a browser normalises the path.
  for (const path of [value, decoded]) {
    if (path.includes('//') || path.split('/').some((segment) => segment === '.' || segment === '..') || /[\\?#\u0000-\u001f]/.test(path))
      throw refuse('must be a path under /ui/ of this service, without dot segments, empty segments, query or fragment');
  }
  return value;
}

/** The binding cookie's value the request carries, if well-formed. */
export function browserValue(cookieHeader: string | null): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === BROWSER_COOKIE) {
      const value = part.slice(eq + 1).trim();
      if (RANDOM.test(value)) return value;
    }
  }
  return null;
}

/**
 * The browser's binding value and the Set-Cookie header (re)setting it. A browser that has one keeps it, so two
 * logins started in two tabs both complete. Secure when the provider sends the browser back over https.
 */
export function bindBrowser(cookieHeader: string | null, secure: boolean): { browserHash: string; setCookie: string } {
  const value = browserValue(cookieHeader) ?? random();
  const attributes = [`Path=${COOKIE_PATH}`, `Max-Age=${BROWSER_LOGIN_LIFETIME_SECONDS}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  return { browserHash: hash(value), setCookie: `${BROWSER_COOKIE}=${value}; ${attributes.join('; ')}` };
}

function sameBrowser(browserHash: string, cookieHeader: string | null): boolean {
  const value = browserValue(cookieHeader);
  return value !== null && timingSafeEqual(Buffer.from(hash(value)), Buffer.from(browserHash));
}

/** A fresh RelayState for a SAML browser login. */
export function newBrowserRelayState(): string {
  return BROWSER_RELAY_STATE_PREFIX + random();
}

export async function rememberBrowserLogin(db: Db, login: { key: string; protocol: SsoProtocol; provider: string; browserHash: string; returnTo: string }): Promise<void> {
  // Logins never completed would pile up: drop the expired ones whenever a new one starts.
  await db('sso_browser_logins').where('expires_at', '<', nowIso()).delete();
  await db('sso_browser_logins').insert({
    login_hash: hash(login.key),
    protocol: login.protocol,
    provider_name: login.provider,
    browser_hash: login.browserHash,
    return_to: login.returnTo,
    expires_at: isoFromNow(BROWSER_LOGIN_LIFETIME_SECONDS),
  });
}

/** Takes (once) the browser login a state or RelayState names, if any and not expired. */
export async function takeBrowserLogin(db: Db, key: string, protocol: SsoProtocol, provider: string): Promise<BrowserLogin | null> {
  const where = { login_hash: hash(key), protocol, provider_name: provider };
  const row = await db('sso_browser_logins').where(where).where('expires_at', '>', nowIso()).first('return_to', 'browser_hash');
  if (!row || (await db('sso_browser_logins').where(where).delete()) !== 1) return null;
  return { returnTo: row.return_to, browserHash: row.browser_hash };
}

/** Whether the request comes from the browser that started the login. */
export function fromSameBrowser(login: BrowserLogin, cookieHeader: string | null): boolean {
  return sameBrowser(login.browserHash, cookieHeader);
}

/** Keeps a one-time code for the signed-in user, bound to the login's browser; answers where to send the browser. */
export async function issueCode(db: Db, login: BrowserLogin, user: SignedInUser): Promise<string> {
  const code = random();
  await db('sso_codes').where('expires_at', '<', nowIso()).delete();
  await db('sso_codes').insert({
    code_hash: hash(code),
    browser_hash: login.browserHash,
    username: user.username,
    account_name: user.accountName,
    generation: user.generation,
    expires_at: isoFromNow(CODE_LIFETIME_SECONDS),
  });
  return `${login.returnTo}#sso_code=${code}`;
}

/**
 * Where to send a browser whose login of the interface was refused: the interface, with the reason in the fragment
 * to show (a 401 to a top-level navigation would only make the browser prompt for Basic credentials).
 */
export function refusedLocation(returnTo: string, reason: string): string {
  return `${returnTo}#sso_error=${encodeURIComponent(reason.slice(0, 500))}`;
}

/** The token for a one-time code; the code is used up by this attempt, whether it succeeds or not. */
export async function exchangeCode(db: Db, tokens: TokenService, code: string, cookieHeader: string | null): Promise<{ user: SignedInUser; tokens: IssuedTokens }> {
  // 401 without WWW-Authenticate: the page's fetch sends a cookie, and Basic there would make the browser prompt.
  const refuse = (reason: string) => new AppError(401, 'unauthorized', `single sign-on code refused: ${reason}`, { reason });
  const key = { code_hash: hash(code) };
  const row = await db('sso_codes').where(key).first();
  // Whoever deletes the row takes the code: of two exchanges of one code, only one gets past here.
  if (!row || (await db('sso_codes').where(key).delete()) !== 1) throw refuse('the code is unknown or already used');
  if (row.expires_at <= nowIso()) throw refuse('the code has expired');
  if (!sameBrowser(row.browser_hash, cookieHeader)) throw refuse('the code was issued to another browser');
  const user = { username: row.username, accountName: row.account_name, generation: Number(row.generation) };
  return { user, tokens: await tokens.issue(user.username, user.accountName, user.generation) };
}
