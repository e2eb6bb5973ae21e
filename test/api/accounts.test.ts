/**
 * Accounts (User Management tag) and the caller's account (Identity: GET /v2/account), plus the legacy
 * GET /v1/accounts and GET /v1/account aliases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, client, json, raw } from '../support/http.js';
import {
  ISO_UTC,
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
  grantRole,
  setAccountState,
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

describe('POST /v2/accounts', () => {
  it('creates an enabled user account by default', async () => {
    const before = Date.now();
    const name = uniqueName('acct');
    const { data, response } = await client(url).POST('/accounts', { body: { name } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name, state: 'enabled', type: 'user' });
    expect(data).not.toHaveProperty('email');
    expectRecent(data!.created_at, before);
    expect(data!.last_updated).toBe(data!.created_at);

    const got = await client(url).GET('/accounts/{account_name}', { params: { path: { account_name: name } } });
    expect(got.data).toEqual(data);
  });

  it('creates a service account with an e-mail address', async () => {
    const name = uniqueName('svc');
    const { data, response } = await client(url).POST('/accounts', { body: { name, email: 'ops@example.com', type: 'service' } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name, email: 'ops@example.com', type: 'service', state: 'enabled' });
    const got = await client(url).GET('/accounts/{account_name}', { params: { path: { account_name: name } } });
    expect(got.data).toMatchObject({ email: 'ops@example.com', type: 'service' });
  });

  it('accepts names at the edges of the pattern', async () => {
    for (const name of [`A${'b'.repeat(127)}`, `x@y.z_${uniqueName('n')}`, '9']) {
      const res = await json(url, 'POST', '/v2/accounts', { name });
      expect(res.status, res.text).toBe(200);
      expect(res.json.name).toBe(name);
    }
  });

  it('refuses type admin (only the bootstrap account is an admin account)', async () => {
    const name = uniqueName('acct');
    const res = await json(url, 'POST', '/v2/accounts', { name, type: 'admin' });
    expectValidationError(res, ['body.type']);
    expect(res.json.detail.errors[0].message).toMatch(/user, service/);
    expectError(await raw(url, 'GET', `/v2/accounts/${name}`), 404, 'not_found');
  });

  it('refuses an unknown type', async () => {
    expectValidationError(await json(url, 'POST', '/v2/accounts', { name: uniqueName('acct'), type: 'robot' }), ['body.type']);
  });

  it('refuses a missing name', async () => {
    expectValidationError(await json(url, 'POST', '/v2/accounts', { email: 'a@example.com' }), ['body.name']);
    expectValidationError(await json(url, 'POST', '/v2/accounts', {}), ['body.name']);
  });

  it('refuses wrong-typed fields', async () => {
    expectValidationError(await json(url, 'POST', '/v2/accounts', { name: 12345 }), ['body.name']);
    expectValidationError(await json(url, 'POST', '/v2/accounts', { name: ['a'] }), ['body.name']);
    expectValidationError(await json(url, 'POST', '/v2/accounts', { name: uniqueName('acct'), email: true }), ['body.email']);
    expectValidationError(await json(url, 'POST', '/v2/accounts', { name: uniqueName('acct'), type: 1 }), ['body.type']);
  });

  it('refuses names that violate the pattern', async () => {
    for (const name of ['', '-leading-dash', '.dot', 'has space', 'bad!name', 'slash/name', 'plus+sign', 'é', `a${'b'.repeat(128)}`]) {
      const res = await json(url, 'POST', '/v2/accounts', { name });
      expectValidationError(res, ['body.name']);
    }
  });

  it('refuses a malformed or oversize e-mail address', async () => {
    for (const email of ['not-an-email', 'a@', '@example.com', 'a b@example.com']) {
      expectValidationError(await json(url, 'POST', '/v2/accounts', { name: uniqueName('acct'), email }), ['body.email']);
    }
    const long = `${'a'.repeat(64)}@${'b'.repeat(250)}.example`;
    expect(long.length).toBeGreaterThan(320);
    expectValidationError(await json(url, 'POST', '/v2/accounts', { name: uniqueName('acct'), email: long }), ['body.email']);
  });

  it('names every violation at once', async () => {
    const res = await json(url, 'POST', '/v2/accounts', { name: 'bad name', email: 'nope', type: 'admin' });
    expectValidationError(res, ['body.name', 'body.email', 'body.type']);
  });

  it('answers 409 for an existing name, including the admin account', async () => {
    const account = await createAccount(url, { email: 'first@example.com' });
    const again = await json(url, 'POST', '/v2/accounts', { name: account.name, email: 'second@example.com' });
    expectError(again, 409, 'conflict');
    expect(again.json.message).toContain(account.name);
    // The first account is untouched.
    const got = await client(url).GET('/accounts/{account_name}', { params: { path: { account_name: account.name } } });
    expect(got.data?.email).toBe('first@example.com');
    expectError(await json(url, 'POST', '/v2/accounts', { name: 'admin' }), 409, 'conflict');
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    await expectBodyRejections(url, 'POST', '/v2/accounts', { name: uniqueName('acct') });
  });

  it('accepts a body of exactly 1 MiB and refuses one byte more', async () => {
    const limit = 1024 * 1024;
    const sized = (bytes: number) => {
      const skeleton = JSON.stringify({ name: uniqueName('acct'), email: '' });
      return skeleton.replace('"email":""', `"email":"${'a'.repeat(bytes - skeleton.length)}"`);
    };
    const atLimit = sized(limit);
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    // Read and validated (the e-mail address is far too long), not refused for its size.
    expectValidationError(await raw(url, 'POST', '/v2/accounts', { headers: { 'content-type': 'application/json' }, body: atLimit }), ['body.email']);
    const over = sized(limit + 1);
    expect(Buffer.byteLength(over)).toBe(limit + 1);
    expectError(await raw(url, 'POST', '/v2/accounts', { headers: { 'content-type': 'application/json' }, body: over }), 413, 'payload_too_large');
  });

  it('requires authentication and an administrator', async () => {
    expectError(await json(url, 'POST', '/v2/accounts', { name: uniqueName('acct') }, null), 401, 'unauthorized');
    const user = await accountWithUser(url, ['full-control']);
    const name = uniqueName('acct');
    expectError(await json(url, 'POST', '/v2/accounts', { name }, user.auth), 403, 'forbidden');
    expectError(await raw(url, 'GET', `/v2/accounts/${name}`), 404, 'not_found');
  });
});

describe('GET /v2/accounts', () => {
  it('lists every account, the admin account included', async () => {
    const a = await createAccount(url);
    const b = await createAccount(url, { type: 'service', email: 'b@example.com' });
    const { data, response } = await client(url).GET('/accounts');
    expect(response.status).toBe(200);
    const byName = new Map(data!.map((x) => [x.name, x]));
    expect(byName.get('admin')).toMatchObject({ type: 'admin', state: 'enabled' });
    expect(byName.get(a.name)).toEqual(a);
    expect(byName.get(b.name)).toEqual(b);
    expect(new Set(data!.map((x) => x.name)).size).toBe(data!.length);
  });

  it('filters by state', async () => {
    const enabled = await createAccount(url);
    const disabled = await createAccount(url);
    await setAccountState(url, disabled.name, 'disabled');

    const d = await client(url).GET('/accounts', { params: { query: { state: 'disabled' } } });
    expect(d.response.status).toBe(200);
    expect(d.data!.every((x) => x.state === 'disabled')).toBe(true);
    const dNames = d.data!.map((x) => x.name);
    expect(dNames).toContain(disabled.name);
    expect(dNames).not.toContain(enabled.name);
    expect(dNames).not.toContain('admin');

    const e = await client(url).GET('/accounts', { params: { query: { state: 'enabled' } } });
    expect(e.data!.every((x) => x.state === 'enabled')).toBe(true);
    const eNames = e.data!.map((x) => x.name);
    expect(eNames).toContain(enabled.name);
    expect(eNames).toContain('admin');
    expect(eNames).not.toContain(disabled.name);

    const deleting = await client(url).GET('/accounts', { params: { query: { state: 'deleting' } } });
    expect(deleting.data!).toEqual([]);
  });

  it('refuses an unknown state filter', async () => {
    for (const state of ['bogus', 'ENABLED', '']) {
      const res = await raw(url, 'GET', `/v2/accounts?state=${state}`);
      expectValidationError(res, ['query.state']);
    }
  });

  it('is for administrators only', async () => {
    expectError(await raw(url, 'GET', '/v2/accounts', { auth: null }), 401, 'unauthorized');
    const user = await accountWithUser(url, ['full-control']);
    expectError(await raw(url, 'GET', '/v2/accounts', { auth: user.auth }), 403, 'forbidden');
  });
});

describe('GET /v1/accounts and GET /v1/account (legacy aliases)', () => {
  it('GET /v1/accounts answers the accounts as a bare array', async () => {
    const a = await createAccount(url);
    const v1 = await raw(url, 'GET', '/v1/accounts');
    expect(v1.status).toBe(200);
    expect(Array.isArray(v1.json)).toBe(true);
    const v2 = await raw(url, 'GET', '/v2/accounts');
    expect(v1.json).toEqual(v2.json);
    expect(v1.json.map((x: { name: string }) => x.name)).toContain(a.name);
  });

  it('GET /v1/accounts honours the state filter and its validation', async () => {
    const disabled = await createAccount(url);
    await setAccountState(url, disabled.name, 'disabled');
    const v1 = await raw(url, 'GET', '/v1/accounts?state=disabled');
    expect(v1.status).toBe(200);
    expect(v1.json.map((x: { name: string }) => x.name)).toContain(disabled.name);
    expect(v1.json.every((x: { state: string }) => x.state === 'disabled')).toBe(true);
    expectValidationError(await raw(url, 'GET', '/v1/accounts?state=bogus'), ['query.state']);
  });

  it("GET /v1/account answers the caller's account", async () => {
    const admin = await raw(url, 'GET', '/v1/account');
    expect(admin.status).toBe(200);
    expect(admin.json).toMatchObject({ name: 'admin', type: 'admin', state: 'enabled' });

    const user = await accountWithUser(url, ['read-only']);
    const mine = await raw(url, 'GET', '/v1/account', { auth: user.auth });
    expect(mine.status).toBe(200);
    expect(mine.json.name).toBe(user.account);
    const v2 = await raw(url, 'GET', '/v2/account', { auth: user.auth });
    expect(mine.json).toEqual(v2.json);
  });

  it('the aliases require authentication', async () => {
    expectError(await raw(url, 'GET', '/v1/accounts', { auth: null }), 401, 'unauthorized');
    expectError(await raw(url, 'GET', '/v1/account', { auth: null }), 401, 'unauthorized');
  });
});

describe('GET /v2/accounts/{account_name}', () => {
  it('answers the account', async () => {
    const a = await createAccount(url, { email: 'x@example.com' });
    const { data, response } = await client(url).GET('/accounts/{account_name}', { params: { path: { account_name: a.name } } });
    expect(response.status).toBe(200);
    expect(data).toEqual(a);
    expect(data!.created_at).toMatch(ISO_UTC);
  });

  it('answers the admin account', async () => {
    const { data } = await client(url).GET('/accounts/{account_name}', { params: { path: { account_name: 'admin' } } });
    expect(data).toMatchObject({ name: 'admin', type: 'admin', state: 'enabled' });
  });

  it('answers 404 for an unknown account', async () => {
    const name = uniqueName('nobody');
    const res = await raw(url, 'GET', `/v2/accounts/${name}`);
    expectError(res, 404, 'not_found');
    expect(res.json.message).toContain(name);
  });

  it('answers 400 for a name that violates the pattern', async () => {
    for (const name of ['-dash', 'bad%20name', 'bad!', `a${'b'.repeat(128)}`]) {
      expectValidationError(await raw(url, 'GET', `/v2/accounts/${name}`), ['path.account_name']);
    }
  });

  it('lets a user with a role read its own account, and no other', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const own = await raw(url, 'GET', `/v2/accounts/${user.account}`, { auth: user.auth });
    expect(own.status).toBe(200);
    expect(own.json.name).toBe(user.account);
    const other = await createAccount(url);
    expectError(await raw(url, 'GET', `/v2/accounts/${other.name}`, { auth: user.auth }), 403, 'forbidden');
    // Non-administrators learn nothing about which accounts exist.
    expectError(await raw(url, 'GET', `/v2/accounts/${uniqueName('nobody')}`, { auth: user.auth }), 403, 'forbidden');
  });
});

describe('PUT /v2/accounts/{account_name}', () => {
  it("updates the account's e-mail address", async () => {
    const a = await createAccount(url, { email: 'old@example.com' });
    const { data, response } = await client(url).PUT('/accounts/{account_name}', {
      params: { path: { account_name: a.name } },
      body: { email: 'new@example.com' },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name: a.name, email: 'new@example.com', state: 'enabled', type: 'user', created_at: a.created_at });
    expect(Date.parse(data!.last_updated)).toBeGreaterThanOrEqual(Date.parse(a.last_updated));
    const got = await client(url).GET('/accounts/{account_name}', { params: { path: { account_name: a.name } } });
    expect(got.data).toEqual(data);
  });

  it('sets an e-mail address on an account that had none', async () => {
    const a = await createAccount(url);
    const res = await json(url, 'PUT', `/v2/accounts/${a.name}`, { email: 'set@example.com' });
    expect(res.status).toBe(200);
    expect(res.json.email).toBe('set@example.com');
  });

  it('refuses a bad, missing or wrong-typed e-mail address', async () => {
    const a = await createAccount(url, { email: 'keep@example.com' });
    for (const email of ['not-an-email', '', 'a@b@c']) {
      expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}`, { email }), ['body.email']);
    }
    expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}`, { email: 42 }), ['body.email']);
    expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}`, {}), ['body.email']);
    expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}`, { email: `${'a'.repeat(320)}@example.com` }), ['body.email']);
    const got = await raw(url, 'GET', `/v2/accounts/${a.name}`);
    expect(got.json.email).toBe('keep@example.com');
  });

  it('answers 404 for an unknown account and 400 for a bad name', async () => {
    expectError(await json(url, 'PUT', `/v2/accounts/${uniqueName('nobody')}`, { email: 'a@example.com' }), 404, 'not_found');
    expectValidationError(await json(url, 'PUT', '/v2/accounts/-bad', { email: 'a@example.com' }), ['path.account_name']);
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    const a = await createAccount(url);
    await expectBodyRejections(url, 'PUT', `/v2/accounts/${a.name}`, { email: 'a@example.com' });
  });

  it('is for administrators only, even on their own account', async () => {
    const user = await accountWithUser(url, ['full-control']);
    expectError(await json(url, 'PUT', `/v2/accounts/${user.account}`, { email: 'me@example.com' }, user.auth), 403, 'forbidden');
  });
});

describe('PUT /v2/accounts/{account_name}/state', () => {
  it('disables and re-enables an account; users of a disabled account cannot authenticate', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const key = await createApiKeyFor(url, user);
    await expectAuthenticates(url, user.auth, user.username);

    const off = await client(url).PUT('/accounts/{account_name}/state', {
      params: { path: { account_name: user.account } },
      body: { state: 'disabled' },
    });
    expect(off.response.status).toBe(200);
    expect(off.data).toEqual({ state: 'disabled' });
    const got = await raw(url, 'GET', `/v2/accounts/${user.account}`);
    expect(got.json.state).toBe('disabled');
    await expectRejected(url, user.auth);
    await expectRejected(url, { apiKey: key });

    const on = await client(url).PUT('/accounts/{account_name}/state', {
      params: { path: { account_name: user.account } },
      body: { state: 'enabled' },
    });
    expect(on.data).toEqual({ state: 'enabled' });
    await expectAuthenticates(url, user.auth, user.username);
    await expectAuthenticates(url, { apiKey: key }, user.username);
  });

  it('is idempotent', async () => {
    const a = await createAccount(url);
    for (const state of ['disabled', 'disabled', 'enabled', 'enabled'] as const) {
      const res = await json(url, 'PUT', `/v2/accounts/${a.name}/state`, { state });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ state });
    }
  });

  it('refuses to disable the admin account', async () => {
    const res = await json(url, 'PUT', '/v2/accounts/admin/state', { state: 'disabled' });
    expectError(res, 409, 'conflict');
    const got = await raw(url, 'GET', '/v2/accounts/admin');
    expect(got.json.state).toBe('enabled');
    await expectAuthenticates(url, adminAuth, 'admin');
    // Enabling it is a harmless no-op.
    const on = await json(url, 'PUT', '/v2/accounts/admin/state', { state: 'enabled' });
    expect(on.status).toBe(200);
    expect(on.json).toEqual({ state: 'enabled' });
  });

  it('refuses a state other than enabled or disabled, a missing state and a wrong type', async () => {
    const a = await createAccount(url);
    for (const state of ['deleting', 'Disabled', 'off']) {
      expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}/state`, { state }), ['body.state']);
    }
    expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}/state`, { state: false }), ['body.state']);
    expectValidationError(await json(url, 'PUT', `/v2/accounts/${a.name}/state`, {}), ['body.state']);
    const got = await raw(url, 'GET', `/v2/accounts/${a.name}`);
    expect(got.json.state).toBe('enabled');
  });

  it('answers 404 for an unknown account and 400 for a bad name', async () => {
    expectError(await json(url, 'PUT', `/v2/accounts/${uniqueName('nobody')}/state`, { state: 'disabled' }), 404, 'not_found');
    expectValidationError(await json(url, 'PUT', '/v2/accounts/bad!name/state', { state: 'disabled' }), ['path.account_name']);
  });

  it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
    const a = await createAccount(url);
    await expectBodyRejections(url, 'PUT', `/v2/accounts/${a.name}/state`, { state: 'disabled' });
    expect((await raw(url, 'GET', `/v2/accounts/${a.name}`)).json.state).toBe('enabled');
  });

  it('is for administrators only', async () => {
    const user = await accountWithUser(url, ['full-control']);
    expectError(await json(url, 'PUT', `/v2/accounts/${user.account}/state`, { state: 'disabled' }, user.auth), 403, 'forbidden');
  });
});

describe('DELETE /v2/accounts/{account_name}', () => {
  it('refuses to delete an enabled account', async () => {
    const a = await createAccount(url);
    const res = await raw(url, 'DELETE', `/v2/accounts/${a.name}`);
    expectError(res, 409, 'conflict');
    expect(res.json.message).toMatch(/disabled/);
    const got = await raw(url, 'GET', `/v2/accounts/${a.name}`);
    expect(got.status).toBe(200);
    expect(got.json.state).toBe('enabled');
  });

  it('refuses to delete the admin account', async () => {
    const res = await raw(url, 'DELETE', '/v2/accounts/admin');
    expectError(res, 409, 'conflict');
    expect(res.json.message).toMatch(/admin/);
    expect((await raw(url, 'GET', '/v2/accounts/admin')).json.state).toBe('enabled');
    await expectAuthenticates(url, adminAuth, 'admin');
  });

  it('deletes a disabled account', async () => {
    const a = await createAccount(url);
    await setAccountState(url, a.name, 'disabled');
    const { response } = await client(url).DELETE('/accounts/{account_name}', { params: { path: { account_name: a.name } } });
    expect(response.status).toBe(204);
    expectError(await raw(url, 'GET', `/v2/accounts/${a.name}`), 404, 'not_found');
    const list = await client(url).GET('/accounts');
    expect(list.data!.map((x) => x.name)).not.toContain(a.name);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${a.name}`), 404, 'not_found');
  });

  it("removes the account's users, their API keys and role memberships", async () => {
    const doomed = await createAccount(url);
    const other = await createAccount(url);
    const u1 = await createUser(url, doomed.name, { roles: ['read-only'] });
    const u2 = await createUser(url, doomed.name);
    // u1 also holds a role in another account; the membership must go with the user.
    await grantRole(url, 'read-write', u1.username, other.name);
    const key = await createApiKeyFor(url, u1);
    await expectAuthenticates(url, { apiKey: key }, u1.username);
    // A user of another account with a role in the doomed account loses that membership, not its user.
    const outsider = await createUser(url, other.name);
    await grantRole(url, 'read-only', outsider.username, doomed.name);

    await setAccountState(url, doomed.name, 'disabled');
    expect((await raw(url, 'DELETE', `/v2/accounts/${doomed.name}`)).status).toBe(204);

    const all = await client(url).GET('/accounts/users');
    const names = all.data!.items.map((u) => u.username);
    expect(names).not.toContain(u1.username);
    expect(names).not.toContain(u2.username);
    expect(names).toContain(outsider.username);
    expect(all.data!.items.some((u) => u.account_name === doomed.name)).toBe(false);
    expectError(await raw(url, 'GET', `/v2/accounts/${doomed.name}/users`), 404, 'not_found');

    await expectRejected(url, u1.auth);
    await expectRejected(url, u2.auth);
    await expectRejected(url, { apiKey: key });

    const members = await raw(url, 'GET', `/v2/rbac-manager/roles/read-write/members?domain_name=${other.name}`);
    expect(members.status).toBe(200);
    expect(members.json.map((m: { username: string }) => m.username)).not.toContain(u1.username);
    const outsiderRoles = await raw(url, 'GET', `/v2/rbac-manager/users/${outsider.username}/roles?domain_name=${other.name}`);
    expect(outsiderRoles.status).toBe(200);
    expect(outsiderRoles.json).toEqual([]);

    // The names are free again, and nothing of the old account comes back with them.
    await createAccount(url, { name: doomed.name });
    const reborn = await createUser(url, doomed.name, { username: u1.username, password: 'a-brand-new-password' });
    await expectAuthenticates(url, reborn.auth, u1.username);
    await expectRejected(url, { apiKey: key });
    const keys = await raw(url, 'GET', `/v2/accounts/${doomed.name}/users/${u1.username}/api-keys`);
    expect(keys.json.items).toEqual([]);
    const roles = await raw(url, 'GET', `/v2/rbac-manager/users/${u1.username}/roles?domain_name=${other.name}`);
    expect(roles.json).toEqual([]);
    const doomedRoles = await raw(url, 'GET', `/v2/rbac-manager/roles/read-only/members?domain_name=${doomed.name}`);
    expect(doomedRoles.json).toEqual([]);
  });

  it('answers 404 for an unknown account and 400 for a bad name', async () => {
    expectError(await raw(url, 'DELETE', `/v2/accounts/${uniqueName('nobody')}`), 404, 'not_found');
    expectValidationError(await raw(url, 'DELETE', '/v2/accounts/.bad'), ['path.account_name']);
  });

  it('is for administrators only', async () => {
    const user = await accountWithUser(url, ['full-control']);
    const victim = await createAccount(url);
    await setAccountState(url, victim.name, 'disabled');
    await grantRole(url, 'full-control', user.username, victim.name);
    expectError(await raw(url, 'DELETE', `/v2/accounts/${victim.name}`, { auth: user.auth }), 403, 'forbidden');
    expect((await raw(url, 'GET', `/v2/accounts/${victim.name}`)).status).toBe(200);
  });
});

describe('GET /v2/account', () => {
  it("answers the administrator's account", async () => {
    const { data, response } = await client(url).GET('/account');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name: 'admin', type: 'admin', state: 'enabled' });
  });

  it("answers a user's own account", async () => {
    const account = await createAccount(url, { email: 'team@example.com', type: 'service' });
    const user = await createUser(url, account.name, { roles: ['read-only'] });
    const { data, response } = await client(url, user.auth).GET('/account');
    expect(response.status).toBe(200);
    expect(data).toEqual(account);
  });

  it('answers the same account when the caller uses an API key', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const key = await createApiKeyFor(url, user);
    const res = await raw(url, 'GET', '/v2/account', { auth: { apiKey: key } });
    expect(res.status).toBe(200);
    expect(res.json.name).toBe(user.account);
  });

  it('answers the account named by x-service-account', async () => {
    const target = await createAccount(url);
    const admin = await client(url, adminAuth, { 'x-service-account': target.name }).GET('/account');
    expect(admin.data?.name).toBe(target.name);

    const user = await accountWithUser(url, ['read-only']);
    await grantRole(url, 'read-only', user.username, target.name);
    const mine = await client(url, user.auth, { 'x-service-account': target.name }).GET('/account');
    expect(mine.response.status).toBe(200);
    expect(mine.data?.name).toBe(target.name);

    const stranger = await createAccount(url);
    expectError(await raw(url, 'GET', '/v2/account', { auth: user.auth, headers: { 'x-service-account': stranger.name } }), 403, 'forbidden');
  });

  it('answers 404 to an administrator for an unknown x-service-account, 400 for a bad one', async () => {
    const res = await raw(url, 'GET', '/v2/account', { headers: { 'x-service-account': uniqueName('nobody') } });
    expectError(res, 404, 'not_found');
    expect(res.json.message).toMatch(/x-service-account/);
    const bad = await raw(url, 'GET', '/v2/account', { headers: { 'x-service-account': 'bad name!' } });
    expectError(bad, 400, 'validation_error');
  });

  it('needs a role in the account and authentication', async () => {
    const user = await accountWithUser(url);
    expectError(await raw(url, 'GET', '/v2/account', { auth: user.auth }), 403, 'forbidden');
    expectError(await raw(url, 'GET', '/v2/account', { auth: null }), 401, 'unauthorized');
    expectError(await raw(url, 'GET', '/v2/account', { auth: { basic: ['admin', 'wrong-password'] } }), 401, 'unauthorized');
  });
});
