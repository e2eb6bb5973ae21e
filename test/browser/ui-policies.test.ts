/**
 * The policies area in headless Chromium: the list with the active policy marked, a policy as rules, allowlists
 * and mappings, the form editor with the server's validation problem placed at the parameter it names, saving the
 * fix, the dry run showing the tag that would start failing, and activation. axe-core checks each page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { checkAccessibility, screenshot } from '../support/browser-ui.js';
import { signedInUi } from '../support/browser-signed-in.js';
import { json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

const TAG = 'registry.example.com/team/policied:1.0';
/** An inactive policy whose one rule never fires (an image has fewer than 100 layers) until the test edits it. */
const DRAFT = {
  id: 'ui-layers',
  name: 'Layer limits',
  version: '2',
  description: 'Stops images by their layer count.',
  rule_sets: [
    {
      id: 'layers',
      name: 'Layer checks',
      version: '2',
      rules: [
        { id: 'too-many-layers', gate: 'metadata', trigger: 'attribute', action: 'STOP', params: [{ name: 'attribute', value: 'layer_count' }, { name: 'check', value: '>' }, { name: 'value', value: '100' }] },
      ],
    },
  ],
  allowlists: [{ id: 'accepted', name: 'Accepted findings', version: '2', items: [{ id: 'old-cve', gate: 'vulnerabilities', trigger_id: 'CVE-2000-0001+*' }] }],
  mappings: [{ id: 'all', name: 'Every image', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['layers'], allowlist_ids: ['accepted'] }],
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await analyzeArchiveImage(server, [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }]], TAG);
  expect((await json(server.url, 'POST', '/v2/policies', DRAFT)).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

describe.skipIf(missingTools('chromium'))('web interface: policies', () => {
  const browser = signedInUi(() => server.url);

  it('lists the policies with the active one marked, and shows a policy as rules, allowlists and mappings', async () => {
    const ui = browser();
    const { page } = ui;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies' }).click();
    const table = page.getByRole('table', { name: 'Policies' });
    await table.getByRole('link', { name: 'Layer limits' }).waitFor();
    const activeRow = table.getByRole('row').filter({ has: page.getByText('Active', { exact: true }) });
    expect(await activeRow.count()).toBe(1);
    expect(await activeRow.innerText()).not.toContain('Layer limits');
    await checkAccessibility(page);
    await screenshot(page, 'policies');

    await table.getByRole('link', { name: 'Layer limits' }).click();
    await page.getByRole('heading', { level: 1, name: 'Layer limits' }).waitFor();
    const rules = page.getByRole('table', { name: 'Rules of Layer checks' });
    expect(await rules.getByRole('row').nth(1).innerText()).toMatch(/too-many-layers\s+metadata\s+attribute\s+attribute = layer_count\s+check = >\s+value = 100\s+STOP/);
    expect(await page.getByRole('table', { name: 'Items of Accepted findings' }).innerText()).toContain('CVE-2000-0001+*');
    expect(await page.getByRole('table', { name: 'Mappings' }).innerText()).toMatch(/Every image\s+\*\s+\*\s+tag: \*\s+layers\s+accepted/);
    await checkAccessibility(page);
    await ui.expectNoProblems();
  });

  it('edits a rule in the form, shows the server’s problem at the parameter, saves the fix, dry-runs and activates', async () => {
    const ui = browser();
    const { page } = ui;
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit policy Layer limits' }).waitFor();
    const rule = page.getByRole('group', { name: 'Rule too-many-layers' });
    const check = rule.getByRole('textbox', { name: 'check' });
    await check.fill('>>');
    await page.getByRole('button', { name: 'Save', exact: true }).click();

    await expect.poll(() => check.getAttribute('aria-invalid')).toBe('true');
    expect(await rule.innerText()).toMatch(/parameter 'check' /);
    expect(await page.getByRole('alert').first().innerText()).toContain('rule_sets[0].rules[0].params[1]');
    await checkAccessibility(page);
    await screenshot(page, 'policy-editor');

    // The fix: every image has at least one layer, so the rule now stops every tag.
    await check.fill('>=');
    await rule.getByRole('textbox', { name: 'value' }).fill('1');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Saved.');
    await page.getByRole('heading', { level: 1, name: 'Layer limits' }).waitFor();
    expect(await page.getByRole('table', { name: 'Rules of Layer checks' }).innerText()).toMatch(/check = >=\s+value = 1/);

    await page.getByRole('button', { name: 'Run the dry run' }).click();
    const result = page.getByRole('region', { name: 'Dry-run result' });
    await expect.poll(() => result.innerText()).toMatch(/1 would start failing/);
    expect(await result.getByRole('row').filter({ hasText: TAG }).innerText()).toMatch(/pass → fail[\s\S]*pass \(warn\)\s+fail \(stop\)[\s\S]*metadata\/attribute/i);
    await checkAccessibility(page);

    await page.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Activated');
    await page.getByText('Active', { exact: true }).waitFor();
    const listed = await raw(server.url, 'GET', '/v2/policies');
    expect(listed.json.find((p: { active: boolean }) => p.active).policy_id).toBe('ui-layers');
    await ui.expectNoProblems();
  });
  it('copies a policy and shows the server’s problems with their paths when edited as JSON', async () => {
    const ui = browser();
    const { page } = ui;
    await page.getByRole('link', { name: 'All policies' }).click();
    await page.getByRole('table', { name: 'Policies' }).getByRole('link', { name: 'Default policy' }).click();
    await page.getByRole('textbox', { name: 'Id of the copy' }).fill('default-copy');
    await page.getByRole('button', { name: 'Copy as a new policy' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit policy Copy of Default policy' }).waitFor();

    await page.getByRole('tab', { name: 'JSON' }).click();
    const document = page.getByRole('textbox', { name: 'Policy document (JSON)' });
    const text = await document.inputValue();
    await document.fill(text.replace('"action": "STOP"', '"action": "BLOCK"'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().innerText()).toMatch(/rule_sets\[0\]\.rules\[\d+\]\.action/);
    await checkAccessibility(page);

    await document.fill(text);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Copy of Default policy' }).waitFor();
    expect((await raw(server.url, 'GET', '/v2/policies/default-copy')).json.active).toBe(false);
    await ui.expectNoProblems();
  });
});
