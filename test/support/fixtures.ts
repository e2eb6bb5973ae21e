/**
 * Shared fixtures for API tests: unique names, accounts and users created through the API, role grants, and
 * assertions for error bodies and for the body-level rejections (400 malformed JSON, 413, 415) every operation
 * with a JSON body shares. Everything goes through the validated helpers of ./http.ts.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import { adminAuth, client, json, raw, type Auth, type RawResponse } from './http.js';

export type Account = components['schemas']['Account'];
export type User = components['schemas']['User'];
export type ApiKey = components['schemas']['UserApiKey'];

/** A password that satisfies the spec (8..1024 characters). */
export const PASSWORD = 'correct-horse-battery';

let seq = 0;

/** A name unique across the test run, valid for accounts, users and API keys (at most 32 characters). */
export function uniqueName(prefix: string): string {
  seq += 1;
  return `${prefix}-${seq}-${randomBytes(4).toString('hex')}`;
}

/** ISO timestamp of `ms` milliseconds from now. */
export function fromNow(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

export const DAY_MS = 86_400_000;

/** Asserts the response is the documented error body with this status (and error_type when given). */
export function expectError(res: RawResponse, status: number, errorType?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json.code).toBe(status);
  if (errorType) expect(res.json.error_type).toBe(errorType);
  expect(typeof res.json.message).toBe('string');
  expect(res.json.detail.request_id).toBe(res.headers.get('x-request-id'));
}

/** Asserts a 400 validation error naming exactly these locations (in any order; duplicates collapsed). */
export function expectValidationError(res: RawResponse, locations: string[]): void {
  expectError(res, 400, 'validation_error');
  const got = [...new Set<string>(res.json.detail.errors.map((e: { location: string }) => e.location))].sort();
  expect(got).toEqual([...new Set(locations)].sort());
}

/** ISO 8601 UTC with milliseconds, as the API writes timestamps. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** ISO 8601 UTC in whole seconds, as the API writes the timestamps whose schema allows no fraction (API keys). */
export const ISO_UTC_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The timestamp as the API shows it in whole seconds (the fraction dropped). */
export function wholeSeconds(iso: string): string {
  return new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Asserts `ts` is an ISO UTC timestamp (of `form`) between `before` and now. */
export function expectRecent(ts: string | undefined, before: number, form: RegExp = ISO_UTC): void {
  expect(ts).toMatch(form);
  const t = Date.parse(ts!);
  expect(t).toBeGreaterThanOrEqual(before - 1000);
  expect(t).toBeLessThanOrEqual(Date.now() + 1000);
}

export async function createAccount(
  url: string,
  options: { name?: string; email?: string; type?: 'user' | 'service' } = {},
): Promise<Account> {
  const name = options.name ?? uniqueName('acct');
  const { data, response } = await client(url).POST('/accounts', { body: { ...options, name } });
  expect(response.status).toBe(200);
  return data!;
}

export interface TestUser {
  account: string;
  username: string;
  password: string;
  auth: Auth;
}

/** Creates a user in `account` (and grants `roles` in that account). */
export async function createUser(
  url: string,
  account: string,
  options: { username?: string; password?: string; roles?: string[] } = {},
): Promise<TestUser> {
  const username = options.username ?? uniqueName('user');
  const password = options.password ?? PASSWORD;
  const { data, response } = await client(url).POST('/accounts/{account_name}/users', {
    params: { path: { account_name: account } },
    body: { username, password },
  });
  expect(response.status).toBe(200);
  expect(data?.username).toBe(username);
  for (const role of options.roles ?? []) await grantRole(url, role, username, account);
  return { account, username, password, auth: { basic: [username, password] } };
}

/** A fresh account with one user holding `roles` there. */
export async function accountWithUser(url: string, roles: string[] = []): Promise<TestUser> {
  const account = await createAccount(url);
  return createUser(url, account.name, { roles });
}

export async function grantRole(url: string, role: string, username: string, domain: string): Promise<void> {
  const { response } = await client(url).POST('/rbac-manager/roles/{role_name}/members', {
    params: { path: { role_name: role } },
    body: { username, domain_name: domain },
  });
  expect(response.status).toBe(200);
}

export async function setAccountState(url: string, account: string, state: 'enabled' | 'disabled'): Promise<void> {
  const res = await json(url, 'PUT', `/v2/accounts/${account}/state`, { state });
  expect(res.status, res.text).toBe(200);
}

/** Creates an API key for a user as the admin and answers its value. */
export async function createApiKeyFor(url: string, user: TestUser, name = uniqueName('key')): Promise<string> {
  const res = await json(url, 'POST', `/v2/accounts/${user.account}/users/${user.username}/api-keys`, { name });
  expect(res.status, res.text).toBe(201);
  return res.json.value;
}

/** The status of GET /v2/user with these credentials: 200 when they authenticate, 401 when not. */
export async function whoAmI(url: string, auth: Auth): Promise<RawResponse> {
  return raw(url, 'GET', '/v2/user', { auth });
}

export async function expectAuthenticates(url: string, auth: Auth, username: string): Promise<void> {
  const res = await whoAmI(url, auth);
  expect(res.status, res.text).toBe(200);
  expect(res.json.username).toBe(username);
}

export async function expectRejected(url: string, auth: Auth): Promise<void> {
  const res = await whoAmI(url, auth);
  expectError(res, 401, 'unauthorized');
  expect(res.headers.get('www-authenticate')).toMatch(/Basic/);
}

/** One MiB and a bit: over the default body limit. */
export function oversizeBody(): string {
  return JSON.stringify({ name: 'big', padding: 'x'.repeat(1024 * 1024 + 16) });
}

/**
 * The body-level rejections every JSON-body operation shares: malformed JSON (400), a non-JSON content type
 * (415) and a body over the 1 MiB default limit (413). `validBody` is a body the operation would accept, so
 * the 415 case fails for the content type alone.
 */
export async function expectBodyRejections(url: string, method: string, path: string, validBody: unknown, auth: Auth = adminAuth): Promise<void> {
  const malformed = await raw(url, method, path, { auth, headers: { 'content-type': 'application/json' }, body: '{"name": "x",' });
  expectError(malformed, 400, 'validation_error');
  expect(malformed.json.message).toMatch(/not valid JSON/);

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    const wrongType = await raw(url, method, path, { auth, headers: { 'content-type': contentType }, body: JSON.stringify(validBody) });
    expectError(wrongType, 415, 'unsupported_media_type');
    expect(wrongType.json.detail.accepted).toEqual(['application/json']);
  }

  const big = await raw(url, method, path, { auth, headers: { 'content-type': 'application/json' }, body: oversizeBody() });
  expectError(big, 413, 'payload_too_large');

  const absent = await raw(url, method, path, { auth, headers: { 'content-type': 'application/json' } });
  expectValidationError(absent, ['body']);

  const notAnObject = await json(url, method, path, [validBody], auth);
  expectValidationError(notAnObject, ['body']);
}
