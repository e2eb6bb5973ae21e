/**
 * Users of accounts, their state and credentials (User Management tag), and the caller's own user and
 * credentials (Identity: GET /v2/user, GET/POST /v2/user/credentials).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, client, json, raw } from '../support/http.js';
import {
  PASSWORD,
  accountWithUser,
  createAccount,
  createApiKeyFor,
  createUser,
  expectAuthenticates,
  expectBodyRejections,
  expectError,
  expectRecent,
  expectRejected,
  expectValidationError,
  uniqueName,
} from '../support/fixtures.js';
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

const MASK = '********';

async function storedHashes(): Promise<string[]> {
  const rows = await server.running.services.db('credentials').select('value_hash');
  return rows.map((r: { value_hash: string }) => r.value_hash);
}

describe('POST /v2/accounts/{account_name}/users', () => {
  it('creates an enabled native user that can authenticate and holds no role', async () => {
    const account = await createAccount(url);
    const username = uniqueName('user');
    const before = Date.now();
    const { data, response } = await client(url).POST('/accounts/{account_name}/users', {
      params: { path: { account_name: account.name } },
      body: { username, password: PASSWORD },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ username, account_name: account.name, type: 'native', state: 'enabled' });
    expect(data).not.toHaveProperty('password');
    expectRecent(data!.created_at, before);
    expect(data!.last_updated).toBe(data!.created_at);
    expect(data!.password_last_updated).toBe(data!.created_at);
    expect(JSON.stringify(data)).not.toContain(PASSWORD);

    await expectAuthenticates(url, { basic: [username, PASSWORD] }, username);
    const roles = await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth: { basic: [username, PASSWORD] } });
    expect(roles.status).toBe(200);
    expect(roles.json).toEqual([]);
  });

  it('accepts user_type native and usernames at the edges of the pattern', async () => {
    const account = await createAccount(url);
    const names = [`first.last+ci@${uniqueName('x')}.example`, `U${'s'.repeat(127)}`, `9_${uniqueName('n')}`];
    for (const username of names) {
      const res = await json(url, 'POST', `/v2/accounts/${account.name}/users`, { username, password: PASSWORD, user_type: 'native' });
      expect(res.status, res.text).toBe(200);
      expect(res.json.username).toBe(username);
    }
  });

  it('accepts a password of exactly 8 characters and refuses 7', async () => {
    const account = await createAccount(url);
    const ok = await json(url, 'POST', `/v2/accounts/${account.name}/users`, { username: uniqueName('user'), password: '12345678' });
    expect(ok.status).toBe(200);
    await expectAuthenticates(url, { basic: [ok.json.username, '12345678'] }, ok.json.username);
    const username = uniqueName('user');
    expectValidationError(await json(url, 'POST', `/v2/accounts/${account.name}/users`, { username, password: '1234567' }), ['body.password']);
    expectError(await raw(url, 'GET', `/v2/accounts/${account.name}/users/${username}`), 404, 'not_found');
    expectValidationError(
      await json(url, 'POST', `/v2/accounts/${account.name}/users`, { username, password: 'p'.repeat(1025) }),
      ['body.password'],
    );
  });

  it('accepts passwords with colons, non-ASCII characters, and up to 1024 characters', async () => {
    const account = await createAccount(url);
    for (const password of ['pass:word:with:colons', 'pässwörd-ünïcödé-密码', 'p'.repeat(1024)]) {
      const user = await createUser(url, account.name, { password });
      await expectAuthenticates(url, user.auth, user.username);
    }
  });

  it('refuses missing fields', async () => {
    const account = await createAccount(url);
    const path = `/v2/accounts/${account.name}/users`;
    expectValidationError(await json(url, 'POST', path, { password: PASSWORD }), ['body.username']);
    expectValidationError(await json(url, 'POST', path, { username: uniqueName('user') }), ['body.password']);
    // A password is required of native users only (saml users have none), which the schema alone cannot say.
    expectValidationError(await json(url, 'POST', path, {}), ['body.username']);
  });

  it('refuses wrong-typed fields', async () => {
    const account = await createAccount(url);
    const path = `/v2/accounts/${account.name}/users`;
    expectValidationError(await json(url, 'POST', path, { username: 12345678, password: PASSWORD }), ['body.username']);
    expectValidationError(await json(url, 'POST', path, { username: uniqueName('user'), password: 12345678 }), ['body.password']);
    expectValidationError(await json(url, 'POST', path, { username: uniqueName('user'), password: PASSWORD, user_type: 1 }), ['body.user_type']);
    expectValidationError(await json(url, 'POST', path, { username: uniqueName('user'), password: PASSWORD, user_type: 'ldap' }), ['body.user_type']);
  });

  it('refuses usernames that violate the pattern', async () => {
    const account = await createAccount(url);
    for (const username of ['', '_api_key', '-dash', '.dot', 'has space', 'colon:name', 'slash/name', 'ü', `a${'b'.repeat(128)}`]) {
      expectValidationError(await json(url, 'POST', `/v2/accounts/${account.name}/users`, { username, password: PASSWORD }), ['body.username']);
    }
  });

  it('answers 409 for a username taken in the same account or in any other', async () => {
    const first = await accountWithUser(url);
    const same = await json(url, 'POST', `/v2/accounts/${first.account}/users`, { username: first.username, password: 'another-password' });
    expectError(same, 409, 'conflict');
    expect(same.json.message).toContain(first.username);

    const other = await createAccount(url);
    const elsewhere = await json(url, 'POST', `/v2/accounts/${other.name}/users`, { username: first.username, password: 'another-password' });
    expectError(elsewhere, 409, 'conflict');
    expectError(await raw(url, 'GET', `/v2/accounts/${other.name}/users/${first.username}`), 404, 'not_found');
    // The original user and its password are untouched.
    await expectAuthenticates(url, first.auth, first.username);
    await expectRejected(url, { basic: [first.username, 'another-password'] });

    expectError(await json(url, 'POST', `/v2/accounts/${other.name}/users`, { username: 'admin', password: PASSWORD }), 409, 'conflict');
  });

  it('answers 404 for an unknown account and 400 for a bad account name', async () => {
    expectError(await json(url, 'POST', `/v2/accounts/${uniqueName('nobody')}/users`, { username: uniqueName('user'), password: PASSWORD }), 404, 'not_found');
    expectValidationError(await json(url, 'POST', '/v2/accounts/bad!/users', { username: uniqueName('user'), password: PASSWORD }), ['path.account_name']);
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    const account = await createAccount(url);
    await expectBodyRejections(url, 'POST', `/v2/accounts/${account.name}/users`, { username: uniqueName('user'), password: PASSWORD });
    const list = await raw(url, 'GET', `/v2/accounts/${account.name}/users`);
    expect(list.json).toEqual([]);
  });

  it('lets an account-user-admin create users in its account only', async () => {
    const manager = await accountWithUser(url, ['account-user-admin']);
    const res = await json(url, 'POST', `/v2/accounts/${manager.account}/users`, { username: uniqueName('user'), password: PASSWORD }, manager.auth);
    expect(res.status).toBe(200);
    expect(res.json.account_name).toBe(manager.account);
    const other = await createAccount(url);
    expectError(await json(url, 'POST', `/v2/accounts/${other.name}/users`, { username: uniqueName('user'), password: PASSWORD }, manager.auth), 403, 'forbidden');
    const writer = await accountWithUser(url, ['read-write']);
    expectError(await json(url, 'POST', `/v2/accounts/${writer.account}/users`, { username: uniqueName('user'), password: PASSWORD }, writer.auth), 403, 'forbidden');
    expectError(await json(url, 'POST', `/v2/accounts/${writer.account}/users`, { username: uniqueName('user'), password: PASSWORD }, null), 401, 'unauthorized');
  });
});

describe('GET /v2/accounts/{account_name}/users', () => {
  it("lists the account's users as a bare array", async () => {
    const account = await createAccount(url);
    const a = await createUser(url, account.name);
    const b = await createUser(url, account.name);
    await accountWithUser(url); // a user of another account, not listed
    const { data, response } = await client(url).GET('/accounts/{account_name}/users', { params: { path: { account_name: account.name } } });
    expect(response.status).toBe(200);
    expect(Array.isArray(data)).toBe(true);
    expect(data).toHaveLength(2);
    expect(data!.map((u) => u.username).sort()).toEqual([a.username, b.username].sort());
    for (const u of data!) expect(u).toMatchObject({ account_name: account.name, type: 'native', state: 'enabled' });
  });

  it('answers an empty list for an account without users', async () => {
    const account = await createAccount(url);
    const { data } = await client(url).GET('/accounts/{account_name}/users', { params: { path: { account_name: account.name } } });
    expect(data).toEqual([]);
  });

  it('lists the admin user in the admin account', async () => {
    const { data } = await client(url).GET('/accounts/{account_name}/users', { params: { path: { account_name: 'admin' } } });
    expect(data!.map((u) => u.username)).toContain('admin');
  });

  it('answers 404 for an unknown account and 400 for a bad name', async () => {
    expectError(await raw(url, 'GET', `/v2/accounts/${uniqueName('nobody')}/users`), 404, 'not_found');
    expectValidationError(await raw(url, 'GET', '/v2/accounts/-x/users'), ['path.account_name']);
  });

  it('needs a role granting listUsers in the account', async () => {
    const manager = await accountWithUser(url, ['account-user-admin']);
    const res = await raw(url, 'GET', `/v2/accounts/${manager.account}/users`, { auth: manager.auth });
    expect(res.status).toBe(200);
    expect(res.json.map((u: { username: string }) => u.username)).toEqual([manager.username]);
    const reader = await accountWithUser(url, ['read-only']);
    expectError(await raw(url, 'GET', `/v2/accounts/${reader.account}/users`, { auth: reader.auth }), 403, 'forbidden');
  });
});

describe('GET /v2/accounts/users', () => {
  it('lists the users of every account with total_rows', async () => {
    const a = await accountWithUser(url);
    const b = await accountWithUser(url);
    const { data, response } = await client(url).GET('/accounts/users');
    expect(response.status).toBe(200);
    expect(data!.total_rows).toBe(data!.items.length);
    const byName = new Map(data!.items.map((u) => [u.username, u]));
    expect(byName.get('admin')?.account_name).toBe('admin');
    expect(byName.get(a.username)?.account_name).toBe(a.account);
    expect(byName.get(b.username)?.account_name).toBe(b.account);
    expect(byName.size).toBe(data!.items.length);
  });

  it('is for administrators only', async () => {
    const user = await accountWithUser(url, ['full-control']);
    expectError(await raw(url, 'GET', '/v2/accounts/users', { auth: user.auth }), 403, 'forbidden');
    expectError(await raw(url, 'GET', '/v2/accounts/users', { auth: null }), 401, 'unauthorized');
  });
});

describe('GET /v2/accounts/{account_name}/users/{username}', () => {
  it('answers the user', async () => {
    const user = await accountWithUser(url);
    const created = (await raw(url, 'GET', `/v2/accounts/${user.account}/users`)).json[0];
    const { data, response } = await client(url).GET('/accounts/{account_name}/users/{username}', {
      params: { path: { account_name: user.account, username: user.username } },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual(created);
    expect(data).toMatchObject({ username: user.username, account_name: user.account, type: 'native', state: 'enabled' });
  });

  it('answers 404 for an unknown user, or a user of another account', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    expectError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/${uniqueName('nobody')}`), 404, 'not_found');
    expectError(await raw(url, 'GET', `/v2/accounts/${other.name}/users/${user.username}`), 404, 'not_found');
    expectError(await raw(url, 'GET', `/v2/accounts/${uniqueName('nobody')}/users/${user.username}`), 404, 'not_found');
  });

  it('answers 400 for names that violate the pattern', async () => {
    const user = await accountWithUser(url);
    expectValidationError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/_api_key`), ['path.username']);
    expectValidationError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/bad%20name`), ['path.username']);
    expectValidationError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/${'u'.repeat(129)}`), ['path.username']);
    expectValidationError(await raw(url, 'GET', `/v2/accounts/bad!/users/${user.username}`), ['path.account_name']);
  });
});

describe('DELETE /v2/accounts/{account_name}/users/{username}', () => {
  it('deletes the user with its credentials, API keys and role memberships', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const key = await createApiKeyFor(url, user);
    const { response } = await client(url).DELETE('/accounts/{account_name}/users/{username}', {
      params: { path: { account_name: user.account, username: user.username } },
    });
    expect(response.status).toBe(204);
    expectError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}`), 404, 'not_found');
    const list = await raw(url, 'GET', `/v2/accounts/${user.account}/users`);
    expect(list.json).toEqual([]);
    const all = await raw(url, 'GET', '/v2/accounts/users');
    expect(all.json.items.map((u: { username: string }) => u.username)).not.toContain(user.username);
    await expectRejected(url, user.auth);
    await expectRejected(url, { apiKey: key });
    const members = await raw(url, 'GET', `/v2/rbac-manager/roles/read-only/members?domain_name=${user.account}`);
    expect(members.json).toEqual([]);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${user.account}/users/${user.username}`), 404, 'not_found');

    // The name can be reused, and the new user inherits nothing.
    const again = await createUser(url, user.account, { username: user.username, password: 'yet-another-password' });
    await expectAuthenticates(url, again.auth, user.username);
    await expectRejected(url, { apiKey: key });
    expect((await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth: again.auth })).json).toEqual([]);
  });

  it('refuses to let a user delete itself', async () => {
    const res = await raw(url, 'DELETE', '/v2/accounts/admin/users/admin');
    expectError(res, 409, 'conflict');
    await expectAuthenticates(url, adminAuth, 'admin');

    const manager = await accountWithUser(url, ['account-user-admin']);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${manager.account}/users/${manager.username}`, { auth: manager.auth }), 409, 'conflict');
    await expectAuthenticates(url, manager.auth, manager.username);
  });

  it('lets an account-user-admin delete another user of its account', async () => {
    const manager = await accountWithUser(url, ['account-user-admin']);
    const victim = await createUser(url, manager.account);
    expect((await raw(url, 'DELETE', `/v2/accounts/${manager.account}/users/${victim.username}`, { auth: manager.auth })).status).toBe(204);
    await expectRejected(url, victim.auth);
    const reader = await accountWithUser(url, ['read-write']);
    const other = await createUser(url, reader.account);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${reader.account}/users/${other.username}`, { auth: reader.auth }), 403, 'forbidden');
  });

  it('answers 404 for an unknown user or one of another account, 400 for bad names', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${user.account}/users/${uniqueName('nobody')}`), 404, 'not_found');
    expectError(await raw(url, 'DELETE', `/v2/accounts/${other.name}/users/${user.username}`), 404, 'not_found');
    await expectAuthenticates(url, user.auth, user.username);
    expectValidationError(await raw(url, 'DELETE', `/v2/accounts/${user.account}/users/-x`), ['path.username']);
  });
});

describe('PUT /v2/accounts/{account_name}/users/{username}/state', () => {
  it('disables and re-enables a user; a disabled user cannot authenticate by password or API key', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const key = await createApiKeyFor(url, user);
    const off = await client(url).PUT('/accounts/{account_name}/users/{username}/state', {
      params: { path: { account_name: user.account, username: user.username } },
      body: { state: 'disabled' },
    });
    expect(off.response.status).toBe(200);
    expect(off.data).toMatchObject({ username: user.username, account_name: user.account, state: 'disabled' });
    expect(Date.parse(off.data!.last_updated)).toBeGreaterThanOrEqual(Date.parse(off.data!.created_at));
    const res = await raw(url, 'GET', '/v2/user', { auth: user.auth });
    expectError(res, 401, 'unauthorized');
    expect(res.json.message).toMatch(/disabled/);
    await expectRejected(url, { apiKey: key });
    const listed = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}`);
    expect(listed.json.state).toBe('disabled');

    const on = await json(url, 'PUT', `/v2/accounts/${user.account}/users/${user.username}/state`, { state: 'enabled' });
    expect(on.status).toBe(200);
    expect(on.json.state).toBe('enabled');
    await expectAuthenticates(url, user.auth, user.username);
    await expectAuthenticates(url, { apiKey: key }, user.username);
  });

  it('refuses to let a user disable itself, but enabling itself is a no-op', async () => {
    expectError(await json(url, 'PUT', '/v2/accounts/admin/users/admin/state', { state: 'disabled' }), 409, 'conflict');
    await expectAuthenticates(url, adminAuth, 'admin');
    const ok = await json(url, 'PUT', '/v2/accounts/admin/users/admin/state', { state: 'enabled' });
    expect(ok.status).toBe(200);
    expect(ok.json.state).toBe('enabled');

    const manager = await accountWithUser(url, ['account-user-admin']);
    expectError(
      await json(url, 'PUT', `/v2/accounts/${manager.account}/users/${manager.username}/state`, { state: 'disabled' }, manager.auth),
      409,
      'conflict',
    );
    await expectAuthenticates(url, manager.auth, manager.username);
  });

  it('refuses a bad, missing or wrong-typed state', async () => {
    const user = await accountWithUser(url);
    const path = `/v2/accounts/${user.account}/users/${user.username}/state`;
    for (const state of ['deleting', 'ENABLED', '']) expectValidationError(await json(url, 'PUT', path, { state }), ['body.state']);
    expectValidationError(await json(url, 'PUT', path, { state: 0 }), ['body.state']);
    expectValidationError(await json(url, 'PUT', path, {}), ['body.state']);
    await expectAuthenticates(url, user.auth, user.username);
  });

  it('answers 404 for an unknown user or one of another account, 400 for bad names', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    expectError(await json(url, 'PUT', `/v2/accounts/${user.account}/users/${uniqueName('nobody')}/state`, { state: 'disabled' }), 404, 'not_found');
    expectError(await json(url, 'PUT', `/v2/accounts/${other.name}/users/${user.username}/state`, { state: 'disabled' }), 404, 'not_found');
    await expectAuthenticates(url, user.auth, user.username);
    expectValidationError(await json(url, 'PUT', `/v2/accounts/${user.account}/users/a%20b/state`, { state: 'disabled' }), ['path.username']);
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    const user = await accountWithUser(url);
    await expectBodyRejections(url, 'PUT', `/v2/accounts/${user.account}/users/${user.username}/state`, { state: 'disabled' });
    await expectAuthenticates(url, user.auth, user.username);
  });
});

describe('GET /v2/accounts/{account_name}/users/{username}/credentials', () => {
  it('lists the password credential with its value masked, never a hash', async () => {
    const user = await accountWithUser(url);
    const { data, response } = await client(url).GET('/accounts/{account_name}/users/{username}/credentials', {
      params: { path: { account_name: user.account, username: user.username } },
    });
    expect(response.status).toBe(200);
    expect(data).toHaveLength(1);
    expect(data![0]).toMatchObject({ type: 'password', value: MASK });
    expect(data![0].created_at).toMatch(/Z$/);
    const text = JSON.stringify(data);
    expect(text).not.toContain(user.password);
    expect(text).not.toMatch(/argon2/);
    for (const hash of await storedHashes()) expect(text).not.toContain(hash);
  });

  it('answers 404 for an unknown user or one of another account', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    expectError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/${uniqueName('nobody')}/credentials`), 404, 'not_found');
    expectError(await raw(url, 'GET', `/v2/accounts/${other.name}/users/${user.username}/credentials`), 404, 'not_found');
    expectValidationError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/-x/credentials`), ['path.username']);
  });
});

describe('POST /v2/accounts/{account_name}/users/{username}/credentials', () => {
  it('sets a new password: the old one stops working, the new one works', async () => {
    const user = await accountWithUser(url);
    await expectAuthenticates(url, user.auth, user.username); // also warms the verification cache
    const before = Date.now();
    const { data, response } = await client(url).POST('/accounts/{account_name}/users/{username}/credentials', {
      params: { path: { account_name: user.account, username: user.username } },
      body: { type: 'password', value: 'the-new-password' },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ type: 'password', value: MASK });
    expectRecent(data!.created_at, before);
    await expectRejected(url, user.auth);
    await expectAuthenticates(url, { basic: [user.username, 'the-new-password'] }, user.username);

    const got = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}`);
    expectRecent(got.json.password_last_updated, before);
    const creds = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}/credentials`);
    expect(creds.json).toEqual([data]);
  });

  it('refuses a short, oversize, missing or wrong-typed value and a type other than password', async () => {
    const user = await accountWithUser(url);
    const path = `/v2/accounts/${user.account}/users/${user.username}/credentials`;
    expectValidationError(await json(url, 'POST', path, { type: 'password', value: 'short' }), ['body.value']);
    expectValidationError(await json(url, 'POST', path, { type: 'password', value: 'v'.repeat(1025) }), ['body.value']);
    expectValidationError(await json(url, 'POST', path, { type: 'password' }), ['body.value']);
    expectValidationError(await json(url, 'POST', path, { type: 'password', value: 123456789 }), ['body.value']);
    expectValidationError(await json(url, 'POST', path, { value: 'long-enough-value' }), ['body.type']);
    expectValidationError(await json(url, 'POST', path, { type: 'api_key', value: 'long-enough-value' }), ['body.type']);
    await expectAuthenticates(url, user.auth, user.username);
  });

  it('answers 404 for an unknown user or one of another account', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    const body = { type: 'password', value: 'hijacked-password' };
    expectError(await json(url, 'POST', `/v2/accounts/${user.account}/users/${uniqueName('nobody')}/credentials`, body), 404, 'not_found');
    expectError(await json(url, 'POST', `/v2/accounts/${other.name}/users/${user.username}/credentials`, body), 404, 'not_found');
    await expectAuthenticates(url, user.auth, user.username);
    await expectRejected(url, { basic: [user.username, 'hijacked-password'] });
    expectValidationError(await json(url, 'POST', `/v2/accounts/${user.account}/users/.x/credentials`, body), ['path.username']);
    expectValidationError(await json(url, 'POST', `/v2/accounts/-x/users/${user.username}/credentials`, body), ['path.account_name']);
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    const user = await accountWithUser(url);
    await expectBodyRejections(url, 'POST', `/v2/accounts/${user.account}/users/${user.username}/credentials`, {
      type: 'password',
      value: 'never-applied-password',
    });
    await expectAuthenticates(url, user.auth, user.username);
  });

  it('needs a role granting updateUser in the account', async () => {
    const reader = await accountWithUser(url, ['read-write']);
    const victim = await createUser(url, reader.account);
    const res = await json(url, 'POST', `/v2/accounts/${reader.account}/users/${victim.username}/credentials`, { type: 'password', value: 'taken-over!' }, reader.auth);
    expectError(res, 403, 'forbidden');
    await expectAuthenticates(url, victim.auth, victim.username);
  });
});

describe('DELETE /v2/accounts/{account_name}/users/{username}/credentials', () => {
  it('removes the password: the user can no longer log in until a new one is set', async () => {
    const user = await accountWithUser(url);
    const key = await createApiKeyFor(url, user);
    await expectAuthenticates(url, user.auth, user.username);
    const { response } = await client(url).DELETE('/accounts/{account_name}/users/{username}/credentials', {
      params: { path: { account_name: user.account, username: user.username }, query: { credential_type: 'password' } },
    });
    expect(response.status).toBe(204);
    const creds = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}/credentials`);
    expect(creds.json).toEqual([]);
    await expectRejected(url, user.auth);
    // The user itself, through an API key, sees no credential either.
    const own = await raw(url, 'GET', '/v2/user/credentials', { auth: { apiKey: key } });
    expect(own.status).toBe(200);
    expect(own.json).toEqual([]);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${user.account}/users/${user.username}/credentials?credential_type=password`), 404, 'not_found');

    const set = await json(url, 'POST', `/v2/accounts/${user.account}/users/${user.username}/credentials`, { type: 'password', value: 'back-again-password' });
    expect(set.status).toBe(200);
    await expectAuthenticates(url, { basic: [user.username, 'back-again-password'] }, user.username);
  });

  it('refuses a missing or unknown credential_type', async () => {
    const user = await accountWithUser(url);
    const base = `/v2/accounts/${user.account}/users/${user.username}/credentials`;
    expectValidationError(await raw(url, 'DELETE', base), ['query.credential_type']);
    expectValidationError(await raw(url, 'DELETE', `${base}?credential_type=api_key`), ['query.credential_type']);
    expectValidationError(await raw(url, 'DELETE', `${base}?credential_type=`), ['query.credential_type']);
    expectValidationError(await raw(url, 'DELETE', `${base}?credential_type=PASSWORD`), ['query.credential_type']);
    await expectAuthenticates(url, user.auth, user.username);
  });

  it('answers 404 for an unknown user or one of another account', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${user.account}/users/${uniqueName('nobody')}/credentials?credential_type=password`), 404, 'not_found');
    expectError(await raw(url, 'DELETE', `/v2/accounts/${other.name}/users/${user.username}/credentials?credential_type=password`), 404, 'not_found');
    await expectAuthenticates(url, user.auth, user.username);
    expectValidationError(await raw(url, 'DELETE', `/v2/accounts/${user.account}/users/a%20b/credentials?credential_type=password`), ['path.username']);
  });
});

describe('GET /v2/user', () => {
  it('answers the calling user, with no role needed', async () => {
    const user = await accountWithUser(url);
    const { data, response } = await client(url, user.auth).GET('/user');
    expect(response.status).toBe(200);
    const asAdmin = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}`);
    expect(data).toEqual(asAdmin.json);
  });

  it('answers the owner of an API key', async () => {
    const user = await accountWithUser(url);
    const key = await createApiKeyFor(url, user);
    const res = await raw(url, 'GET', '/v2/user', { auth: { apiKey: key } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ username: user.username, account_name: user.account });
  });

  it('answers the administrator', async () => {
    const { data } = await client(url).GET('/user');
    expect(data).toMatchObject({ username: 'admin', account_name: 'admin', state: 'enabled' });
  });

  it('needs valid credentials', async () => {
    const user = await accountWithUser(url);
    expectError(await raw(url, 'GET', '/v2/user', { auth: null }), 401, 'unauthorized');
    await expectRejected(url, { basic: [user.username, 'wrong-password'] });
    await expectRejected(url, { basic: [uniqueName('nobody'), PASSWORD] });
  });
});

describe('GET /v2/user/credentials', () => {
  it("lists the caller's credentials, masked", async () => {
    const user = await accountWithUser(url);
    const { data, response } = await client(url, user.auth).GET('/user/credentials');
    expect(response.status).toBe(200);
    expect(data).toHaveLength(1);
    expect(data![0]).toMatchObject({ type: 'password', value: MASK });
    const text = JSON.stringify(data);
    expect(text).not.toContain(user.password);
    for (const hash of await storedHashes()) expect(text).not.toContain(hash);
    const asAdmin = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}/credentials`);
    expect(data).toEqual(asAdmin.json);
  });

  it('needs authentication', async () => {
    expectError(await raw(url, 'GET', '/v2/user/credentials', { auth: null }), 401, 'unauthorized');
  });
});

describe('POST /v2/user/credentials', () => {
  it("changes the caller's own password, with no role needed", async () => {
    const user = await accountWithUser(url);
    await expectAuthenticates(url, user.auth, user.username);
    const before = Date.now();
    const { data, response } = await client(url, user.auth).POST('/user/credentials', { body: { type: 'password', value: 'my-own-new-password' } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ type: 'password', value: MASK });
    expectRecent(data!.created_at, before);
    await expectRejected(url, user.auth);
    await expectAuthenticates(url, { basic: [user.username, 'my-own-new-password'] }, user.username);
    const me = await raw(url, 'GET', '/v2/user', { auth: { basic: [user.username, 'my-own-new-password'] } });
    expectRecent(me.json.password_last_updated, before);
  });

  it('refuses a short, missing or wrong-typed value and a type other than password', async () => {
    const user = await accountWithUser(url);
    expectValidationError(await json(url, 'POST', '/v2/user/credentials', { type: 'password', value: '1234567' }, user.auth), ['body.value']);
    expectValidationError(await json(url, 'POST', '/v2/user/credentials', { type: 'password' }, user.auth), ['body.value']);
    expectValidationError(await json(url, 'POST', '/v2/user/credentials', { type: 'password', value: false }, user.auth), ['body.value']);
    expectValidationError(await json(url, 'POST', '/v2/user/credentials', { type: 'token', value: 'long-enough-value' }, user.auth), ['body.type']);
    expectValidationError(await json(url, 'POST', '/v2/user/credentials', {}, user.auth), ['body.type', 'body.value']);
    await expectAuthenticates(url, user.auth, user.username);
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    const user = await accountWithUser(url);
    await expectBodyRejections(url, 'POST', '/v2/user/credentials', { type: 'password', value: 'never-applied-password' }, user.auth);
    await expectAuthenticates(url, user.auth, user.username);
  });

  it('needs authentication', async () => {
    expectError(await json(url, 'POST', '/v2/user/credentials', { type: 'password', value: 'whatever-password' }, null), 401, 'unauthorized');
  });
});
