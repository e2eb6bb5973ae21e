/**
 * RBAC: the role catalogue, role memberships, the caller's and a user's roles, the allow/deny matrix of every
 * built-in role, administrators, and acting on another account with x-service-account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, client, json, raw, type Auth } from '../support/http.js';
import {
  BUILTIN_ROLES,
  PASSWORD,
  SYSTEM_ACTIONS,
  createAccount,
  createUser,
  expectError,
  expectForbidden,
  expectNotFound,
  grantRole,
  snapshotAccount,
  specActions,
  uniqueName,
  type BuiltinRole,
} from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let url: string;
beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
});
afterAll(async () => {
  await server?.close();
});

const SA = 'x-service-account';
const members = (role: string) => `/v2/rbac-manager/roles/${role}/members`;

async function memberNames(role: string, domain: string, auth: Auth = adminAuth): Promise<string[]> {
  const res = await raw(url, 'GET', `${members(role)}?domain_name=${domain}`, { auth });
  expect(res.status, res.text).toBe(200);
  return res.json.map((m: { username: string }) => m.username);
}

describe('role catalogue', () => {
  it('lists every built-in role with a description', async () => {
    const { data, response } = await client(url).GET('/rbac-manager/roles');
    expect(response.status).toBe(200);
    const names = data!.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining([...BUILTIN_ROLES]));
    for (const role of data!.filter((r) => (BUILTIN_ROLES as readonly string[]).includes(r.name))) {
      expect(role.description).toMatch(/\S/);
      expect(role.created_at).toBeDefined();
    }
  });

  it('lets any user holding a role list the roles', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account, { roles: ['report-admin'] });
    const { data, response } = await client(url, user.auth).GET('/rbac-manager/roles');
    expect(response.status).toBe(200);
    expect(data!.map((r) => r.name)).toEqual(expect.arrayContaining([...BUILTIN_ROLES]));
  });

  it.each(BUILTIN_ROLES)('answers %s with its permissions: spec actions on target *, never a system action', async (role) => {
    const catalog = await specActions(url);
    const { data, response } = await client(url).GET('/rbac-manager/roles/{role_name}', { params: { path: { role_name: role } } });
    expect(response.status).toBe(200);
    expect(data!.name).toBe(role);
    expect(data!.immutable).toBe(true);
    expect(data!.permissions.length).toBeGreaterThan(0);
    const actions = data!.permissions.map((p) => p.action);
    for (const p of data!.permissions) {
      expect(p.target).toBe('*');
      expect(catalog.has(p.action), `${role} grants '${p.action}', which the spec does not name`).toBe(true);
    }
    expect(new Set(actions).size).toBe(actions.length);
    for (const system of SYSTEM_ACTIONS) expect(actions).not.toContain(system);
    // Every role may read the account and the role catalogue.
    expect(actions).toEqual(expect.arrayContaining(['getAccount', 'listRoles', 'getRole']));
  });

  it('grants what each role is for, and nothing more', async () => {
    const get = async (role: BuiltinRole) => {
      const { data } = await client(url).GET('/rbac-manager/roles/{role_name}', { params: { path: { role_name: role } } });
      return data!.permissions.map((p) => p.action);
    };
    const readOnly = await get('read-only');
    expect(readOnly).toContain('getAccount');
    expect(readOnly).not.toContain('createUser');
    expect(readOnly).not.toContain('listUsers');
    expect(readOnly).not.toContain('createRoleMember');
    for (const a of readOnly) expect(a, `read-only grants '${a}'`).toMatch(/^(get|list|view|self)/);

    const readWrite = await get('read-write');
    for (const a of ['createUser', 'deleteUser', 'listUsers', 'createRoleMember', 'deleteRoleMember']) expect(readWrite).not.toContain(a);

    const full = await get('full-control');
    expect(full).toEqual(expect.arrayContaining(['createUser', 'deleteUser', 'listUsers', 'createRoleMember', 'deleteRoleMember', 'createApiKey']));

    const userAdmin = await get('account-user-admin');
    expect(userAdmin).toEqual(
      expect.arrayContaining(['listUsers', 'createUser', 'getUser', 'updateUser', 'deleteUser', 'createApiKey', 'listRoleMembers', 'createRoleMember', 'deleteRoleMember']),
    );

    for (const role of ['image-analyzer', 'policy-editor', 'report-admin'] as const) {
      const actions = await get(role);
      for (const a of ['listUsers', 'createUser', 'createRoleMember', 'createApiKey']) expect(actions, `${role} grants '${a}'`).not.toContain(a);
    }
  });

  it('answers 404 for an unknown role', async () => {
    const res = await raw(url, 'GET', '/v2/rbac-manager/roles/no-such-role');
    expectNotFound(res);
    expect(res.json.message).toContain('no-such-role');
  });

  it('answers 400 for a role name outside the pattern', async () => {
    for (const bad of ['Read-Only', '-leading-dash', 'under_score', 'x'.repeat(65)]) {
      const res = await raw(url, 'GET', `/v2/rbac-manager/roles/${bad}`);
      expectError(res, 400, 'validation_error');
      expect(JSON.stringify(res.json.detail.errors)).toContain('role_name');
    }
  });
});

describe('role members', () => {
  it('adds, lists and removes a member; a second removal is 404', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);

    const added = await json(url, 'POST', members('read-only'), { username: user.username, domain_name: account });
    expect(added.status, added.text).toBe(200);
    // Exactly one of domain_name and for_account, as the established API's oneOf: domain_name.
    expect(added.json).toEqual({ username: user.username, domain_name: account, created_at: expect.any(String) });

    const { data, response } = await client(url).GET('/rbac-manager/roles/{role_name}/members', {
      params: { path: { role_name: 'read-only' }, query: { domain_name: account } },
    });
    expect(response.status).toBe(200);
    expect(data!).toEqual([{ username: user.username, domain_name: account, created_at: expect.any(String) }]);
    // Listing another role or another account does not show the membership.
    expect(await memberNames('full-control', account)).toEqual([]);
    expect(await memberNames('read-only', 'admin')).not.toContain(user.username);

    const del = await raw(url, 'DELETE', `${members('read-only')}?username=${user.username}&domain_name=${account}`);
    expect(del.status, del.text).toBe(204);
    expect(del.text).toBe('');
    expect(await memberNames('read-only', account)).toEqual([]);

    const again = await raw(url, 'DELETE', `${members('read-only')}?username=${user.username}&domain_name=${account}`);
    expectNotFound(again);
  });

  it('answers 409 for a duplicate membership', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account, { roles: ['policy-editor'] });
    const dup = await json(url, 'POST', members('policy-editor'), { username: user.username, domain_name: account });
    expectError(dup, 409, 'conflict');
    expect(await memberNames('policy-editor', account)).toEqual([user.username]);
  });

  it('accepts the deprecated for_account in the body and the query', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    const added = await json(url, 'POST', members('image-analyzer'), { username: user.username, for_account: account });
    expect(added.status, added.text).toBe(200);
    expect(added.json).toEqual({ username: user.username, domain_name: account, created_at: expect.any(String) });
    expect(added.json).not.toHaveProperty('for_account');
    expect(await memberNames('image-analyzer', account)).toEqual([user.username]);

    const viaAlias = await raw(url, 'GET', `${members('image-analyzer')}?for_account=${account}`);
    expect(viaAlias.status).toBe(200);
    expect(viaAlias.json.map((m: { username: string }) => m.username)).toEqual([user.username]);

    const del = await raw(url, 'DELETE', `${members('image-analyzer')}?username=${user.username}&for_account=${account}`);
    expect(del.status, del.text).toBe(204);
    expect(await memberNames('image-analyzer', account)).toEqual([]);
  });

  it('answers 404 for an unknown user or an unknown role', async () => {
    const account = await createAccount(url);
    const unknownUser = await json(url, 'POST', members('read-only'), { username: 'nobody-at-all', domain_name: account });
    expectNotFound(unknownUser);
    expect(unknownUser.json.message).toContain('nobody-at-all');

    const user = await createUser(url, account);
    const unknownRole = await json(url, 'POST', members('no-such-role'), { username: user.username, domain_name: account });
    expectNotFound(unknownRole);
    expectNotFound(await raw(url, 'GET', `${members('no-such-role')}?domain_name=${account}`));
  });

  it('answers 404 for a membership in an unknown account (administrator)', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    expectNotFound(await json(url, 'POST', members('read-only'), { username: user.username, domain_name: 'no-such-account' }));
  });

  it('answers 400 when the username is missing or malformed', async () => {
    const account = await createAccount(url);
    const missing = await json(url, 'POST', members('read-only'), { domain_name: account });
    expectError(missing, 400, 'validation_error');
    expect(missing.json.detail.errors).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'body.username' })]));

    const noQuery = await raw(url, 'DELETE', `${members('read-only')}?domain_name=${account}`);
    expectError(noQuery, 400, 'validation_error');
    expect(JSON.stringify(noQuery.json.detail.errors)).toContain('username');

    const badName = await json(url, 'POST', members('read-only'), { username: 'bad name!', domain_name: account });
    expectError(badName, 400, 'validation_error');
  });

  it('defaults to the target account: the caller’s own, or the one named by x-service-account', async () => {
    const account = await createAccount(url);
    const userAdmin = await createUser(url, account, { roles: ['account-user-admin'] });
    const user = await createUser(url, account);

    // No domain_name: the caller's own account.
    const added = await json(url, 'POST', members('read-only'), { username: user.username }, userAdmin.auth);
    expect(added.status, added.text).toBe(200);
    expect(added.json.domain_name).toBe(account);
    const listed = await raw(url, 'GET', members('read-only'), { auth: userAdmin.auth });
    expect(listed.status).toBe(200);
    expect(listed.json.map((m: { username: string }) => m.username)).toEqual([user.username]);

    // The administrator with the header acts on that account.
    const viaHeader = await json(url, 'POST', members('report-admin'), { username: user.username }, adminAuth, { [SA]: account });
    expect(viaHeader.status, viaHeader.text).toBe(200);
    expect(viaHeader.json.domain_name).toBe(account);
    expect(await memberNames('report-admin', account)).toEqual([user.username]);
    expect(await memberNames('report-admin', 'admin')).not.toContain(user.username);

    const removed = await raw(url, 'DELETE', `${members('read-only')}?username=${user.username}`, { auth: userAdmin.auth });
    expect(removed.status, removed.text).toBe(204);
    expect(await memberNames('read-only', account)).toEqual([]);
  });

  it('lets the administrator grant a user a role in another account', async () => {
    const home = await createAccount(url);
    const other = await createAccount(url);
    const user = await createUser(url, home);
    await grantRole(url, 'read-only', user.username, other);
    expect(await memberNames('read-only', other)).toEqual([user.username]);
    expect(await memberNames('read-only', home)).toEqual([]);
  });
});

describe('my roles and a user’s roles', () => {
  it('answers the caller’s roles as a bare array, one entry per account and role holding that role', async () => {
    const home = await createAccount(url);
    const other = await createAccount(url);
    const user = await createUser(url, home, { roles: ['read-only', 'account-user-admin'] });
    await grantRole(url, 'report-admin', user.username, other);

    const { data, response } = await client(url, user.auth).GET('/rbac-manager/my-roles');
    expect(response.status).toBe(200);
    expect(Array.isArray(data)).toBe(true);
    // As the established API's RbacManagerAccountRole: `roles` is one role object (with its permissions), not a list.
    const held = data!.map((i) => [i.domain_name, i.roles.name]).sort();
    expect(held).toEqual([[home, 'account-user-admin'], [home, 'read-only'], [other, 'report-admin']].sort());
    for (const item of data!) {
      expect(Array.isArray(item.roles)).toBe(false);
      expect(item.roles).toEqual((await client(url).GET('/rbac-manager/roles/{role_name}', { params: { path: { role_name: item.roles.name } } })).data);
      expect(item.for_account).toBe(item.domain_name);
      expect(item.account?.name).toBe(item.domain_name);
    }
  });

  it('answers an empty list to a user without roles, and 401 without credentials', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    const { data, response } = await client(url, user.auth).GET('/rbac-manager/my-roles');
    expect(response.status).toBe(200);
    expect(data!).toEqual([]);
    expectError(await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth: null }), 401, 'unauthorized');
  });

  it('lists a user’s memberships in an account, filtered by role', async () => {
    const home = await createAccount(url);
    const other = await createAccount(url);
    const user = await createUser(url, home, { roles: ['read-only', 'policy-editor'] });
    await grantRole(url, 'image-analyzer', user.username, other);
    const c = client(url);
    const path = { username: user.username };

    const inHome = await c.GET('/rbac-manager/users/{username}/roles', { params: { path, query: { domain_name: home } } });
    expect(inHome.response.status).toBe(200);
    expect(inHome.data!.map((m) => m.role).sort()).toEqual(['policy-editor', 'read-only']);
    for (const m of inHome.data!) {
      expect(m.domain_name).toBe(home);
      expect(m.for_account).toBe(home);
    }

    const filtered = await c.GET('/rbac-manager/users/{username}/roles', { params: { path, query: { domain_name: home, role: 'read-only' } } });
    expect(filtered.data!.map((m) => m.role)).toEqual(['read-only']);

    const inOther = await c.GET('/rbac-manager/users/{username}/roles', { params: { path, query: { domain_name: other } } });
    expect(inOther.data!.map((m) => [m.role, m.domain_name])).toEqual([['image-analyzer', other]]);

    const viaAlias = await c.GET('/rbac-manager/users/{username}/roles', { params: { path, query: { for_account: other } } });
    expect(viaAlias.data!.map((m) => m.role)).toEqual(['image-analyzer']);

    const viaHeader = await client(url, adminAuth, { [SA]: other }).GET('/rbac-manager/users/{username}/roles', { params: { path } });
    expect(viaHeader.data!.map((m) => m.role)).toEqual(['image-analyzer']);

    // Without a domain the target is the caller's (admin's) account, where the user holds nothing.
    const inAdmin = await c.GET('/rbac-manager/users/{username}/roles', { params: { path } });
    expect(inAdmin.data!).toEqual([]);
  });

  it('answers 404 for an unknown user and 400 for a bad role filter', async () => {
    expectNotFound(await raw(url, 'GET', '/v2/rbac-manager/users/nobody-here/roles'));
    const account = await createAccount(url);
    const user = await createUser(url, account);
    expectError(await raw(url, 'GET', `/v2/rbac-manager/users/${user.username}/roles?role=Not_A_Role`), 400, 'validation_error');
  });

  it('lets an account-user-admin list its users’ roles in its account, not in another', async () => {
    const home = await createAccount(url);
    const other = await createAccount(url);
    const userAdmin = await createUser(url, home, { roles: ['account-user-admin'] });
    const user = await createUser(url, home, { roles: ['read-only'] });
    const mine = await raw(url, 'GET', `/v2/rbac-manager/users/${user.username}/roles`, { auth: userAdmin.auth });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.json.map((m: { role: string }) => m.role)).toEqual(['read-only']);
    expectForbidden(await raw(url, 'GET', `/v2/rbac-manager/users/${user.username}/roles?domain_name=${other}`, { auth: userAdmin.auth }), 'listRoleMembers');
  });
});

interface MatrixCase {
  role: BuiltinRole;
  allowed: { what: string; method: string; path: (own: string) => string; body?: (own: string) => unknown; status: number };
  denied: { what: string; method: string; path: (own: string) => string; body?: (own: string) => unknown; action: string };
}

const newUserBody = () => ({ username: uniqueName('made'), password: PASSWORD });
const getAccount = { what: 'GET /v2/account', method: 'GET', path: () => '/v2/account', status: 200 };
const createUserOp = { what: 'POST /v2/accounts/{own}/users', method: 'POST', path: (own: string) => `/v2/accounts/${own}/users`, body: newUserBody };

const MATRIX: MatrixCase[] = [
  { role: 'read-only', allowed: getAccount, denied: { ...createUserOp, action: 'createUser' } },
  {
    role: 'read-write',
    allowed: getAccount,
    denied: { what: 'GET /v2/accounts/{own}/users', method: 'GET', path: (own) => `/v2/accounts/${own}/users`, action: 'listUsers' },
  },
  {
    role: 'full-control',
    allowed: { ...createUserOp, status: 200 },
    denied: { what: 'GET /v2/accounts', method: 'GET', path: () => '/v2/accounts', action: 'listAccounts' },
  },
  {
    role: 'account-user-admin',
    allowed: { ...createUserOp, status: 200 },
    denied: {
      what: 'PUT /v2/accounts/{own}/state',
      method: 'PUT',
      path: (own) => `/v2/accounts/${own}/state`,
      body: () => ({ state: 'disabled' }),
      action: 'updateAccount',
    },
  },
  {
    role: 'image-analyzer',
    allowed: getAccount,
    denied: { what: 'GET /v2/accounts/{own}/users', method: 'GET', path: (own) => `/v2/accounts/${own}/users`, action: 'listUsers' },
  },
  { role: 'policy-editor', allowed: getAccount, denied: { ...createUserOp, action: 'createUser' } },
  {
    role: 'report-admin',
    allowed: getAccount,
    denied: { what: 'GET /v2/accounts/{own}/users', method: 'GET', path: (own) => `/v2/accounts/${own}/users`, action: 'listUsers' },
  },
];

async function send(method: string, path: string, body: unknown, auth: Auth, headers: Record<string, string> = {}) {
  return body === undefined ? raw(url, method, path, { auth, headers }) : json(url, method, path, body, auth, headers);
}

describe('the RBAC matrix: one allowed and one denied operation per built-in role', () => {
  it('covers every built-in role', () => {
    expect(MATRIX.map((c) => c.role).sort()).toEqual([...BUILTIN_ROLES].sort());
  });

  it.each(MATRIX)('$role: allows $allowed.what, denies $denied.what', async ({ role, allowed, denied }) => {
    const account = await createAccount(url, 'matrix');
    const user = await createUser(url, account, { roles: [role] });

    const ok = await send(allowed.method, allowed.path(account), allowed.body?.(account), user.auth);
    expect(ok.status, ok.text).toBe(allowed.status);
    if (allowed.what === 'GET /v2/account') expect(ok.json.name).toBe(account);

    const before = await snapshotAccount(url, account);
    const no = await send(denied.method, denied.path(account), denied.body?.(account), user.auth);
    expectForbidden(no, denied.action);
    expect(await snapshotAccount(url, account)).toEqual(before);
  });

  it.each(BUILTIN_ROLES)('%s: may read the role catalogue but never perform a system action', async (role) => {
    const account = await createAccount(url, 'matrix');
    const user = await createUser(url, account, { roles: [role] });
    expect((await raw(url, 'GET', '/v2/rbac-manager/roles', { auth: user.auth })).status).toBe(200);
    expect((await raw(url, 'GET', '/v2/rbac-manager/roles/read-only', { auth: user.auth })).status).toBe(200);
    expectForbidden(await raw(url, 'GET', '/v2/accounts', { auth: user.auth }), 'listAccounts');
    expectForbidden(await json(url, 'POST', '/v2/accounts', { name: uniqueName('nope') }, user.auth), 'createAccount');
    expectForbidden(await raw(url, 'GET', '/v2/accounts/users', { auth: user.auth }), 'listAllUsers');
    expectForbidden(await json(url, 'PUT', `/v2/accounts/${account}`, { email: 'x@example.com' }, user.auth), 'updateAccount');
    expectForbidden(await raw(url, 'DELETE', `/v2/accounts/${account}`, { auth: user.auth }), 'deleteAccount');
  });

  it('full-control and account-user-admin manage users, keys and memberships of their own account', async () => {
    for (const role of ['full-control', 'account-user-admin'] as const) {
      const account = await createAccount(url, 'matrix');
      const manager = await createUser(url, account, { roles: [role] });
      const made = await createUser(url, account, { as: manager.auth });
      const base = `/v2/accounts/${account}/users/${made.username}`;
      expect((await raw(url, 'GET', `/v2/accounts/${account}/users`, { auth: manager.auth })).status).toBe(200);
      expect((await raw(url, 'GET', base, { auth: manager.auth })).status).toBe(200);
      expect((await json(url, 'POST', members('read-only'), { username: made.username }, manager.auth)).status).toBe(200);
      expect((await json(url, 'POST', `${base}/api-keys`, { name: 'k1' }, manager.auth)).status).toBe(201);
      expect((await raw(url, 'GET', `${base}/api-keys/k1`, { auth: manager.auth })).status).toBe(200);
      expect((await raw(url, 'DELETE', `${base}/api-keys/k1`, { auth: manager.auth })).status).toBe(204);
      expect((await json(url, 'PUT', `${base}/state`, { state: 'disabled' }, manager.auth)).status).toBe(200);
      expect((await raw(url, 'DELETE', base, { auth: manager.auth })).status).toBe(204);
      expect(await memberNames('read-only', account)).toEqual([]);
    }
  });

  it('a user without any role may read itself but nothing of its account', async () => {
    const account = await createAccount(url, 'matrix');
    const user = await createUser(url, account);
    const me = await client(url, user.auth).GET('/user');
    expect(me.response.status).toBe(200);
    expect(me.data).toMatchObject({ username: user.username, account_name: account });
    expect((await raw(url, 'GET', '/v2/user/credentials', { auth: user.auth })).status).toBe(200);
    expectForbidden(await raw(url, 'GET', '/v2/account', { auth: user.auth }), 'getAccount');
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${account}`, { auth: user.auth }), 'getAccount');
    expectForbidden(await raw(url, 'GET', '/v2/rbac-manager/roles', { auth: user.auth }), 'listRoles');
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${account}/users`, { auth: user.auth }), 'listUsers');
  });

  it('a user of the admin account without any role may do everything everywhere', async () => {
    const admin2 = await createUser(url, 'admin', { prefix: 'op' });
    const auth = admin2.auth;
    const other = await createAccount(url);

    const made = uniqueName('acct');
    expect((await json(url, 'POST', '/v2/accounts', { name: made }, auth)).status).toBe(200);
    const list = await raw(url, 'GET', '/v2/accounts', { auth });
    expect(list.status).toBe(200);
    expect(list.json.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining([other, made]));
    expect((await raw(url, 'GET', '/v2/accounts/users', { auth })).status).toBe(200);
    expect((await raw(url, 'GET', `/v2/accounts/${other}`, { auth })).status).toBe(200);
    const user = await createUser(url, other, { as: auth });
    expect((await raw(url, 'GET', `/v2/accounts/${other}/users/${user.username}`, { auth })).status).toBe(200);
    expect((await json(url, 'POST', members('read-write'), { username: user.username, domain_name: other }, auth)).status).toBe(200);
    expect((await raw(url, 'GET', `${members('read-write')}?domain_name=${other}`, { auth })).json).toHaveLength(1);
    expect((await json(url, 'PUT', `/v2/accounts/${other}`, { email: 'ops@example.com' }, auth)).json.email).toBe('ops@example.com');
    const viaHeader = await raw(url, 'GET', '/v2/account', { auth, headers: { [SA]: other } });
    expect(viaHeader.json.name).toBe(other);
    expect((await json(url, 'PUT', `/v2/accounts/${made}/state`, { state: 'disabled' }, auth)).status).toBe(200);
    expect((await raw(url, 'DELETE', `/v2/accounts/${made}`, { auth })).status).toBe(204);
  });
});

// x-anchore-account is the name clients of the established API send; it is the same header with the same checks.
describe.each([SA, 'x-anchore-account'])('acting on another account with %s', (header) => {
  it('lets an administrator act on another account', async () => {
    const other = await createAccount(url);
    const member = await createUser(url, other, { roles: ['read-only'] });
    const acct = await client(url, adminAuth, { [header]: other }).GET('/account');
    expect(acct.response.status).toBe(200);
    expect(acct.data!.name).toBe(other);
    const listed = await raw(url, 'GET', members('read-only'), { headers: { [header]: other } });
    expect(listed.json.map((m: { username: string }) => m.username)).toEqual([member.username]);
    // Without the header the administrator's own account.
    expect((await client(url).GET('/account')).data!.name).toBe('admin');
  });

  it('answers 404 to an administrator and 403 to anyone else for an unknown account, never falling back', async () => {
    const ghost = uniqueName('ghost');
    const adminRes = await raw(url, 'GET', '/v2/account', { headers: { [header]: ghost } });
    expectNotFound(adminRes);
    expect(adminRes.json.message).toContain(ghost);

    const account = await createAccount(url);
    const user = await createUser(url, account, { roles: ['full-control'] });
    const userRes = await raw(url, 'GET', '/v2/account', { auth: user.auth, headers: { [header]: ghost } });
    expectForbidden(userRes);
    expect(userRes.json).not.toHaveProperty('name');

    // The same for operations that change something: nothing lands in the caller's own account.
    const target = await createUser(url, account);
    const grant = await json(url, 'POST', members('read-only'), { username: target.username }, user.auth, { [header]: ghost });
    expectForbidden(grant);
    const adminGrant = await json(url, 'POST', members('read-only'), { username: target.username }, adminAuth, { [header]: ghost });
    expectNotFound(adminGrant);
    expect(await memberNames('read-only', account)).toEqual([]);
    expect(await memberNames('read-only', 'admin')).not.toContain(target.username);
  });

  it('answers 400 for a malformed account name in the header', async () => {
    const res = await raw(url, 'GET', '/v2/account', { headers: { [header]: '-not valid' } });
    expectError(res, 400, 'validation_error');
  });

  it('lets a user holding a role in another account act there with that role’s permissions only', async () => {
    const home = await createAccount(url);
    const other = await createAccount(url);
    const third = await createAccount(url);
    const user = await createUser(url, home, { roles: ['account-user-admin'] });
    await grantRole(url, 'read-only', user.username, other);
    const otherUser = await createUser(url, other);
    const before = await snapshotAccount(url, other);

    const acct = await client(url, user.auth, { [header]: other }).GET('/account');
    expect(acct.response.status).toBe(200);
    expect(acct.data!.name).toBe(other);
    expect((await raw(url, 'GET', '/v2/rbac-manager/roles', { auth: user.auth, headers: { [header]: other } })).status).toBe(200);

    // read-only in `other`: no user management there, even though the user manages users at home.
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${other}/users`, { auth: user.auth }), 'listUsers');
    expectForbidden(await json(url, 'POST', `/v2/accounts/${other}/users`, newUserBody(), user.auth, { [header]: other }), 'createUser');
    expectForbidden(await raw(url, 'GET', members('read-only'), { auth: user.auth, headers: { [header]: other } }), 'listRoleMembers');
    expectForbidden(
      await json(url, 'POST', members('full-control'), { username: user.username }, user.auth, { [header]: other }),
      'createRoleMember',
    );
    expectForbidden(
      await raw(url, 'DELETE', `${members('read-only')}?username=${user.username}`, { auth: user.auth, headers: { [header]: other } }),
      'deleteRoleMember',
    );
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${other}/users/${otherUser.username}`, { auth: user.auth }), 'getUser');
    // The path names the account, the header does not widen it.
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${other}/users`, { auth: user.auth, headers: { [header]: home } }), 'listUsers');

    // No role at all in `third`.
    expectForbidden(await raw(url, 'GET', '/v2/account', { auth: user.auth, headers: { [header]: third } }));
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${third}`, { auth: user.auth }), 'getAccount');

    // At home, without the header, its own role still applies.
    const home2 = await createUser(url, home, { as: user.auth });
    expect(home2.account).toBe(home);
    expect(await snapshotAccount(url, other)).toEqual(before);
  });

  it('stops honouring the header when the role is removed or the account is disabled', async () => {
    const home = await createAccount(url);
    const other = await createAccount(url);
    const user = await createUser(url, home, { roles: ['read-only'] });
    await grantRole(url, 'read-only', user.username, other);
    const opts = { auth: user.auth, headers: { [header]: other } };
    expect((await raw(url, 'GET', '/v2/account', opts)).status).toBe(200);

    expect((await json(url, 'PUT', `/v2/accounts/${other}/state`, { state: 'disabled' })).status).toBe(200);
    expectForbidden(await raw(url, 'GET', '/v2/account', opts));
    expect((await json(url, 'PUT', `/v2/accounts/${other}/state`, { state: 'enabled' })).status).toBe(200);
    expect((await raw(url, 'GET', '/v2/account', opts)).status).toBe(200);

    expect((await raw(url, 'DELETE', `${members('read-only')}?username=${user.username}&domain_name=${other}`)).status).toBe(204);
    expectForbidden(await raw(url, 'GET', '/v2/account', opts));
    // Home is unaffected.
    expect((await raw(url, 'GET', '/v2/account', { auth: user.auth })).json.name).toBe(home);
  });

  it('lets an account-user-admin of A manage role members of A but not of B', async () => {
    const a = await createAccount(url, 'a');
    const b = await createAccount(url, 'b');
    const userAdmin = await createUser(url, a, { roles: ['account-user-admin'] });
    const aUser = await createUser(url, a);
    const bUser = await createUser(url, b, { roles: ['read-only'] });
    const beforeB = await snapshotAccount(url, b);
    const auth = userAdmin.auth;

    // A: explicit domain, header naming A, and the default all work.
    expect((await json(url, 'POST', members('read-write'), { username: aUser.username, domain_name: a }, auth)).status).toBe(200);
    expect((await json(url, 'POST', members('report-admin'), { username: aUser.username }, auth, { [header]: a })).status).toBe(200);
    expect(await memberNames('read-write', a, auth)).toEqual([aUser.username]);
    expect((await raw(url, 'DELETE', `${members('read-write')}?username=${aUser.username}&domain_name=${a}`, { auth })).status).toBe(204);
    expect((await raw(url, 'DELETE', `${members('report-admin')}?username=${aUser.username}`, { auth })).status).toBe(204);

    // B: every way of naming it is refused.
    for (const body of [
      { username: aUser.username, domain_name: b },
      { username: bUser.username, domain_name: b },
      { username: bUser.username, for_account: b },
    ])
      expectForbidden(await json(url, 'POST', members('full-control'), body, auth), 'createRoleMember');
    expectForbidden(await json(url, 'POST', members('full-control'), { username: bUser.username }, auth, { [header]: b }));
    expectForbidden(await raw(url, 'GET', `${members('read-only')}?domain_name=${b}`, { auth }), 'listRoleMembers');
    expectForbidden(await raw(url, 'GET', `${members('read-only')}?for_account=${b}`, { auth }), 'listRoleMembers');
    expectForbidden(await raw(url, 'GET', members('read-only'), { auth, headers: { [header]: b } }));
    expectForbidden(await raw(url, 'DELETE', `${members('read-only')}?username=${bUser.username}&domain_name=${b}`, { auth }), 'deleteRoleMember');
    expectForbidden(await raw(url, 'DELETE', `${members('read-only')}?username=${bUser.username}`, { auth, headers: { [header]: b } }));

    expect(await snapshotAccount(url, b)).toEqual(beforeB);
    expect(await memberNames('read-only', b)).toEqual([bUser.username]);
  });
});

describe('x-service-account together with x-anchore-account', () => {
  it('answers 400 when x-service-account and x-anchore-account name different accounts, and nothing happens', async () => {
    const account = await createAccount(url);
    const target = await createUser(url, account);
    const other = await createAccount(url);
    const both = { [SA]: account, 'x-anchore-account': other };
    const res = await raw(url, 'GET', '/v2/account', { headers: both });
    expectError(res, 400, 'validation_error');
    expect(res.json.message).toMatch(/x-service-account and x-anchore-account name different accounts/);
    const grant = await json(url, 'POST', members('read-only'), { username: target.username }, adminAuth, both);
    expectError(grant, 400, 'validation_error');
    expect(await memberNames('read-only', account)).toEqual([]);
    expect(await memberNames('read-only', other)).toEqual([]);
    // The same account in both is fine.
    const same = await raw(url, 'GET', '/v2/account', { headers: { [SA]: account, 'x-anchore-account': account } });
    expect(same.status, same.text).toBe(200);
    expect(same.json.name).toBe(account);
  });
});
