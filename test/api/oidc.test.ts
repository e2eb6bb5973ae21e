/**
 * OpenID Connect single sign-on end to end against a real provider (oidc-provider on loopback,
 * test/support/oidc-provider.ts): the browser's authorization-code login with PKCE, followed redirect by redirect,
 * and the CLI's device grant brokered by Vigil. Each refused sign-in is checked to leave no user behind and to be
 * logged with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, json, raw, type Auth } from '../support/http.js';
import { accountWithUser, createAccount, expectError, uniqueName } from '../support/fixtures.js';
import { CLIENT_ID, CLIENT_SECRET, TestOidcProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { capturedLogs, groupWithRole, myRoles as rolesAt, userExists as existsAt } from '../support/sso.js';

const PROVIDERS = '/v2/rbac-manager/oidc/providers';
/** Configuration names used in this file: the test provider must know their redirect URIs up front. */
const NAMES = { corp: 'corp', rotate: 'rotate', existing: 'existing-only', keys: 'keys', gone: 'gone', crud: 'crud', off: 'off' };

let server: TestServer;
let url: string;
let idp: TestOidcProvider;
let account: string;
let otherAccount: string;
let logLines: Record<string, unknown>[] = [];

const callbackPath = (name: string) => `/v2/rbac-manager/oidc/callback/${name}`;

async function configure(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await json(url, 'POST', PROVIDERS, {
    name,
    issuer: idp.issuer,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uri: `${url}${callbackPath(name)}`,
    scopes: ['openid', 'profile', 'vigil'],
    account_claim: 'vigil_account',
    role_claim: 'vigil_role',
    groups_claim: 'groups',
    default_account: account,
    default_role: 'read-only',
    ...extra,
  });
  expect(res.status, res.text).toBe(200);
}

/** Plays the browser: starts the login at Vigil, then signs in at the provider until it sends the browser back. */
async function authorize(name: string, username: string): Promise<string> {
  const start = await raw(url, 'GET', `/v2/rbac-manager/oidc/login/${name}`, { auth: null, redirect: 'manual' });
  expect(start.status, start.text).toBe(302);
  expect(start.headers.get('cache-control')).toBe('no-store');
  return idp.browseToCallback(start.headers.get('location')!, url, username);
}

async function callback(path: string) {
  return raw(url, 'GET', path, { auth: null });
}

async function login(name: string, username: string) {
  return callback(await authorize(name, username));
}

const userExists = (username: string) => existsAt(url, username);
const myRoles = (auth: Auth) => rolesAt(url, auth);

/** Expects the answer refused (401) with `reason` in the message and the log, and `username` not created. */
async function expectRefused(res: Awaited<ReturnType<typeof raw>>, username: string, reason: RegExp): Promise<void> {
  expectError(res, 401, 'unauthorized');
  expect(res.json.message).toMatch(reason);
  expect(logLines.some((l) => l.msg === 'OpenID Connect sign-in refused' && reason.test(String(l.reason)))).toBe(true);
  expect(await userExists(username)).toBe(false);
}

beforeAll(async () => {
  const logs = capturedLogs();
  logLines = logs.lines;
  // No cooldown between key set fetches, so the rotation test need not wait jose's default 30 s.
  server = await startTestServer({ VIGIL_OIDC_JWKS_COOLDOWN_SECONDS: '0' }, { logs: logs.stream });
  url = server.url;
  idp = await TestOidcProvider.start(Object.values(NAMES).map((name) => `${url}${callbackPath(name)}`));
  account = (await createAccount(url)).name;
  otherAccount = (await createAccount(url)).name;
  await configure(NAMES.corp);
});
afterAll(async () => {
  await server?.close();
  await idp?.close();
});

describe('OpenID Connect provider configuration', () => {
  it('is for administrators only', async () => {
    const user = await accountWithUser(url, ['full-control']);
    expectError(await raw(url, 'GET', PROVIDERS, { auth: user.auth }), 403, 'forbidden');
    const body = { name: 'nope', issuer: idp.issuer, client_id: CLIENT_ID, redirect_uri: `${url}${callbackPath('nope')}` };
    expectError(await json(url, 'POST', PROVIDERS, body, user.auth), 403, 'forbidden');
    expectError(await raw(url, 'GET', `${PROVIDERS}/${NAMES.corp}`, { auth: user.auth }), 403, 'forbidden');
    expectError(await raw(url, 'DELETE', `${PROVIDERS}/${NAMES.corp}`, { auth: user.auth }), 403, 'forbidden');
  });

  it('creates, reads, lists, replaces and deletes a configuration, never answering the client secret', async () => {
    await configure(NAMES.crud);
    const got = await raw(url, 'GET', `${PROVIDERS}/${NAMES.crud}`);
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({ name: NAMES.crud, issuer: idp.issuer, client_id: CLIENT_ID, client_secret_set: true, enabled: true, scopes: ['openid', 'profile', 'vigil'] });
    expect(got.json.device_authorization_endpoint).toBe(`${idp.issuer}/device/auth`);
    expect(got.text).not.toContain(CLIENT_SECRET);
    expect((await raw(url, 'GET', PROVIDERS)).json).toContain(NAMES.crud);
    const { created_at: _c, last_updated: _l, client_secret_set: _s, device_authorization_endpoint: _d, ...editable } = got.json;
    const put = await json(url, 'PUT', `${PROVIDERS}/${NAMES.crud}`, { ...editable, allow_api_keys: true });
    expect(put.status, put.text).toBe(200);
    // Replacing without a secret keeps the stored one.
    expect(put.json).toMatchObject({ allow_api_keys: true, client_secret_set: true });
    expectError(await json(url, 'POST', PROVIDERS, editable), 409, 'conflict');
    expect((await raw(url, 'DELETE', `${PROVIDERS}/${NAMES.crud}`)).status).toBe(204);
    expectError(await raw(url, 'GET', `${PROVIDERS}/${NAMES.crud}`), 404, 'not_found');
  });

  it('refuses an issuer without discovery, an http issuer off this machine, and unknown accounts and roles', async () => {
    const base = { name: uniqueName('bad'), client_id: CLIENT_ID, redirect_uri: `${url}${callbackPath('bad')}` };
    const nothing = await json(url, 'POST', PROVIDERS, { ...base, issuer: `${url}/no-such-issuer` });
    expectError(nothing, 400, 'validation_error');
    expect(nothing.json.message).toMatch(/discovery document could not be read/);
    expectError(await json(url, 'POST', PROVIDERS, { ...base, issuer: 'http://idp.example.com' }), 400, 'validation_error');
    expectError(await json(url, 'POST', PROVIDERS, { ...base, issuer: idp.issuer, scopes: ['profile'] }), 400, 'validation_error');
    expectError(await json(url, 'POST', PROVIDERS, { ...base, issuer: idp.issuer, redirect_uri: `${base.redirect_uri}?x=1` }), 400, 'validation_error');
    expectError(await json(url, 'POST', PROVIDERS, { ...base, issuer: idp.issuer, default_account: 'no-such-account' }), 400, 'validation_error');
    expectError(await json(url, 'POST', PROVIDERS, { ...base, issuer: idp.issuer, default_role: 'no-such-role' }), 400, 'validation_error');
  });

  it('keeps one name for one provider across SAML and OpenID Connect', async () => {
    const saml = await json(url, 'POST', '/v2/rbac-manager/saml/idps', {
      name: NAMES.corp,
      sp_entity_id: 'https://vigil.test/saml',
      acs_url: `${url}/v2/rbac-manager/saml/sso/${NAMES.corp}`,
      idp_certificate: 'not checked: the name is refused first',
    });
    expectError(saml, 409, 'conflict');
    expect(saml.json.message).toBe(`'${NAMES.corp}' is the name of an OpenID Connect provider`);
  });

  it('reaches a loopback provider only when the outbound policy allows it', async () => {
    const guarded = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '' });
    try {
      const refused = await json(guarded.url, 'POST', PROVIDERS, { name: 'local', issuer: idp.issuer, client_id: CLIENT_ID, redirect_uri: `${guarded.url}${callbackPath('local')}` });
      expectError(refused, 400, 'validation_error');
      expect(refused.json.message).toMatch(/could not be read: .*cannot reach 127\.0\.0\.1/);
    } finally {
      await guarded.close();
    }
  });
});

describe('browser login (authorization code with PKCE)', () => {
  it('redirects to the provider with PKCE S256, state and nonce', async () => {
    const res = await raw(url, 'GET', `/v2/rbac-manager/oidc/login/${NAMES.corp}`, { auth: null, redirect: 'manual' });
    expect(res.status, res.text).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`);
    const q = location.searchParams;
    expect(q.get('client_id')).toBe(CLIENT_ID);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toBeTruthy();
    expect(q.get('nonce')).toBeTruthy();
    expect(q.get('redirect_uri')).toBe(`${url}${callbackPath(NAMES.corp)}`);
  });

  it('creates the user on first login with the role from the claims, and updates it on the next', async () => {
    const username = uniqueName('alice');
    idp.users.set(username, { vigil_account: account, vigil_role: 'read-only', groups: ['dev', 'ops'] });
    const first = await login(NAMES.corp, username);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.json.token).toBe(first.json.access_token);
    const auth: Auth = { bearer: first.json.token };
    const me = await raw(url, 'GET', '/v2/user', { auth });
    expect(me.json).toMatchObject({ username, account_name: account, type: 'saml', source: 'oidc', idp_name: NAMES.corp });
    expect(await myRoles(auth)).toEqual([{ domain_name: account, role: 'read-only' }]);
    expect(logLines.some((l) => l.msg === 'OpenID Connect sign-in' && l.username === username && l.created === true)).toBe(true);

    idp.users.set(username, { vigil_account: otherAccount, vigil_role: 'read-write' });
    const second = await login(NAMES.corp, username);
    expect(second.status, second.text).toBe(200);
    const auth2: Auth = { bearer: second.json.token };
    expect(await myRoles(auth2)).toEqual([{ domain_name: otherAccount, role: 'read-write' }]);
    // The session opened under the earlier account and role has ended.
    expectError(await raw(url, 'GET', '/v2/user', { auth }), 401, 'unauthorized');
    // OIDC users have no password.
    const password = await raw(url, 'POST', '/v2/oauth/token', {
      auth: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username, password: 'whatever-password' }).toString(),
    });
    expect(password.status).toBe(401);
    expect(password.json.message).toMatch(/signs in through OpenID Connect provider 'corp'/);
  });

  it('puts the user in the mapped user groups its groups claim names, and takes it out when the claim stops naming them', async () => {
    const mappings = `${PROVIDERS}/${NAMES.corp}/user-group-mappings`;
    const writers = await groupWithRole(url, otherAccount, 'read-write');
    const unmapped = await groupWithRole(url, otherAccount, 'full-control');
    const mapped = await json(url, 'POST', mappings, { user_group_uuids: [writers.uuid] });
    expect(mapped.status, mapped.text).toBe(200);
    expect(mapped.json).toEqual([expect.objectContaining({ user_group_uuid: writers.uuid, user_group_name: writers.name })]);
    expectError(await json(url, 'POST', `${PROVIDERS}/no-such-provider/user-group-mappings`, { user_group_uuids: [writers.uuid] }), 404, 'not_found');

    const username = uniqueName('grace');
    // A group that is not mapped is ignored, whatever its name.
    idp.users.set(username, { vigil_account: account, vigil_role: 'read-only', groups: [writers.name, unmapped.name] });
    const first = await login(NAMES.corp, username);
    expect(first.status, first.text).toBe(200);
    const auth: Auth = { bearer: first.json.token };
    expect(await myRoles(auth)).toEqual(
      expect.arrayContaining([
        { domain_name: account, role: 'read-only' },
        { domain_name: otherAccount, role: 'read-write' },
      ]),
    );
    expect(await myRoles(auth)).toHaveLength(2);
    const members = await raw(url, 'GET', `/v2/system/user-groups/${writers.uuid}/users`);
    expect(members.json.items.map((m: { username: string }) => m.username)).toEqual([username]);

    // The claim no longer names the group: the membership (and the role it gave) goes, and so does the session.
    idp.users.set(username, { vigil_account: account, vigil_role: 'read-only', groups: [] });
    const second = await login(NAMES.corp, username);
    expect(second.status, second.text).toBe(200);
    expect(await myRoles({ bearer: second.json.token })).toEqual([{ domain_name: account, role: 'read-only' }]);
    expectError(await raw(url, 'GET', '/v2/user', { auth }), 401, 'unauthorized');

    expect((await raw(url, 'GET', mappings)).json.map((m: { user_group_name: string }) => m.user_group_name)).toEqual([writers.name]);
    expect((await raw(url, 'DELETE', `${mappings}?user_group=${writers.uuid}`)).status).toBe(204);
    expect((await raw(url, 'GET', mappings)).json).toEqual([]);
  });

  it('refuses a disabled user', async () => {
    const username = uniqueName('dis');
    expect((await login(NAMES.corp, username)).status).toBe(200);
    const state = await json(url, 'PUT', `/v2/accounts/${account}/users/${username}/state`, { state: 'disabled' });
    expect(state.status, state.text).toBe(200);
    const res = await login(NAMES.corp, username);
    expectError(res, 401, 'unauthorized');
    expect(res.json.message).toMatch(/is disabled/);
  });

  it('refuses an unknown state and a state used before', async () => {
    const username = uniqueName('state');
    const path = await authorize(NAMES.corp, username);
    const forged = new URL(path, url);
    forged.searchParams.set('state', 'made-up-state');
    await expectRefused(await callback(`${forged.pathname}${forged.search}`), username, /state is unknown, expired or already used/);
    expect((await callback(path)).status).toBe(200);
    const again = uniqueName('replay');
    // The same callback again (its state spent) is refused, even for another user's code.
    const other = new URL(await authorize(NAMES.corp, again), url);
    other.searchParams.set('state', new URL(path, url).searchParams.get('state')!);
    await expectRefused(await callback(`${other.pathname}${other.search}`), again, /state is unknown, expired or already used/);
  });

  it('refuses a login the provider answered with an error, spending its state', async () => {
    const username = uniqueName('denied');
    const answered = new URL(await authorize(NAMES.corp, username), url);
    const denied = new URL(answered.pathname, url);
    denied.searchParams.set('state', answered.searchParams.get('state')!);
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('error_description', 'the user said no');
    await expectRefused(await callback(`${denied.pathname}${denied.search}`), username, /answered access_denied \(the user said no\)/);
    await expectRefused(await callback(`${answered.pathname}${answered.search}`), username, /state is unknown, expired or already used/);
  });

  describe('refuses ID tokens', () => {
    const cases: [string, (c: Record<string, unknown>) => Record<string, unknown>, RegExp][] = [
      ['with the wrong nonce', (c) => ({ ...c, nonce: 'another-nonce' }), /nonce/],
      ['for another audience', (c) => ({ ...c, aud: 'another-client' }), /aud/],
      ['that have expired', (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }), /exp/],
      ['from another issuer', (c) => ({ ...c, iss: 'https://impostor.example.com' }), /iss/],
    ];
    for (const [what, rewrite, reason] of cases) {
      it(what, async () => {
        const username = uniqueName('bad-token');
        idp.rewriteIdToken = rewrite;
        try {
          await expectRefused(await login(NAMES.corp, username), username, reason);
        } finally {
          idp.rewriteIdToken = null;
        }
      });
    }

    it('signed by a key the provider does not publish', async () => {
      const username = uniqueName('unknown-key');
      idp.rewriteIdToken = (c) => c;
      idp.signWithUnknownKey = true;
      try {
        await expectRefused(await login(NAMES.corp, username), username, /ID token is not valid: no applicable key found/);
      } finally {
        idp.rewriteIdToken = null;
        idp.signWithUnknownKey = false;
      }
    });
  });

  it('validates tokens signed with a rotated key', async () => {
    await configure(NAMES.rotate);
    expect((await login(NAMES.rotate, uniqueName('before'))).status).toBe(200);
    const kid = await idp.rotateKeys();
    const after = await login(NAMES.rotate, uniqueName('after'));
    expect(after.status, after.text).toBe(200);
    expect(idp.currentKid).toBe(kid);
  });

  it('refuses logins through a disabled provider, and admits only existing users when so configured', async () => {
    await configure(NAMES.off, { enabled: false });
    const off = await raw(url, 'GET', `/v2/rbac-manager/oidc/login/${NAMES.off}`, { auth: null, redirect: 'manual' });
    expectError(off, 401, 'unauthorized');
    expect(off.json.message).toMatch(/disabled/);
    await configure(NAMES.existing, { require_existing_users: true });
    const stranger = uniqueName('stranger');
    await expectRefused(await login(NAMES.existing, stranger), stranger, /admits only existing users/);
  });

  it('lets OIDC users create and use API keys only when the provider allows it', async () => {
    await configure(NAMES.keys);
    const username = uniqueName('keyuser');
    const res = await login(NAMES.keys, username);
    expect(res.status, res.text).toBe(200);
    const auth: Auth = { bearer: res.json.token };
    const refused = await json(url, 'POST', '/v2/user/api-keys', { name: 'ci' }, auth);
    expectError(refused, 403, 'forbidden');
    expect(refused.json.message).toMatch(/API keys are not allowed for users of identity provider 'keys'/);
    expectError(await json(url, 'POST', `/v2/accounts/${account}/users/${username}/api-keys`, { name: 'ci' }, adminAuth), 403, 'forbidden');

    const { created_at: _c, last_updated: _l, client_secret_set: _s, device_authorization_endpoint: _d, ...editable } = (await raw(url, 'GET', `${PROVIDERS}/${NAMES.keys}`)).json;
    expect((await json(url, 'PUT', `${PROVIDERS}/${NAMES.keys}`, { ...editable, allow_api_keys: true })).status).toBe(200);
    const created = await json(url, 'POST', '/v2/user/api-keys', { name: 'ci' }, auth);
    expect(created.status, created.text).toBe(201);
    const keyAuth: Auth = { apiKey: created.json.value };
    expect((await raw(url, 'GET', '/v2/user', { auth: keyAuth })).status).toBe(200);
    // Withdrawing the permission stops the keys already made.
    expect((await json(url, 'PUT', `${PROVIDERS}/${NAMES.keys}`, { ...editable, allow_api_keys: false })).status).toBe(200);
    const after = await raw(url, 'GET', '/v2/user', { auth: keyAuth });
    expectError(after, 401, 'unauthorized');
    expect(after.json.message).toMatch(/API keys are not allowed/);
  });

  it('deleting a provider deletes its users', async () => {
    await configure(NAMES.gone);
    const username = uniqueName('gone-user');
    expect((await login(NAMES.gone, username)).status).toBe(200);
    expect((await raw(url, 'DELETE', `${PROVIDERS}/${NAMES.gone}`)).status).toBe(204);
    expect(await userExists(username)).toBe(false);
    expectError(await raw(url, 'GET', `/v2/rbac-manager/oidc/login/${NAMES.gone}`, { auth: null, redirect: 'manual' }), 404, 'not_found');
  });
});

describe('device grant (the CLI)', () => {
  const start = () => raw(url, 'POST', `/v2/rbac-manager/oidc/device/${NAMES.corp}`, { auth: null });
  const poll = (handle: string) => json(url, 'POST', `/v2/rbac-manager/oidc/device/${NAMES.corp}/token`, { handle }, null);

  it('signs the user in once the user approves at the provider', async () => {
    const username = uniqueName('cli');
    idp.users.set(username, { vigil_account: account, vigil_role: 'read-write' });
    const started = await start();
    expect(started.status, started.text).toBe(200);
    expect(started.json).toMatchObject({ verification_uri: `${idp.issuer}/device`, interval: 5 });
    expect(started.json.user_code).toBeTruthy();
    const { handle } = started.json;

    const pending = await poll(handle);
    expectError(pending, 400, 'authorization_pending');
    // Polled again at once: too fast.
    const fast = await poll(handle);
    expectError(fast, 429, 'slow_down');
    expect(Number(fast.headers.get('retry-after'))).toBeGreaterThanOrEqual(4);
    expect(fast.json.detail.interval).toBe(5);

    await idp.approveDevice(started.json.user_code, username);
    // The poll interval has not passed; Vigil must not be hammered into hammering the provider.
    expectError(await poll(handle), 429, 'slow_down');
  });

  it('answers the token after approval, once', async () => {
    const username = uniqueName('cli2');
    idp.users.set(username, { vigil_account: account, vigil_role: 'read-write' });
    const started = await start();
    await idp.approveDevice(started.json.user_code, username);
    const done = await poll(started.json.handle);
    expect(done.status, done.text).toBe(200);
    expect(await myRoles({ bearer: done.json.token })).toEqual([{ domain_name: account, role: 'read-write' }]);
    expectError(await poll(started.json.handle), 404, 'not_found');
  });

  it('answers expired_token once the device code has expired', async () => {
    const started = await start();
    const { db } = server.running.services;
    await db('oidc_device_grants').update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const res = await poll(started.json.handle);
    expectError(res, 410, 'expired_token');
    expectError(await poll(started.json.handle), 404, 'not_found');
  });

  it('refuses a sign-in the user denied, with the reason logged', async () => {
    const started = await start();
    await idp.denyDevice(started.json.user_code);
    const res = await poll(started.json.handle);
    expectError(res, 401, 'unauthorized');
    expect(res.json.message).toMatch(/the provider answered access_denied/);
    expect(logLines.some((l) => l.msg === 'OpenID Connect sign-in refused' && l.flow === 'device_code' && /access_denied/.test(String(l.reason)))).toBe(true);
  });

  it('refuses an unknown handle', async () => {
    expectError(await poll('no-such-handle'), 404, 'not_found');
  });
});
