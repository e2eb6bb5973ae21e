/**
 * A feed update that changes an image's findings re-evaluates its tags under the active policy: a new critical
 * advisory flips a passing tag to fail, its withdrawal flips it back, and each flip of a subscribed tag is recorded
 * as a policy_eval event with the last and current evaluation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { json, raw } from '../support/http.js';
import { waitForJobsSettled } from '../support/registry-fixtures.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CRITICAL_V3, initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const TAG = 'registry.example.com/team/fetcher:2.0';
const CURL_STATUS = 'Package: curl\nStatus: install ok installed\nArchitecture: amd64\nSource: curl\nVersion: 7.88.1-10+deb12u5\nDescription: command line tool\n';
let server: TestServer;
let work: string;
let digest: string;

const curlAdvisory = (withdrawn?: string) =>
  osvRecord('DSA-9100-1', 'Debian:12', 'curl', [{ introduced: '0' }, { fixed: '7.88.1-10+deb12u6' }], {
    aliases: ['CVE-2099-9100'],
    severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }],
    ...(withdrawn ? { withdrawn, modified: withdrawn } : {}),
  });

async function sync(records: Record<string, unknown>): Promise<void> {
  writeRecords(join(work, 'osv'), records);
  const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(res.json.status).toBe('done');
  // The sync hands changed images to policy_reevaluate_images jobs; the stored results follow once they ran.
  await waitForJobsSettled(server, 'admin');
}

const latest = async () => (await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(TAG)}&interactive=true`)).json.evaluations[0];
const stored = () => server.running.services.db('policy_evaluations').where({ image_digest: digest, tag: TAG, latest: true }).first('status', 'final_action');
const flips = async () => (await raw(server.url, 'GET', '/v2/events?event_type=user.checks.tag.policy_evaluation.update')).json.results;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-feed-flip-'));
  writeRecords(join(work, 'osv'), initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: CURL_STATUS }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [TAG] }) });
  digest = res.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
  expect((await json(server.url, 'POST', '/v2/subscriptions', { subscription_type: 'policy_eval', subscription_key: TAG })).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('policy re-evaluation after a feed update', () => {
  it('passes while the feed knows no vulnerability of its packages', async () => {
    expect(await stored()).toMatchObject({ status: 'pass' });
    expect(await flips()).toEqual([]);
  });

  it('flips to fail when a sync brings a critical advisory for one of its packages, and records the flip', async () => {
    await sync({ ...initialRecords(), 'DSA-9100-1': curlAdvisory() });
    expect(await stored()).toMatchObject({ status: 'fail', final_action: 'stop' });
    const [event] = await flips();
    expect(event.event).toMatchObject({ resource: { type: 'image_tag', id: TAG } });
    expect(event.event.details).toMatchObject({
      subscription_type: 'policy_eval',
      image_digest: digest,
      last_eval: { status: 'pass' },
      curr_eval: { status: 'fail', final_action: 'stop' },
    });
    const finding = (await latest()).details.findings.find((f: { trigger_id: string }) => f.trigger_id === 'DSA-9100-1+curl');
    expect(finding).toMatchObject({ gate: 'vulnerabilities', action: 'stop' });
  });

  it('a sync that changes nothing for the image records no flip', async () => {
    await sync({ ...initialRecords(), 'DSA-9100-1': curlAdvisory(), 'DSA-9101-1': osvRecord('DSA-9101-1', 'Debian:12', 'nginx', [{ introduced: '0' }]) });
    expect(await flips()).toHaveLength(1);
    expect(await stored()).toMatchObject({ status: 'fail' });
  });

  it('flips back to pass when the advisory is withdrawn', async () => {
    await sync({ ...initialRecords(), 'DSA-9100-1': curlAdvisory('2026-11-01T00:00:00Z') });
    expect(await stored()).toMatchObject({ status: 'pass' });
    const events = await flips();
    expect(events).toHaveLength(2);
    expect(events[0].event.details).toMatchObject({ last_eval: { status: 'fail' }, curr_eval: { status: 'pass' } });
  });
});
