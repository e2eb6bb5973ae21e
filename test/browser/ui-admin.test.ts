/**
 * Administration in headless Chromium: every sub-page as an administrator (axe-core check and a screenshot each);
 * an account and a user created in the page, the user's password set and role changed there, the binding checked
 * through the API and the user, signed in, offered what the new role allows and nothing more; an API key created
 * (shown once) and revoked; the feeds synced from the page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility, launchUi, screenshot, signIn, type UiBrowser } from '../support/browser-ui.js';
import { client } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';
import { initialRecords, writeRecords } from '../vulns/fixture-feed.js';

const ACCOUNT = 'ui-team';
const USER = 'ui-alice';
const FIRST_PASSWORD = 'first-password-1';
const NEW_PASSWORD = 'second-password-2';

let server: TestServer;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-ui-admin-'));
  writeRecords(join(work, 'osv'), initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const adminNav = (page: Page) => page.getByRole('navigation', { name: 'Administration' });

/** Opens a sub-page from the administration navigation and waits for its heading. */
async function openSubPage(page: Page, link: string, heading: string | RegExp): Promise<void> {
  await adminNav(page).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 2, name: heading }).waitFor();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
}

/** Signs in as the administrator whoever was signed in before (a test that failed midway may leave anyone). */
async function signInAsAdmin(ui: UiBrowser): Promise<void> {
  await ui.page.goto(`${ui.url}/ui/`);
  await ui.page.evaluate('sessionStorage.clear()');
  await ui.page.reload();
  await signIn(ui);
}

async function pickOption(page: Page, scope: ReturnType<Page['getByRole']>, label: string, option: string): Promise<void> {
  await scope.getByRole('textbox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

// Each test walks several pages with an axe check on each: more than the suite's 20 s default on a busy machine.
const PAGE_WALK_MS = 90_000;

describe.skipIf(missingTools('chromium'))('administration pages', () => {
  let ui: UiBrowser;
  beforeAll(async () => {
    ui = await launchUi(server.url);
  });
  afterAll(async () => {
    await ui?.close();
  });

  it('shows every sub-page to an administrator, each accessible', async () => {
    const { page } = ui;
    await signIn(ui);
    await page.goto(`${server.url}/ui/admin`);
    await page.getByRole('heading', { level: 2, name: 'Accounts' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/admin/accounts');
    expect(await adminNav(page).getByRole('link').allInnerTexts()).toEqual(['Accounts', 'Roles', 'API keys', 'Registries', 'Feeds', 'Services']);
    await page.getByRole('table', { name: 'Accounts' }).getByRole('link', { name: 'Users of admin' }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'admin-accounts');

    await page.getByRole('link', { name: 'Users of admin' }).click();
    await page.getByRole('heading', { level: 2, name: 'Users of admin' }).waitFor();
    await page.getByRole('table', { name: 'Users of admin' }).getByRole('row', { name: /^admin / }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'admin-users');

    await openSubPage(page, 'Roles', 'Roles');
    await pickOption(page, page.getByRole('main'), 'Show the permissions and members of', 'read-write');
    await page.getByRole('list', { name: 'Permissions of read-write' }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'admin-roles');

    for (const [link, heading, shot] of [
      ['API keys', 'Your API keys', 'admin-api-keys'],
      ['Registries', 'Registries', 'admin-registries'],
      ['Feeds', 'Feeds', 'admin-feeds'],
    ] as const) {
      await openSubPage(page, link, heading);
      await checkAccessibility(page);
      await screenshot(page, shot);
    }

    await openSubPage(page, 'Services', 'Services');
    await expect.poll(() => page.getByRole('table', { name: 'Services' }).getByRole('row', { name: /apiext/ }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('main').getByRole('status').innerText()).toMatch(/registered, \d+ up, 0 down/);
    await checkAccessibility(page);
    await screenshot(page, 'admin-services');
    await ui.expectNoProblems();
  }, PAGE_WALK_MS);

  it('creates an account and a user, sets the password, changes the role; the user sees what the new role allows', async () => {
    const { page } = ui;
    const api = client(server.url);
    await page.goto(`${server.url}/ui/admin/accounts`);
    await page.getByRole('heading', { level: 2, name: 'Accounts' }).waitFor();
    const accountForm = page.getByRole('form', { name: 'Create an account' });
    await accountForm.getByLabel('Account name').fill(ACCOUNT);
    await accountForm.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('link', { name: `Users of ${ACCOUNT}` }).click();
    await page.getByRole('heading', { level: 2, name: `Users of ${ACCOUNT}` }).waitFor();

    // A name the server refuses: its message is shown.
    const userForm = page.getByRole('form', { name: 'Create a user' });
    await userForm.getByLabel('Username').fill('not valid!');
    await userForm.getByLabel('Password').fill(FIRST_PASSWORD);
    await userForm.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/Could not create the user/);

    await userForm.getByLabel('Username').fill(USER);
    await userForm.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('button', { name: `Roles of ${USER}` }).click();
    const dialog = page.getByRole('dialog', { name: `Roles of ${USER} in ${ACCOUNT}` });
    await dialog.getByText(`No roles in ${ACCOUNT}.`).waitFor();
    await pickOption(page, dialog, 'Role to add', 'read-only');
    await dialog.getByRole('button', { name: 'Add role' }).click();
    await dialog.getByRole('button', { name: 'Remove role read-only' }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'admin-user-roles');

    // Changing the role: the new one added, the old one removed.
    await pickOption(page, dialog, 'Role to add', 'read-write');
    await dialog.getByRole('button', { name: 'Add role' }).click();
    await dialog.getByRole('button', { name: 'Remove role read-write' }).waitFor();
    await dialog.getByRole('button', { name: 'Remove role read-only' }).click();
    await expect.poll(() => dialog.getByRole('button', { name: /^Remove role/ }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('row', { name: new RegExp(`^${USER} `) }).innerText()).toMatch(/read-write/i);

    const bindings = await api.GET('/rbac-manager/users/{username}/roles', { params: { path: { username: USER }, query: { domain_name: ACCOUNT } } });
    expect(bindings.response.status).toBe(200);
    expect(bindings.data!.map((b) => [b.role, b.domain_name])).toEqual([['read-write', ACCOUNT]]);

    await page.getByRole('button', { name: `Set password of ${USER}` }).click();
    const passwordDialog = page.getByRole('dialog', { name: `Set the password of ${USER}` });
    await passwordDialog.getByLabel('New password').fill(NEW_PASSWORD);
    await passwordDialog.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.getByRole('main').getByRole('status').innerText()).toContain(`The password of ${USER} was set.`);
    await ui.expectNoProblems();

    // Signed in with the new password, the user is offered what read-write allows in their account, nothing more.
    await signOut(page);
    await signIn(ui, { username: USER, password: NEW_PASSWORD });
    await page.goto(`${server.url}/ui/admin`);
    await page.getByRole('heading', { level: 2, name: 'Roles' }).waitFor();
    expect(await adminNav(page).getByRole('link').allInnerTexts()).toEqual(['Roles', 'API keys', 'Registries', 'Feeds']);
    expect(await page.getByText('Your roles here:').locator('..').innerText()).toMatch(/read-write/i);
    await openSubPage(page, 'Registries', 'Registries');
    const registryForm = page.getByRole('form', { name: 'Add a registry' });
    await registryForm.getByLabel(/^Registry/).fill('registry.example.com:5000');
    await registryForm.getByLabel('Username').fill('puller');
    await registryForm.getByRole('button', { name: 'Add registry' }).click();
    await page.getByRole('table', { name: 'Registries' }).getByRole('row', { name: /registry\.example\.com:5000/ }).waitFor();
    await openSubPage(page, 'Feeds', 'Feeds');
    expect(await page.getByRole('button', { name: 'Sync now' }).count()).toBe(0);
    const registries = await client(server.url, { basic: [USER, NEW_PASSWORD] }).GET('/registries');
    expect(registries.data!.map((r) => r.registry)).toEqual(['registry.example.com:5000']);
    await ui.expectNoProblems();
    await signOut(page);
  }, PAGE_WALK_MS);

  it('disables a user and an account from the page', async () => {
    const { page } = ui;
    const api = client(server.url);
    await signInAsAdmin(ui);
    await page.goto(`${server.url}/ui/admin/accounts/${ACCOUNT}`);
    await page.getByRole('button', { name: `Disable user ${USER}` }).click();
    await page.getByRole('button', { name: `Enable user ${USER}` }).waitFor();
    expect((await api.GET('/accounts/{account_name}/users/{username}', { params: { path: { account_name: ACCOUNT, username: USER } } })).data!.state).toBe('disabled');

    await page.getByRole('link', { name: 'All accounts' }).click();
    await page.getByRole('button', { name: `Disable account ${ACCOUNT}` }).click();
    await page.getByRole('button', { name: `Enable account ${ACCOUNT}` }).waitFor();
    expect((await api.GET('/accounts/{account_name}', { params: { path: { account_name: ACCOUNT } } })).data!.state).toBe('disabled');
    await ui.expectNoProblems();
  }, PAGE_WALK_MS);

  it('creates an API key, shown once, and revokes it', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/ui/admin/api-keys`);
    await page.getByRole('heading', { level: 2, name: 'Your API keys' }).waitFor();
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Key name').fill('ui-admin-key');
    await form.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByTestId('new-api-key').innerText();
    expect(key.length).toBeGreaterThan(16);
    expect((await client(server.url, { apiKey: key }).GET('/user')).response.status).toBe(200);

    await page.getByRole('button', { name: 'Revoke key ui-admin-key' }).click();
    await expect.poll(() => page.getByRole('row', { name: /^ui-admin-key / }).innerText()).toMatch(/revoked/i);
    expect((await client(server.url, { apiKey: key }).GET('/user')).response.status).toBe(401);
    await ui.expectNoProblems();
  }, PAGE_WALK_MS);

  it('syncs the feeds from the page and shows the record counts', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/ui/admin/feeds`);
    await page.getByRole('heading', { level: 2, name: 'Feeds' }).waitFor();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByRole('status').filter({ hasText: 'Sync finished' }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('main').innerText()).toContain('osv: ok');

    const feeds = await client(server.url).GET('/system/feeds');
    const osv = feeds.data!.flatMap((f) => f.groups).find((g) => g.name === 'osv')!;
    expect(osv.record_count).toBeGreaterThan(0);
    const row = page.getByRole('table', { name: 'Sources of vulnerability_db' }).getByRole('row', { name: /^osv/ });
    await expect.poll(() => row.innerText()).toContain(String(osv.record_count));
    expect(await row.innerText()).toMatch(/\bok\b/i);
    await checkAccessibility(page);
    await screenshot(page, 'admin-feeds');
    await ui.expectNoProblems();
  }, PAGE_WALK_MS);
});
