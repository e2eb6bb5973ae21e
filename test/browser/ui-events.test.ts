/**
 * Events and notifications in headless Chromium: a webhook configuration created in the page pointing at a
 * loopback receiver, a test send and its answer, a selector, the delivery an image analysis makes with its
 * receipt, a replay; then the event stream filtered by type and level. axe-core checks each page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { checkAccessibility, screenshot } from '../support/browser-ui.js';
import { signedInUi } from '../support/browser-signed-in.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { nextSettled } from '../support/notifications.js';
import { startHttpReceiver, type HttpReceiver } from '../support/receivers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

const TAG = 'registry.example.com/team/evented:1.0';
const COMPLETED = 'user.image.analysis.completed';

let server: TestServer;
let receiver: HttpReceiver;
beforeAll(async () => {
  receiver = await startHttpReceiver();
  server = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20' });
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe.skipIf(missingTools('chromium'))('web interface: events and notifications', () => {
  const browser = signedInUi(() => server.url);

  it('creates a webhook configuration, test-sends it, and shows a real delivery with its receipt and a replay', async () => {
    const ui = browser();
    const { page } = ui;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await page.getByRole('navigation', { name: 'Events and notifications' }).getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
    const form = page.getByRole('form', { name: 'Create configuration form' });
    await form.getByRole('textbox', { name: 'Description' }).fill('UI receiver');
    await form.getByRole('textbox', { name: 'URL' }).fill(`${receiver.url}/hooks/ui`);
    await checkAccessibility(page);
    await form.getByRole('button', { name: 'Create configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook: UI receiver' }).waitFor();
    await expect.poll(() => page.getByText('Signing secret (shown this once)').count()).toBe(1);

    await page.getByRole('button', { name: 'Send a test' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Test send' }).innerText()).toMatch(/Test send: success[\s\S]*200/);
    expect((await receiver.waitFor((r) => r.path === '/hooks/ui')).json.data.notification_type).toBe('tag_update');

    await page.getByRole('form', { name: 'Add a selector' }).getByRole('button', { name: 'Add selector' }).click();
    await page.getByRole('table', { name: 'Selectors' }).getByText('user.*', { exact: true }).waitFor();

    // A real event: the analysis of an image sends an analysis notification through the selector.
    const delivered = nextSettled(server, (s) => s.state === 'delivered');
    await analyzeArchiveImage(server, [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }]], TAG);
    await delivered;
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    const row = deliveries.getByRole('row').filter({ hasText: 'delivered' }).first();
    await row.waitFor();
    await row.getByRole('button', { name: 'Receipts' }).click();
    const receipts = page.getByRole('table', { name: /^Receipts of / });
    await expect.poll(() => receipts.innerText()).toMatch(/1\s+.*\s+accepted\s+HTTP 200/);
    await checkAccessibility(page);
    await screenshot(page, 'notifications');

    const replayed = nextSettled(server);
    await page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Receipts', expanded: true }) }).getByRole('button', { name: 'Replay' }).click();
    expect((await replayed).state).toBe('delivered');
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    await expect.poll(() => deliveries.innerText()).toContain('replayed 1×');
    await ui.expectNoProblems();
  }, 60_000);

  it('lists the events and filters them by type and level', async () => {
    const ui = browser();
    const { page } = ui;
    await page.getByRole('navigation', { name: 'Events and notifications' }).getByRole('link', { name: 'Event stream' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    const events = page.getByRole('table', { name: 'Events' });
    await events.getByText(COMPLETED).first().waitFor();
    const typeColumn = () => events.locator('tbody tr td:nth-child(3)').allInnerTexts();
    expect(new Set(await typeColumn()).size).toBeGreaterThan(1);

    await page.getByRole('textbox', { name: 'Type', exact: true }).fill(COMPLETED);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(async () => [...new Set(await typeColumn())]).toEqual([COMPLETED]);
    await checkAccessibility(page);
    await screenshot(page, 'events');

    await page.getByRole('textbox', { name: 'Level' }).click();
    await page.getByRole('option', { name: 'ERROR' }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: 'No events match these filters.' }).waitFor();
    await checkAccessibility(page);
    await ui.expectNoProblems();
  });
});
