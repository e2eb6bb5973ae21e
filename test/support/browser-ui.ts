/**
 * The web interface in headless Chromium for the browser tests (test/browser/ui-*.test.ts): launch with the
 * problem catchers attached (CSP violations, page errors, /v2 responses that break the spec), sign in, an axe-core
 * check of the current page, and screenshots at 1440x900: into docs/screenshots/ with VIGIL_UPDATE_SCREENSHOTS=1,
 * otherwise into a temp dir (an ordinary test run leaves the tracked images alone).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_PASSWORD } from './server.js';
import { assertResponseMatchesSpec } from './spec-validator.js';
import { requireTool } from './tools.js';

export const VIEWPORT = { width: 1440, height: 900 };
/** How long an `expect.poll` over the page waits for it to show something (generous: CI machines are shared). */
export const PAGE_WAIT = { timeout: 15_000 };
const SCREENSHOTS =
  process.env.VIGIL_UPDATE_SCREENSHOTS === '1'
    ? resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots')
    : join(tmpdir(), 'vigil-screenshots');

export interface UiBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The service root, e.g. http://127.0.0.1:1234 (the interface is at `${url}/ui/`). */
  url: string;
  /** Every problem seen so far; `expectNoProblems` fails on any. */
  problems: { pageErrors: string[]; specViolations: string[] };
  /** Waits for the spec checks of the responses received so far, then fails on any problem (CSP included). */
  expectNoProblems(): Promise<void>;
  close(): Promise<void>;
}

/** Checks a /v2 REST response against the spec (GraphQL and non-API paths are not in it). */
async function checkResponse(response: Response, violations: string[]): Promise<void> {
  const { pathname } = new URL(response.url());
  if (!pathname.startsWith('/v2/') || pathname.startsWith('/v2/reports/graphql')) return;
  const request = response.request();
  try {
    // A redirect (a single sign-on login passing through /v2) has no body to read.
    const body = response.status() >= 300 && response.status() < 400 ? '' : await response.text();
    assertResponseMatchesSpec(request.method(), response.url(), response.status(), response.headers()['content-type'] ?? null, body);
  } catch (error) {
    // A response the page navigated away from has no body to read any more; that is not the server's fault.
    if (error instanceof Error && /No data found for resource|No resource with given identifier|navigated away|Target page, context or browser has been closed/.test(error.message)) return;
    violations.push(error instanceof Error ? error.message : String(error));
  }
}

export async function launchUi(url: string): Promise<UiBrowser> {
  const browser = await chromium.launch({ executablePath: requireTool('chromium'), headless: true });
  const context = await browser.newContext({ viewport: VIEWPORT });
  // Browser code as strings: the test project is type-checked without the DOM library.
  await context.addInitScript({
    content: `window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
  });
  // Below the test timeout, so a missing element fails with the locator's name rather than a bare timeout.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = { pageErrors: [] as string[], specViolations: [] as string[] };
  const pending = new Set<Promise<void>>();
  page.on('pageerror', (err) => problems.pageErrors.push(err.message));
  page.on('response', (response) => {
    const check = checkResponse(response, problems.specViolations);
    pending.add(check);
    void check.finally(() => pending.delete(check));
  });
  return {
    browser,
    context,
    page,
    url,
    problems,
    async expectNoProblems() {
      await Promise.all(pending);
      const csp = await page.evaluate<string[]>('window.cspViolations ?? []');
      expect({ csp, ...problems }).toEqual({ csp: [], pageErrors: [], specViolations: [] });
    },
    close: () => browser.close(),
  };
}

/** The sign-in page's fields (each tab panel is named like the fields in it, so they are looked up inside it). */
export function signInFields(page: Page) {
  const password = page.getByRole('tabpanel', { name: 'Username and password' });
  return {
    username: password.getByLabel(/^Username/),
    password: password.getByLabel(/^Password/),
    apiKey: page.getByRole('tabpanel', { name: 'API key' }).getByLabel(/^API key/),
  };
}

export type Credentials = { username: string; password: string } | { apiKey: string };

/** Opens the interface (when not already on it), signs in and waits for the main navigation. */
export async function signIn(ui: UiBrowser, credentials: Credentials = { username: 'admin', password: ADMIN_PASSWORD }): Promise<void> {
  const { page } = ui;
  if (!page.url().startsWith(`${ui.url}/ui/`)) await page.goto(`${ui.url}/ui/`);
  if ('apiKey' in credentials) {
    await page.getByRole('tab', { name: 'API key' }).click();
    await signInFields(page).apiKey.fill(credentials.apiKey);
    await page.getByRole('button', { name: 'Sign in with API key' }).click();
  } else {
    await signInFields(page).username.fill(credentials.username);
    await signInFields(page).password.fill(credentials.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await areaLoaded(page);
}

/** Resolves once the current area's code has loaded (each area is a chunk loaded on first visit, web/src/routes.tsx). */
export async function areaLoaded(page: Page): Promise<void> {
  await page.getByRole('status', { name: 'Loading the page' }).waitFor({ state: 'detached', ...PAGE_WAIT });
}

/** A browser on the interface, signed in (as the administrator unless told otherwise). */
export async function launchSignedIn(url: string, credentials?: Credentials): Promise<UiBrowser> {
  const ui = await launchUi(url);
  await signIn(ui, credentials);
  return ui;
}

/** Runs axe-core on the current page; fails with every violation (rule, impact, the elements) listed. */
export async function checkAccessibility(page: Page): Promise<void> {
  await areaLoaded(page);
  // Evaluated, not added as a script tag: the page's CSP (rightly) refuses inline scripts.
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  const violations = await page.evaluate<{ id: string; impact: string; help: string; nodes: string[] }[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary),
    })))`);
  expect(violations).toEqual([]);
}

/** A screenshot of the viewport (1440x900) as <name>.png (see SCREENSHOTS). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
