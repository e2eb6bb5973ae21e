/**
 * Helpers for the authentication tests: users with a role, the three kinds of credential for one user,
 * OAuth form requests, self-signed JWTs, ES256 key files, and a store (data dir, or Postgres database) that
 * several servers can be started on one after the other. Every HTTP exchange goes through test/support/http.ts
 * so it is validated against the spec.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, base64url } from 'jose';
import knex from 'knex';
import { expect } from 'vitest';
import { adminAuth, client, raw, type Auth, type RawResponse } from './http.js';
import { dropScratchDatabase } from './db.js';

/** A name no other test in the run uses: account and user names must be unique per deployment. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export interface TestUser {
  account: string;
  username: string;
  password: string;
}

/**
 * Creates an account and a user in it (as admin) and grants the user `role` in its own account, so that
 * GET /v2/account and the self-service API-key operations are permitted.
 */
export async function createUserWithRole(url: string, options: { role?: string; password?: string } = {}): Promise<TestUser> {
  const account = uniqueName('acct');
  const username = uniqueName('user');
  const password = options.password ?? `pw-${randomBytes(6).toString('hex')}`;
  const admin = client(url, adminAuth);
  // `type` and `user_type` have defaults in the spec, but the generated request types mark them required
  // (openapi-typescript's defaultNonNullable), so they are spelled out here.
  const created = await admin.POST('/accounts', { body: { name: account, type: 'user' } });
  expect(created.response.status).toBe(200);
  expect(created.data?.state).toBe('enabled');
  const user = await admin.POST('/accounts/{account_name}/users', {
    params: { path: { account_name: account } },
    body: { username, password, user_type: 'native' },
  });
  expect(user.response.status).toBe(200);
  expect(user.data).toMatchObject({ username, account_name: account, state: 'enabled' });
  const grant = await admin.POST('/rbac-manager/roles/{role_name}/members', {
    params: { path: { role_name: options.role ?? 'read-only' } },
    body: { username, domain_name: account },
  });
  expect(grant.response.status).toBe(200);
  return { account, username, password };
}

/** application/x-www-form-urlencoded POST to a public OAuth route (/v2/oauth/token, /v2/oauth/revoke, /v1/oauth/token). */
export function postForm(url: string, path: string, fields: Record<string, string>): Promise<RawResponse> {
  return raw(url, 'POST', path, {
    auth: null,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
}

/** Password grant; asserts success and answers the token pair. */
export async function passwordGrant(url: string, username: string, password: string, path = '/v2/oauth/token'): Promise<TokenPair> {
  const res = await postForm(url, path, { grant_type: 'password', username, password, client_id: 'anonymous' });
  expect(res.status, res.text).toBe(200);
  expect(typeof res.json.access_token).toBe('string');
  expect(typeof res.json.refresh_token).toBe('string');
  return res.json as TokenPair;
}

/** One credential of each kind for a user: its password, a fresh API key, and an access token. */
export interface UserCredentials {
  password: Auth;
  apiKey: Auth;
  bearer: Auth;
}

export async function credentialsOf(url: string, user: TestUser): Promise<UserCredentials> {
  const password: Auth = { basic: [user.username, user.password] };
  const key = await client(url, password).POST('/user/api-keys', { body: { name: uniqueName('key') } });
  expect(key.response.status).toBe(201);
  expect(key.data?.value).toMatch(/^vk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
  const tokens = await passwordGrant(url, user.username, user.password);
  return { password, apiKey: { apiKey: key.data!.value! }, bearer: { bearer: tokens.access_token } };
}

/** Asserts a 401 in the documented shape: ApiErrorResponse, a WWW-Authenticate challenge, and the reason. */
export function expectUnauthorized(res: RawResponse, message: string | RegExp): void {
  expect(res.status, res.text).toBe(401);
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/\bBasic realm="vigil"/);
  expect(challenge).toMatch(/\bBearer realm="vigil"/);
  expect(res.json).toMatchObject({ code: 401, error_type: 'unauthorized' });
  expect(typeof res.json.detail.request_id).toBe('string');
  if (typeof message === 'string') expect(res.json.message).toBe(message);
  else expect(res.json.message).toMatch(message);
}

/** GET /v2/user as `auth`; answers the raw response. */
export function whoAmI(url: string, auth: Auth): Promise<RawResponse> {
  return raw(url, 'GET', '/v2/user', { auth });
}

/** Asserts that `auth` authenticates as `username` (GET /v2/user) and reads its account (GET /v2/account). */
export async function expectAuthenticatesAs(url: string, auth: Auth, user: { username: string; account: string }): Promise<void> {
  const me = await whoAmI(url, auth);
  expect(me.status, me.text).toBe(200);
  expect(me.json).toMatchObject({ username: user.username, account_name: user.account });
  const account = await raw(url, 'GET', '/v2/account', { auth });
  expect(account.status, account.text).toBe(200);
  expect(account.json.name).toBe(user.account);
}

export const JWT_ISSUER = 'vigil';
export const JWT_AUDIENCE = 'vigil-api';

/** Claims in the shape src/auth/tokens.ts issues; override any of them. */
export interface TokenShape {
  sub: string;
  acct: string;
  typ?: 'access' | 'refresh';
  iss?: string;
  aud?: string;
  /** Seconds since the epoch. */
  exp: number;
  iat?: number;
  jti?: string;
}

/** Signs a JWT with HS256 and `secret` (utf8 bytes, as TokenService does). */
export function signHs256(secret: string | Uint8Array, claims: TokenShape): Promise<string> {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  return new SignJWT({ acct: claims.acct, typ: claims.typ ?? 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(claims.iss ?? JWT_ISSUER)
    .setAudience(claims.aud ?? JWT_AUDIENCE)
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .setExpirationTime(claims.exp)
    .setJti(claims.jti ?? randomUUID())
    .sign(key);
}

/** An unsigned token (`alg: none`) carrying otherwise valid claims. */
export function unsignedToken(claims: TokenShape): string {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
  const payload = base64url.encode(
    JSON.stringify({
      acct: claims.acct,
      typ: claims.typ ?? 'access',
      sub: claims.sub,
      iss: claims.iss ?? JWT_ISSUER,
      aud: claims.aud ?? JWT_AUDIENCE,
      iat: claims.iat ?? now,
      exp: claims.exp,
      jti: claims.jti ?? randomUUID(),
    }),
  );
  return `${header}.${payload}.`;
}

/** Replaces the payload of a signed token with `edit(payload)`, keeping the original header and signature. */
export function tamperPayload(token: string, edit: (payload: Record<string, unknown>) => Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const decoded = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as Record<string, unknown>;
  return `${header}.${base64url.encode(JSON.stringify(edit(decoded)))}.${signature}`;
}

/** Flips one character in the middle of the payload segment (to another base64url character). */
export function flipPayloadChar(token: string): string {
  const [header, payload, signature] = token.split('.');
  const i = Math.floor(payload.length / 2);
  const flipped = payload[i] === 'A' ? 'B' : 'A';
  return `${header}.${payload.slice(0, i)}${flipped}${payload.slice(i + 1)}.${signature}`;
}

/** A temp dir holding a fresh P-256 key pair as PEM files (PKCS#8 private, SPKI public). */
export function writeEs256KeyFiles(): { dir: string; privateKeyFile: string; publicKeyFile: string; publicKeyPem: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-es256-'));
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateKeyFile = join(dir, 'jwt-private.pem');
  const publicKeyFile = join(dir, 'jwt-public.pem');
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(publicKeyFile, publicKeyPem);
  return { dir, privateKeyFile, publicKeyFile, publicKeyPem, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Storage that outlives one server, for restart tests: env overrides for startTestServer naming a data dir
 * and, when VIGIL_TEST_DATABASE_URL is set, a Postgres database of our own. (startTestServer creates a fresh
 * database per server; VIGIL_DATABASE_URL in its env overrides wins, so both servers use this one. The harness
 * still creates and drops its own unused database, which is harmless.)
 */
export async function createReusableStore(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-store-'));
  const pgAdminUrl = process.env.VIGIL_TEST_DATABASE_URL;
  if (!pgAdminUrl) {
    return { env: { VIGIL_DATA_DIR: dataDir }, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `vigil_t_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: pgAdminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  const url = new URL(pgAdminUrl);
  url.pathname = `/${name}`;
  return {
    env: { VIGIL_DATA_DIR: dataDir, VIGIL_DATABASE_URL: url.toString() },
    async cleanup() {
      await dropScratchDatabase(pgAdminUrl, name);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
