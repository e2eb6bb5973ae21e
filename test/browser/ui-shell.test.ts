/**
 * The web interface's shell in headless Chromium: the sign-in page (password and API key, wrong credentials), the
 * navigation to every area, the session kept in sessionStorage only, the account switcher, a session the server
 * stops accepting, and sign-out revoking the token. axe-core checks the sign-in page and the shell.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility, launchUi, PAGE_WAIT, screenshot, signIn, signInFields, type UiBrowser } from '../support/browser-ui.js';
import { client, json } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe.skipIf(missingTools('chromium'))('web interface shell', () => {
  let ui: UiBrowser;
  beforeAll(async () => {
    ui = await launchUi(server.url);
  });
  afterAll(async () => {
    await ui?.close();
  });

  const alert = () => ui.page.getByRole('alert');
  const stored = () => ui.page.evaluate<{ session: string; local: string }>('({ session: JSON.stringify(sessionStorage), local: JSON.stringify(localStorage) })');

  it('shows an accessible sign-in page and rejects a wrong password with the server\'s message', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/ui/`);
    await page.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'sign-in');

    await signInFields(page).username.fill('admin');
    await signInFields(page).password.fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => alert().innerText(), PAGE_WAIT).toMatch(/Sign-in failed/);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await ui.expectNoProblems();
  });

  it('signs in with a password, navigates every area, keeps the session in sessionStorage only across a reload', async () => {
    const { page } = ui;
    await signIn(ui);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Dashboard', 'Images', 'Policies', 'Reports', 'Events', 'Administration']);
    await checkAccessibility(page);

    await nav.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/policies');
    expect(await nav.getByRole('link', { name: 'Policies' }).getAttribute('aria-current')).toBe('page');

    // A deep link reloads into the same page (the server answers index.html, the router shows the page).
    await page.goto(`${server.url}/ui/admin`);
    await page.getByRole('heading', { level: 1, name: 'Administration' }).waitFor();

    const { session, local } = await stored();
    expect(session).toContain('Bearer ');
    expect(local).toBe('{}');
    expect(await ui.context.cookies()).toEqual([]);
    await ui.expectNoProblems();
  });

  it('switches accounts for an administrator', async () => {
    const { page } = ui;
    const created = await client(server.url).POST('/accounts', { body: { name: 'ui-second' } });
    expect(created.response.status).toBe(200);
    await page.reload();
    const switcher = page.getByRole('textbox', { name: 'Account', exact: true });
    await switcher.waitFor();
    expect(await switcher.inputValue()).toBe('admin');
    await switcher.click();
    await page.getByRole('option', { name: 'ui-second' }).click();
    await expect.poll(() => switcher.inputValue(), PAGE_WAIT).toBe('ui-second');
    expect(JSON.parse(JSON.parse((await stored()).session)['vigil.ui.session']).account).toBe('ui-second');
    await checkAccessibility(page);

    // The page's requests now act in that account (upstream's account-override header).
    const listed = page.waitForRequest((r) => r.url().includes('/v2/summaries/image-tags'));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Images' }).click();
    expect((await listed).headers()['x-anchore-account']).toBe('ui-second');
    await ui.expectNoProblems();
  });

  it('signs out, revoking the token, and a session the server stops accepting returns to sign-in', async () => {
    const { page } = ui;
    const token: string = JSON.parse(JSON.parse((await stored()).session)['vigil.ui.session']).authorization.replace('Bearer ', '');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
    expect((await stored()).session).toBe('{}');
    await expect.poll(async () => (await client(server.url, { bearer: token }).GET('/user')).response.status, PAGE_WAIT).toBe(401);

    // Signed in again, then the token is revoked elsewhere: the next request ends the session with the reason.
    await signIn(ui);
    const second: string = JSON.parse(JSON.parse((await stored()).session)['vigil.ui.session']).authorization.replace('Bearer ', '');
    const revoked = await fetch(`${server.url}/v2/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: second }).toString(),
    });
    expect(revoked.status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
    await expect.poll(() => page.getByRole('status').innerText(), PAGE_WAIT).toMatch(/session ended/);
    await ui.expectNoProblems();
  });

  it('signs in with an API key, and rejects an unknown one', async () => {
    const { page } = ui;
    const key = await json(server.url, 'POST', '/v2/user/api-keys', { name: 'ui-shell-test' });
    expect(key.status).toBe(201);

    await signIn(ui, { apiKey: key.json.value });
    await expect.poll(() => page.getByRole('banner').innerText(), PAGE_WAIT).toContain('admin (API key)');
    await checkAccessibility(page);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.getByRole('tab', { name: 'API key' }).click();
    await signInFields(page).apiKey.fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in with API key' }).click();
    await expect.poll(() => alert().innerText(), PAGE_WAIT).toMatch(/Sign-in failed/);
    await ui.expectNoProblems();
  });
});
