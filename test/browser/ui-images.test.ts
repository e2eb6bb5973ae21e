/**
 * The image list in headless Chromium: add an image pushed to a local registry by its tag and upload another as
 * an archive, each followed on the page until its analysis shows Analyzed; then search, filter and sort the list
 * (all done by the server). axe-core checks the page; the screenshot is images.png (see test/support/browser-ui.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility, launchUi, PAGE_WAIT, screenshot, signIn, type UiBrowser } from '../support/browser-ui.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

const os = (salt: string) => [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'salt', content: salt }]];

describe.skipIf(missingTools('chromium', 'docker-registry'))('images page', () => {
  let server: TestServer;
  let registry: TestRegistry;
  let ui: UiBrowser;
  beforeAll(async () => {
    [server, registry] = await Promise.all([startTestServer(), startRegistry()]);
    await pushImage(registry.url, 'ui/app', '1.0', await buildImage({ layers: os('pushed') }));
    ui = await launchUi(server.url);
  });
  afterAll(async () => {
    await ui?.close();
    await Promise.all([server?.close(), registry?.close()]);
  });

  const added = () => ui.page.getByRole('list', { name: 'Added images' });
  const table = () => ui.page.getByRole('region', { name: 'Image list' });

  it('adds an image by tag from a registry and shows its analysis until it is analyzed', async () => {
    const { page } = ui;
    await signIn(ui);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Images' }).click();
    await page.getByRole('heading', { level: 1, name: 'Images' }).waitFor();
    await expect.poll(() => page.getByTestId('image-count').innerText(), PAGE_WAIT).toBe('0 tags');
    await checkAccessibility(page);

    const tag = `${registry.host}/ui/app:1.0`;
    await page.getByRole('textbox', { name: 'Image tag' }).fill(tag);
    await page.getByRole('button', { name: 'Add image' }).click();
    await expect.poll(() => added().innerText(), { timeout: 60_000 }).toMatch(/\banalyzed\b/i);
    // The list reloads when an analysis ends.
    await expect.poll(() => table().innerText(), PAGE_WAIT).toContain(tag);
    await expect.poll(() => table().innerText(), PAGE_WAIT).toMatch(/\banalyzed\b/i);
    await ui.expectNoProblems();
  }, 90_000);

  it('uploads an archive and follows its analysis', async () => {
    const { page } = ui;
    const archive = await dockerArchiveTar(await buildImage({ layers: os('uploaded') }), { repoTags: ['ui/archived:2.0'] });
    await page.locator('input[type="file"]').setInputFiles({ name: 'archived.tar', mimeType: 'application/x-tar', buffer: archive });
    await page.getByRole('button', { name: 'Upload archive' }).click();
    await expect.poll(() => added().getByRole('listitem').count(), PAGE_WAIT).toBe(2);
    await expect.poll(async () => (await added().innerText()).match(/\banalyzed\b/gi)?.length ?? 0, { timeout: 60_000 }).toBe(2);
    await expect.poll(() => table().innerText(), PAGE_WAIT).toContain('docker.io/ui/archived:2.0');
    await ui.expectNoProblems();
  }, 90_000);

  it('searches, filters and sorts through the server', async () => {
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Search' }).fill('archived');
    await expect.poll(() => page.getByTestId('image-count').innerText(), PAGE_WAIT).toBe('1 tags');
    expect(await table().innerText()).not.toContain('ui/app:1.0');
    await page.getByRole('textbox', { name: 'Search' }).fill('');
    await expect.poll(() => page.getByTestId('image-count').innerText(), PAGE_WAIT).toBe('2 tags');

    await page.getByRole('textbox', { name: 'Analysis status' }).click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await expect.poll(() => page.getByText('No images match.').count(), PAGE_WAIT).toBe(1);
    await page.getByRole('textbox', { name: 'Analysis status' }).click();
    await page.getByRole('option', { name: 'Any' }).click();
    await expect.poll(() => page.getByTestId('image-count').innerText(), PAGE_WAIT).toBe('2 tags');

    const tagHeader = page.getByRole('columnheader', { name: /Tag/ }).first();
    await tagHeader.getByRole('button').click();
    await expect.poll(() => tagHeader.getAttribute('aria-sort'), PAGE_WAIT).toBe('descending');
    await tagHeader.getByRole('button').click();
    await expect.poll(() => tagHeader.getAttribute('aria-sort'), PAGE_WAIT).toBe('ascending');
    const firstRow = () => table().getByRole('row').nth(1).innerText();
    await expect.poll(firstRow, PAGE_WAIT).toContain(`${registry.host}/ui/app:1.0`);

    await checkAccessibility(page);
    await screenshot(page, 'images');
    await ui.expectNoProblems();
  });
});
