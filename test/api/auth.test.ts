/**
 * The authentication matrix: no/unsupported credentials, HTTP Basic passwords, API keys, bearer tokens
 * (HS256 with a configured or generated secret, and ES256 key pairs), user/account state, password changes
 * under the verification cache, and throttling of repeated failures.
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReusableStore,
  createUserWithRole,
  credentialsOf,
  expectAuthenticatesAs,
  expectUnauthorized,
  flipPayloadChar,
  passwordGrant,
  postForm,
  signHs256,
  tamperPayload,
  uniqueName,
  unsignedToken,
  whoAmI,
  writeEs256KeyFiles,
  type TestUser,
  type UserCredentials,
} from '../support/auth-fixtures.js';
import { expectError } from '../support/fixtures.js';
import { adminAuth, client, json, raw, type Auth } from '../support/http.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../support/server.js';

/** HS256 secret of the main server, so the tests can sign tokens it accepts (and expired ones it must not). */
const JWT_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const OTHER_SECRET = 'another-secret-0123456789-abcdefghijklmnopqrstuvw';
const BAD_PASSWORD = 'invalid username or password';
const VK_PATTERN = /^vk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/;

const now = () => Math.floor(Date.now() / 1000);

let server: TestServer;
let url: string;

beforeAll(async () => {
  server = await startTestServer({
    VIGIL_JWT_SECRET: JWT_SECRET,
    // Many cases here fail on purpose (all API-key failures count against the one name `_api_key` from
    // 127.0.0.1); throttling has its own server below, so keep it out of the way here. The password
    // verification cache keeps its default (60 s), which the password-change cases rely on.
    VIGIL_AUTH_MAX_FAILURES: '1000',
  });
  url = server.url;
});
afterAll(async () => {
  await server?.close();
});

describe('without usable credentials', () => {
  it('answers 401 with a WWW-Authenticate challenge and the error shape when no credentials are sent', async () => {
    for (const path of ['/v2/account', '/v2/user', '/v2/accounts']) {
      const res = await raw(url, 'GET', path, { auth: null });
      expectUnauthorized(res, /^authentication required/);
      expect(res.json.message).toContain('Bearer');
    }
  });

  it('answers 401 for an Authorization scheme it does not support, or a malformed one', async () => {
    for (const header of ['Digest username="admin", realm="vigil"', 'Token abc123', 'Basic !!!not-base64!!!', 'Basic ' + Buffer.from('no-colon').toString('base64'), 'Bearer']) {
      const res = await raw(url, 'GET', '/v2/account', { auth: { header } });
      expectUnauthorized(res, /^unsupported Authorization header/);
    }
  });
});

describe('HTTP Basic with a password', () => {
  it('accepts the admin password on GET /v2/account and GET /v2/user', async () => {
    const { data, response } = await client(url, adminAuth).GET('/account');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name: 'admin', type: 'admin', state: 'enabled' });
    const me = await client(url, adminAuth).GET('/user');
    expect(me.response.status).toBe(200);
    expect(me.data).toMatchObject({ username: 'admin', account_name: 'admin', state: 'enabled' });
  });

  it('accepts a regular user with its password', async () => {
    const user = await createUserWithRole(url);
    await expectAuthenticatesAs(url, { basic: [user.username, user.password] }, user);
  });

  it('refuses a wrong password, and an unknown user with the very same message', async () => {
    const user = await createUserWithRole(url);
    const wrong = await whoAmI(url, { basic: [user.username, user.password + '-wrong'] });
    expectUnauthorized(wrong, BAD_PASSWORD);
    const wrongAdmin = await raw(url, 'GET', '/v2/account', { auth: { basic: ['admin', 'not-the-admin-password'] } });
    expectUnauthorized(wrongAdmin, BAD_PASSWORD);
    const unknown = await whoAmI(url, { basic: [uniqueName('nobody'), user.password] });
    expectUnauthorized(unknown, BAD_PASSWORD);
    expect(unknown.json.message).toBe(wrong.json.message);
    expect(unknown.json.error_type).toBe(wrong.json.error_type);
    // An empty password is just another wrong one.
    expectUnauthorized(await whoAmI(url, { basic: [user.username, ''] }), BAD_PASSWORD);
  });
});

describe('user and account state', () => {
  async function expectAllRefused(creds: UserCredentials, message: string): Promise<void> {
    for (const auth of [creds.password, creds.apiKey, creds.bearer]) {
      expectUnauthorized(await whoAmI(url, auth), message);
      expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth }), message);
    }
  }

  async function expectAllAccepted(creds: UserCredentials, user: TestUser): Promise<void> {
    for (const auth of [creds.password, creds.apiKey, creds.bearer]) await expectAuthenticatesAs(url, auth, user);
  }

  it('refuses a disabled user by password, API key and bearer token alike, and accepts its password and keys again once re-enabled', async () => {
    const user = await createUserWithRole(url);
    const creds = await credentialsOf(url, user);
    await expectAllAccepted(creds, user);

    const admin = client(url, adminAuth);
    const disabled = await admin.PUT('/accounts/{account_name}/users/{username}/state', {
      params: { path: { account_name: user.account, username: user.username } },
      body: { state: 'disabled' },
    });
    expect(disabled.response.status).toBe(200);
    expect(disabled.data?.state).toBe('disabled');

    const message = `user '${user.username}' is disabled`;
    await expectAllRefused(creds, message);
    // Nor can it get a new token.
    const grant = await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: user.username, password: user.password });
    expectUnauthorized(grant, message);

    const enabled = await admin.PUT('/accounts/{account_name}/users/{username}/state', {
      params: { path: { account_name: user.account, username: user.username } },
      body: { state: 'enabled' },
    });
    expect(enabled.response.status).toBe(200);
    expect(enabled.data?.state).toBe('enabled');
    // Disabling ended the tokens the user held (test/security/credentials.test.ts); password and API keys stay.
    for (const auth of [creds.password, creds.apiKey]) await expectAuthenticatesAs(url, auth, user);
    expectUnauthorized(await whoAmI(url, creds.bearer), 'token has been revoked');
  });

  it('refuses the users of a disabled account by all three methods, and accepts them again once re-enabled', async () => {
    const user = await createUserWithRole(url);
    const creds = await credentialsOf(url, user);
    await expectAllAccepted(creds, user);

    const disabled = await json(url, 'PUT', `/v2/accounts/${user.account}/state`, { state: 'disabled' });
    expect(disabled.status).toBe(200);
    expect(disabled.json).toEqual({ state: 'disabled' });

    const message = `account '${user.account}' is disabled`;
    await expectAllRefused(creds, message);
    const grant = await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: user.username, password: user.password });
    expectUnauthorized(grant, message);

    const enabled = await json(url, 'PUT', `/v2/accounts/${user.account}/state`, { state: 'enabled' });
    expect(enabled.status).toBe(200);
    expect(enabled.json).toEqual({ state: 'enabled' });
    await expectAllAccepted(creds, user);
  });
});

describe('password changes under the verification cache', () => {
  it('runs with the default 60 s cache of successful verifications', () => {
    expect(server.running.services.config.auth.passwordCacheSeconds).toBe(60);
  });

  it('refuses the old password at once after the user changes its own (POST /v2/user/credentials)', async () => {
    const user = await createUserWithRole(url);
    const oldAuth: Auth = { basic: [user.username, user.password] };
    // Verified (and so cached) right before the change.
    await expectAuthenticatesAs(url, oldAuth, user);
    await expectAuthenticatesAs(url, oldAuth, user);

    const newPassword = `${user.password}-new`;
    const changed = await client(url, oldAuth).POST('/user/credentials', { body: { type: 'password', value: newPassword } });
    expect(changed.response.status).toBe(200);
    expect(changed.data).toMatchObject({ type: 'password', value: '********' });

    expectUnauthorized(await whoAmI(url, oldAuth), BAD_PASSWORD);
    expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth: oldAuth }), BAD_PASSWORD);
    expectUnauthorized(
      await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: user.username, password: user.password }),
      BAD_PASSWORD,
    );
    await expectAuthenticatesAs(url, { basic: [user.username, newPassword] }, user);
  });

  it('refuses the old password at once after an administrator sets a new one', async () => {
    const user = await createUserWithRole(url);
    const oldAuth: Auth = { basic: [user.username, user.password] };
    await expectAuthenticatesAs(url, oldAuth, user);

    const newPassword = `${user.password}-reset`;
    const changed = await client(url, adminAuth).POST('/accounts/{account_name}/users/{username}/credentials', {
      params: { path: { account_name: user.account, username: user.username } },
      body: { type: 'password', value: newPassword },
    });
    expect(changed.response.status).toBe(200);
    expect(changed.data).toMatchObject({ type: 'password', value: '********' });

    expectUnauthorized(await whoAmI(url, oldAuth), BAD_PASSWORD);
    await expectAuthenticatesAs(url, { basic: [user.username, newPassword] }, user);
    // And once more back through the cache: the new one stays accepted, the old one stays refused.
    await expectAuthenticatesAs(url, { basic: [user.username, newPassword] }, user);
    expectUnauthorized(await whoAmI(url, oldAuth), BAD_PASSWORD);
  });
});

describe('API keys (HTTP Basic as _api_key)', () => {
  let user: TestUser;
  let userAuth: Auth;

  beforeAll(async () => {
    user = await createUserWithRole(url);
    userAuth = { basic: [user.username, user.password] };
  });

  async function createKey(name: string): Promise<string> {
    const res = await client(url, userAuth).POST('/user/api-keys', { body: { name } });
    expect(res.response.status).toBe(201);
    expect(res.data?.status).toBe('active');
    expect(res.data?.value).toMatch(VK_PATTERN);
    return res.data!.value!;
  }

  it('shows the value once, at creation, and never again on GET or in the list', async () => {
    const c = client(url, userAuth);
    const before = Date.now();
    const created = await c.POST('/user/api-keys', { body: { name: 'ci', description: 'CI pipeline' } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ name: 'ci', description: 'CI pipeline', status: 'active' });
    expect(created.data?.value).toMatch(VK_PATTERN);
    // Default lifetime: 365 days.
    const expires = Date.parse(created.data!.expires_at);
    expect(expires - before).toBeGreaterThan(364 * 86400_000);
    expect(expires - before).toBeLessThan(366 * 86400_000);

    const one = await c.GET('/user/api-keys/{key_name}', { params: { path: { key_name: 'ci' } } });
    expect(one.response.status).toBe(200);
    expect(one.data).toMatchObject({ name: 'ci', status: 'active' });
    expect(one.data).not.toHaveProperty('value');

    const list = await c.GET('/user/api-keys');
    expect(list.response.status).toBe(200);
    expect(list.data?.items.map((k) => k.name)).toContain('ci');
    for (const k of list.data!.items) expect(k).not.toHaveProperty('value');
    expect(JSON.stringify(list.data)).not.toContain(created.data!.value!.split('.')[1]);
  });

  it('accepts a valid key as its owner', async () => {
    const value = await createKey('valid');
    await expectAuthenticatesAs(url, { apiKey: value }, user);
  });

  it('refuses a revoked key', async () => {
    const value = await createKey('revoke-me');
    await expectAuthenticatesAs(url, { apiKey: value }, user);
    const patched = await client(url, userAuth).PATCH('/user/api-keys/{key_name}', {
      params: { path: { key_name: 'revoke-me' } },
      body: { status: 'revoked' },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data?.status).toBe('revoked');
    expectUnauthorized(await whoAmI(url, { apiKey: value }), 'API key is revoked');
  });

  it('refuses an expired key', async () => {
    // The API refuses an expiry in the past, so the key is aged in the database below.
    const past = await json(url, 'POST', '/v2/user/api-keys', { name: 'born-expired', expires_at: '2000-01-01T00:00:00Z' }, userAuth);
    expect(past.status).toBe(400);
    expect(past.json.message).toBe('expires_at must be in the future');

    const value = await createKey('expire-me');
    await expectAuthenticatesAs(url, { apiKey: value }, user);
    const updated = await server.running.services
      .db('api_keys')
      .where({ username: user.username, name: 'expire-me' })
      .update({ expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect(updated).toBe(1);

    const shown = await client(url, userAuth).GET('/user/api-keys/{key_name}', { params: { path: { key_name: 'expire-me' } } });
    expect(shown.data?.status).toBe('expired');
    expectUnauthorized(await whoAmI(url, { apiKey: value }), 'API key is expired');
  });

  it('refuses a deleted key', async () => {
    const value = await createKey('delete-me');
    await expectAuthenticatesAs(url, { apiKey: value }, user);
    const deleted = await client(url, userAuth).DELETE('/user/api-keys/{key_name}', { params: { path: { key_name: 'delete-me' } } });
    expect(deleted.response.status).toBe(204);
    expectUnauthorized(await whoAmI(url, { apiKey: value }), 'unknown API key');
  });

  it('refuses garbage, unknown keys, and a known key id with the wrong secret', async () => {
    expectUnauthorized(await whoAmI(url, { apiKey: 'garbage' }), 'not a Vigil API key');
    expectUnauthorized(await whoAmI(url, { apiKey: '' }), 'not a Vigil API key');
    expectUnauthorized(await whoAmI(url, { apiKey: `vk_0123456789abcdef.${'A'.repeat(43)}` }), 'unknown API key');
    const value = await createKey('guess-me');
    const [id] = value.split('.');
    expectUnauthorized(await whoAmI(url, { apiKey: `${id}.${'x'.repeat(43)}` }), 'unknown API key');
    // A user's password is not an API key, and an API key is not a password.
    expectUnauthorized(await whoAmI(url, { apiKey: user.password }), 'not a Vigil API key');
    expectUnauthorized(await whoAmI(url, { basic: [user.username, value] }), BAD_PASSWORD);
  });
});

describe('bearer tokens (HS256, configured secret)', () => {
  let user: TestUser;

  beforeAll(async () => {
    user = await createUserWithRole(url);
  });

  it('issues a token pair on the password grant, with no-store caching headers', async () => {
    const res = await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD, client_id: 'anonymous' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.json).toMatchObject({ expires_in: 3600, token_type: 'Bearer' });
    expect(typeof res.json.access_token).toBe('string');
    expect(typeof res.json.refresh_token).toBe('string');
    expect(res.json.refresh_token).not.toBe(res.json.access_token);

    const header = decodeProtectedHeader(res.json.access_token);
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(res.json.access_token);
    expect(claims).toMatchObject({ iss: 'vigil', aud: 'vigil-api', sub: 'admin', acct: 'admin', typ: 'access' });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe('string');
    expect(decodeJwt(res.json.refresh_token)).toMatchObject({ sub: 'admin', typ: 'refresh' });

    const account = await client(url, { bearer: res.json.access_token }).GET('/account');
    expect(account.response.status).toBe(200);
    expect(account.data).toMatchObject({ name: 'admin', type: 'admin' });
  });

  it('defaults grant_type and client_id', async () => {
    const res = await postForm(url, '/v2/oauth/token', { username: user.username, password: user.password });
    expect(res.status).toBe(200);
    expect(res.json.token_type).toBe('Bearer');
    await expectAuthenticatesAs(url, { bearer: res.json.access_token }, user);
  });

  it('accepts a token it did not issue only if it carries its signature: a self-signed token with the shared secret works', async () => {
    // Control for the cases below: the test's claims shape is the one the server accepts.
    const token = await signHs256(JWT_SECRET, { sub: user.username, acct: user.account, exp: now() + 300 });
    await expectAuthenticatesAs(url, { bearer: token }, user);
  });

  it('refuses an expired token', async () => {
    const token = await signHs256(JWT_SECRET, { sub: user.username, acct: user.account, iat: now() - 7200, exp: now() - 60 });
    expectUnauthorized(await whoAmI(url, { bearer: token }), 'token has expired');
    expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth: { bearer: token } }), 'token has expired');
  });

  it('refuses a tampered token', async () => {
    const { access_token } = await passwordGrant(url, user.username, user.password);
    await expectAuthenticatesAs(url, { bearer: access_token }, user);
    const flipped = flipPayloadChar(access_token);
    expect(flipped).not.toBe(access_token);
    expectUnauthorized(await whoAmI(url, { bearer: flipped }), 'token is not valid');
    // Escalation attempt: claim to be the administrator, keeping the user's signature.
    const escalated = tamperPayload(access_token, (p) => ({ ...p, sub: 'admin', acct: 'admin' }));
    expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth: { bearer: escalated } }), 'token is not valid');
  });

  it('refuses an unsigned (alg: none) token', async () => {
    const token = unsignedToken({ sub: 'admin', acct: 'admin', exp: now() + 300 });
    expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth: { bearer: token } }), 'token is not valid');
  });

  it('refuses a token signed with another secret', async () => {
    const token = await signHs256(OTHER_SECRET, { sub: user.username, acct: user.account, exp: now() + 300 });
    expectUnauthorized(await whoAmI(url, { bearer: token }), 'token is not valid');
  });

  it('refuses a token with the wrong issuer or audience', async () => {
    for (const overrides of [{ iss: 'someone-else' }, { aud: 'another-api' }]) {
      const token = await signHs256(JWT_SECRET, { sub: user.username, acct: user.account, exp: now() + 300, ...overrides });
      expectUnauthorized(await whoAmI(url, { bearer: token }), 'token is not valid');
    }
  });

  it('refuses a token after POST /v2/oauth/revoke', async () => {
    const { access_token } = await passwordGrant(url, user.username, user.password);
    await expectAuthenticatesAs(url, { bearer: access_token }, user);
    const revoked = await postForm(url, '/v2/oauth/revoke', { token: access_token });
    expect(revoked.status).toBe(200);
    expect(revoked.text).toBe('');
    expectUnauthorized(await whoAmI(url, { bearer: access_token }), 'token has been revoked');
    // RFC 7009: revoking something that is not a token is not an error either.
    const junk = await postForm(url, '/v2/oauth/revoke', { token: 'not-a-token' });
    expect(junk.status).toBe(200);
    // The token endpoint's other tokens are unaffected.
    const fresh = await passwordGrant(url, user.username, user.password);
    await expectAuthenticatesAs(url, { bearer: fresh.access_token }, user);
  });

  it('refuses a refresh token presented as a bearer token', async () => {
    const { refresh_token } = await passwordGrant(url, user.username, user.password);
    expectUnauthorized(await whoAmI(url, { bearer: refresh_token }), 'not an access token');
  });

  it('rotates refresh tokens: the refresh grant answers a new working pair and refuses the old refresh token', async () => {
    const first = await passwordGrant(url, user.username, user.password);
    const res = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'anonymous' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.json).toMatchObject({ expires_in: 3600, token_type: 'Bearer' });
    expect(res.json.access_token).not.toBe(first.access_token);
    expect(res.json.refresh_token).not.toBe(first.refresh_token);
    await expectAuthenticatesAs(url, { bearer: res.json.access_token }, user);

    const replay = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expectUnauthorized(replay, 'refresh token has been revoked');

    // The new refresh token works (once).
    const again = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token', refresh_token: res.json.refresh_token });
    expect(again.status).toBe(200);
    await expectAuthenticatesAs(url, { bearer: again.json.access_token }, user);

    // An access token is not a refresh token.
    const wrongKind = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token', refresh_token: again.json.access_token });
    // (The reason reads "refresh not an refresh token" today; match the substance, not the grammar.)
    expectUnauthorized(wrongKind, /^not a refresh token$/);
  });

  it('answers 401 for a wrong password on the token endpoint', async () => {
    const res = await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: user.username, password: 'wrong-password' });
    expectUnauthorized(res, BAD_PASSWORD);
    expect(res.json).not.toHaveProperty('access_token');
    const unknown = await postForm(url, '/v2/oauth/token', { grant_type: 'password', username: uniqueName('nobody'), password: 'whatever-pw' });
    expectUnauthorized(unknown, BAD_PASSWORD);
  });

  it('answers 400 when the username (or the refresh token) is missing', async () => {
    const res = await postForm(url, '/v2/oauth/token', { grant_type: 'password', password: user.password });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 400, error_type: 'validation_error' });
    expect(res.json.message).toContain('username');
    expect(res.json.detail.errors).toEqual([{ location: 'body.username', message: 'is required' }]);

    const noRefresh = await postForm(url, '/v2/oauth/token', { grant_type: 'refresh_token' });
    expect(noRefresh.status).toBe(400);
    expect(noRefresh.json.detail.errors).toEqual([{ location: 'body.refresh_token', message: 'is required' }]);

    const badGrant = await postForm(url, '/v2/oauth/token', { grant_type: 'client_credentials', username: user.username, password: user.password });
    expect(badGrant.status).toBe(400);
    expect(badGrant.json.error_type).toBe('validation_error');
  });

  it('answers 415 for a JSON body on the token endpoint', async () => {
    const res = await json(url, 'POST', '/v2/oauth/token', { grant_type: 'password', username: user.username, password: user.password }, null);
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ code: 415, error_type: 'unsupported_media_type' });
    expect(res.json.detail.accepted).toEqual(['application/x-www-form-urlencoded']);
    expect(res.json).not.toHaveProperty('access_token');
  });

  it('serves the same token endpoint at the legacy POST /v1/oauth/token', async () => {
    const res = await postForm(url, '/v1/oauth/token', { grant_type: 'password', username: user.username, password: user.password, client_id: 'anonymous' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.json).toMatchObject({ expires_in: 3600, token_type: 'Bearer' });
    await expectAuthenticatesAs(url, { bearer: res.json.access_token }, user);
    expectUnauthorized(await postForm(url, '/v1/oauth/token', { username: user.username, password: 'wrong-password' }), BAD_PASSWORD);
  });
});

// RFC 6749 §5.2: an OAuth client reads `error` (and `error_description`) from a failed token request. Every such
// answer also keeps Vigil's own error fields.
describe('OAuth error answers of the token and revoke endpoints', () => {
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
  const cases: { name: string; headers?: Record<string, string>; body?: string | Buffer; status: number; error: string }[] = [
    { name: 'no body at all', status: 400, error: 'invalid_request' },
    { name: 'an empty form', headers: FORM, body: '', status: 400, error: 'invalid_request' },
    { name: 'garbage', headers: FORM, body: '%%%&&==garbage\u0001', status: 400, error: 'invalid_request' },
    { name: 'JSON text sent as a form', headers: FORM, body: '{"username":"a","password":"b"}', status: 400, error: 'invalid_request' },
    { name: 'the password grant without a username', headers: FORM, body: 'grant_type=password&password=whatever', status: 400, error: 'invalid_request' },
    { name: 'the password grant without a password', headers: FORM, body: 'grant_type=password&username=someone', status: 400, error: 'invalid_request' },
    { name: 'the refresh grant without a token', headers: FORM, body: 'grant_type=refresh_token', status: 400, error: 'invalid_request' },
    { name: 'a repeated field', headers: FORM, body: 'username=a&username=b&password=c', status: 400, error: 'invalid_request' },
    { name: 'a body that is not gzip as it claims', headers: { ...FORM, 'content-encoding': 'gzip' }, body: 'username=a&password=b', status: 400, error: 'invalid_request' },
    { name: 'an unknown client_id', headers: FORM, body: 'username=a&password=b&client_id=other', status: 400, error: 'invalid_request' },
    { name: 'another grant type', headers: FORM, body: 'grant_type=client_credentials', status: 400, error: 'unsupported_grant_type' },
    { name: 'a JSON body', headers: { 'content-type': 'application/json' }, body: '{"username":"a","password":"b"}', status: 415, error: 'invalid_request' },
    { name: 'a wrong password', headers: FORM, body: 'username=oauth-nobody&password=not-the-password', status: 401, error: 'invalid_grant' },
    { name: 'a refresh token that is not one', headers: FORM, body: 'grant_type=refresh_token&refresh_token=junk', status: 401, error: 'invalid_grant' },
  ];
  for (const path of ['/v2/oauth/token', '/v1/oauth/token'])
    it.each(cases)(`POST ${path} with $name answers $status $error`, async ({ headers, body, status, error }) => {
      const res = await raw(url, 'POST', path, { auth: null, headers, body });
      expectError(res, status);
      expect(res.json.error).toBe(error);
      expect(res.json.error_description).toBe(res.json.message);
      expect(res.json).not.toHaveProperty('access_token');
    });

  it('POST /v2/oauth/revoke without a token answers 400 invalid_request', async () => {
    for (const body of [undefined, '', 'token_type_hint=refresh_token', '%%%']) {
      const res = await raw(url, 'POST', '/v2/oauth/revoke', { auth: null, headers: body === undefined ? {} : FORM, body });
      expectError(res, 400);
      expect(res.json.error).toBe('invalid_request');
      expect(res.json.error_description).toMatch(/\S/);
    }
  });

  it('leaves other operations’ errors without OAuth fields', async () => {
    const res = await raw(url, 'GET', '/v2/user', { auth: { basic: ['admin', 'not-the-password'] } });
    expectError(res, 401);
    expect(res.json).not.toHaveProperty('error');
  });
});

describe('bearer tokens (ES256 key pair)', () => {
  let es: TestServer;
  let keys: ReturnType<typeof writeEs256KeyFiles>;

  beforeAll(async () => {
    keys = writeEs256KeyFiles();
    es = await startTestServer({
      VIGIL_JWT_ALGORITHM: 'ES256',
      VIGIL_JWT_PRIVATE_KEY_FILE: keys.privateKeyFile,
      VIGIL_JWT_PUBLIC_KEY_FILE: keys.publicKeyFile,
    });
  });
  afterAll(async () => {
    await es?.close();
    keys?.cleanup();
  });

  it('issues ES256 tokens that it accepts', async () => {
    const { access_token } = await passwordGrant(es.url, 'admin', ADMIN_PASSWORD);
    expect(decodeProtectedHeader(access_token).alg).toBe('ES256');
    const account = await client(es.url, { bearer: access_token }).GET('/account');
    expect(account.response.status).toBe(200);
    expect(account.data?.name).toBe('admin');
    // ...and that the HS256 server does not.
    expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth: { bearer: access_token } }), 'token is not valid');
  });

  it('refuses an HS256 token from the other server', async () => {
    const { access_token } = await passwordGrant(url, 'admin', ADMIN_PASSWORD);
    await expectAuthenticatesAs(url, { bearer: access_token }, { username: 'admin', account: 'admin' });
    expectUnauthorized(await raw(es.url, 'GET', '/v2/account', { auth: { bearer: access_token } }), 'token is not valid');
  });

  it('refuses an HS256 token keyed with its public key (algorithm confusion)', async () => {
    const token = await signHs256(new TextEncoder().encode(keys.publicKeyPem), { sub: 'admin', acct: 'admin', exp: now() + 300 });
    expectUnauthorized(await raw(es.url, 'GET', '/v2/account', { auth: { bearer: token } }), 'token is not valid');
  });
});

describe('throttling of failed attempts', () => {
  let throttled: TestServer;
  let victim: TestUser;
  let bystander: TestUser;

  beforeAll(async () => {
    throttled = await startTestServer({ VIGIL_AUTH_MAX_FAILURES: '3', VIGIL_AUTH_LOCKOUT_SECONDS: '30' });
    victim = await createUserWithRole(throttled.url);
    bystander = await createUserWithRole(throttled.url);
  });
  afterAll(async () => {
    await throttled?.close();
  });

  it('locks one username out after 3 failures with 429 and Retry-After, even for the right password', async () => {
    const u = throttled.url;
    for (let i = 0; i < 3; i++) expectUnauthorized(await whoAmI(u, { basic: [victim.username, `wrong-${i}-password`] }), BAD_PASSWORD);

    const locked = await whoAmI(u, { basic: [victim.username, victim.password] });
    expect(locked.status).toBe(429);
    const retryAfter = locked.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(30);
    expect(locked.json).toMatchObject({ code: 429, error_type: 'too_many_requests', detail: { retry_after_seconds: Number(retryAfter) } });
    expect(locked.json.message).toContain(victim.username);

    // The token endpoint is locked for that username too.
    const grant = await postForm(u, '/v2/oauth/token', { username: victim.username, password: victim.password });
    expect(grant.status).toBe(429);
    expect(grant.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(grant.json).not.toHaveProperty('access_token');

    // Other usernames are unaffected.
    await expectAuthenticatesAs(u, { basic: [bystander.username, bystander.password] }, bystander);
    const admin = await client(u, adminAuth).GET('/account');
    expect(admin.response.status).toBe(200);
  });

  it('does not lock out a user whose failures are interleaved with successes', async () => {
    const u = throttled.url;
    for (let i = 0; i < 3; i++) {
      expectUnauthorized(await whoAmI(u, { basic: [bystander.username, 'wrong-password'] }), BAD_PASSWORD);
      expectUnauthorized(await whoAmI(u, { basic: [bystander.username, 'wrong-password'] }), BAD_PASSWORD);
      await expectAuthenticatesAs(u, { basic: [bystander.username, bystander.password] }, bystander);
    }
  });
});

describe('generated signing secret', () => {
  // Without VIGIL_JWT_SECRET the first start generates a secret and keeps it in the database, so a restart on
  // the same store keeps issued tokens valid. On Postgres the store is a database of our own that both servers
  // share (see createReusableStore).
  it('keeps tokens valid across a restart on the same data dir / database', async () => {
    const store = await createReusableStore();
    try {
      const first = await startTestServer(store.env);
      let token: string;
      try {
        expect(first.running.services.config.jwt.secret).toBeNull();
        token = (await passwordGrant(first.url, 'admin', ADMIN_PASSWORD)).access_token;
        expect((await client(first.url, { bearer: token }).GET('/account')).response.status).toBe(200);
      } finally {
        await first.close();
      }

      const second = await startTestServer(store.env);
      try {
        const account = await client(second.url, { bearer: token }).GET('/account');
        expect(account.response.status).toBe(200);
        expect(account.data?.name).toBe('admin');
      } finally {
        await second.close();
      }

      // Control: the token is bound to that store's secret; a server with another secret refuses it.
      expectUnauthorized(await raw(url, 'GET', '/v2/account', { auth: { bearer: token } }), 'token is not valid');
    } finally {
      await store.cleanup();
    }
  });
});
