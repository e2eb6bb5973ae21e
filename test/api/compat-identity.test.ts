/**
 * Upstream identity operations Vigil adds for drop-in clients: the users holding roles in an account
 * (`list_users_with_roles`, an `{items, total_rows}` object with `unified_roles`) and the caller's user groups
 * (`list_my_user_groups`, a bare array).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../support/http.js';
import { createAccount, createUser, expectForbidden, expectNotFound, grantRole } from '../support/rbac-fixtures.js';
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

describe('GET /accounts/{account_name}/users-with-roles', () => {
  it('lists the users holding a role in the account, from any account, with those roles', async () => {
    const account = await createAccount(url);
    const other = await createAccount(url);
    const member = await createUser(url, account, { roles: ['read-write', 'policy-editor'] });
    const guest = await createUser(url, other, { roles: ['read-only'] });
    await grantRole(url, 'read-only', guest.username, account);
    const roleless = await createUser(url, account);

    const res = await raw(url, 'GET', `/v2/accounts/${account}/users-with-roles`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.total_rows).toBe(2);
    const byName = new Map(res.json.items.map((u: { username: string }) => [u.username, u]));
    expect([...byName.keys()].sort()).toEqual([member.username, guest.username].sort());
    expect(byName.has(roleless.username)).toBe(false);

    const memberEntry = byName.get(member.username) as { account_name: string; unified_roles: { role_name: string }[] };
    expect(memberEntry.account_name).toBe(account);
    expect(memberEntry.unified_roles.map((r) => r.role_name).sort()).toEqual(['policy-editor', 'read-write']);
    expect(byName.get(guest.username)).toMatchObject({
      account_name: other,
      unified_roles: [{ role_name: 'read-only', domain_name: account, grant_type: 'direct', granted_at: expect.any(String) }],
    });
  });

  it('is empty for an account where nobody holds a role', async () => {
    const account = await createAccount(url);
    await createUser(url, account);
    const res = await raw(url, 'GET', `/v2/accounts/${account}/users-with-roles`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ items: [], total_rows: 0 });
  });

  it('is for user administrators: a read-only member is refused, an account-user-admin is answered', async () => {
    const account = await createAccount(url);
    const reader = await createUser(url, account, { roles: ['read-only'] });
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${account}/users-with-roles`, { auth: reader.auth }), 'listAccountUsersWithRoles');
    const admin = await createUser(url, account, { roles: ['account-user-admin'] });
    const res = await raw(url, 'GET', `/v2/accounts/${account}/users-with-roles`, { auth: admin.auth });
    expect(res.status, res.text).toBe(200);
    expect(res.json.items.map((u: { username: string }) => u.username).sort()).toEqual([admin.username, reader.username].sort());
  });

  it('answers 404 for an account that does not exist', async () => {
    expectNotFound(await raw(url, 'GET', '/v2/accounts/no-such-account-here/users-with-roles'));
  });
});

describe('GET /my-user-groups', () => {
  it('answers a bare empty array for a user who belongs to no group', async () => {
    const account = await createAccount(url);
    const user = await createUser(url, account, { roles: ['read-only'] });
    const res = await raw(url, 'GET', '/v2/my-user-groups', { auth: user.auth });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual([]);
  });

  it('needs credentials', async () => {
    const res = await raw(url, 'GET', '/v2/my-user-groups', { auth: null });
    expect(res.status).toBe(401);
  });
});
