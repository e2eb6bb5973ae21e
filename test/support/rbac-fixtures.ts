/**
 * Fixtures for the RBAC and isolation tests: unique accounts and users, role grants, error-shape assertions,
 * and a snapshot of everything an account owns (read as the administrator) to prove it did not change.
 * Every request goes through the spec-validating helpers of ./http.js.
 */
import { REPORT_ACTIONS } from '../../src/reports/actions.js';
import { expect } from 'vitest';
import { adminAuth, client, json, raw, type Auth, type RawResponse } from './http.js';

/** The built-in roles the platform stage ships. */
export const BUILTIN_ROLES = [
  'read-only',
  'read-write',
  'full-control',
  'account-user-admin',
  'image-analyzer',
  'policy-editor',
  'report-admin',
] as const;
export type BuiltinRole = (typeof BUILTIN_ROLES)[number];

/** Actions only users of the admin account may perform; no role grants them. */
export const SYSTEM_ACTIONS = [
  'listAccounts',
  'createAccount',
  'updateAccount',
  'deleteAccount',
  'listAllUsers',
  // The deployment's nodes, statistics, logging level and limits.
  'listServices',
  'getService',
  'deleteService',
  'getSystemStatistics',
  'updateLoggingLevel',
  'getResourceLimits',
  // The runtime settings.
  'getSystemConfig',
  'updateSystemConfig',
  'unsetSystemConfig',
  // Feeds and notification endpoint kinds are shared by every account.
  'updateFeeds',
  'updateNotificationEndpoint',
  // SAML identity providers and their user-group mappings.
  'listSamlIdps',
  'manageSamlIdps',
  // Artifact lifecycle policies delete images of every account.
  'listArtifactLifecyclePolicies',
  'createArtifactLifecyclePolicy',
  'getArtifactLifecyclePolicy',
  'updateArtifactLifecyclePolicy',
  'deleteArtifactLifecyclePolicy',
  // User groups.
  'listUserGroups',
  'createUserGroup',
  'getUserGroup',
  'updateUserGroup',
  'deleteUserGroup',
  'getUserGroupRoles',
  'addUserGroupRole',
  'deleteUserGroupRole',
  'getUserGroupUsers',
  'addUserGroupUser',
  'deleteUserGroupUser',
] as const;

export const PASSWORD = 'correct-horse-battery';

let seq = 0;
/** A name no other test in this run uses; valid as an account, user, key or role-member name. */
export function uniqueName(prefix: string): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}`;
}

export interface TestUser {
  username: string;
  password: string;
  account: string;
  auth: Auth;
}

/** Creates an ordinary (type user) account as the administrator; answers its name. */
export async function createAccount(url: string, prefix = 'acct'): Promise<string> {
  const name = uniqueName(prefix);
  const res = await json(url, 'POST', '/v2/accounts', { name });
  expect(res.status, res.text).toBe(200);
  expect(res.json).toMatchObject({ name, state: 'enabled', type: 'user' });
  return name;
}

/** Creates a user in `account` (as the administrator unless `as` says otherwise) and grants it `roles` there. */
export async function createUser(
  url: string,
  account: string,
  options: { roles?: readonly string[]; prefix?: string; as?: Auth } = {},
): Promise<TestUser> {
  const username = uniqueName(options.prefix ?? 'user');
  const res = await json(url, 'POST', `/v2/accounts/${account}/users`, { username, password: PASSWORD }, options.as ?? adminAuth);
  expect(res.status, res.text).toBe(200);
  expect(res.json).toMatchObject({ username, account_name: account, state: 'enabled' });
  for (const role of options.roles ?? []) await grantRole(url, role, username, account);
  return { username, password: PASSWORD, account, auth: { basic: [username, PASSWORD] } };
}

/** Grants `role` in account `domain` to `username`, as the administrator (or `as`). */
export async function grantRole(url: string, role: string, username: string, domain: string, as: Auth = adminAuth): Promise<void> {
  const res = await json(url, 'POST', `/v2/rbac-manager/roles/${role}/members`, { username, domain_name: domain }, as);
  expect(res.status, res.text).toBe(200);
  expect(res.json).toMatchObject({ username, domain_name: domain });
}

/** Creates an API key for a user as the administrator; answers its value. */
export async function createApiKey(url: string, account: string, username: string, name: string): Promise<string> {
  const res = await json(url, 'POST', `/v2/accounts/${account}/users/${username}/api-keys`, { name, description: 'fixture' });
  expect(res.status, res.text).toBe(201);
  expect(typeof res.json.value).toBe('string');
  return res.json.value as string;
}

/** The response is an ApiErrorResponse with this status and error type. */
export function expectError(res: RawResponse, status: number, errorType: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ code: status, error_type: errorType, message: expect.any(String), detail: expect.any(Object) });
  expect(res.json.message.length).toBeGreaterThan(0);
  expect(typeof res.json.detail.request_id).toBe('string');
}

/** 403 with the ApiErrorResponse shape; when `action` is given, the message names it. */
export function expectForbidden(res: RawResponse, action?: string): void {
  expectError(res, 403, 'forbidden');
  if (action) expect(res.json.message).toContain(action);
}

export function expectNotFound(res: RawResponse): void {
  expectError(res, 404, 'not_found');
}

/** The catalog of RBAC actions the served spec names (`x-authz-action` other than `none`). */
/** Every RBAC action: the REST spec's x-authz-action values and the GraphQL API's (which the spec cannot name). */
export async function specActions(url: string): Promise<Set<string>> {
  const res = await raw(url, 'GET', '/v2/openapi.json', { auth: null });
  expect(res.status).toBe(200);
  const actions = new Set<string>(REPORT_ACTIONS);
  for (const item of Object.values<any>(res.json.paths))
    for (const op of Object.values<any>(item))
      if (op && typeof op === 'object' && typeof op['x-authz-action'] === 'string' && op['x-authz-action'] !== 'none')
        actions.add(op['x-authz-action']);
  return actions;
}

/**
 * Everything an account owns, as the administrator sees it: the account, its users, each user's credentials,
 * API keys and roles in the account, and the members of every built-in role in the account.
 */
export async function snapshotAccount(url: string, account: string): Promise<unknown> {
  const c = client(url, adminAuth);
  const acct = await c.GET('/accounts/{account_name}', { params: { path: { account_name: account } } });
  expect(acct.response.status).toBe(200);
  const users = await c.GET('/accounts/{account_name}/users', { params: { path: { account_name: account } } });
  expect(users.response.status).toBe(200);
  const perUser: Record<string, unknown> = {};
  for (const u of users.data!) {
    const path = { account_name: account, username: u.username };
    const creds = await c.GET('/accounts/{account_name}/users/{username}/credentials', { params: { path } });
    const keys = await c.GET('/accounts/{account_name}/users/{username}/api-keys', { params: { path } });
    const roles = await c.GET('/rbac-manager/users/{username}/roles', {
      params: { path: { username: u.username }, query: { domain_name: account } },
    });
    expect([creds.response.status, keys.response.status, roles.response.status]).toEqual([200, 200, 200]);
    perUser[u.username] = { user: u, credentials: creds.data, api_keys: keys.data!.items, roles: roles.data };
  }
  const members: Record<string, unknown> = {};
  for (const role of BUILTIN_ROLES) {
    const m = await c.GET('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: role }, query: { domain_name: account } } });
    expect(m.response.status).toBe(200);
    members[role] = m.data;
  }
  return { account: acct.data, users: users.data, perUser, members };
}
