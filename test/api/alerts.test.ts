/**
 * Compliance-violation alerts end to end: a tag with an `alerts` subscription whose policy result flips to STOP
 * gets an alert (with the triggers that stopped it), delivered to a loopback webhook as an event; the next pass
 * closes it; PATCH closes and reopens by hand; lists and summaries filter by state, time and resource; a
 * repository key watches its tags; bad input is a 400 or 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE } from '../support/ecosystem-fixtures.js';
import { expectError, expectValidationError } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../support/receivers.js';
import { waitForJobsSettled } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TAG = 'registry.example.com/team/alerted:1.0';
const ALERTS = '/v2/alerts/compliance-violations';
let server: TestServer;
let receiver: HttpReceiver;
let digest: string;

/** A policy mapped to every image whose one rule fires always, with this action. */
function policy(id: string, action: 'STOP' | 'WARN') {
  return {
    id,
    name: id,
    version: '2',
    rule_sets: [{ id: 'rs', name: 'rs', version: '2', rules: [{ id: `always-${action.toLowerCase()}`, gate: 'always', trigger: 'always', action, params: [] }] }],
    allowlists: [],
    mappings: [{ id: 'all', name: 'all', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
  };
}

/** Makes the policy active and waits for the re-evaluation of the account's images that this queues. */
async function activate(id: 'stopper' | 'passer'): Promise<void> {
  const res = await raw(server.url, 'PUT', `/v2/policies/${id}?active=true`);
  expect(res.status, res.text).toBe(200);
  await waitForJobsSettled(server, 'admin');
}

const list = async (query = '') => {
  const res = await raw(server.url, 'GET', `${ALERTS}${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as any[];
};
const summaries = async (query = '') => {
  const res = await raw(server.url, 'GET', `/v2/alerts/summaries${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as any[];
};
const alertEvent = (type: string, uuid: string) => (r: ReceivedRequest) =>
  r.json?.data?.notification_payload?.event?.type === `user.alerts.compliance_violation.${type}` && r.json.data.notification_payload.event.details.alert.uuid === uuid;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  server = await startTestServer({ VIGIL_OUTBOUND_ALLOW: '127.0.0.1/32', VIGIL_NOTIFY_POLL_MS: '20' });
  const config = await json(server.url, 'POST', '/v2/notifications/endpoints/webhook/configurations', { url: `${receiver.url}/hooks/alerts`, description: 'alerts receiver' });
  expect(config.status, config.text).toBe(200);
  const selector = await json(server.url, 'POST', `/v2/notifications/endpoints/webhook/configurations/${config.json.uuid}/selectors`, {
    scope: 'account',
    event: { level: '*', resource_type: '*', type: 'user.alerts.*' },
  });
  expect(selector.status, selector.text).toBe(200);
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [TAG] }) });
  digest = res.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
  for (const id of ['stopper', 'passer'] as const)
    expect((await json(server.url, 'POST', '/v2/policies', policy(id, id === 'stopper' ? 'STOP' : 'WARN'))).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe('compliance-violation alerts', () => {
  it('raises none for a tag without an alerts subscription', async () => {
    await activate('stopper');
    await activate('passer');
    expect(await list('?state=all')).toEqual([]);
  });

  it('opens an alert with the stopping triggers when a subscribed tag flips to STOP, and delivers it as a webhook', async () => {
    const sub = await client(server.url).POST('/subscriptions', { body: { subscription_key: TAG, subscription_type: 'alerts' } });
    expect(sub.response.status).toBe(200);
    await activate('stopper');
    const [alert, ...rest] = await list();
    expect(rest).toEqual([]);
    expect(alert).toMatchObject({
      type: 'compliance_violation',
      state: 'open',
      resource: { image_digest: digest, image_tag: TAG, registry: 'registry.example.com', repository: 'team/alerted', policy_id: 'stopper' },
      closed_by: null,
      compliance_status_reason: 'policy_evaluation',
      violations_count: 1,
      triggers: [{ gate: 'always', trigger: 'always', rule_id: 'always-stop' }],
    });
    expect((await raw(server.url, 'GET', `${ALERTS}/${alert.uuid}`)).json).toEqual(alert);
    const delivered = await receiver.waitFor(alertEvent('opened', alert.uuid));
    expect(delivered.json.data.notification_type).toBe('event');
    expect(delivered.json.data.notification_payload).toMatchObject({
      subscription_key: TAG,
      event: { resource_type: 'image_tag', resource_id: TAG, details: { subscription_type: 'alerts', alert: { state: 'open', triggers: alert.triggers } } },
    });
  });

  it('follows further STOP evaluations without a second alert, and closes on the next pass', async () => {
    const [before] = await list();
    const check = await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(TAG)}`);
    expect(check.json.evaluations[0]).toMatchObject({ final_action: 'stop' });
    const [after, ...rest] = await list();
    expect(rest).toEqual([]);
    expect(after.uuid).toBe(before.uuid);
    expect(Number(after.resource.evaluation_id)).toBeGreaterThan(Number(before.resource.evaluation_id));

    await activate('passer');
    expect(await list()).toEqual([]);
    const [closed] = await list('?state=closed');
    expect(closed).toMatchObject({ uuid: before.uuid, state: 'closed', closed_by: 'system' });
    expect(closed.closed_reason).toMatch(/passed/);
    await receiver.waitFor(alertEvent('closed', before.uuid));
  });

  it('opens a new alert on the next failure; PATCH closes it for good and reopens it', async () => {
    await activate('stopper');
    const [alert] = await list();
    const [, first] = await list('?state=all');
    expect(alert.uuid).not.toBe(first.uuid);

    const closed = await json(server.url, 'PATCH', `${ALERTS}/${alert.uuid}`, { state: 'closed' });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.json).toMatchObject({ uuid: alert.uuid, state: 'closed', closed_by: 'admin', closed_reason: 'closed by user' });
    await receiver.waitFor(alertEvent('closed', alert.uuid));
    // Idempotent: closing again changes nothing.
    expect((await json(server.url, 'PATCH', `${ALERTS}/${alert.uuid}`, { state: 'closed' })).json).toEqual(closed.json);
    // The failure goes on, but the user dismissed it: no new alert until the tag passes again.
    await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(TAG)}`);
    expect(await list()).toEqual([]);

    const reopened = await json(server.url, 'PATCH', `${ALERTS}/${alert.uuid}`, { state: 'open' });
    expect(reopened.json).toMatchObject({ uuid: alert.uuid, state: 'open', closed_by: null, closed_reason: null });
    await receiver.waitFor((r) => alertEvent('opened', alert.uuid)(r) && r.json.data.notification_payload.event.details.alert.closed_by === null);
    expect((await list()).map((a) => a.uuid)).toEqual([alert.uuid]);
  });

  it('summarises alerts per state, with resource labels', async () => {
    expect(await summaries()).toHaveLength(1);
    expect(await summaries('?state=closed')).toHaveLength(1);
    const all = await summaries('?state=all&type=compliance_violation');
    expect(all).toHaveLength(2);
    expect(all.map((s) => s.state).sort()).toEqual(['closed', 'open']);
    expect(all[0].resource_labels).toEqual(
      expect.arrayContaining([
        { key: 'tag', value: TAG },
        { key: 'registry', value: 'registry.example.com' },
        { key: 'repository', value: 'team/alerted' },
        { key: 'image_digest', value: digest },
      ]),
    );
    expect(await summaries(`?state=all&resource_label=${encodeURIComponent(`tag=${TAG}`)}&resource_label=repository=team/alerted`)).toHaveLength(2);
    expect(await summaries('?state=all&resource_label=repository=team/other')).toEqual([]);
  });

  it('filters and pages the list', async () => {
    expect(await list(`?state=all&resource_image_tag=${encodeURIComponent(TAG)}`)).toHaveLength(2);
    expect(await list(`?state=all&resource_image_digest=${digest}`)).toHaveLength(2);
    expect(await list('?state=all&resource_registry=registry.example.com&resource_repository=team/alerted')).toHaveLength(2);
    expect(await list('?state=all&resource_repository=team/other')).toEqual([]);
    const [newest, oldest] = await list('?state=all');
    expect((await list('?state=all&limit=1&page=2')).map((a) => a.uuid)).toEqual([oldest.uuid]);
    expect(await list('?state=all&limit=1&page=3')).toEqual([]);
    expect((await list(`?state=all&created_after=${encodeURIComponent(oldest.created_at)}`)).map((a) => a.uuid)).toEqual([newest.uuid]);
    expect((await list(`?state=all&created_before=${encodeURIComponent(newest.created_at)}`)).map((a) => a.uuid)).toEqual([oldest.uuid]);
  });

  it('watches every tag of a repository through an alerts subscription keyed by the repository', async () => {
    const c = client(server.url);
    const [tagSub] = (await c.GET('/subscriptions', { params: { query: { subscription_type: 'alerts' } } })).data!;
    expect((await c.DELETE('/subscriptions/{subscription_id}', { params: { path: { subscription_id: tagSub!.subscription_id } } })).response.status).toBe(204);
    const repoSub = await c.POST('/subscriptions', { body: { subscription_key: 'registry.example.com/team/alerted', subscription_type: 'alerts' } });
    expect(repoSub.data![0]).toMatchObject({ subscription_key: 'registry.example.com/team/alerted', subscription_type: 'alerts' });
    const [open] = await list();
    await activate('passer');
    expect(await list()).toEqual([]);
    expect((await raw(server.url, 'GET', `${ALERTS}/${open.uuid}`)).json).toMatchObject({ state: 'closed', closed_by: 'system' });
    await activate('stopper');
    const [reopened] = await list();
    expect(reopened.uuid).not.toBe(open.uuid);
  });

  it('answers 404 for an unknown alert and 400 for bad input', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await raw(server.url, 'GET', `${ALERTS}/${unknown}`), 404, 'not_found');
    expectError(await json(server.url, 'PATCH', `${ALERTS}/${unknown}`, { state: 'closed' }), 404, 'not_found');
    expectValidationError(await raw(server.url, 'GET', `${ALERTS}/not-a-uuid`), ['path.uuid']);
    const [alert] = await list();
    expectValidationError(await json(server.url, 'PATCH', `${ALERTS}/${alert.uuid}`, { state: 'resolved' }), ['body.state']);
    expectValidationError(await json(server.url, 'PATCH', `${ALERTS}/${alert.uuid}`, {}), ['body.state']);
    expectValidationError(await raw(server.url, 'GET', `${ALERTS}?state=resolved`), ['query.state']);
    expectValidationError(await raw(server.url, 'GET', `${ALERTS}?limit=101`), ['query.limit']);
    expectValidationError(await raw(server.url, 'GET', `${ALERTS}?page=0`), ['query.page']);
    expectValidationError(await raw(server.url, 'GET', `${ALERTS}?created_after=yesterday`), ['query.created_after']);
    expectValidationError(await raw(server.url, 'GET', `${ALERTS}?resource_image_digest=sha256:xyz`), ['query.resource_image_digest']);
    expectValidationError(await raw(server.url, 'GET', '/v2/alerts/summaries?type=vulnerability'), ['query.type']);
    expectValidationError(await raw(server.url, 'GET', '/v2/alerts/summaries?resource_label=tag'), ['query.resource_label.0']);
    expectValidationError(await raw(server.url, 'GET', '/v2/alerts/summaries?resource_label=colour=blue'), ['query.resource_label']);
    expect((await list()).map((a) => a.uuid)).toEqual([alert.uuid]);
  });
});
