/**
 * The signed-in session, kept in sessionStorage only (never a cookie, never localStorage): it ends with the tab and
 * is never sent by the browser on its own, so no CSRF protection is needed.
 */

export interface Session {
  /** The Authorization header value: `Bearer <token>` (password sign-in) or `Basic <_api_key:key>`. */
  authorization: string;
  /** How the session was opened: a token from the password grant, an API key, or a token from single sign-on. */
  method: 'password' | 'api_key' | 'sso';
  /** The refresh token of the password grant or single sign-on, revoked on sign-out. */
  refreshToken?: string;
  /** The signed-in user and their own account. */
  username: string;
  userAccount: string;
  /** The account the interface acts in (sent as x-anchore-account when it is not the user's own). */
  account: string;
}

const STORAGE_KEY = 'vigil.ui.session';

function isSession(value: unknown): value is Session {
  if (!value || typeof value !== 'object') return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.authorization === 'string' &&
    (s.method === 'password' || s.method === 'api_key' || s.method === 'sso') &&
    typeof s.username === 'string' &&
    typeof s.userAccount === 'string' &&
    typeof s.account === 'string'
  );
}

export function loadSession(): Session | null {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    return isSession(saved) ? saved : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** HTTP Basic for an API key, as upstream's clients send it (username `_api_key`). UTF-8 safe. */
export function apiKeyAuthorization(key: string): string {
  const bytes = new TextEncoder().encode(`_api_key:${key}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** The headers every API request carries for this session. */
export function sessionHeaders(session: Session): Record<string, string> {
  const headers: Record<string, string> = { Authorization: session.authorization };
  if (session.account !== session.userAccount) headers['x-anchore-account'] = session.account;
  return headers;
}
