/**
 * SAML single sign-on end to end: a samlify identity provider (test/support/saml-idp.ts) signs responses with its
 * own key; Vigil validates them at /v2/rbac-manager/saml/sso/{idp}. Each refused response is checked to leave no
 * user behind and to be logged with its reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDomFromString } from '@node-saml/node-saml/lib/xml.js';
import { adminAuth, json, raw, type Auth } from '../support/http.js';
import { accountWithUser, createAccount, createUser, expectError, uniqueName } from '../support/fixtures.js';
import { TestIdp, editResponse, postToAcs, testKeyPair, type LoginOptions } from '../support/saml-idp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { capturedLogs } from '../support/sso.js';
import { missingTools } from '../support/tools.js';

const SP_ENTITY = 'https://vigil.test/saml';
const IDPS = '/v2/rbac-manager/saml/idps';

let server: TestServer;
let url: string;
let idp: TestIdp;
let account: string;
let otherAccount: string;
const logs = capturedLogs();
const logLines = logs.lines;

const acsUrl = (name: string) => `${url}/v2/rbac-manager/saml/sso/${name}`;

async function configure(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await json(url, 'POST', IDPS, {
    name,
    sp_entity_id: SP_ENTITY,
    acs_url: acsUrl(name),
    idp_metadata_xml: idp.metadata(),
    default_account: account,
    default_role: 'read-only',
    idp_account_attribute: 'account',
    idp_role_attribute: 'role',
    ...extra,
  });
  expect(res.status, res.text).toBe(200);
}

async function respond(name: string, options: LoginOptions): Promise<string> {
  return idp.loginResponse(SP_ENTITY, acsUrl(name), options);
}

const post = (name: string, samlResponse: string) => postToAcs(url, name, samlResponse);

async function userExists(username: string): Promise<boolean> {
  const res = await raw(url, 'GET', '/v2/accounts/users');
  expect(res.status, res.text).toBe(200);
  return res.json.items.some((u: { username: string }) => u.username === username);
}

/** Expects the response refused (401) with `reason` in the message and the log, and `username` not created. */
async function expectRefused(name: string, samlResponse: string, username: string, reason: RegExp): Promise<void> {
  const res = await post(name, samlResponse);
  expectError(res, 401, 'unauthorized');
  expect(res.json.message).toMatch(reason);
  expect(logLines.some((l) => l.msg === 'SAML sign-in refused' && reason.test(String(l.reason)))).toBe(true);
  expect(await userExists(username)).toBe(false);
}

async function myRoles(auth: Auth): Promise<{ domain_name: string; role: string }[]> {
  const res = await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth });
  expect(res.status, res.text).toBe(200);
  return res.json.map((r: { domain_name: string; roles: { name: string } }) => ({ domain_name: r.domain_name, role: r.roles.name }));
}

beforeAll(async () => {
  server = await startTestServer({}, { logs: logs.stream });
  url = server.url;
  idp = new TestIdp();
  account = (await createAccount(url)).name;
  otherAccount = (await createAccount(url)).name;
});
afterAll(async () => {
  await server?.close();
});

describe.skipIf(missingTools('openssl'))('SAML single sign-on', () => {
  describe('identity provider configuration', () => {
    it('is for administrators only', async () => {
      const user = await accountWithUser(url, ['full-control']);
      expectError(await raw(url, 'GET', IDPS, { auth: user.auth }), 403, 'forbidden');
      const body = { name: 'nope', sp_entity_id: SP_ENTITY, acs_url: acsUrl('nope'), idp_certificate: idp.certificate };
      expectError(await json(url, 'POST', IDPS, body, user.auth), 403, 'forbidden');
      expectError(await raw(url, 'GET', `${IDPS}/nope`, { auth: user.auth }), 403, 'forbidden');
      expectError(await raw(url, 'DELETE', `${IDPS}/nope`, { auth: user.auth }), 403, 'forbidden');
    });

    it('creates, reads, lists, replaces and deletes a configuration', async () => {
      const name = uniqueName('crud');
      await configure(name);
      const got = await raw(url, 'GET', `${IDPS}/${name}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ name, sp_entity_id: SP_ENTITY, acs_url: acsUrl(name), enabled: true, require_existing_users: false, allow_api_keys: false });
      expect((await raw(url, 'GET', IDPS)).json).toContain(name);
      const put = await json(url, 'PUT', `${IDPS}/${name}`, { name, sp_entity_id: SP_ENTITY, acs_url: acsUrl(name), idp_certificate: idp.certificate, require_signed_assertions: true });
      expect(put.status, put.text).toBe(200);
      expect(put.json.require_signed_assertions).toBe(true);
      expect(put.json.idp_metadata_xml).toBeUndefined();
      expectError(await json(url, 'POST', IDPS, { name, sp_entity_id: SP_ENTITY, acs_url: acsUrl(name), idp_certificate: idp.certificate }), 409, 'conflict');
      expect((await raw(url, 'DELETE', `${IDPS}/${name}`)).status).toBe(204);
      expectError(await raw(url, 'GET', `${IDPS}/${name}`), 404, 'not_found');
    });

    it('refuses a configuration without a usable signing certificate, or naming unknown accounts and roles', async () => {
      const base = { name: uniqueName('bad'), sp_entity_id: SP_ENTITY, acs_url: acsUrl('bad') };
      expectError(await json(url, 'POST', IDPS, base), 400, 'validation_error');
      expectError(await json(url, 'POST', IDPS, { ...base, idp_certificate: 'not a certificate' }), 400, 'validation_error');
      expectError(await json(url, 'POST', IDPS, { ...base, idp_metadata_xml: '<EntityDescriptor' }), 400, 'validation_error');
      expectError(await json(url, 'POST', IDPS, { ...base, idp_certificate: idp.certificate, default_account: 'no-such-account' }), 400, 'validation_error');
      expectError(await json(url, 'POST', IDPS, { ...base, idp_certificate: idp.certificate, default_role: 'no-such-role' }), 400, 'validation_error');
    });

    it('fetches metadata named by URL through the outbound client and keeps it', async () => {
      const metadataServer = createServer((req, res) => {
        if (req.url === '/metadata') res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idp.metadata());
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', resolve));
      const { port } = metadataServer.address() as AddressInfo;
      try {
        const name = uniqueName('byurl');
        const body = { name, sp_entity_id: SP_ENTITY, acs_url: acsUrl(name), default_account: account, default_role: 'read-only' };
        const missing = await json(url, 'POST', IDPS, { ...body, idp_metadata_url: `http://127.0.0.1:${port}/nothing` });
        expectError(missing, 400, 'validation_error');
        expect(missing.json.message).toMatch(/answered HTTP 404/);
        const created = await json(url, 'POST', IDPS, { ...body, idp_metadata_url: `http://127.0.0.1:${port}/metadata` });
        expect(created.status, created.text).toBe(200);
        expect(created.json.idp_metadata_xml).toBe(idp.metadata());
        const login = await post(name, await respond(name, { nameId: uniqueName('byurl-user') }));
        expect(login.status, login.text).toBe(200);
        // Under the default outbound policy, an internal address is not fetched.
        const guarded = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '' });
        try {
          const refused = await json(guarded.url, 'POST', IDPS, {
            name,
            sp_entity_id: SP_ENTITY,
            acs_url: `${guarded.url}/v2/rbac-manager/saml/sso/${name}`,
            idp_metadata_url: `http://127.0.0.1:${port}/metadata`,
          });
          expectError(refused, 400, 'validation_error');
          expect(refused.json.message).toMatch(/could not be fetched: cannot reach 127\.0\.0\.1/);
        } finally {
          await guarded.close();
        }
      } finally {
        await new Promise((resolve) => metadataServer.close(resolve));
      }
    });
  });

  describe('sign-in', () => {
    const NAME = 'corp';
    beforeAll(async () => {
      await configure(NAME);
    });

    it('creates the user on first sign-in with the mapped account and role, and updates the role on the next', async () => {
      const username = uniqueName('alice');
      const first = await post(NAME, await respond(NAME, { nameId: username, attributes: { account, role: 'read-only' } }));
      expect(first.status, first.text).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.json.token).toBe(first.json.access_token);
      const auth: Auth = { bearer: first.json.token };
      const me = await raw(url, 'GET', '/v2/user', { auth });
      expect(me.status).toBe(200);
      expect(me.json).toMatchObject({ username, account_name: account, type: 'saml', source: 'saml', idp_name: NAME });
      expect(await myRoles(auth)).toEqual([{ domain_name: account, role: 'read-only' }]);

      const second = await post(NAME, await respond(NAME, { nameId: username, attributes: { account: otherAccount, role: 'read-write' } }));
      expect(second.status, second.text).toBe(200);
      const auth2: Auth = { bearer: second.json.token };
      expect(await myRoles(auth2)).toEqual([{ domain_name: otherAccount, role: 'read-write' }]);
      expect((await raw(url, 'GET', '/v2/user', { auth: auth2 })).json.account_name).toBe(otherAccount);
      // The session opened under the earlier account and role has ended.
      expectError(await raw(url, 'GET', '/v2/user', { auth }), 401, 'unauthorized');
      // The session refreshes like one of the password grant.
      const refreshed = await raw(url, 'POST', '/v2/oauth/token', {
        auth: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: second.json.refresh_token }).toString(),
      });
      expect(refreshed.status, refreshed.text).toBe(200);
      expect((await raw(url, 'GET', '/v2/user', { auth: { bearer: refreshed.json.access_token } })).json.username).toBe(username);
    });

    it('uses the default account and role when the assertion names none', async () => {
      const username = uniqueName('dflt');
      const res = await post(NAME, await respond(NAME, { nameId: username }));
      expect(res.status, res.text).toBe(200);
      expect(await myRoles({ bearer: res.json.token })).toEqual([{ domain_name: account, role: 'read-only' }]);
    });

    it('survives two first sign-ins of one user at once', async () => {
      const username = uniqueName('race');
      const answers = await Promise.all([1, 2, 3].map(async () => post(NAME, await respond(NAME, { nameId: username }))));
      const statuses = answers.map((a) => a.status);
      expect(statuses, answers.map((a) => a.text).join('\n')).toContain(200);
      for (const a of answers) if (a.status !== 200) expect(a.json.message).toMatch(/concurrent sign-in/);
      expect(await userExists(username)).toBe(true);
    });

    it('refuses a user of a disabled account', async () => {
      const closed = (await createAccount(url)).name;
      const state = await json(url, 'PUT', `/v2/accounts/${closed}/state`, { state: 'disabled' });
      expect(state.status, state.text).toBe(200);
      const username = uniqueName('closed');
      await expectRefused(NAME, await respond(NAME, { nameId: username, attributes: { account: closed } }), username, /account '.*' is disabled/);
    });

    it('refuses a disabled user', async () => {
      const username = uniqueName('dis');
      expect((await post(NAME, await respond(NAME, { nameId: username }))).status).toBe(200);
      const state = await json(url, 'PUT', `/v2/accounts/${account}/users/${username}/state`, { state: 'disabled' });
      expect(state.status, state.text).toBe(200);
      const res = await post(NAME, await respond(NAME, { nameId: username }));
      expectError(res, 401, 'unauthorized');
      expect(res.json.message).toMatch(/is disabled/);
    });

    it('refuses an unsigned response', async () => {
      const username = uniqueName('unsigned');
      const unsigned = editResponse(await respond(NAME, { nameId: username }), (xml) => xml.replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, ''));
      await expectRefused(NAME, unsigned, username, /signature/i);
    });

    it('refuses a tampered response', async () => {
      const username = uniqueName('victim');
      const original = uniqueName('tamper');
      const tampered = editResponse(await respond(NAME, { nameId: original, attributes: { account, role: 'read-only' } }), (xml) =>
        xml.replace(`>${original}<`, `>${username}<`),
      );
      await expectRefused(NAME, tampered, username, /signature/i);
    });

    it('refuses a signature-wrapped response (signed assertion moved, forged one read)', async () => {
      const username = uniqueName('wrapped');
      const signed = await respond(NAME, { nameId: uniqueName('honest'), signing: 'assertion' });
      const wrapped = editResponse(signed, (xml) => {
        const assertion = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)![0];
        const forged = assertion
          .replace(/ID="([^"]+)"/, 'ID="$1-forged"')
          .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '')
          .replace(/(<saml:NameID[^>]*>)[^<]*/, `$1${username}`)
          .replace(/<\/saml:Assertion>$/, `<saml:Advice>${assertion}</saml:Advice></saml:Assertion>`);
        return xml.replace(assertion, forged);
      });
      await expectRefused(NAME, wrapped, username, /signature/i);
    });

    it('refuses an expired assertion, and one not yet valid', async () => {
      const username = uniqueName('expired');
      await expectRefused(NAME, await respond(NAME, { nameId: username, notBeforeMs: -20 * 60_000, notOnOrAfterMs: -10 * 60_000 }), username, /expired/i);
      await expectRefused(NAME, await respond(NAME, { nameId: username, notBeforeMs: 10 * 60_000, notOnOrAfterMs: 20 * 60_000 }), username, /not yet valid/i);
    });

    it('refuses a replayed assertion', async () => {
      const username = uniqueName('replay');
      const response = await respond(NAME, { nameId: username });
      expect((await post(NAME, response)).status).toBe(200);
      const again = await post(NAME, response);
      expectError(again, 401, 'unauthorized');
      expect(again.json.message).toMatch(/already been used/);
    });

    it('refuses an assertion for another audience or another recipient', async () => {
      const username = uniqueName('aud');
      await expectRefused(NAME, await idp.loginResponse(SP_ENTITY, acsUrl(NAME), { nameId: username, audience: 'https://other.test/sp' }), username, /audience/i);
      await expectRefused(NAME, await idp.loginResponse(SP_ENTITY, acsUrl('elsewhere'), { nameId: username }), username, /recipient|destination/i);
    });

    it('refuses a response signed by another key', async () => {
      const username = uniqueName('impostor');
      const impostor = new TestIdp({ entityId: idp.entityId });
      await expectRefused(NAME, await impostor.loginResponse(SP_ENTITY, acsUrl(NAME), { nameId: username }), username, /signature/i);
    });

    it('refuses a response with an external entity without resolving it', async () => {
      const username = uniqueName('xxe');
      const withEntity = editResponse(await respond(NAME, { nameId: username }), (xml) =>
        `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY leak SYSTEM "file:///etc/passwd">]>${xml.replace(`>${username}<`, '>&leak;<')}`,
      );
      await expectRefused(NAME, withEntity, username, /entity not found/);
      // The parser refuses the reference instead of reading the file.
      await expect(parseDomFromString('<!DOCTYPE r [<!ENTITY leak SYSTEM "file:///etc/passwd">]><r>&leak;</r>')).rejects.toThrow(/entity not found/);
    });

    it('does not let an assertion take over a native user', async () => {
      const native = await createUser(url, account);
      const res = await post(NAME, await respond(NAME, { nameId: native.username, attributes: { account, role: 'read-write' } }));
      expectError(res, 401, 'unauthorized');
      expect(res.json.message).toMatch(/does not sign in through/);
    });

    it('refuses an unknown account or role named by the assertion, creating nothing', async () => {
      const username = uniqueName('unmapped');
      await expectRefused(NAME, await respond(NAME, { nameId: username, attributes: { account: 'no-such-account' } }), username, /does not exist/);
      await expectRefused(NAME, await respond(NAME, { nameId: username, attributes: { role: 'no-such-role' } }), username, /does not exist/);
    });

    it('refuses the password grant to SAML users', async () => {
      const username = uniqueName('nopass');
      expect((await post(NAME, await respond(NAME, { nameId: username }))).status).toBe(200);
      const res = await raw(url, 'POST', '/v2/oauth/token', {
        auth: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username, password: 'whatever-password' }).toString(),
      });
      expect(res.status).toBe(401);
      expect(res.json.message).toMatch(/signs in through SAML identity provider 'corp'/);
    });
  });

  describe('identity provider options', () => {
    it('requires a signed assertion when require_signed_assertions is set', async () => {
      const name = uniqueName('sa');
      await configure(name, { require_signed_assertions: true });
      const refused = uniqueName('respsigned');
      await expectRefused(name, await respond(name, { nameId: refused, signing: 'response' }), refused, /signature/i);
      const ok = await post(name, await respond(name, { nameId: uniqueName('asigned'), signing: 'assertion' }));
      expect(ok.status, ok.text).toBe(200);
    });

    it('admits only existing users when require_existing_users is set', async () => {
      const name = uniqueName('existing');
      await configure(name, { require_existing_users: true });
      const username = uniqueName('stranger');
      await expectRefused(name, await respond(name, { nameId: username }), username, /admits only existing users/);
    });

    it('lets SSO users create and use API keys only when the identity provider allows it', async () => {
      const name = uniqueName('keys');
      await configure(name);
      const username = uniqueName('keyuser');
      const login = await post(name, await respond(name, { nameId: username }));
      expect(login.status, login.text).toBe(200);
      const auth: Auth = { bearer: login.json.token };
      const refused = await json(url, 'POST', '/v2/user/api-keys', { name: 'ci' }, auth);
      expectError(refused, 403, 'forbidden');
      expect(refused.json.message).toMatch(/API keys are not allowed for users of identity provider/);
      expectError(await json(url, 'POST', `/v2/accounts/${account}/users/${username}/api-keys`, { name: 'ci' }, adminAuth), 403, 'forbidden');

      const config = (await raw(url, 'GET', `${IDPS}/${name}`)).json;
      const { created_at: _c, last_updated: _l, ...editable } = config;
      expect((await json(url, 'PUT', `${IDPS}/${name}`, { ...editable, allow_api_keys: true })).status).toBe(200);
      const created = await json(url, 'POST', '/v2/user/api-keys', { name: 'ci' }, auth);
      expect(created.status, created.text).toBe(201);
      const keyAuth: Auth = { apiKey: created.json.value };
      expect((await raw(url, 'GET', '/v2/user', { auth: keyAuth })).status).toBe(200);

      // Withdrawing the permission stops the keys already made.
      expect((await json(url, 'PUT', `${IDPS}/${name}`, { ...editable, allow_api_keys: false })).status).toBe(200);
      const res = await raw(url, 'GET', '/v2/user', { auth: keyAuth });
      expectError(res, 401, 'unauthorized');
      expect(res.json.message).toMatch(/API keys are not allowed/);
    });

    it('deleting an identity provider deletes its users', async () => {
      const name = uniqueName('gone');
      await configure(name);
      const username = uniqueName('gone-user');
      expect((await post(name, await respond(name, { nameId: username }))).status).toBe(200);
      expect(await userExists(username)).toBe(true);
      expect((await raw(url, 'DELETE', `${IDPS}/${name}`)).status).toBe(204);
      expect(await userExists(username)).toBe(false);
      expectError(await post(name, await respond(name, { nameId: username })), 404, 'not_found');
    });
  });

  describe('SP-initiated login', () => {
    it('redirects to the identity provider with an AuthnRequest, and accepts the answer to it once', async () => {
      const name = uniqueName('sp');
      await configure(name);
      const res = await raw(url, 'GET', `/v2/rbac-manager/saml/login/${name}?RelayState=cli`, { auth: null, redirect: 'manual' });
      expect(res.status, res.text).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(idp.ssoUrl);
      expect(location.searchParams.get('RelayState')).toBe('cli');
      const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      const requestId = /ID="([^"]+)"/.exec(request)![1];
      expect(request).toContain(`AssertionConsumerServiceURL="${acsUrl(name)}"`);

      const username = uniqueName('spuser');
      const ok = await post(name, await respond(name, { nameId: username, inResponseTo: requestId }));
      expect(ok.status, ok.text).toBe(200);
      // The request has been answered: a second answer to it is refused, as is an answer to a request never made.
      const again = uniqueName('again');
      await expectRefused(name, await respond(name, { nameId: again, inResponseTo: requestId }), again, /InResponseTo/);
      await expectRefused(name, await respond(name, { nameId: again, inResponseTo: '_never-asked' }), again, /InResponseTo/);
    });

    it('signs the AuthnRequest when the service provider has a key', async () => {
      const keys = testKeyPair('vigil-sp');
      const dir = mkdtempSync(join(tmpdir(), 'vigil-sp-'));
      writeFileSync(join(dir, 'key.pem'), keys.privateKey);
      writeFileSync(join(dir, 'cert.pem'), keys.certificate);
      const signing = await startTestServer({ VIGIL_SAML_SP_KEY_FILE: join(dir, 'key.pem'), VIGIL_SAML_SP_CERT_FILE: join(dir, 'cert.pem') });
      try {
        const name = 'signed';
        const acs = `${signing.url}/v2/rbac-manager/saml/sso/${name}`;
        const created = await json(signing.url, 'POST', IDPS, { name, sp_entity_id: SP_ENTITY, acs_url: acs, idp_metadata_xml: idp.metadata() });
        expect(created.status, created.text).toBe(200);
        const res = await raw(signing.url, 'GET', `/v2/rbac-manager/saml/login/${name}?RelayState=web`, { auth: null, redirect: 'manual' });
        expect(res.status, res.text).toBe(302);
        const location = new URL(res.headers.get('location')!);
        expect(location.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
        expect(await idp.readSignedLoginRequest(location, SP_ENTITY, acs, keys.certificate)).toMatch(/^_/);
        // Another key's signature does not verify.
        await expect(idp.readSignedLoginRequest(location, SP_ENTITY, acs, testKeyPair('other-sp').certificate)).rejects.toThrow(/SIGNATURE/i);
      } finally {
        await signing.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('answers 404 for an unknown identity provider', async () => {
      expectError(await raw(url, 'GET', '/v2/rbac-manager/saml/login/nobody', { auth: null, redirect: 'manual' }), 404, 'not_found');
    });
  });
});
