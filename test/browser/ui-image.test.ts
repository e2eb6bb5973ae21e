/**
 * The image page in headless Chromium: an image with a critical (fixable) and a medium vulnerability from a feed
 * that knows them, each tab checked by axe-core and screenshotted, the vulnerabilities filtered down to one, the
 * STOP finding allowlisted so the policy result flips from fail to pass on the page, a VEX annotation added,
 * changed and exported, and an SBOM downloaded with the session's credentials.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { checkAccessibility, launchUi, screenshot, signIn, type UiBrowser } from '../support/browser-ui.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';
import { CRITICAL_V3, MEDIUM_V3, initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const TAG = 'registry.example.com/team/webapp:1.0';
const DPKG_STATUS = [
  'Package: curl\nStatus: install ok installed\nArchitecture: amd64\nSource: curl\nVersion: 7.88.1-10+deb12u5\nDescription: command line tool\n',
  'Package: bash\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.2.15-2+b2\nDescription: shell\n',
].join('\n');

let server: TestServer;
let work: string;
let digest: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-ui-image-'));
  writeRecords(join(work, 'osv'), {
    ...initialRecords(),
    'DSA-9100-1': osvRecord('DSA-9100-1', 'Debian:12', 'curl', [{ introduced: '0' }, { fixed: '7.88.1-10+deb12u6' }], {
      aliases: ['CVE-2099-9100'],
      severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }],
    }),
    'DSA-9102-1': osvRecord('DSA-9102-1', 'Debian:12', 'bash', [{ introduced: '0' }], { aliases: ['CVE-2099-9102'], severity: [{ type: 'CVSS_V3', score: MEDIUM_V3 }] }),
  });
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  digest = await analyzeArchiveImage(server, [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: DPKG_STATUS }]], TAG);
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(missingTools('chromium'))('image page', () => {
  let ui: UiBrowser;
  beforeAll(async () => {
    ui = await launchUi(server.url);
    await signIn(ui);
  });
  afterAll(async () => {
    await ui?.close();
  });

  const openTab = async (name: string) => {
    await ui.page.getByRole('tab', { name }).click();
    await expect.poll(() => ui.page.getByRole('tab', { name }).getAttribute('aria-selected')).toBe('true');
  };
  const tableRows = (name: string) => ui.page.getByRole('table', { name }).locator('tbody').getByRole('row');

  it('shows the overview, packages and files, each accessible', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/ui/images/${digest}`);
    await page.getByRole('heading', { level: 1, name: TAG }).waitFor();
    await page.getByRole('cell', { name: TAG }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Dockerfile' }).innerText()).toMatch(/Not known|FROM|reconstructed/);
    await checkAccessibility(page);
    await screenshot(page, 'image-overview');

    await openTab('Packages');
    await expect.poll(() => tableRows('Packages').count()).toBe(2);
    await page.getByLabel('Filter by name').fill('cur');
    await expect.poll(() => tableRows('Packages').allInnerTexts()).toEqual([expect.stringContaining('curl')]);
    await checkAccessibility(page);
    await screenshot(page, 'image-packages');

    await openTab('Files');
    await tableRows('Files').getByText('etc/os-release').first().waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'image-files');
    await ui.expectNoProblems();
  });

  it('lists the vulnerabilities with their facts, filtered down to one', async () => {
    const { page } = ui;
    await openTab('Vulnerabilities');
    const count = page.getByTestId('vulnerability-count');
    await expect.poll(() => count.innerText()).toBe('2 of 2 vulnerabilities');
    // Sorted most severe first: the critical curl finding, fixable in a later version.
    expect(await tableRows('Vulnerabilities').first().innerText()).toMatch(/^DSA-9100-1\s+curl\s+7\.88\.1-10\+deb12u5\s+Critical\s+9\.8\s+—\s+no\s+fixed\s+7\.88\.1-10\+deb12u6\s*$/i);
    await checkAccessibility(page);
    await screenshot(page, 'image-vulnerabilities');

    await page.getByRole('textbox', { name: 'Severity' }).click();
    await page.getByRole('option', { name: 'Medium' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(() => count.innerText()).toBe('1 of 2 vulnerabilities');
    expect(await tableRows('Vulnerabilities').allInnerTexts()).toEqual([expect.stringContaining('DSA-9102-1')]);

    await page.getByRole('textbox', { name: 'Fix available' }).click();
    await page.getByRole('option', { name: 'Fix available' }).click();
    await expect.poll(() => count.innerText()).toBe('0 of 2 vulnerabilities');
    await ui.expectNoProblems();
  });

  it('allowlists the STOP finding from the page and the policy result flips from fail to pass', async () => {
    const { page } = ui;
    await openTab('Policy');
    const status = page.getByTestId('policy-status');
    await expect.poll(() => status.innerText()).toMatch(/fail/i);
    await checkAccessibility(page);
    await screenshot(page, 'image-policy');

    await page.getByRole('button', { name: 'Allowlist this: DSA-9100-1+curl' }).click();
    const dialog = page.getByRole('dialog', { name: 'Allowlist DSA-9100-1+curl' });
    await dialog.getByLabel(/^Reason/).fill('Not reachable in this service');
    await checkAccessibility(page);
    await dialog.getByRole('button', { name: 'Add to allowlist' }).click();
    await expect.poll(() => status.innerText()).toMatch(/pass/i);
    await page.getByRole('cell', { name: 'stop (allowlisted)' }).waitFor();

    const policy = await raw(server.url, 'GET', '/v2/policies/vigil-default');
    expect(policy.json.policy.allowlists).toEqual([
      expect.objectContaining({ items: [expect.objectContaining({ gate: 'vulnerabilities', trigger_id: 'DSA-9100-1+curl', description: 'Not reachable in this service' })] }),
    ]);
    expect(policy.json.policy.mappings[0].allowlist_ids).toEqual([policy.json.policy.allowlists[0].id]);
    await ui.expectNoProblems();
  });

  it("shows the server's refusal for an image it does not know", async () => {
    const { page } = ui;
    await page.goto(`${server.url}/ui/images/sha256:${'0'.repeat(64)}`);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/^Could not load the image\s+image 'sha256:0{64}'/);
    await checkAccessibility(page);
    await page.goto(`${server.url}/ui/images/${digest}?tab=policy`);
    await page.getByTestId('policy-status').waitFor();
  });

  it('adds, changes and exports a VEX annotation, and downloads an SBOM', async () => {
    const { page } = ui;
    await openTab('VEX and SBOM');
    await page.getByText('No annotations yet.').waitFor();
    await page.getByRole('textbox', { name: 'Finding' }).click();
    await page.getByRole('option', { name: /DSA-9100-1 · curl/ }).click();
    await page.getByRole('textbox', { name: 'Justification' }).click();
    await page.getByRole('option', { name: 'vulnerable code not present' }).click();
    await page.getByRole('button', { name: 'Add annotation' }).click();
    const row = tableRows('VEX annotations').filter({ hasText: 'DSA-9100-1' });
    await expect.poll(() => row.innerText()).toMatch(/not affected\s+vulnerable code not present/);
    await checkAccessibility(page);
    await screenshot(page, 'image-vex');

    await page.getByRole('button', { name: 'Change annotation DSA-9100-1 curl' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Status', exact: true }).click();
    await page.getByRole('option', { name: 'affected', exact: true }).click();
    await dialog.getByLabel('Impact statement').fill('Reachable through the upload endpoint');
    await dialog.getByRole('button', { name: 'Save annotation' }).click();
    await expect.poll(() => row.innerText()).toMatch(/\baffected\b[\s\S]*Reachable through the upload endpoint/);

    const [vex] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download VEX (OpenVEX)' }).click()]);
    const openvex = JSON.parse(readFileSync(await vex.path(), 'utf8'));
    expect(openvex.statements).toContainEqual(expect.objectContaining({ status: 'affected', vulnerability: expect.objectContaining({ name: 'DSA-9100-1' }) }));

    const [sbom] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download SBOM (SPDX JSON)' }).click()]);
    expect(sbom.suggestedFilename()).toMatch(/-sbom\.spdx\.json$/);
    expect(JSON.parse(readFileSync(await sbom.path(), 'utf8')).spdxVersion).toMatch(/^SPDX-/);

    await page.getByRole('button', { name: 'Delete annotation DSA-9100-1 curl' }).click();
    await page.getByText('No annotations yet.').waitFor();
    await ui.expectNoProblems();
  });
});
