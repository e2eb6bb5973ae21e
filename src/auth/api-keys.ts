/**
 * API keys: long random secrets a user presents as HTTP Basic password with the username `_api_key`.
 * The value is `vk_<key_id>.<secret>`; key_id finds the row, the secret is stored only as a SHA-256 hash
 * (256 random bits need no slow hash) and compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/index.js';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../errors.js';
import { floorToSecond, nowIso } from '../util/time.js';
import { withSsoProvider } from './users.js';

export interface ApiKeyRecord {
  key_id: string;
  account_name: string;
  username: string;
  name: string;
  description: string | null;
  secret_hash: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
}

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

const DEFAULT_LIFETIME_DAYS = 365;
const MAX_LIFETIME_YEARS = 3;
const KEY_PATTERN = /^vk_([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export function apiKeyStatus(key: Pick<ApiKeyRecord, 'revoked_at' | 'expires_at'>, now = nowIso()): ApiKeyStatus {
  if (key.revoked_at) return 'revoked';
  return key.expires_at <= now ? 'expired' : 'active';
}

function notFound(username: string, name: string): NotFoundError {
  return new NotFoundError(`user '${username}' has no API key named '${name}'`, { username, key_name: name });
}

export async function listApiKeys(db: Db, accountName: string, username: string): Promise<ApiKeyRecord[]> {
  return db<ApiKeyRecord>('api_keys').where({ account_name: accountName, username }).orderBy('name');
}

export async function getApiKey(db: Db, accountName: string, username: string, name: string): Promise<ApiKeyRecord> {
  const key = await db<ApiKeyRecord>('api_keys').where({ account_name: accountName, username, name }).first();
  if (!key) throw notFound(username, name);
  return key;
}

/** The expiry kept: whole seconds (the API shows it without fraction), so the key stops when its answer says. */
function parseExpiry(expiresAt: string | undefined): string {
  const now = Date.now();
  if (expiresAt === undefined) return new Date(floorToSecond(now + DEFAULT_LIFETIME_DAYS * 86400_000)).toISOString();
  const t = floorToSecond(Date.parse(expiresAt));
  if (Number.isNaN(t)) throw new InvalidError('expires_at is not a valid date-time', { errors: [{ location: 'body.expires_at', message: 'not a valid date-time' }] });
  if (t <= now) throw new InvalidError('expires_at must be in the future', { errors: [{ location: 'body.expires_at', message: 'must be in the future' }] });
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_LIFETIME_YEARS);
  if (t > latest.getTime())
    throw new InvalidError('expires_at may be at most 3 years ahead', { errors: [{ location: 'body.expires_at', message: 'at most 3 years ahead' }] });
  return new Date(t).toISOString();
}

/**
 * Why a single sign-on user may not hold or use API keys, or null: only when their identity provider allows it
 * (the service specification makes API keys for SSO users opt-in), checked at creation and at every use.
 */
export function ssoKeyProblem(user: { user_type: string; idp_name: string | null; idp_allows_api_keys: boolean | number | null }): string | null {
  if (user.user_type !== 'saml' || user.idp_allows_api_keys) return null;
  return `API keys are not allowed for users of identity provider '${user.idp_name}' (set allow_api_keys in its configuration)`;
}

export async function createApiKey(
  db: Db,
  accountName: string,
  username: string,
  input: { name: string; description?: string; expires_at?: string },
): Promise<{ record: ApiKeyRecord; value: string }> {
  const owner = await withSsoProvider(db, db('users as u')).where('u.username', username).first();
  const refused = owner ? ssoKeyProblem(owner) : null;
  if (refused) throw new ForbiddenError(refused, { username, idp_name: owner.idp_name });
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const now = nowIso();
  const record: ApiKeyRecord = {
    key_id: keyId,
    account_name: accountName,
    username,
    name: input.name,
    description: input.description ?? null,
    secret_hash: sha256(secret),
    expires_at: parseExpiry(input.expires_at),
    revoked_at: null,
    created_at: now,
    updated_at: now,
  };
  const inserted = await db('api_keys').insert(record).onConflict(['username', 'name']).ignore().returning('key_id');
  if (inserted.length === 0) throw new ConflictError(`user '${username}' already has an API key named '${input.name}'`, { username, key_name: input.name });
  return { record, value: `vk_${keyId}.${secret}` };
}

export async function patchApiKey(
  db: Db,
  accountName: string,
  username: string,
  name: string,
  patch: { name?: string; description?: string; status?: 'revoked' },
): Promise<ApiKeyRecord> {
  const key = await getApiKey(db, accountName, username, name);
  const now = nowIso();
  const changes: Partial<ApiKeyRecord> = { updated_at: now };
  if (patch.name !== undefined && patch.name !== key.name) {
    const clash = await db('api_keys').where({ username, name: patch.name }).first('key_id');
    if (clash) throw new ConflictError(`user '${username}' already has an API key named '${patch.name}'`, { username, key_name: patch.name });
    changes.name = patch.name;
  }
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.status === 'revoked' && !key.revoked_at) changes.revoked_at = now;
  await db('api_keys').where({ key_id: key.key_id }).update(changes);
  return { ...key, ...changes };
}

export async function deleteApiKey(db: Db, accountName: string, username: string, name: string): Promise<void> {
  const count = await db('api_keys').where({ account_name: accountName, username, name }).delete();
  if (count === 0) throw notFound(username, name);
}

/** Splits a presented key into its id and secret, or null when it is not a Vigil key. */
export function splitApiKey(value: string): { keyId: string; secret: string } | null {
  const m = KEY_PATTERN.exec(value);
  return m ? { keyId: m[1], secret: m[2] } : null;
}

/** Checks a presented secret against the stored key (constant time) and its state; answers why not, or null. */
export function apiKeyProblem(
  secret: string,
  key: Pick<ApiKeyRecord, 'secret_hash' | 'expires_at' | 'revoked_at'> | undefined,
): string | null {
  const presented = Buffer.from(sha256(secret), 'hex');
  // Compare against something of the same length even when the key is unknown, to keep timing uniform.
  const stored = Buffer.from(key?.secret_hash ?? '0'.repeat(64), 'hex');
  if (!key || !timingSafeEqual(presented, stored)) return 'unknown API key';
  const status = apiKeyStatus(key);
  return status === 'active' ? null : `API key is ${status}`;
}
