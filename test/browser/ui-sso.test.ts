/**
 * Single sign-on from the web interface in headless Chromium: the sign-in page lists the providers, a click on
 * one goes through the provider (OpenID Connect: oidc-provider on loopback; SAML: the samlify test identity
 * provider behind a small loopback page that posts its response) and lands signed in on the interface, the
 * one-time code gone from the URL and the session in sessionStorage. A code that is not valid, and a login another
 * browser started (login CSRF), are shown as a failed sign-in. axe-core checks the sign-in page with its providers and the signed-in shell.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility, launchUi, screenshot, type UiBrowser } from '../support/browser-ui.js';
import { createAccount, uniqueName } from '../support/fixtures.js';
import { json } from '../support/http.js';
import { TestOidcProvider } from '../support/oidc-provider.js';
import { TestIdp } from '../support/saml-idp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { configureTestOidcProvider } from '../support/sso.js';
import { missingTools } from '../support/tools.js';

const OIDC = 'corp';
const SAML = 'corp-saml';
const SP_ENTITY = 'https://vigil.test/ui-sso';

let server: TestServer;
let oidc: TestOidcProvider;
let account: string;

beforeAll(async () => {
  server = await startTestServer();
  oidc = await TestOidcProvider.start([`${server.url}/v2/rbac-manager/oidc/callback/${OIDC}`]);
  account = (await createAccount(server.url)).name;
  await configureTestOidcProvider(server.url, oidc, OIDC, { default_account: account, default_role: 'read-only' });
});
afterAll(async () => {
  await server?.close();
  await oidc?.close();
});

/**
 * A SAML identity provider's sign-in page on loopback: it reads the AuthnRequest (HTTP-Redirect binding) and
 * shows a form that posts a signed response for `user` to Vigil's assertion consumer (HTTP-POST binding).
 */
async function samlIdpPage(idp: () => TestIdp, user: () => string): Promise<{ server: Server; ssoUrl: string }> {
  const page = createServer((req, res) => {
    void (async () => {
      const query = new URL(req.url ?? '/', 'http://idp').searchParams;
      const request = inflateRawSync(Buffer.from(query.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(request)![1];
      const response = await idp().loginResponse(SP_ENTITY, acs, { nameId: user(), inResponseTo: /\sID="([^"]+)"/.exec(request)![1] });
      const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value.replace(/"/g, '&quot;')}">`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><title>Test IdP</title><form method="post" action="${acs}">` +
          `${field('SAMLResponse', response)}${field('RelayState', query.get('RelayState') ?? '')}<button>Continue to Vigil</button></form></html>`,
      );
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  return { server: page, ssoUrl: `http://127.0.0.1:${(page.address() as AddressInfo).port}/sso` };
}

describe.skipIf(missingTools('chromium'))('web interface single sign-on', () => {
  let ui: UiBrowser;
  beforeAll(async () => {
    ui = await launchUi(server.url);
  });
  afterAll(async () => {
    await ui?.close();
  });

  const stored = () => ui.page.evaluate<string>('JSON.stringify(sessionStorage)');

  it('lists the providers on an accessible sign-in page and signs in through OpenID Connect', async () => {
    const { page } = ui;
    const username = uniqueName('ui-oidc');
    oidc.users.set(username, {});
    oidc.nextUser = username;
    await page.goto(`${server.url}/ui/`);
    const button = page.getByRole('link', { name: `Sign in with ${OIDC}` });
    await button.waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'sign-in-sso');

    await button.click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await expect.poll(() => page.getByRole('banner').innerText()).toContain(username);
    // The code is gone from the address bar; the token was never in a URL; the session is in sessionStorage.
    expect(new URL(page.url()).hash).toBe('');
    expect(new URL(page.url()).pathname).toBe('/ui/');
    expect(JSON.parse(JSON.parse(await stored())['vigil.ui.session'])).toMatchObject({ method: 'sso', username, account });
    const binding = (await ui.context.cookies()).find((c) => c.name === 'vigil_sso_browser');
    expect(binding).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/v2/rbac-manager/' });
    await checkAccessibility(page);
    await ui.expectNoProblems();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
  });

  it('shows a failed sign-in for a code that is not valid (used, expired, or of another browser)', async () => {
    const { page } = ui;
    // A fresh load, as the server's redirect is (a fragment change alone is no new page).
    await page.goto('about:blank');
    await page.goto(`${server.url}/ui/#sso_code=not-a-valid-code`);
    await expect.poll(() => page.getByRole('alert').first().innerText()).toMatch(/Sign-in failed[\s\S]*code refused/);
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await checkAccessibility(page);
    await ui.expectNoProblems();
  });

  it('sends a login that another browser started back to the sign-in page with the reason (login CSRF)', async () => {
    const { page } = ui;
    // An attacker's login, started outside this browser and handed to it at the callback.
    const attacker = uniqueName('attacker');
    oidc.users.set(attacker, {});
    const start = await fetch(`${server.url}/v2/rbac-manager/oidc/login/${OIDC}?return_to=/ui/`, { redirect: 'manual' });
    const callback = await oidc.browseToCallback(start.headers.get('location')!, server.url, attacker);
    await page.goto(`${server.url}${callback}`);
    await expect.poll(() => page.getByRole('alert').first().innerText()).toMatch(/Sign-in failed[\s\S]*started in another browser/);
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await ui.expectNoProblems();
  });

  describe.skipIf(missingTools('openssl'))('SAML', () => {
    let idp: TestIdp;
    let idpPage: Server;
    let username = '';
    beforeAll(async () => {
      const started = await samlIdpPage(() => idp, () => username);
      idpPage = started.server;
      idp = new TestIdp({ ssoUrl: started.ssoUrl });
      const res = await json(server.url, 'POST', '/v2/rbac-manager/saml/idps', {
        name: SAML,
        sp_entity_id: SP_ENTITY,
        acs_url: `${server.url}/v2/rbac-manager/saml/sso/${SAML}`,
        idp_metadata_xml: idp.metadata(),
        default_account: account,
        default_role: 'read-only',
      });
      expect(res.status, res.text).toBe(200);
    });
    afterAll(async () => {
      idpPage?.closeAllConnections();
      await new Promise((resolve) => idpPage?.close(resolve));
    });

    it('signs in through a SAML identity provider and lands on the page the user opened', async () => {
      const { page } = ui;
      username = uniqueName('ui-saml');
      await page.goto(`${server.url}/ui/policies`);
      await page.getByRole('link', { name: `Sign in with ${SAML}` }).click();
      await page.getByRole('button', { name: 'Continue to Vigil' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await expect.poll(() => page.getByRole('banner').innerText()).toContain(username);
      expect(new URL(page.url()).pathname).toBe('/ui/policies');
      expect(new URL(page.url()).hash).toBe('');
      expect(JSON.parse(JSON.parse(await stored())['vigil.ui.session'])).toMatchObject({ method: 'sso', username });
      await checkAccessibility(page);
      await ui.expectNoProblems();
    });
  });
});
