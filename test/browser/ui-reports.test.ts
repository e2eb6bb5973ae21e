/**
 * The web interface's reports in headless Chromium over real report data (report-fixtures.ts): a saved query
 * created through GraphQL is listed, run from its page, and its result rows shown as a table and downloaded as
 * CSV and JSON. axe-core checks each page and takes a screenshot of it (see test/support/browser-ui.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility, launchSignedIn, screenshot, type UiBrowser } from '../support/browser-ui.js';
import { gql, refreshReports } from '../support/graphql.js';
import { startReportServer, type ReportFixture } from '../support/report-fixtures.js';
import { missingTools } from '../support/tools.js';

const QUERY_NAME = 'Critical findings by tag';
/** tagsByVulnerability of Critical findings: curl's DSA-9100-1 in fetcher:2.0, fetcher:latest and api:1.0. */
const CRITICAL_TAGS = `query { tagsByVulnerability(filter: { vulnerability: { severity: Critical } }) {
  results { vulnerabilityId severity registries { registryName repositories { repositoryName tags { tagName current } } } }
} }`;

let fixture: ReportFixture;
let queryUuid: string;

describe.skipIf(missingTools('chromium'))('web interface: reports', () => {
  let ui: UiBrowser;
  beforeAll(async () => {
    fixture = await startReportServer();
    await refreshReports(fixture.server);
    const created = await gql(
      fixture.server,
      `mutation($query: String!) { createScheduledQuery(name: "${QUERY_NAME}", description: "Weekly list for the team", cronSchedule: "0 6 * * 1", query: $query) { ok scheduledQuery { uuid } } }`,
      { variables: { query: CRITICAL_TAGS } },
    );
    expect(created.errors, JSON.stringify(created.errors)).toBeUndefined();
    queryUuid = created.data.createScheduledQuery.scheduledQuery.uuid;
    ui = await launchSignedIn(fixture.server.url);
  }, 180_000);
  afterAll(async () => {
    await ui?.close();
    await fixture?.close();
  });

  it('lists the saved queries with a link into GraphiQL', async () => {
    const { page } = ui;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(QUERY_NAME) });
    await row.waitFor();
    expect(await row.innerText()).toContain('0 6 * * 1');
    expect(await row.innerText()).toContain('never run');
    expect(await page.getByRole('link', { name: /Open GraphiQL/ }).getAttribute('href')).toBe('/v2/reports/graphql');
    await checkAccessibility(page);
    await screenshot(page, 'reports');
    await ui.expectNoProblems();
  });

  it('runs the saved query from its page and shows the result rows', async () => {
    const { page } = ui;
    await page.getByRole('link', { name: QUERY_NAME }).click();
    await page.getByRole('heading', { level: 1, name: QUERY_NAME }).waitFor();
    expect(await page.getByLabel('GraphQL query').innerText()).toContain('tagsByVulnerability');
    await expect.poll(() => page.getByText('It has not run yet.').count()).toBe(1);
    await checkAccessibility(page);

    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('heading', { level: 1, name: 'Report result' }).waitFor();
    const table = page.getByTestId('result-table');
    await table.waitFor();
    const header = await table.getByRole('columnheader').allInnerTexts();
    expect(header.map((h) => h.trim())).toEqual([
      'vulnerabilityId',
      'severity',
      'registries.registryName',
      'registries.repositories.repositoryName',
      'registries.repositories.tags.tagName',
      'registries.repositories.tags.current',
    ]);
    const rows = (await table.locator('tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    expect(rows.map((r) => `${r[0]} ${r[1]} ${r[2]}/${r[3]}:${r[4]} ${r[5]}`).sort()).toEqual(
      [
        'DSA-9100-1 Critical registry.example.com/team/api:1.0 true',
        'DSA-9100-1 Critical registry.example.com/team/fetcher:2.0 true',
        'DSA-9100-1 Critical registry.example.com/team/fetcher:latest true',
      ].sort(),
    );
    await checkAccessibility(page);
    await screenshot(page, 'report-results');

    // Sorting by a column orders the rows, and says so to assistive technology.
    await table.getByRole('button', { name: 'registries.repositories.tags.tagName' }).click();
    await expect.poll(() => table.locator('tbody tr td:nth-child(5)').allInnerTexts()).toEqual(['1.0', '2.0', 'latest']);
    expect(await table.getByRole('columnheader', { name: /tags\.tagName/ }).getAttribute('aria-sort')).toBe('ascending');
    await ui.expectNoProblems();
  });

  it('downloads the whole result as CSV and JSON', async () => {
    const { page } = ui;
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(csv.suggestedFilename()).toMatch(/^result-.+\.csv$/);
    const lines = readFileSync((await csv.path())!, 'utf8').trim().split('\r\n');
    expect(lines[0]).toBe('vulnerabilityId,severity,registries.registryName,registries.repositories.repositoryName,registries.repositories.tags.tagName,registries.repositories.tags.current');
    expect(lines.slice(1).sort()).toEqual(
      ['1.0', '2.0', 'latest'].map((tag) => `DSA-9100-1,Critical,registry.example.com,${tag === '1.0' ? 'team/api' : 'team/fetcher'},${tag},true`).sort(),
    );

    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download JSON' }).click()]);
    const elements = JSON.parse(readFileSync((await json.path())!, 'utf8'));
    expect(elements).toHaveLength(1);
    expect(elements[0]).toMatchObject({ vulnerabilityId: 'DSA-9100-1', severity: 'Critical' });
    await ui.expectNoProblems();
  });

  it('lists the manual execution on the query page and shows a failing call\'s error', async () => {
    const { page } = ui;
    await page.getByRole('link', { name: /The saved query and its executions/ }).click();
    const executions = page.getByRole('table', { name: /Executions/ });
    await executions.waitFor();
    const rows = await executions.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/manual\s+complete/i);
    await checkAccessibility(page);

    // A query that is gone: the page says so; a result the server refuses: its message is shown.
    await page.goto(`${fixture.server.url}/ui/reports/00000000-0000-0000-0000-000000000000`);
    await page.getByText(/There is no saved query/).waitFor();
    await page.goto(`${fixture.server.url}/ui/reports/${queryUuid}/executions/00000000-0000-0000-0000-000000000000`);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/Could not load the result/);
    await ui.expectNoProblems();
  });
});
