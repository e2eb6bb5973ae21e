/**
 * GraphiQL on the reporting endpoint: the sign-in page, GraphiQL itself and a query run in headless Chromium
 * (skipped without Debian's chromium; .ci/run installs it), and over plain HTTP the page's headers, the
 * asset router serving only its own files, and VIGIL_GRAPHIQL=false serving no page at all.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGraphiqlPage } from '../../src/reports/graphiql.js';
import { json, rawGet } from '../support/http.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../support/server.js';
import { missingTools, requireTool } from '../support/tools.js';


const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let server: TestServer;
let url: string;
beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
});
afterAll(async () => {
  await server?.close();
});

describe.skipIf(missingTools('chromium'))('GraphiQL in headless Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let apiKey: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const [key, launched] = await Promise.all([
      json(url, 'POST', '/v2/user/api-keys', { name: 'graphiql-browser-test' }),
      chromium.launch({ executablePath: requireTool('chromium'), headless: true }),
    ]);
    browser = launched;
    expect(key.status).toBe(201);
    apiKey = key.json.value;
    context = await browser.newContext();
    // Any Content-Security-Policy violation on the page is a failure of the page or its headers.
    // (Browser code as strings: the test project is type-checked without the DOM library.)
    await context.addInitScript({
      content: `window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });
  afterAll(async () => {
    await browser?.close();
  });

  const errorBox = () => page.locator('#vigil-signin-error');
  const cspViolations = () => page.evaluate<string[]>('window.cspViolations');

  async function signIn(username: string, password: string): Promise<void> {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('shows the sign-in form, rejects a wrong password, signs in with an API key and runs a query', async () => {
    const response = await page.goto(`${url}/v2/reports/graphql`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

    // The sign-in form, with the API key hint.
    await page.getByLabel('Username').waitFor();
    await expect.poll(() => page.locator('form').innerText()).toContain('_api_key');

    // A wrong password: a clear error, still on the form.
    await signIn('admin', 'not-the-password');
    await errorBox().waitFor({ state: 'visible' });
    expect(await errorBox().innerText()).toMatch(/not accepted/);
    expect(await page.locator('.graphiql-container').count()).toBe(0);

    // The API key: GraphiQL renders.
    await signIn('_api_key', apiKey);
    await page.locator('.graphiql-container').waitFor();
    expect(await page.locator('#vigil-signin').isHidden()).toBe(true);
    expect(await page.locator('#vigil-user').innerText()).toBe('an API key');

    // Replace the editor's content and run it.
    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText('{ reportingStatus { refreshedAt pendingChanges maxPageSize } }');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => page.locator('.result-window').innerText(), { timeout: 10_000 }).toContain('"maxPageSize": 1000');

    // Credentials live in sessionStorage only.
    const stored = await page.evaluate<{ session: string; local: string }>('({ session: JSON.stringify(sessionStorage), local: JSON.stringify(localStorage) })');
    expect(stored.session).toContain('_api_key');
    expect(stored.local).not.toContain(Buffer.from(`_api_key:${apiKey}`).toString('base64'));
    expect(stored.local).not.toContain(apiKey);

    expect(await cspViolations()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('keeps the session across a reload of the tab, and signs out', async () => {
    await page.reload();
    await page.locator('.graphiql-container').waitFor();
    expect(await page.locator('#vigil-signin').isHidden()).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Password').waitFor();
    expect(await page.locator('.graphiql-container').count()).toBe(0);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(await errorBox().isHidden()).toBe(true);

    // Signed in as the administrator by password, the global endpoint answers too.
    await page.goto(`${url}/v2/reports/global/graphql`);
    await signIn('admin', ADMIN_PASSWORD);
    await page.locator('.graphiql-container').waitFor();
    expect(await page.locator('#vigil-user').innerText()).toBe('admin');

    expect(await cspViolations()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

describe('GraphiQL over plain HTTP', () => {
  it('serves the page to browsers only, with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${url}/v2/reports/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('data-endpoint="/v2/reports/graphql"');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script

    // A GraphQL client (no Accept preference for HTML, or a query) is answered by GraphQL, not the page.
    for (const headers of [{ accept: '*/*' }, { accept: 'application/json' }, {}] as Record<string, string>[]) {
      const api = await fetch(`${url}/v2/reports/graphql`, { headers });
      expect(api.headers.get('content-type') ?? '').not.toMatch(/html/);
    }
    const withQuery = await fetch(`${url}/v2/reports/graphql?query=${encodeURIComponent('{ reportingStatus { maxPageSize } }')}`, {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(withQuery.headers.get('content-type') ?? '').not.toMatch(/html/);
  });

  it('escapes the endpoint in the page', () => {
    const html = renderGraphiqlPage({ endpoint: '/x"><script>alert(1)</script>', assets: '/a' });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('/x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('serves exactly its assets, cacheable, and nothing else', async () => {
    const expected: Record<string, RegExp> = {
      'graphiql.min.js': /^text\/javascript/,
      'graphiql.min.css': /^text\/css/,
      'react.production.min.js': /^text\/javascript/,
      'react-dom.production.min.js': /^text\/javascript/,
      'vigil-graphiql.js': /^text\/javascript/,
    };
    const html = await (await fetch(`${url}/v2/reports/graphql`, { headers: { accept: BROWSER_ACCEPT } })).text();
    for (const [name, type] of Object.entries(expected)) {
      const href = html.match(new RegExp(`"(/v2/reports/graphiql/${name.replace(/\./g, '\\.')}\\?v=[^"]+)"`))?.[1];
      expect(href, name).toBeDefined();
      const res = await fetch(url + href);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toMatch(type);
      expect(res.headers.get('cache-control'), name).toContain('max-age=31536000');
      expect((await res.arrayBuffer()).byteLength, name).toBeGreaterThan(1000);
    }
    for (const path of [
      '/v2/reports/graphiql/../package.json',
      '/v2/reports/graphiql/..%2fpackage.json',
      '/v2/reports/graphiql/%2e%2e%2f%2e%2e%2fpackage.json',
      '/v2/reports/graphiql/',
      '/v2/reports/graphiql',
      '/v2/reports/graphiql/package.json',
      '/v2/reports/graphiql/graphiql.js',
      '/v2/reports/graphiql/graphiql.min.js.map',
      '/v2/reports/graphiql/umd/react.production.min.js',
      '/v2/reports/graphiql/react/umd/react.production.min.js',
      '/v2/reports/graphiql/__proto__',
      '/v2/reports/graphiql/GRAPHIQL.MIN.JS',
    ]) {
      const res = await rawGet(url, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('"version"');
    }
  });

  it('with VIGIL_GRAPHIQL=false serves no page and no assets', async () => {
    const off = await startTestServer({ VIGIL_GRAPHIQL: 'false' });
    try {
      const anonymous = await fetch(`${off.url}/v2/reports/graphql`, { headers: { accept: BROWSER_ACCEPT } });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('content-type')).toMatch(/json/);

      const basic = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
      const signedIn = await fetch(`${off.url}/v2/reports/graphql`, { headers: { accept: BROWSER_ACCEPT, authorization: basic } });
      expect(signedIn.status).toBeGreaterThanOrEqual(400);
      expect(signedIn.headers.get('content-type') ?? '').not.toMatch(/html/);
      expect(await signedIn.text()).not.toContain('<html');

      // GraphQL itself still works.
      const query = await fetch(`${off.url}/v2/reports/graphql`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ reportingStatus { maxPageSize } }' }),
      });
      expect(query.status).toBe(200);
      expect(await query.json()).toEqual({ data: { reportingStatus: { maxPageSize: 1000 } } });

      const asset = await fetch(`${off.url}/v2/reports/graphiql/graphiql.min.js`);
      expect(asset.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
