/**
 * End to end: a webhook receiver on loopback gets a signed analysis_update when an image's analysis completes,
 * a vuln_update when a feed sync adds a finding to a subscribed tag, and a policy_eval when that flips the
 * tag's result; each signature verifies with the configuration's secret, and each delivery has a receipt.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/notifications/channels/webhook.js';
import type { SettledNotification } from '../../src/notifications/dispatcher.js';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../support/receivers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CRITICAL_V3, initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const TAG = 'registry.example.com/team/notified:1.0';
const CURL_STATUS = 'Package: curl\nStatus: install ok installed\nArchitecture: amd64\nSource: curl\nVersion: 7.88.1-10+deb12u5\nDescription: command line tool\n';
const SIGNING_SECRET = 'receiver-shared-secret-0123456789';
const BASE = '/v2/notifications/endpoints/webhook/configurations';

let server: TestServer;
let receiver: HttpReceiver;
let work: string;
let configUuid: string;
let digest: string;
const settledIds = new Set<string>();
const settledEvents = new EventEmitter();

/** Resolves when the dispatcher has recorded the outcome of each of these notifications (after the receiver got them). */
function settledAll(ids: string[]): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!ids.every((id) => settledIds.has(id))) return;
      settledEvents.off('settled', check);
      resolve();
    };
    settledEvents.on('settled', check);
    check();
  });
}

const ofType = (type: string) => (r: ReceivedRequest) => r.json?.data?.notification_type === type;

function expectSigned(r: ReceivedRequest): void {
  expect(r.headers['x-vigil-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(verifySignature(r.body, SIGNING_SECRET, r.headers['x-vigil-signature'] as string)).toBe(true);
  expect(verifySignature(r.body, 'another-secret-altogether-xx', r.headers['x-vigil-signature'] as string)).toBe(false);
  expect(r.headers['x-vigil-notification-id']).toBe(r.json.data.notification_payload.notification_id);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-notify-'));
  writeRecords(join(work, 'osv'), initialRecords());
  receiver = await startHttpReceiver();
  server = await startTestServer({
    VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}`,
    VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32',
    VIGIL_NOTIFY_POLL_MS: '20',
  });
  server.running.services.notifications.dispatcher.on('settled', (n: SettledNotification) => {
    settledIds.add(n.id);
    settledEvents.emit('settled');
  });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  const created = await json(server.url, 'POST', BASE, { url: `${receiver.url}/hooks/vigil?token=t0k3n`, signing_secret: SIGNING_SECRET, description: 'ci receiver' });
  expect(created.status).toBe(200);
  configUuid = created.json.uuid;
  const selector = await json(server.url, 'POST', `${BASE}/${configUuid}/selectors`, { scope: 'account', event: { level: '*', resource_type: '*', type: 'user.*' } });
  expect(selector.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('webhook notifications of real events', () => {
  it('sends a signed analysis_update when the analysis of an image completes', async () => {
    const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: CURL_STATUS }]] });
    const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [TAG] }) });
    digest = res.json.image_digest;
    expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
    const r = await receiver.waitFor(ofType('analysis_update'));
    expectSigned(r);
    expect(r.path).toBe('/hooks/vigil?token=t0k3n');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({
      account_name: 'admin',
      data: {
        notification_user: 'admin',
        notification_type: 'analysis_update',
        notification_payload: {
          account_name: 'admin',
          subscription_type: 'analysis_update',
          subscription_key: TAG,
          curr_eval: { analysis_status: 'analyzed', image_digest: digest },
          last_eval: { analysis_status: 'analyzing', image_digest: digest },
        },
      },
    });
  });

  it('sends vuln_update (with the new critical finding) and policy_eval (pass to fail) after a feed update', async () => {
    for (const type of ['vuln_update', 'policy_eval'])
      expect((await json(server.url, 'POST', '/v2/subscriptions', { subscription_type: type, subscription_key: TAG })).status).toBe(200);
    const advisory = osvRecord('DSA-9200-1', 'Debian:12', 'curl', [{ introduced: '0' }, { fixed: '7.88.1-10+deb12u6' }], {
      aliases: ['CVE-2099-9200'],
      severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }],
    });
    writeRecords(join(work, 'osv'), { ...initialRecords(), 'DSA-9200-1': advisory });
    expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');

    const vuln = await receiver.waitFor(ofType('vuln_update'));
    expectSigned(vuln);
    const payload = vuln.json.data.notification_payload;
    expect(payload).toMatchObject({ subscription_type: 'vuln_update', subscription_key: TAG, image_digest: digest });
    expect(payload.diff_vulnerability_result.added).toEqual([
      expect.objectContaining({ vuln: 'DSA-9200-1', package_name: 'curl', package_version: '7.88.1-10+deb12u5', severity: 'Critical', fix: '7.88.1-10+deb12u6' }),
    ]);
    expect(payload.diff_vulnerability_result.removed).toEqual([]);

    const policy = await receiver.waitFor(ofType('policy_eval'));
    expectSigned(policy);
    expect(policy.json.data.notification_payload).toMatchObject({
      subscription_type: 'policy_eval',
      subscription_key: TAG,
      image_digest: digest,
      last_eval: { status: 'pass' },
      curr_eval: { status: 'fail', final_action: 'stop' },
    });
  });

  it('lists each delivery as delivered, with a successful receipt', async () => {
    await settledAll(receiver.requests.map((r) => String(r.headers['x-vigil-notification-id'])));
    const list = await raw(server.url, 'GET', `${BASE}/${configUuid}/deliveries?state=delivered`);
    expect(list.status).toBe(200);
    const types = list.json.items.map((d: { notification_type: string }) => d.notification_type);
    expect(types).toEqual(expect.arrayContaining(['analysis_update', 'vuln_update', 'policy_eval']));
    const delivery = list.json.items.find((d: { notification_type: string }) => d.notification_type === 'vuln_update');
    expect(delivery).toMatchObject({ state: 'delivered', tries: 1, endpoint: 'webhook', event_type: 'user.checks.tag.vulnerabilities.update' });
    const receipts = await raw(server.url, 'GET', `${BASE}/${configUuid}/deliveries/${delivery.notification_id}/receipts`);
    expect(receipts.json.items).toEqual([expect.objectContaining({ attempt: 1, success: true, http_status: 200, error: null })]);
    const status = await raw(server.url, 'GET', `${BASE}/${configUuid}/status`);
    expect(status.json).toMatchObject({ status: 'healthy', last_error: null });
  });

  it('sends every notification once', () => {
    const ids = receiver.requests.map((r) => r.headers['x-vigil-notification-id']);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
