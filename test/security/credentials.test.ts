/**
 * Issue 14, items 4, 6, 7 and 9: a user administrator of one account cannot take over a user's access to
 * another; credential changes end earlier tokens; unknown usernames cost a password verification like known
 * ones; answers that carry a secret are never cached.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PasswordHasher } from '../../src/auth/passwords.js';
import { expectUnauthorized, passwordGrant, postForm } from '../support/auth-fixtures.js';
import { gql } from '../support/graphql.js';
import { json, raw, type Auth } from '../support/http.js';
import { PASSWORD, createAccount, createUser, expectForbidden, grantRole } from '../support/rbac-fixtures.js';
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

describe('user administration across accounts (item 4)', () => {
  /** Account A with its user administrator, and a user of A who also holds a role in account B. */
  async function crossAccountSetup() {
    const a = await createAccount(url, 'acct-a');
    const b = await createAccount(url, 'acct-b');
    const userAdmin = await createUser(url, a, { roles: ['account-user-admin'], prefix: 'uadmin' });
    const victim = await createUser(url, a, { roles: ['read-only'], prefix: 'victim' });
    await grantRole(url, 'full-control', victim.username, b);
    return { a, b, userAdmin, victim };
  }

  it("refuses setting the password of a user who holds roles in another account, and the user's access there stays", async () => {
    const { a, b, userAdmin, victim } = await crossAccountSetup();
    const res = await json(url, 'POST', `/v2/accounts/${a}/users/${victim.username}/credentials`, { type: 'password', value: 'taken-over-password' }, userAdmin.auth);
    expectForbidden(res, 'updateUser');
    expect(res.json.message).not.toContain(b);
    // The old password still works, the attacker's does not, and B's data is out of the administrator's reach.
    expect((await raw(url, 'GET', '/v2/user', { auth: victim.auth })).status).toBe(200);
    expect((await raw(url, 'GET', '/v2/user', { auth: { basic: [victim.username, 'taken-over-password'] } })).status).toBe(401);
    expect((await raw(url, 'GET', '/v2/images', { auth: userAdmin.auth, headers: { 'x-service-account': b } })).status).toBe(403);
  });

  it('refuses creating an API key for such a user', async () => {
    const { a, userAdmin, victim } = await crossAccountSetup();
    const res = await json(url, 'POST', `/v2/accounts/${a}/users/${victim.username}/api-keys`, { name: 'takeover' }, userAdmin.auth);
    expectForbidden(res, 'createApiKey');
    const keys = await raw(url, 'GET', `/v2/accounts/${a}/users/${victim.username}/api-keys`);
    expect(keys.json.items).toEqual([]);
  });

  it('refuses re-enabling such a user, but lets the account disable it', async () => {
    const { a, userAdmin, victim } = await crossAccountSetup();
    const off = await json(url, 'PUT', `/v2/accounts/${a}/users/${victim.username}/state`, { state: 'disabled' }, userAdmin.auth);
    expect(off.status, off.text).toBe(200);
    const on = await json(url, 'PUT', `/v2/accounts/${a}/users/${victim.username}/state`, { state: 'enabled' }, userAdmin.auth);
    expectForbidden(on, 'updateUser');
  });

  it('allows it when the caller holds the right in every account involved, and always for administrators', async () => {
    const { a, b, userAdmin, victim } = await crossAccountSetup();
    await grantRole(url, 'account-user-admin', userAdmin.username, b);
    const byBoth = await json(url, 'POST', `/v2/accounts/${a}/users/${victim.username}/credentials`, { type: 'password', value: 'new-password-1' }, userAdmin.auth);
    expect(byBoth.status, byBoth.text).toBe(200);
    const byAdmin = await json(url, 'POST', `/v2/accounts/${a}/users/${victim.username}/api-keys`, { name: 'by-admin' });
    expect(byAdmin.status, byAdmin.text).toBe(201);
  });

  it('still lets a user administrator manage users who only hold roles in its own account', async () => {
    const a = await createAccount(url, 'acct-a');
    const userAdmin = await createUser(url, a, { roles: ['account-user-admin'], prefix: 'uadmin' });
    const local = await createUser(url, a, { roles: ['read-write'], prefix: 'local' });
    const pw = await json(url, 'POST', `/v2/accounts/${a}/users/${local.username}/credentials`, { type: 'password', value: 'reset-by-admin' }, userAdmin.auth);
    expect(pw.status, pw.text).toBe(200);
    const key = await json(url, 'POST', `/v2/accounts/${a}/users/${local.username}/api-keys`, { name: 'ci' }, userAdmin.auth);
    expect(key.status, key.text).toBe(201);
  });
});

describe('credential changes end earlier tokens (item 6)', () => {
  async function userWithTokens() {
    const account = await createAccount(url, 'tok');
    const user = await createUser(url, account, { roles: ['read-write'], prefix: 'tok' });
    const tokens = await passwordGrant(url, user.username, PASSWORD);
    return { account, user, tokens };
  }

  async function expectRevoked(tokens: { access_token: string; refresh_token: string }) {
    const refreshed = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expectUnauthorized(refreshed, 'refresh token has been revoked');
    expectUnauthorized(await raw(url, 'GET', '/v2/user', { auth: { bearer: tokens.access_token } }), 'token has been revoked');
  }

  it('after the user changes its own password', async () => {
    const { user, tokens } = await userWithTokens();
    const res = await json(url, 'POST', '/v2/user/credentials', { type: 'password', value: 'changed-password' }, user.auth);
    expect(res.status, res.text).toBe(200);
    await expectRevoked(tokens);
    // New tokens from the new password work.
    const fresh = await passwordGrant(url, user.username, 'changed-password');
    expect((await raw(url, 'GET', '/v2/user', { auth: { bearer: fresh.access_token } })).status).toBe(200);
    const rotated = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token', refresh_token: fresh.refresh_token });
    expect(rotated.status, rotated.text).toBe(200);
  });

  it('after an administrator resets the password', async () => {
    const { account, user, tokens } = await userWithTokens();
    const res = await json(url, 'POST', `/v2/accounts/${account}/users/${user.username}/credentials`, { type: 'password', value: 'admin-reset' });
    expect(res.status, res.text).toBe(200);
    await expectRevoked(tokens);
  });

  it('after the password credential is deleted', async () => {
    const { account, user, tokens } = await userWithTokens();
    const res = await raw(url, 'DELETE', `/v2/accounts/${account}/users/${user.username}/credentials?credential_type=password`);
    expect(res.status, res.text).toBe(204);
    await expectRevoked(tokens);
  });

  it('after the user is disabled, even once it is enabled again', async () => {
    const { account, user, tokens } = await userWithTokens();
    for (const state of ['disabled', 'enabled']) {
      const res = await json(url, 'PUT', `/v2/accounts/${account}/users/${user.username}/state`, { state });
      expect(res.status, res.text).toBe(200);
    }
    await expectRevoked(tokens);
  });

  it('after a role of the user is removed', async () => {
    const { account, user, tokens } = await userWithTokens();
    const res = await raw(url, 'DELETE', `/v2/rbac-manager/roles/read-write/members?username=${user.username}&domain_name=${account}`);
    expect(res.status, res.text).toBe(204);
    await expectRevoked(tokens);
  });

  it("leaves other users' tokens and the user's API keys alone", async () => {
    const { account, user, tokens } = await userWithTokens();
    const other = await userWithTokens();
    const key = await json(url, 'POST', '/v2/user/api-keys', { name: 'stays' }, user.auth);
    expect(key.status, key.text).toBe(201);
    await json(url, 'POST', `/v2/accounts/${account}/users/${user.username}/credentials`, { type: 'password', value: 'another-reset' });
    await expectRevoked(tokens);
    expect((await raw(url, 'GET', '/v2/user', { auth: { apiKey: key.json.value } })).status).toBe(200);
    expect((await raw(url, 'GET', '/v2/user', { auth: { bearer: other.tokens.access_token } })).status).toBe(200);
  });
});

describe('unknown usernames cost a verification (item 7)', () => {
  it('verifies the presented password against a stand-in hash when the user does not exist or has no password', async () => {
    const hasher = server.running.services.hasher;
    const spy = vi.spyOn(hasher, 'verifyNothing');
    try {
      const unknown = await raw(url, 'GET', '/v2/user', { auth: { basic: ['no-such-user-anywhere', 'whatever'] } });
      expectUnauthorized(unknown, 'invalid username or password');
      expect(spy).toHaveBeenCalledTimes(1);

      const account = await createAccount(url, 'nopw');
      const user = await createUser(url, account, { roles: ['read-only'] });
      await raw(url, 'DELETE', `/v2/accounts/${account}/users/${user.username}/credentials?credential_type=password`);
      const passwordless = await raw(url, 'GET', '/v2/user', { auth: user.auth });
      expectUnauthorized(passwordless, 'invalid username or password');
      expect(spy).toHaveBeenCalledTimes(2);

      // A known user with a wrong password pays for the real verification instead, not both.
      const wrong = await raw(url, 'GET', '/v2/user', { auth: { basic: ['admin', 'wrong-password'] } });
      expectUnauthorized(wrong, 'invalid username or password');
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('uses one real argon2id hash with the configured cost as the stand-in, made once', async () => {
    const hasher = new PasswordHasher({ memoryCostKib: 1024, timeCost: 2, cacheSeconds: 60 });
    const hashSpy = vi.spyOn(hasher, 'hash');
    expect(await hasher.verifyNothing('x')).toBe(false);
    expect(await hasher.verifyNothing('y')).toBe(false);
    expect(hashSpy).toHaveBeenCalledTimes(1);
    expect(await hashSpy.mock.results[0].value).toMatch(/^\$argon2id\$v=19\$m=1024,t=2,p=1\$/);
  });
});

describe('answers with secrets are not cached (item 9)', () => {
  it('sends Cache-Control: no-store with new API keys, tokens and every authenticated answer', async () => {
    const account = await createAccount(url, 'cache');
    const user = await createUser(url, account, { roles: ['account-user-admin'] });
    const auth: Auth = user.auth;
    const own = await json(url, 'POST', '/v2/user/api-keys', { name: 'mine' }, auth);
    expect(own.status, own.text).toBe(201);
    expect(own.headers.get('cache-control')).toBe('no-store');
    const theirs = await json(url, 'POST', `/v2/accounts/${account}/users/${user.username}/api-keys`, { name: 'theirs' });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('cache-control')).toBe('no-store');
    const token = await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: user.username, password: PASSWORD });
    expect(token.headers.get('cache-control')).toBe('no-store');
    const read = await raw(url, 'GET', '/v2/user', { auth });
    expect(read.headers.get('cache-control')).toBe('no-store');
    const report = await gql(url, '{ __typename }');
    expect(report.data).toEqual({ __typename: 'Query' });
    expect(report.headers.get('cache-control')).toBe('no-store');
  });
});
