/**
 * Package corrections: one correction, shared by every account, turns a finding off in two accounts' images, the
 * re-match it queues records the change as `vuln_update` events of the subscribed tags, and deleting it brings the
 * finding back. Bad inputs: unknown uuid, invalid match or replacement fields, callers who are not administrators.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { createUserWithRole, type TestUser } from '../support/auth-fixtures.js';
import { expectError, expectValidationError, ISO_UTC } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { waitForJobKindSettled, waitForJobsSettled } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const ADVISORY = 'GHSA-lodash-0008';
const ES_ADVISORY = 'GHSA-lodash-es-0100';
const UPDATE_EVENT = 'user.checks.tag.vulnerabilities.update';
let server: TestServer;
let work: string;
let other: TestUser;
const images: { account: string; tag: string; digest: string }[] = [];

/** A correction of lodash 4.17.20 (npm) to another package's purl: no advisory of the fixture feed names it. */
const correction = {
  type: 'package',
  description: 'lodash here is a vendored lodash-es build',
  match: {
    type: 'npm',
    field_matches: [
      { field_name: 'package', field_value: 'lodash' },
      { field_name: 'version', field_value: '4.17.20' },
    ],
  },
  replace: [{ field_name: 'purl', field_value: 'pkg:npm/lodash-es@4.17.20' }],
};

const asAccount = (account: string) => ({ 'x-anchore-account': account });

/** The re-match a correction change queued has run, and the policy re-evaluations it handed on. */
async function rematched(): Promise<void> {
  await waitForJobKindSettled(server, 'corrections_rematch');
  for (const { account } of images) await waitForJobsSettled(server, account);
}

async function hasAdvisory(image: { account: string; digest: string }, advisory = ADVISORY): Promise<boolean> {
  const res = await raw(server.url, 'GET', `/v2/images/${image.digest}/vuln/all`, { headers: asAccount(image.account) });
  expect(res.status).toBe(200);
  return res.json.vulnerabilities.some((v: { vuln: string; package_name: string }) => v.vuln === advisory && v.package_name === 'lodash');
}

/** The diffs of the vuln_update events of the image's tag, newest first. */
async function updateDiffs(image: { account: string; tag: string }) {
  const res = await raw(server.url, 'GET', `/v2/events?event_type=${UPDATE_EVENT}`, { headers: asAccount(image.account) });
  expect(res.status).toBe(200);
  return res.json.results
    .filter((e: { event: { resource: { id: string } } }) => e.event.resource.id === image.tag)
    .map((e: { event: { details: { diff_vulnerability_result: Record<string, { vuln: string }[]> } } }) => e.event.details.diff_vulnerability_result);
}

const vulnsOf = (list: { vuln: string }[]) => list.map((c) => c.vuln);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-corrections-'));
  writeRecords(join(work, 'osv'), initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  other = await createUserWithRole(server.url, { role: 'read-write' });
  const image = await buildImage({ layers: [[{ path: 'app/node_modules/lodash/package.json', content: JSON.stringify({ name: 'lodash', version: '4.17.20', license: 'MIT' }) }]] });
  const archive = await dockerArchiveTar(image, { repoTags: ['registry.example.com/web/app:1'] });
  for (const [account, tag] of [
    ['admin', 'registry.example.com/web/app:1'],
    [other.account, 'registry.example.com/shop/front:2'],
  ] as const) {
    const res = await raw(server.url, 'POST', `/v2/images/archives?tag=${encodeURIComponent(tag)}`, {
      headers: { 'content-type': 'application/x-tar', ...asAccount(account) },
      body: archive,
    });
    expect(res.status, res.text).toBe(200);
    const digest = res.json.image_digest as string;
    expect(await waitForAnalysis(server, account, digest)).toBe('analyzed');
    const sub = await json(server.url, 'POST', '/v2/subscriptions', { subscription_type: 'vuln_update', subscription_key: tag }, undefined, asAccount(account));
    expect(sub.status, sub.text).toBe(200);
    images.push({ account, tag, digest });
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('package corrections', () => {
  let uuid: string;

  it('starts with the advisory found in both accounts', async () => {
    for (const image of images) expect(await hasAdvisory(image)).toBe(true);
    expect((await client(server.url).GET('/corrections')).data).toEqual([]);
  });

  it('a correction turns the finding off in both accounts, and the re-match records the change', async () => {
    const created = await client(server.url).POST('/corrections', { body: correction as never });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ ...correction, uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: expect.stringMatching(ISO_UTC) });
    uuid = created.data!.uuid!;
    await rematched();
    for (const image of images) {
      expect(await hasAdvisory(image)).toBe(false);
      const [diff] = await updateDiffs(image);
      expect(vulnsOf(diff.removed)).toEqual([ADVISORY]);
      expect(diff.added).toEqual([]);
    }
    // Shared by every account: listed to the other account's users too (reading needs only a read role).
    const listed = await client(server.url, { basic: [other.username, other.password] }).GET('/corrections', { params: { query: { correction_type: 'package' } } });
    expect(listed.data?.map((c) => c.uuid)).toEqual([uuid]);
    expect((await client(server.url).GET('/corrections/{uuid}', { params: { path: { uuid } } })).data).toMatchObject(correction);
  });

  it('an update that keeps the finding off changes no findings and records nothing more', async () => {
    const body = { ...correction, description: 'renamed', replace: [{ field_name: 'name', field_value: 'lodash-es' }] };
    const updated = await client(server.url).PUT('/corrections/{uuid}', { params: { path: { uuid } }, body: body as never });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ uuid, description: 'renamed', replace: body.replace });
    await rematched();
    for (const image of images) {
      expect(await hasAdvisory(image)).toBe(false);
      expect(await updateDiffs(image)).toHaveLength(1);
    }
  });

  it('a feed change under the corrected name reaches the corrected packages', async () => {
    writeRecords(join(work, 'osv'), { ...initialRecords(), [ES_ADVISORY]: osvRecord(ES_ADVISORY, 'npm', 'lodash-es', [{ introduced: '0' }, { fixed: '4.17.22' }]) });
    expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
    for (const { account } of images) await waitForJobsSettled(server, account);
    for (const image of images) {
      expect(await hasAdvisory(image, ES_ADVISORY)).toBe(true);
      expect(vulnsOf((await updateDiffs(image))[0].added)).toEqual([ES_ADVISORY]);
    }
  });

  it('deleting the correction brings the finding back, recorded as added', async () => {
    expect((await raw(server.url, 'DELETE', `/v2/corrections/${uuid}`)).status).toBe(204);
    await rematched();
    for (const image of images) {
      expect(await hasAdvisory(image)).toBe(true);
      expect(await hasAdvisory(image, ES_ADVISORY)).toBe(false);
      const [diff] = await updateDiffs(image);
      expect(vulnsOf(diff.added)).toEqual([ADVISORY]);
      expect(vulnsOf(diff.removed)).toEqual([ES_ADVISORY]);
    }
    expectError(await raw(server.url, 'GET', `/v2/corrections/${uuid}`), 404, 'not_found');
  });
});

describe('bad inputs', () => {
  const unknown = '00000000-0000-4000-8000-000000000000';

  it('answers 404 for an unknown uuid', async () => {
    expectError(await raw(server.url, 'GET', `/v2/corrections/${unknown}`), 404, 'not_found');
    expectError(await json(server.url, 'PUT', `/v2/corrections/${unknown}`, correction), 404, 'not_found');
    expectError(await raw(server.url, 'DELETE', `/v2/corrections/${unknown}`), 404, 'not_found');
  });

  it.each([
    ['an unknown package type', { ...correction, match: { type: 'cobol' } }, ['body.match.type']],
    ['a field that cannot be matched', { ...correction, match: { type: 'npm', field_matches: [{ field_name: 'implementation-version', field_value: '1' }] } }, ['body.match.field_matches.0.field_name']],
    ['a field that cannot be replaced', { ...correction, replace: [{ field_name: 'licenses', field_value: 'MIT' }] }, ['body.replace.0.field_name']],
    ['a purl that is not one', { ...correction, replace: [{ field_name: 'purl', field_value: 'lodash-es' }] }, ['body.replace.0.field_value']],
    ['an empty name', { ...correction, replace: [{ field_name: 'name', field_value: ' ' }] }, ['body.replace.0.field_value']],
    ['no replacement', { ...correction, replace: [] }, ['body.replace']],
    ['another correction type', { ...correction, type: 'vulnerability' }, ['body.type']],
    ['a field match without a value', { ...correction, match: { type: 'npm', field_matches: [{ field_name: 'name' }] } }, ['body.match.field_matches.0.field_value']],
  ])('refuses %s (400) and stores nothing', async (_what, body, locations) => {
    expectValidationError(await json(server.url, 'POST', '/v2/corrections', body), locations);
    expect((await client(server.url).GET('/corrections')).data).toEqual([]);
  });

  it('refuses changes by users who are not administrators (403), even with a read-write role', async () => {
    const auth = { basic: [other.username, other.password] as [string, string] };
    expectError(await json(server.url, 'POST', '/v2/corrections', correction, auth), 403, 'forbidden');
    const created = await client(server.url).POST('/corrections', { body: correction as never });
    const id = created.data!.uuid!;
    expectError(await json(server.url, 'PUT', `/v2/corrections/${id}`, correction, auth), 403, 'forbidden');
    expectError(await raw(server.url, 'DELETE', `/v2/corrections/${id}`, { auth }), 403, 'forbidden');
    expect((await raw(server.url, 'DELETE', `/v2/corrections/${id}`)).status).toBe(204);
    await rematched();
  });
});
