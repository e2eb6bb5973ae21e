/**
 * Bearer tokens kept in a context by `vigil login`: asked for with the password grant, and renewed with the
 * refresh token once the access token has expired (refresh tokens rotate, so the new pair is written back).
 */
import type { VigilClient } from '../../generated/client.js';
import { ok } from './api.js';
import { writeConfig, type CliConfig, type ContextEntry } from './connection.js';
import { CliError } from './exit-codes.js';

/** Renew this long before the expiry, so a token does not lapse between the check and the request. */
const EXPIRY_MARGIN_MS = 30_000;

type Grant = { grant_type: 'password'; username: string; password: string } | { grant_type: 'refresh_token'; refresh_token: string };

export async function requestToken(client: VigilClient, url: string, grant: Grant, now = Date.now()): Promise<Pick<ContextEntry, 'token' | 'refresh-token' | 'token-expires-at'>> {
  const answer = await ok(
    client.POST('/oauth/token', {
      body: { ...grant, client_id: 'anonymous' },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    url,
  );
  return {
    token: answer.access_token,
    ...(answer.refresh_token ? { 'refresh-token': answer.refresh_token } : {}),
    'token-expires-at': new Date(now + answer.expires_in * 1000).toISOString(),
  };
}

export function tokenExpired(entry: ContextEntry, now = Date.now()): boolean {
  const expires = entry['token-expires-at'] ? Date.parse(entry['token-expires-at']) : NaN;
  return Number.isFinite(expires) && expires - EXPIRY_MARGIN_MS <= now;
}

/** Renews the context's token when it has expired, saving the new pair; the token to use. */
export async function freshToken(client: VigilClient, url: string, config: CliConfig, path: string, name: string): Promise<string> {
  const entry = config.contexts![name]!;
  if (!tokenExpired(entry)) return entry.token!;
  if (!entry['refresh-token']) throw new CliError(`error: the token of context ${name} has expired: run vigil login again`);
  let renewed;
  try {
    renewed = await requestToken(client, url, { grant_type: 'refresh_token', refresh_token: entry['refresh-token'] });
  } catch (err) {
    if (err instanceof CliError) throw new CliError(`${err.message}\nthe session of context ${name} has ended: run vigil login again`);
    throw err;
  }
  config.contexts![name] = { ...entry, ...renewed };
  writeConfig(path, config);
  return renewed.token!;
}
