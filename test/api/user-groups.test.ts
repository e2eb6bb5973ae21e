/**
 * User groups: administrators manage groups, their members and account roles; a member's effective roles are
 * its own plus its groups', read afresh on every request (RBAC, my-roles, my-user-groups, users-with-roles).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordGrant } from '../support/auth-fixtures.js';
import { gql } from '../support/graphql.js';
import { json, raw, type Auth } from '../support/http.js';
import { createAccount, createUser, expectError, expectForbidden, expectNotFound, grantRole, uniqueName } from '../support/rbac-fixtures.js';
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

const GROUPS = '/v2/system/user-groups';

async function createGroup(description?: string): Promise<{ group_uuid: string; name: string }> {
  const name = uniqueName('group');
  const res = await json(url, 'POST', GROUPS, { name, ...(description ? { description } : {}) });
  expect(res.status, res.text).toBe(201);
  expect(res.json).toMatchObject({ name, group_uuid: expect.any(String), account_roles: { items: [] } });
  return res.json;
}

async function addRoles(group: string, domain: string, roles: string[]): Promise<any[]> {
  const res = await json(url, 'POST', `${GROUPS}/${group}/roles`, { domain_name: domain, roles: roles.map((role) => ({ role })) });
  expect(res.status, res.text).toBe(201);
  return res.json.items;
}

async function addUsers(group: string, usernames: string[]): Promise<any[]> {
  const res = await json(url, 'POST', `${GROUPS}/${group}/users`, { usernames: usernames.map((username) => ({ username })) });
  expect(res.status, res.text).toBe(201);
  return res.json.items;
}

const listImages = (auth: Auth, account?: string) =>
  raw(url, 'GET', '/v2/images', { auth, headers: account ? { 'x-service-account': account } : {} });

describe('user group management', () => {
  it('creates, gets, renames, lists with filters and deletes a group', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    const group = await createGroup('builders');
    const other = await createGroup();

    const got = await raw(url, 'GET', `${GROUPS}/${group.group_uuid}`);
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({ name: group.name, description: 'builders', group_uuid: group.group_uuid, account_roles: { items: [] } });

    const renamed = uniqueName('renamed');
    const patched = await json(url, 'PATCH', `${GROUPS}/${group.group_uuid}`, { name: renamed, description: 'release builders' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ name: renamed, description: 'release builders' });

    await addUsers(group.group_uuid, [user.username]);
    await addRoles(group.group_uuid, account, ['read-only']);
    const names = async (query: string) => {
      const res = await raw(url, 'GET', `${GROUPS}?${query}`);
      expect(res.status, res.text).toBe(200);
      return res.json.map((g: { group_uuid: string }) => g.group_uuid);
    };
    expect(await names('')).toEqual(expect.arrayContaining([group.group_uuid, other.group_uuid]));
    expect(await names(`contains_user=${user.username}`)).toEqual([group.group_uuid]);
    expect(await names(`contains_account=${account}`)).toEqual([group.group_uuid]);
    expect(await names(`user_group_name=${other.name}`)).toEqual([other.group_uuid]);
    expect(await names(`user_group_name=${other.name}&contains_user=${user.username}`)).toEqual([]);

    const listed = (await raw(url, 'GET', `${GROUPS}?contains_user=${user.username}`)).json[0];
    expect(listed.account_roles).toEqual({
      items: [{ for_account: account, domain_name: account, roles: [{ role: 'read-only', created_at: expect.any(String), membership_id: expect.any(String) }] }],
    });

    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}`)).status).toBe(204);
    expectNotFound(await raw(url, 'GET', `${GROUPS}/${group.group_uuid}`));
    expect(await names(`contains_user=${user.username}`)).toEqual([]);
  });

  it('refuses a duplicate name (409), on create and on rename', async () => {
    const a = await createGroup();
    const b = await createGroup();
    expectError(await json(url, 'POST', GROUPS, { name: a.name }), 409, 'conflict');
    expectError(await json(url, 'PATCH', `${GROUPS}/${b.group_uuid}`, { name: a.name }), 409, 'conflict');
  });

  it('answers 404 for an unknown group on every operation', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectNotFound(await raw(url, 'GET', `${GROUPS}/${unknown}`));
    expectNotFound(await json(url, 'PATCH', `${GROUPS}/${unknown}`, { description: 'x' }));
    expectNotFound(await raw(url, 'DELETE', `${GROUPS}/${unknown}`));
    expectNotFound(await raw(url, 'GET', `${GROUPS}/${unknown}/roles`));
    expectNotFound(await raw(url, 'GET', `${GROUPS}/${unknown}/users`));
    expectNotFound(await json(url, 'POST', `${GROUPS}/${unknown}/users`, { usernames: [{ username: 'admin' }] }));
  });

  it('refuses an unknown role, account or user (400) and grants nothing', async () => {
    const account = await createAccount(url);
    const group = await createGroup();
    expectError(await json(url, 'POST', `${GROUPS}/${group.group_uuid}/roles`, { domain_name: account, roles: [{ role: 'no-such-role' }] }), 400, 'validation_error');
    expectError(await json(url, 'POST', `${GROUPS}/${group.group_uuid}/roles`, { domain_name: 'no-such-account-x', roles: [{ role: 'read-only' }] }), 400, 'validation_error');
    expectError(await json(url, 'POST', `${GROUPS}/${group.group_uuid}/users`, { usernames: [{ username: 'no-such-user-x' }] }), 400, 'validation_error');
    expectError(await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles`), 400, 'validation_error');
    const roles = await raw(url, 'GET', `${GROUPS}/${group.group_uuid}/roles`);
    expect(roles.json).toEqual({ items: [] });
    expect((await raw(url, 'GET', `${GROUPS}/${group.group_uuid}/users`)).json).toEqual({ items: [] });
  });

  it('adds and removes members and roles', async () => {
    const account = await createAccount(url);
    const [u1, u2] = [await createUser(url, account), await createUser(url, account)];
    const group = await createGroup();
    const members = await addUsers(group.group_uuid, [u1.username, u2.username, u1.username]);
    expect(members.map((m) => m.username)).toEqual([u1.username, u2.username].sort());
    expect(members[0]).toMatchObject({ account_name: account, added_on: expect.any(String) });

    const roles = await addRoles(group.group_uuid, account, ['read-only', 'policy-editor']);
    expect(roles).toHaveLength(1);
    expect(roles[0].roles.map((r: { role: string }) => r.role)).toEqual(['policy-editor', 'read-only']);
    // Granting again changes nothing.
    expect((await addRoles(group.group_uuid, account, ['read-only']))[0].roles).toEqual(roles[0].roles);

    const policyEditor = roles[0].roles.find((r: { role: string }) => r.role === 'policy-editor');
    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles?membership_id=${policyEditor.membership_id}`)).status).toBe(204);
    expectNotFound(await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles?membership_id=${policyEditor.membership_id}`));
    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles?all_roles_for_account=${account}`)).status).toBe(204);
    expect((await raw(url, 'GET', `${GROUPS}/${group.group_uuid}/roles`)).json).toEqual({ items: [] });

    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/users?username=${u1.username}`)).status).toBe(204);
    expectNotFound(await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/users?username=${u1.username}`));
    const left = await raw(url, 'GET', `${GROUPS}/${group.group_uuid}/users`);
    expect(left.json.items.map((m: { username: string }) => m.username)).toEqual([u2.username]);
  });

  it('is for administrators only (403), even for a full-control user', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account, { roles: ['full-control'] });
    const group = await createGroup();
    expectForbidden(await raw(url, 'GET', GROUPS, { auth: user.auth }), 'listUserGroups');
    expectForbidden(await json(url, 'POST', GROUPS, { name: uniqueName('g') }, user.auth), 'createUserGroup');
    expectForbidden(await json(url, 'POST', `${GROUPS}/${group.group_uuid}/users`, { usernames: [{ username: user.username }] }, user.auth), 'addUserGroupUser');
    expectForbidden(await json(url, 'POST', `${GROUPS}/${group.group_uuid}/roles`, { domain_name: account, roles: [{ role: 'read-only' }] }, user.auth), 'addUserGroupRole');
  });
});

describe('effective roles through groups', () => {
  it('a user with no role of its own gains access through a group role and loses it on the next request', async () => {
    const home = await createAccount(url);
    const target = await createAccount(url);
    const user = await createUser(url, home);
    const group = await createGroup();
    await addUsers(group.group_uuid, [user.username]);

    expectForbidden(await listImages(user.auth, target));
    expectForbidden(await listImages(user.auth));

    const roles = await addRoles(group.group_uuid, target, ['read-only']);
    const res = await listImages(user.auth, target);
    expect(res.status, res.text).toBe(200);
    expectForbidden(await listImages(user.auth)); // the group grants nothing in the user's own account

    const membership = roles[0].roles[0].membership_id;
    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles?membership_id=${membership}`)).status).toBe(204);
    expectForbidden(await listImages(user.auth, target));
  });

  it('leaving the group or deleting it withdraws its roles at once', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    const group = await createGroup();
    await addRoles(group.group_uuid, account, ['read-only']);
    await addUsers(group.group_uuid, [user.username]);
    expect((await listImages(user.auth)).status).toBe(200);
    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/users?username=${user.username}`)).status).toBe(204);
    expectForbidden(await listImages(user.auth));

    await addUsers(group.group_uuid, [user.username]);
    expect((await listImages(user.auth)).status).toBe(200);
    expect((await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}`)).status).toBe(204);
    expectForbidden(await listImages(user.auth));
  });

  it('ends bearer sessions opened while a group role was held', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    const group = await createGroup();
    const roles = await addRoles(group.group_uuid, account, ['read-only']);
    await addUsers(group.group_uuid, [user.username]);
    const bearer: Auth = { bearer: (await passwordGrant(url, user.username, user.password)).access_token };
    expect((await listImages(bearer)).status).toBe(200);
    await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles?membership_id=${roles[0].roles[0].membership_id}`);
    expectError(await listImages(bearer), 401, 'unauthorized');
  });

  it('the GraphQL reporting scope follows group roles too', async () => {
    const target = await createAccount(url);
    const user = await createUser(url, await createAccount(url));
    const group = await createGroup();
    await addUsers(group.group_uuid, [user.username]);
    const query = '{ imagesByVulnerability(limit: 1) { pageInfo { count } } }';
    const ask = () => gql(url, query, { auth: user.auth, headers: { 'x-service-account': target } });
    expect((await ask()).status).toBe(403);
    const roles = await addRoles(group.group_uuid, target, ['read-only']);
    const allowed = await ask();
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.data.imagesByVulnerability.pageInfo.count).toBe(0);
    await raw(url, 'DELETE', `${GROUPS}/${group.group_uuid}/roles?membership_id=${roles[0].roles[0].membership_id}`);
    expect((await ask()).status).toBe(403);
  });

  it('my-roles lists group roles once per account and role; my-user-groups lists the groups', async () => {
    const account = await createAccount(url);
    const other = await createAccount(url);
    const user = await createUser(url, account, { roles: ['read-only'] });
    const group = await createGroup('team');
    await addUsers(group.group_uuid, [user.username]);
    await addRoles(group.group_uuid, account, ['read-only', 'image-analyzer']);
    await addRoles(group.group_uuid, other, ['policy-editor']);

    const mine = await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth: user.auth });
    expect(mine.status, mine.text).toBe(200);
    const pairs = mine.json.map((e: { domain_name: string; roles: { name: string } }) => `${e.domain_name}:${e.roles.name}`);
    expect(pairs.sort()).toEqual([`${account}:image-analyzer`, `${account}:read-only`, `${other}:policy-editor`].sort());

    const groups = await raw(url, 'GET', '/v2/my-user-groups', { auth: user.auth });
    expect(groups.status, groups.text).toBe(200);
    expect(groups.json).toHaveLength(1);
    expect(groups.json[0]).toMatchObject({ group_uuid: group.group_uuid, name: group.name, description: 'team' });
    expect(groups.json[0].account_roles.items.map((r: { domain_name: string }) => r.domain_name).sort()).toEqual([account, other].sort());
  });

  it('users-with-roles includes roles held through groups, marked group_membership', async () => {
    const account = await createAccount(url);
    const direct = await createUser(url, account, { roles: ['read-write'] });
    const viaGroup = await createUser(url, await createAccount(url));
    const both = await createUser(url, account);
    await grantRole(url, 'read-only', both.username, account);
    const group = await createGroup();
    await addUsers(group.group_uuid, [viaGroup.username, both.username]);
    await addRoles(group.group_uuid, account, ['read-only']);

    const res = await raw(url, 'GET', `/v2/accounts/${account}/users-with-roles`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.total_rows).toBe(3);
    const byName = new Map<string, any>(res.json.items.map((u: { username: string }) => [u.username, u]));
    expect(byName.get(direct.username).unified_roles).toEqual([
      { role_name: 'read-write', domain_name: account, grant_type: 'direct', granted_at: expect.any(String) },
    ]);
    expect(byName.get(viaGroup.username).unified_roles).toEqual([
      { role_name: 'read-only', domain_name: account, grant_type: 'group_membership', granter: group.name, group_name: group.name, granted_at: expect.any(String) },
    ]);
    expect(byName.get(both.username).unified_roles.map((r: { grant_type: string }) => r.grant_type)).toEqual(['direct', 'group_membership']);
  });

  it('deleting a user or an account leaves no group rows behind', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account);
    const group = await createGroup();
    await addUsers(group.group_uuid, [user.username]);
    await addRoles(group.group_uuid, account, ['read-only']);
    expect((await raw(url, 'DELETE', `/v2/accounts/${account}/users/${user.username}`)).status).toBe(204);
    expect((await raw(url, 'GET', `${GROUPS}/${group.group_uuid}/users`)).json).toEqual({ items: [] });
    expect((await json(url, 'PUT', `/v2/accounts/${account}/state`, { state: 'disabled' })).status).toBe(200);
    expect((await raw(url, 'DELETE', `/v2/accounts/${account}`)).status).toBe(204);
    const roles = await raw(url, 'GET', `${GROUPS}/${group.group_uuid}/roles`);
    expect(roles.json).toEqual({ items: [] });
  });
});
