/** Users of an account and their password credentials. Usernames are unique across the deployment. */
import type { Knex } from 'knex';
import type { Db } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import type { PasswordHasher } from './passwords.js';
import { findIdp } from './saml/idps.js';

export interface UserRecord {
  username: string;
  account_name: string;
  type: 'native' | 'saml';
  source: string;
  /** The SAML identity provider a saml user signs in through. */
  idp_name: string | null;
  /** The OpenID Connect provider a single sign-on user of source `oidc` signs in through. */
  oidc_provider?: string | null;
  state: 'enabled' | 'disabled';
  created_at: string;
  last_updated: string;
  password_last_updated: string | null;
}

export interface CredentialRecord {
  account_name: string;
  username: string;
  type: 'password';
  value_hash: string;
  created_at: string;
}

/** What authentication needs about a user and its account, read in one query per request. */
export interface LoginRecord {
  username: string;
  account_name: string;
  account_type: 'admin' | 'user' | 'service';
  account_state: 'enabled' | 'disabled' | 'deleting';
  account_email: string | null;
  account_created_at: string;
  account_last_updated: string;
  user_state: string;
  password_hash: string | null;
  /** Tokens issued under an older generation are refused (see revokeUserTokens). */
  token_generation: number;
  user_type: 'native' | 'saml';
  /** `native`, `saml` or `oidc`: the protocol a single sign-on user signs in with. */
  user_source: string;
  /** The SAML identity provider or OpenID Connect provider of a single sign-on user. */
  idp_name: string | null;
  /** For single sign-on users: whether their identity provider lets them use API keys. */
  idp_allows_api_keys: boolean | number | null;
}

/**
 * Adds a single sign-on user's provider (SAML or OpenID Connect) to a query over `users as u`: its name as
 * `idp_name` and whether it allows API keys as `idp_allows_api_keys`.
 */
export function withSsoProvider<Q extends Knex.QueryBuilder>(db: Db, query: Q): Q {
  return query
    .leftJoin('saml_idps as s', 's.name', 'u.idp_name')
    .leftJoin('oidc_providers as o', 'o.name', 'u.oidc_provider')
    .select(
      'u.type as user_type',
      'u.source as user_source',
      db.raw('coalesce(u.idp_name, u.oidc_provider) as idp_name'),
      db.raw('coalesce(s.allow_api_keys, o.allow_api_keys) as idp_allows_api_keys'),
    ) as Q;
}

export const MASKED_CREDENTIAL = '********';

function loginQuery(db: Db) {
  return withSsoProvider(db, db('users as u').join('accounts as a', 'a.name', 'u.account_name'))
    .select(
      'u.username',
      'u.account_name',
      'u.state as user_state',
      'u.token_generation',
      'a.type as account_type',
      'a.state as account_state',
      'a.email as account_email',
      'a.created_at as account_created_at',
      'a.last_updated as account_last_updated',
    );
}

export async function findLoginRecord(db: Db, username: string): Promise<LoginRecord | undefined> {
  return loginQuery(db)
    .leftJoin('credentials as c', function () {
      this.on('c.username', '=', 'u.username').andOnVal('c.type', '=', 'password');
    })
    .select('c.value_hash as password_hash')
    .where('u.username', username)
    .first();
}

/** The login record of a token's user, with whether the token id has been revoked (one query). */
export async function findTokenLogin(db: Db, username: string, jti: string): Promise<(LoginRecord & { revoked: boolean }) | undefined> {
  const row = await loginQuery(db)
    .select(db.raw('(select count(*) from revoked_tokens where jti = ?) as revoked', [jti]))
    .where('u.username', username)
    .first();
  return row ? { ...row, password_hash: null, revoked: Number(row.revoked) > 0 } : undefined;
}

/** The login record of an API key's owner, with the key's stored hash and state (one query). */
export async function findApiKeyLogin(
  db: Db,
  keyId: string,
): Promise<(LoginRecord & { secret_hash: string; expires_at: string; revoked_at: string | null }) | undefined> {
  const row = await loginQuery(db)
    .join('api_keys as k', 'k.username', 'u.username')
    .select('k.secret_hash', 'k.expires_at', 'k.revoked_at')
    .where('k.key_id', keyId)
    .first();
  return row ? { ...row, password_hash: null } : undefined;
}

/**
 * Ends every bearer token (access and refresh) the user holds: tokens carry the generation they were issued
 * under, and authentication refuses any but the current one. API keys are separate credentials and stay.
 */
export async function revokeUserTokens(db: Db, username: string): Promise<void> {
  await db('users').where({ username }).increment('token_generation', 1);
}

export async function getUser(db: Db, accountName: string, username: string): Promise<UserRecord> {
  const user = await db<UserRecord>('users').where({ account_name: accountName, username }).first();
  if (!user) throw new NotFoundError(`user '${username}' does not exist in account '${accountName}'`, { username, account_name: accountName });
  return user;
}

export async function findUserAnyAccount(db: Db, username: string): Promise<UserRecord | undefined> {
  return db<UserRecord>('users').where({ username }).first();
}

export async function listUsers(db: Db, accountName?: string): Promise<UserRecord[]> {
  const q = db<UserRecord>('users').orderBy(['account_name', 'username']);
  if (accountName !== undefined) q.where({ account_name: accountName });
  return q;
}

export interface NewUser {
  username: string;
  /** Native users only. */
  password?: string;
  user_type?: 'native' | 'saml';
  /** Saml users only: the identity provider the user signs in through. */
  idp_name?: string;
}

function invalidField(field: string, message: string): InvalidError {
  return new InvalidError(`${field}: ${message}`, { errors: [{ location: `body.${field}`, message }] });
}

/**
 * Creates a native user with its password, or a saml user bound to an identity provider (no password: it signs in
 * only through that provider, which is how a provider with require_existing_users admits its users).
 */
export async function createUser(db: Db, hasher: PasswordHasher, accountName: string, input: NewUser): Promise<UserRecord> {
  const type = input.user_type ?? 'native';
  if (type === 'saml') {
    if (input.password !== undefined) throw invalidField('password', 'a saml user has no password; it signs in through its identity provider');
    if (input.idp_name === undefined) throw invalidField('idp_name', 'is required for a saml user');
    if (!(await findIdp(db, input.idp_name))) throw invalidField('idp_name', `identity provider '${input.idp_name}' does not exist`);
  } else {
    if (input.idp_name !== undefined) throw invalidField('idp_name', 'only saml users sign in through an identity provider');
    if (input.password === undefined) throw invalidField('password', 'is required for a native user');
  }
  const valueHash = input.password === undefined ? null : await hasher.hash(input.password);
  const now = nowIso();
  const user: UserRecord = {
    username: input.username,
    account_name: accountName,
    type,
    source: type,
    idp_name: input.idp_name ?? null,
    state: 'enabled',
    created_at: now,
    last_updated: now,
    password_last_updated: valueHash === null ? null : now,
  };
  await db.transaction(async (trx) => {
    const inserted = await trx('users').insert(user).onConflict('username').ignore().returning('username');
    if (inserted.length === 0) throw new ConflictError(`user '${input.username}' already exists`, { username: input.username });
    if (valueHash !== null)
      await trx('credentials').insert({ account_name: accountName, username: input.username, type: 'password', value_hash: valueHash, created_at: now });
  });
  return user;
}

export async function deleteUser(db: Db, accountName: string, username: string): Promise<void> {
  const count = await db('users').where({ account_name: accountName, username }).delete();
  if (count === 0) throw new NotFoundError(`user '${username}' does not exist in account '${accountName}'`, { username, account_name: accountName });
}

export async function listCredentials(db: Db, accountName: string, username: string): Promise<CredentialRecord[]> {
  await getUser(db, accountName, username);
  return db<CredentialRecord>('credentials').where({ account_name: accountName, username }).orderBy('type');
}

/** Sets (or replaces) the user's password. A replaced password stops working at once, cached or not. */
export async function setPassword(
  db: Db,
  hasher: PasswordHasher,
  accountName: string,
  username: string,
  password: string,
): Promise<CredentialRecord> {
  await getUser(db, accountName, username);
  const now = nowIso();
  const record: CredentialRecord = { account_name: accountName, username, type: 'password', value_hash: await hasher.hash(password), created_at: now };
  await db.transaction(async (trx) => {
    await trx('credentials').insert(record).onConflict(['username', 'type']).merge(['value_hash', 'created_at']);
    await trx('users').where({ username }).update({ password_last_updated: now, last_updated: now });
    await revokeUserTokens(trx, username);
  });
  return record;
}

export async function deleteCredential(db: Db, accountName: string, username: string, type: 'password'): Promise<void> {
  await getUser(db, accountName, username);
  await db.transaction(async (trx) => {
    const count = await trx('credentials').where({ account_name: accountName, username, type }).delete();
    if (count === 0) throw new NotFoundError(`user '${username}' has no ${type} credential`, { username, credential_type: type });
    await revokeUserTokens(trx, username);
  });
}

export async function setUserState(db: Db, accountName: string, username: string, state: 'enabled' | 'disabled'): Promise<UserRecord> {
  await getUser(db, accountName, username);
  await db.transaction(async (trx) => {
    await trx('users').where({ account_name: accountName, username }).update({ state, last_updated: nowIso() });
    if (state === 'disabled') await revokeUserTokens(trx, username);
  });
  return getUser(db, accountName, username);
}
