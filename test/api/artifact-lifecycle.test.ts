/**
 * Artifact lifecycle policies (/v2/system/artifact-lifecycle-policies): created, listed, read, updated into a new
 * version (the earlier one stays readable through /versions) and deleted; the periodic `artifact_lifecycle_run`
 * job deletes an old image its selector matches and keeps a new one, an old one the selector does not match and
 * an old one runtime inventory reports, recording the run as an event; the dry run counts without deleting.
 * Bad inputs answer 400/404/409 and change nothing; callers outside the admin account are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobFinished } from '../../src/jobs/worker.js';
import { ARTIFACT_LIFECYCLE_RUN_JOB } from '../../src/lifecycle/run.js';
import { createUserWithRole, type TestUser } from '../support/auth-fixtures.js';
import { expectError, expectValidationError, ISO_UTC } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import { alpineImage, analysisSettled, uploadArchive } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BASE = '/v2/system/artifact-lifecycle-policies';
const DAY_MS = 86_400_000;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const ARN = 'arn:aws:ecs:eu-west-1:123456789012';

let server: TestServer;
let writer: TestUser;
/** Image digests by role in the run: `old` goes, the others stay. */
const images: Record<'old' | 'fresh' | 'otherRepo' | 'running', string> = { old: '', fresh: '', otherRepo: '', running: '' };

const policy = (overrides: Record<string, unknown> = {}, conditions: Record<string, unknown> = {}) => ({
  name: 'old lifecycle images',
  description: 'images of lifecycle/* analysed over 30 days ago',
  action: 'delete' as const,
  enabled: false,
  policy_conditions: {
    artifact_type: 'image' as const,
    days_since_analyzed: 30,
    even_if_exists_in_runtime_inventory: false,
    selector: { registry: 'registry.example.com', repository: 'lifecycle/*' },
    ...conditions,
  },
  ...overrides,
});

const admin = () => client(server.url);
const byUuid = (uuid: string) => ({ params: { path: { policy_uuid: uuid } } });

async function addImage(marker: string, tag: string, ageDays: number): Promise<string> {
  const res = await uploadArchive(server.url, await alpineImage(marker), tag);
  expect(res.status, res.text).toBe(200);
  const digest: string = res.json.image_digest;
  expect(await analysisSettled(server, 'admin', digest)).toBe('analyzed');
  // The analysis happened just now; the policy's age condition reads analyzed_at, so the test moves it back.
  if (ageDays) await server.running.services.db('images').where({ account_name: 'admin', image_digest: digest }).update({ analyzed_at: new Date(Date.now() - ageDays * DAY_MS).toISOString() });
  return digest;
}

async function imageStatus(digest: string): Promise<number> {
  return (await raw(server.url, 'GET', `/v2/images/${digest}`)).status;
}

/** Makes the periodic run due now and resolves once it has finished (by the worker's event, no sleeping). */
async function runLifecycleJob(): Promise<void> {
  const { jobs, worker } = server.running.services;
  let id = -1;
  const finished = new Promise<JobFinished>((resolve) => {
    const onFinished = (f: JobFinished) => {
      if (f.id !== id) return;
      worker.off('finished', onFinished);
      resolve(f);
    };
    worker.on('finished', onFinished);
  });
  id = await jobs.enqueue(ARTIFACT_LIFECYCLE_RUN_JOB, { slot: new Date().toISOString() }, { onDuplicate: 'earliest' });
  worker.wake();
  expect((await finished).status).toBe('done');
}

async function dryRunCount(uuid: string): Promise<number> {
  const { data } = await admin().GET('/system/artifact-lifecycle-policies/{policy_uuid}', { params: { path: { policy_uuid: uuid }, query: { dry_run: true } } });
  expect(data!.dry_run!.evaluated_at).toMatch(ISO_UTC);
  return data!.dry_run!.image_count;
}

beforeAll(async () => {
  server = await startTestServer();
  writer = await createUserWithRole(server.url, { role: 'read-write' });
  images.old = await addImage('old', 'registry.example.com/lifecycle/app:1', 40);
  images.fresh = await addImage('fresh', 'registry.example.com/lifecycle/app:2', 0);
  images.otherRepo = await addImage('other', 'registry.example.com/keep/app:1', 40);
  images.running = await addImage('running', 'registry.example.com/lifecycle/worker:1', 40);
  const report = {
    cluster_arn: `${ARN}:cluster/lifecycle`,
    timestamp: new Date().toISOString(),
    containers: [{ arn: `${ARN}:container/lifecycle/c1`, image_tag: 'registry.example.com/lifecycle/worker:1', image_digest: images.running }],
  };
  expect((await json(server.url, 'POST', '/v2/ecs-inventory', report)).status).toBe(204);
});
afterAll(async () => {
  await server?.close();
});

describe('artifact lifecycle policies', () => {
  let uuid: string;

  it('creates a policy as version 1, lists and reads it', async () => {
    expect((await admin().GET('/system/artifact-lifecycle-policies')).data).toEqual({ items: [] });
    const created = await admin().POST('/system/artifact-lifecycle-policies', { body: { ...policy(), uuid: UNKNOWN, created_at: '2000-01-01T00:00:00Z' } });
    expect(created.response.status).toBe(201);
    uuid = created.data!.uuid;
    expect(uuid).not.toBe(UNKNOWN);
    expect(created.data).toMatchObject({
      name: 'old lifecycle images',
      action: 'delete',
      enabled: false,
      policy_conditions: [{ version: 1, artifact_type: 'image', days_since_analyzed: 30, selector: { registry: 'registry.example.com', repository: 'lifecycle/*', tag: '*' } }],
    });
    expect(created.data!.created_at).toMatch(ISO_UTC);
    expect(created.data!.deleted_at).toBeUndefined();
    expect((await admin().GET('/system/artifact-lifecycle-policies')).data!.items).toEqual([created.data]);
    expect((await admin().GET('/system/artifact-lifecycle-policies/{policy_uuid}', byUuid(uuid))).data).toEqual(created.data);
  });

  it('counts in a dry run what the policy would delete, deleting nothing', async () => {
    // Only the old lifecycle/* image: the fresh one is too young, keep/app is not selected, worker:1 runs.
    expect(await dryRunCount(uuid)).toBe(1);
    const plain = await admin().GET('/system/artifact-lifecycle-policies/{policy_uuid}', byUuid(uuid));
    expect(plain.data!.dry_run).toBeUndefined();
    for (const digest of Object.values(images)) expect(await imageStatus(digest)).toBe(200);
  });

  it('updates into version 2 and keeps version 1 readable', async () => {
    const body = policy({ enabled: true }, { days_since_analyzed: 20, even_if_exists_in_runtime_inventory: true });
    const updated = await admin().PUT('/system/artifact-lifecycle-policies/{policy_uuid}', { ...byUuid(uuid), body });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ uuid, enabled: true, policy_conditions: [{ version: 2, days_since_analyzed: 20, even_if_exists_in_runtime_inventory: true }] });
    expect(updated.data!.updated_at >= updated.data!.created_at).toBe(true);
    const versions = (query: { version?: number; latest?: boolean } = {}) =>
      admin().GET('/system/artifact-lifecycle-policies/{policy_uuid}/versions', { params: { path: { policy_uuid: uuid }, query } });
    const all = (await versions()).data!;
    expect(all.policy_conditions.map((c) => [c.version, c.days_since_analyzed])).toEqual([
      [1, 30],
      [2, 20],
    ]);
    expect((await versions({ version: 1 })).data!.policy_conditions).toEqual([all.policy_conditions[0]]);
    expect((await versions({ latest: true })).data!.policy_conditions).toEqual([all.policy_conditions[1]]);
    expect((await admin().GET('/system/artifact-lifecycle-policies/{policy_uuid}', byUuid(uuid))).data!.policy_conditions).toEqual([all.policy_conditions[1]]);
    // Version 2 takes running images too.
    expect(await dryRunCount(uuid)).toBe(2);
  });

  it('runs as the periodic job: deletes the old selected image, keeps the rest, records the run', async () => {
    // Back to keeping what runtime inventory reports (version 3), enabled.
    await admin().PUT('/system/artifact-lifecycle-policies/{policy_uuid}', { ...byUuid(uuid), body: policy({ enabled: true }) });
    await runLifecycleJob();
    expect(await imageStatus(images.old)).toBe(404);
    expect(await imageStatus(images.fresh)).toBe(200);
    expect(await imageStatus(images.otherRepo)).toBe(200);
    expect(await imageStatus(images.running)).toBe(200);
    const events = await raw(server.url, 'GET', '/v2/events?event_type=system.artifact_lifecycle.policy_executed');
    expect(events.status).toBe(200);
    const [run] = events.json.results;
    expect(run.event).toMatchObject({ type: 'system.artifact_lifecycle.policy_executed', level: 'INFO', resource: { id: uuid, type: 'artifact_lifecycle_policy' } });
    expect(run.event.details).toMatchObject({ policy_uuid: uuid, version: 3, deleted_count: 1, deleted: [{ account_name: 'admin', image_digest: images.old }], skipped: [], truncated: false });
    expect(await dryRunCount(uuid)).toBe(0);
  });

  it('does not run disabled policies', async () => {
    const other = await admin().POST('/system/artifact-lifecycle-policies', { body: policy({ name: 'everything old, disabled' }, { selector: undefined }) });
    expect(other.response.status).toBe(201);
    // Every old image not running: keep/app only, now that the lifecycle/* one is gone.
    expect(await dryRunCount(other.data!.uuid)).toBe(1);
    await runLifecycleJob();
    expect(await imageStatus(images.otherRepo)).toBe(200);
    expect((await admin().DELETE('/system/artifact-lifecycle-policies/{policy_uuid}', byUuid(other.data!.uuid))).response.status).toBe(204);
  });

  it('refuses bad bodies and a taken name, writing no version', async () => {
    const put = (body: unknown) => json(server.url, 'PUT', `${BASE}/${uuid}`, body);
    expectValidationError(await json(server.url, 'POST', BASE, { name: 'x', action: 'delete' }), ['body.policy_conditions']);
    expectValidationError(await put(policy({}, { artifact_type: 'source' })), ['body.policy_conditions.artifact_type']);
    expectValidationError(await put(policy({ action: 'archive' })), ['body.action']);
    expectValidationError(await put(policy({}, { days_since_analyzed: 'thirty' })), ['body.policy_conditions.days_since_analyzed']);
    expectValidationError(await put(policy({}, { selector: { tag: '  ' } })), ['body.policy_conditions.selector.tag']);
    expectValidationError(await put(policy({ name: '   ' })), ['body.name']);
    const taken = await admin().POST('/system/artifact-lifecycle-policies', { body: policy({ name: 'taken name' }) });
    expect(taken.response.status).toBe(201);
    expectError(await put(policy({ name: 'taken name' })), 409, 'conflict');
    expectError(await json(server.url, 'POST', BASE, policy({ name: 'taken name' })), 409, 'conflict');
    const versions = await raw(server.url, 'GET', `${BASE}/${uuid}/versions`);
    expect(versions.json.policy_conditions.map((c: { version: number }) => c.version)).toEqual([1, 2, 3]);
    expect(versions.json.name).toBe('old lifecycle images');
    expectValidationError(await raw(server.url, 'GET', `${BASE}/${uuid}/versions?version=1&latest=true`), ['query.latest']);
    expectValidationError(await raw(server.url, 'GET', `${BASE}/${uuid}/versions?version=0`), ['query.version']);
    expectError(await raw(server.url, 'GET', `${BASE}/${uuid}/versions?version=9`), 404, 'not_found');
  });

  it('answers 404 for unknown and deleted policies, 400 for a malformed uuid', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/versions'],
    ] as const)
      expectError(await raw(server.url, method, `${BASE}/${UNKNOWN}${suffix}`), 404, 'not_found');
    expectError(await json(server.url, 'PUT', `${BASE}/${UNKNOWN}`, policy()), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `${BASE}/not-a-uuid`), 400, 'validation_error');
    expect((await admin().DELETE('/system/artifact-lifecycle-policies/{policy_uuid}', byUuid(uuid))).response.status).toBe(204);
    expectError(await raw(server.url, 'GET', `${BASE}/${uuid}`), 404, 'not_found');
    expectError(await raw(server.url, 'DELETE', `${BASE}/${uuid}`), 404, 'not_found');
    expect((await admin().GET('/system/artifact-lifecycle-policies')).data!.items.map((p) => p.uuid)).not.toContain(uuid);
    // Its name is free again.
    expect((await admin().POST('/system/artifact-lifecycle-policies', { body: policy() })).response.status).toBe(201);
  });

  it('refuses callers outside the admin account', async () => {
    const auth = { basic: [writer.username, writer.password] as [string, string] };
    expectError(await raw(server.url, 'GET', BASE, { auth }), 403, 'forbidden');
    expectError(await json(server.url, 'POST', BASE, policy({ name: 'not mine' }), auth), 403, 'forbidden');
    const [first] = (await admin().GET('/system/artifact-lifecycle-policies')).data!.items;
    expectError(await raw(server.url, 'GET', `${BASE}/${first!.uuid}?dry_run=true`, { auth }), 403, 'forbidden');
    expectError(await raw(server.url, 'DELETE', `${BASE}/${first!.uuid}`, { auth }), 403, 'forbidden');
  });
});
