/**
 * The web interface's dashboard in headless Chromium over real report data (report-fixtures.ts): the figures
 * match what the test created (vulnerabilities by severity across current tags, known-exploited and failing
 * tags, the analysis queue, the feeds), the trend chart draws the collected metrics, and a failing call shows
 * its error in its own panel while the others keep their figures. axe-core checks the page and takes a screenshot
 * of it, dashboard.png (see test/support/browser-ui.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { checkAccessibility, launchSignedIn, screenshot, type UiBrowser } from '../support/browser-ui.js';
import { gql, refreshReports } from '../support/graphql.js';
import { startReportServer, type ReportFixture } from '../support/report-fixtures.js';
import { missingTools } from '../support/tools.js';

let fixture: ReportFixture;
/** The admin account's current tags by their latest result under the active policy. */
const policy = { pass: 0, fail: 0 };

describe.skipIf(missingTools('chromium'))('web interface: dashboard', () => {
  let ui: UiBrowser;
  beforeAll(async () => {
    fixture = await startReportServer();
    const db = fixture.server.running.services.db;
    // curl's advisory (CVE-2099-9100) is known-exploited: fetcher:2.0, fetcher:latest and api:1.0 have curl.
    await db('vuln_kev').insert({ cve_id: 'CVE-2099-9100', feed: 'osv', vulnerability_name: 'curl test' });
    await refreshReports(fixture.server);
    const collected = await gql(fixture.server, 'mutation { collectMetricData { ok collected } }');
    expect(collected.errors, JSON.stringify(collected.errors)).toBeUndefined();
    const active = await db('policies').where({ account_name: 'admin', active: true }).first();
    const current: { full_tag: string; image_digest: string }[] = await db('image_tags').where({ account_name: 'admin', current: true });
    const latest: { tag: string; image_digest: string; status: 'pass' | 'fail' }[] = await db('policy_evaluations').where({
      account_name: 'admin',
      latest: true,
      policy_id: active.policy_id,
    });
    for (const t of current) {
      const evaluation = latest.find((e) => e.tag === t.full_tag && e.image_digest === t.image_digest);
      if (evaluation) policy[evaluation.status]++;
    }
    expect(policy.pass + policy.fail).toBe(3);
    ui = await launchSignedIn(fixture.server.url);
  }, 180_000);
  afterAll(async () => {
    await ui?.close();
    await fixture?.close();
  });

  const panel = (name: string) => ui.page.getByRole('region', { name });
  /** The value shown for a labelled figure (a dt/dd pair) of a panel. */
  const figure = (region: Locator, label: string) =>
    region.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');

  it('shows the figures of the data the test created, and the trend chart', async () => {
    const { page } = ui;
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();

    const severities = panel('Vulnerabilities by severity');
    await expect.poll(() => figure(severities, 'Critical').innerText()).toBe('3');
    expect(await figure(severities, 'Medium').innerText()).toBe('2');
    for (const none of ['High', 'Low', 'Negligible', 'Unknown']) expect(await figure(severities, none).innerText()).toBe('0');

    await expect.poll(() => figure(panel('Known exploited'), 'Tags with a known-exploited vulnerability').innerText()).toBe('3');
    await expect.poll(() => figure(panel('Policy'), 'Tags failing policy').innerText()).toBe(String(policy.fail));
    expect(await figure(panel('Policy'), 'Tags passing policy').innerText()).toBe(String(policy.pass));

    const queue = panel('Analysis queue');
    await expect.poll(() => figure(queue, 'Analyzed').innerText()).toBe('3');
    expect(await figure(queue, 'Waiting for analysis').innerText()).toBe('0');
    expect(await figure(queue, 'Current tags').innerText()).toBe('3');

    const feeds = panel('Feed freshness');
    const feedRow = feeds.getByRole('row', { name: /vulnerability_db/ });
    await feedRow.waitFor();
    expect(await feedRow.innerText()).toMatch(/just now|min ago/);
    expect(await feedRow.innerText()).toContain('OK');

    // The chart draws one line per severity with findings; its figures are in a table for screen readers.
    const trend = panel('Trend');
    await expect.poll(() => trend.locator('.u-legend .u-label').allInnerTexts()).toEqual(['Collected (UTC)', 'Critical', 'Medium']);
    const trendRows = await trend.getByRole('table').locator('tbody tr').allInnerTexts();
    expect(trendRows).toHaveLength(1);
    expect(trendRows[0].split('\t').map((c) => c.trim()).slice(1)).toEqual(['3', '0', '2', '0', '0', '0']);

    await checkAccessibility(page);
    // The pointer off the chart, so the screenshot shows no tooltip.
    await page.mouse.move(0, 0);
    await screenshot(page, 'dashboard');
    await ui.expectNoProblems();
  });

  it('shows a failing call\'s error in its panel while the other panels keep their figures', async () => {
    const { page } = ui;
    await page.route('**/v2/system/feeds', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ code: 500, error_type: 'internal_error', message: 'The feeds are unavailable (test).', detail: {} }),
      }),
    );
    await page.reload();
    await expect.poll(() => panel('Feed freshness').getByRole('alert').innerText()).toMatch(/Could not load the feeds[\s\S]*The feeds are unavailable \(test\)/);
    await expect.poll(() => figure(panel('Known exploited'), 'Tags with a known-exploited vulnerability').innerText()).toBe('3');
    await expect.poll(() => figure(panel('Vulnerabilities by severity'), 'Critical').innerText()).toBe('3');
    await checkAccessibility(page);
    await page.unroute('**/v2/system/feeds');
    await ui.expectNoProblems();
  });
});
