/**
 * Single sign-on logins of the web interface (`return_to`): the public list of providers for the sign-in page,
 * the browser binding cookie, the callback's redirect with a one-time code (never the token) in the fragment, and
 * the code exchange (single use, 60 s, only by the browser that started the login). OpenID Connect against a real
 * provider (oidc-provider on loopback), SAML with the samlify test identity provider. Every answer is checked
 * against the spec (test/support/http.ts).
 */
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, raw, type RawResponse } from '../support/http.js';
import { createAccount, expectError, uniqueName } from '../support/fixtures.js';
import { TestOidcProvider } from '../support/oidc-provider.js';
import { TestIdp } from '../support/saml-idp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { capturedLogs, configureTestOidcProvider, userExists as existsAt } from '../support/sso.js';
import { missingTools } from '../support/tools.js';

const OIDC = 'corp-ui';
const OIDC_OFF = 'corp-off';
const SAML = 'saml-ui';
const SP_ENTITY = 'https://vigil.test/saml-ui';
const COOKIE = 'vigil_sso_browser';

let server: TestServer;
let url: string;
let idp: TestOidcProvider;
let account: string;
let logLines: Record<string, unknown>[] = [];

const callbackPath = (name: string) => `/v2/rbac-manager/oidc/callback/${name}`;

const configureOidc = (name: string, extra: Record<string, unknown> = {}) =>
  configureTestOidcProvider(url, idp, name, { default_account: account, default_role: 'read-only', ...extra });

/** The `name=value` pair of the binding cookie a login start set. */
function bindingCookie(res: RawResponse): string {
  const header = res.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
  expect(header).toBeDefined();
  return header!.split(';')[0];
}

const get = (path: string, cookie?: string) => raw(url, 'GET', path, { auth: null, redirect: 'manual', headers: cookie ? { cookie } : {} });
const exchange = (code: string, cookie?: string) =>
  raw(url, 'POST', '/v2/rbac-manager/sso/code', { auth: null, headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify({ code }) });

/** Starts a login of the web interface and signs `username` in at the provider; the callback path and the browser's cookie. */
async function startOidc(username: string, returnTo = '/ui/', cookie?: string): Promise<{ callback: string; cookie: string; start: RawResponse }> {
  const start = await get(`/v2/rbac-manager/oidc/login/${OIDC}?return_to=${encodeURIComponent(returnTo)}`, cookie);
  expect(start.status, start.text).toBe(302);
  const callback = await idp.browseToCallback(start.headers.get('location')!, url, username);
  return { callback, cookie: bindingCookie(start), start };
}

/** The one-time code of a 303 to the interface; checks that the location carries no token. */
function codeOf(res: RawResponse, returnTo = '/ui/'): string {
  expect(res.status, res.text).toBe(303);
  const location = res.headers.get('location')!;
  expect(location.startsWith(`${returnTo}#sso_code=`), location).toBe(true);
  expect(location).not.toMatch(/eyJ/); // no JWT anywhere in the URL
  return location.slice(location.indexOf('=') + 1);
}

async function expectRefusedCode(res: RawResponse, reason: RegExp): Promise<void> {
  expectError(res, 401, 'unauthorized');
  expect(res.json.message).toMatch(reason);
}

beforeAll(async () => {
  const logs = capturedLogs();
  logLines = logs.lines;
  server = await startTestServer({}, { logs: logs.stream });
  url = server.url;
  idp = await TestOidcProvider.start([OIDC, OIDC_OFF].map((name) => `${url}${callbackPath(name)}`));
  account = (await createAccount(url)).name;
  await configureOidc(OIDC);
  await configureOidc(OIDC_OFF, { enabled: false });
});
afterAll(async () => {
  await server?.close();
  await idp?.close();
});

describe('single sign-on of the web interface: OpenID Connect', () => {
  it('lists the enabled providers to anyone, names and login paths only', async () => {
    const res = await get('/v2/rbac-manager/sso/providers');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toContainEqual({ name: OIDC, protocol: 'oidc', login_path: `/v2/rbac-manager/oidc/login/${OIDC}` });
    expect(res.json.map((o: { name: string }) => o.name)).not.toContain(OIDC_OFF);
  });

  it('binds the login to the browser with an HttpOnly SameSite=Lax cookie', async () => {
    const { start } = await startOidc(uniqueName('bind'));
    const header = start.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`))!;
    expect(header).toMatch(/; Path=\/v2\/rbac-manager\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    // A browser that has a binding keeps it, so logins started in two tabs both complete.
    const again = await get(`/v2/rbac-manager/oidc/login/${OIDC}?return_to=/ui/`, header.split(';')[0]);
    expect(bindingCookie(again)).toBe(header.split(';')[0]);
  });

  it('ends at the interface with a one-time code that the same browser exchanges for the token, once', async () => {
    const username = uniqueName('ui');
    const { callback, cookie } = await startOidc(username, '/ui/images');
    const code = codeOf(await get(callback, cookie), '/ui/images');
    const exchanged = await exchange(code, cookie);
    expect(exchanged.status, exchanged.text).toBe(200);
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
    const me = await raw(url, 'GET', '/v2/user', { auth: { bearer: exchanged.json.token } });
    expect(me.status, me.text).toBe(200);
    expect(me.json.username).toBe(username);
    await expectRefusedCode(await exchange(code, cookie), /unknown or already used/);
    expect(logLines.some((l) => l.msg === 'single sign-on code exchanged' && l.username === username)).toBe(true);
  });

  it('refuses the callback in a browser that did not start the login (login CSRF), and for good', async () => {
    const username = uniqueName('csrf');
    const { callback } = await startOidc(username);
    const other = `${COOKIE}=${'A'.repeat(43)}`;
    // Sent back to the interface with the reason, rather than a 401 that makes a browser prompt for Basic.
    const refused = await get(callback, other);
    expect(refused.status, refused.text).toBe(303);
    expect(refused.headers.get('location')).toMatch(/^\/ui\/#sso_error=.*started%20in%20another%20browser/);
    // The state is used up: presented again (with no cookie at all) it is unknown.
    expectError(await get(callback), 401, 'unauthorized');
    expect(logLines.some((l) => l.msg === 'OpenID Connect sign-in refused' && /started in another browser/.test(String(l.reason)))).toBe(true);
    expect(await existsAt(url, username)).toBe(false);
  });

  it('refuses a code exchanged without the binding cookie or by another browser, and uses the code up', async () => {
    const { callback, cookie } = await startOidc(uniqueName('steal'));
    const code = codeOf(await get(callback, cookie));
    await expectRefusedCode(await exchange(code), /another browser/);
    await expectRefusedCode(await exchange(code, cookie), /unknown or already used/);

    const second = await startOidc(uniqueName('steal2'));
    const code2 = codeOf(await get(second.callback, second.cookie));
    await expectRefusedCode(await exchange(code2, `${COOKIE}=${'B'.repeat(43)}`), /another browser/);
  });

  it('refuses a code after 60 seconds', async () => {
    const { callback, cookie } = await startOidc(uniqueName('late'));
    const code = codeOf(await get(callback, cookie));
    const row = await server.running.services.db('sso_codes').first('expires_at');
    expect(Date.parse(row.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    await server.running.services.db('sso_codes').update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    await expectRefusedCode(await exchange(code, cookie), /expired/);
  });

  it('refuses unknown codes and malformed bodies', async () => {
    await expectRefusedCode(await exchange('not-a-code', `${COOKIE}=${'C'.repeat(43)}`), /unknown/);
    expectError(await raw(url, 'POST', '/v2/rbac-manager/sso/code', { auth: null, headers: { 'content-type': 'application/json' }, body: '{}' }), 400, 'validation_error');
  });

  it('accepts only a path under /ui/ of this service as return_to', async () => {
    for (const bad of ['https://evil.example/ui/', '//evil.example/ui/', '/v2/user', '/ui/../v2/user', '/ui/%2e%2e/v2/user', '/ui//evil.example', '/ui/a?b=1', '/ui\\evil', '/uix/']) {
      expectError(await get(`/v2/rbac-manager/oidc/login/${OIDC}?return_to=${encodeURIComponent(bad)}`), 400, 'validation_error');
    }
    expect((await get(`/v2/rbac-manager/oidc/login/${OIDC}?return_to=${encodeURIComponent('/ui/images/sha256:ab')}`)).status).toBe(302);
  });

  it('leaves the API login as it was: no cookie, the token in the JSON answer', async () => {
    const start = await get(`/v2/rbac-manager/oidc/login/${OIDC}`);
    expect(start.status).toBe(302);
    expect(start.headers.getSetCookie()).toEqual([]);
    const res = await get(await idp.browseToCallback(start.headers.get('location')!, url, uniqueName('api')));
    expect(res.status, res.text).toBe(200);
    expect(typeof res.json.token).toBe('string');
  });
});

describe.skipIf(missingTools('openssl'))('single sign-on of the web interface: SAML', () => {
  let samlIdp: TestIdp;
  const acsUrl = () => `${url}/v2/rbac-manager/saml/sso/${SAML}`;
  const post = (relayState: string, samlResponse: string) =>
    raw(url, 'POST', `/v2/rbac-manager/saml/sso/${SAML}`, {
      auth: null,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
    });

  beforeAll(async () => {
    samlIdp = new TestIdp();
    const res = await json(url, 'POST', '/v2/rbac-manager/saml/idps', {
      name: SAML,
      sp_entity_id: SP_ENTITY,
      acs_url: acsUrl(),
      idp_metadata_xml: samlIdp.metadata(),
      default_account: account,
      default_role: 'read-only',
    });
    expect(res.status, res.text).toBe(200);
  });

  /** Starts a login of the web interface; the AuthnRequest id, the RelayState Vigil made and the browser's cookie. */
  async function startSaml(): Promise<{ requestId: string; relayState: string; cookie: string }> {
    const start = await get(`/v2/rbac-manager/saml/login/${SAML}?return_to=/ui/`);
    expect(start.status, start.text).toBe(302);
    const location = new URL(start.headers.get('location')!);
    const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    return { requestId: /\sID="([^"]+)"/.exec(request)![1], relayState: location.searchParams.get('RelayState')!, cookie: bindingCookie(start) };
  }

  it('is listed for the sign-in page', async () => {
    expect((await get('/v2/rbac-manager/sso/providers')).json).toContainEqual({ name: SAML, protocol: 'saml', login_path: `/v2/rbac-manager/saml/login/${SAML}` });
  });

  it('ends the assertion consumer with a code for the browser that started the login', async () => {
    const username = uniqueName('samlui');
    const { requestId, relayState, cookie } = await startSaml();
    expect(relayState).toMatch(/^vigil-ui\./);
    const samlResponse = await samlIdp.loginResponse(SP_ENTITY, acsUrl(), { nameId: username, inResponseTo: requestId });
    const code = codeOf(await post(relayState, samlResponse));
    await expectRefusedCode(await exchange(code), /another browser/);

    const second = await startSaml();
    const code2 = codeOf(await post(second.relayState, await samlIdp.loginResponse(SP_ENTITY, acsUrl(), { nameId: username, inResponseTo: second.requestId })));
    const exchanged = await exchange(code2, second.cookie);
    expect(exchanged.status, exchanged.text).toBe(200);
    expect((await raw(url, 'GET', '/v2/user', { auth: { bearer: exchanged.json.token } })).json.username).toBe(username);
  });

  it('refuses a RelayState of the interface that Vigil does not know, or knows no more', async () => {
    const username = uniqueName('samlrelay');
    const res = await post('vigil-ui.forged', await samlIdp.loginResponse(SP_ENTITY, acsUrl(), { nameId: username }));
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/ui\/#sso_error=.*unknown%2C%20expired%20or%20already%20used/);
    expect(await existsAt(url, username)).toBe(false);
  });

  it('refuses return_to with RelayState, and return_to outside /ui/', async () => {
    expectError(await get(`/v2/rbac-manager/saml/login/${SAML}?return_to=/ui/&RelayState=x`), 400, 'validation_error');
    expectError(await get(`/v2/rbac-manager/saml/login/${SAML}?return_to=${encodeURIComponent('https://evil.example/')}`), 400, 'validation_error');
  });
});
