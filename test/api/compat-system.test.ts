/**
 * The upstream System operations Vigil adds for drop-in compatibility: error codes, the service registry
 * (heartbeats of the nodes sharing the database), statistics, deployment history, the webhook test, the
 * logging level and the resource limits.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { latestSchemaVersion } from '../../src/db/index.js';
import { migrateAndRecord, recordDeployment } from '../../src/system/deployments.js';
import { registerServices, ServiceRegistry, type NodeRegistration } from '../../src/system/services.js';
import { packageVersion } from '../../src/util/project.js';
import { waitForAnalysis } from '../support/analysis.js';
import { client, json, raw } from '../support/http.js';
import { createAccount, createUser } from '../support/rbac-fixtures.js';
import { startHttpReceiver, type HttpReceiver } from '../support/receivers.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  // Images reported running are counted, not pulled.
  server = await startTestServer({ VIGIL_INVENTORY_ANALYZE: 'false' });
});
afterAll(async () => {
  await server?.close();
});

describe('GET /system/error-codes', () => {
  it('lists every error code of the catalog as a bare array of {name, description}', async () => {
    const res = await raw(server.url, 'GET', '/v2/system/error-codes');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    expect(res.json.map((e: { name: string }) => e.name)).toEqual(Object.keys(ERROR_CODES));
    for (const e of res.json) expect(e.description.length).toBeGreaterThan(10);
  });

  it('names the error_type of real error answers', async () => {
    const listed = new Set((await raw(server.url, 'GET', '/v2/system/error-codes')).json.map((e: { name: string }) => e.name));
    const answers = [
      await raw(server.url, 'GET', '/v2/no-such-route'),
      await raw(server.url, 'DELETE', '/v2/health', { auth: null }),
      await raw(server.url, 'GET', '/v2/system/error-codes?bogus=1'),
      await raw(server.url, 'GET', '/v2/system/error-codes', { auth: { basic: ['admin', 'wrong-password'] } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 405, 400, 401]);
    for (const a of answers) expect(listed.has(a.json.error_type)).toBe(true);
  });

  it('is open to any authenticated user and refuses anonymous callers', async () => {
    const account = await createAccount(server.url);
    const user = await createUser(server.url, account);
    expect((await raw(server.url, 'GET', '/v2/system/error-codes', { auth: user.auth })).status).toBe(200);
    expect((await raw(server.url, 'GET', '/v2/system/error-codes', { auth: null })).status).toBe(401);
  });
});

/** Another node of the deployment, registered as of `at` (it never beats again unless a test says so). */
function otherNode(hostId: string, heartbeatSeconds = 30): NodeRegistration {
  return {
    hostId,
    instanceId: `${hostId}:1:test`,
    baseUrl: `http://${hostId}:8228`,
    version: '0.0.1',
    dbVersion: '017_system_services',
    startedAt: new Date(Date.now() - 3_600_000).toISOString(),
    heartbeatSeconds,
    loggingLevel: 'info',
    roles: ['api', 'analyzer'],
  };
}

describe('the service registry: GET/DELETE /system/services', () => {
  it("lists this node's roles, alive, as a bare array that GET /system shows too", async () => {
    const { hostId, registry, version } = server.running.services;
    const res = await raw(server.url, 'GET', '/v2/system/services');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    const mine = res.json.filter((s: { host_id: string }) => s.host_id === hostId);
    expect(mine.map((s: { service_name: string }) => s.service_name).sort()).toEqual([...registry.names].sort());
    expect(registry.names).toEqual(expect.arrayContaining(['apiext', 'catalog', 'simplequeue', 'analyzer', 'policy_engine', 'reports']));
    for (const s of mine) {
      expect(s).toMatchObject({ status: true, version, base_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
      expect(s.service_detail).toMatchObject({ up: true, available: true, version, db_version: expect.stringMatching(/^\d{3}_/) });
      expect(s.service_detail.detail.logging_level).toBe(server.running.services.log.level);
    }
    const system = await raw(server.url, 'GET', '/v2/system');
    expect(system.json.service_states).toEqual(res.json);
  });

  it('shows a node whose heartbeat stopped as down, by name and by host, and removes its records', async () => {
    const db = server.running.services.db;
    await registerServices(db, otherNode('node-b'), ['analyzer', 'apiext'], new Date(Date.now() - 10 * 60_000));
    const analyzers = await raw(server.url, 'GET', '/v2/system/services/analyzer');
    expect(analyzers.status).toBe(200);
    expect(analyzers.json.map((s: { host_id: string }) => s.host_id).sort()).toEqual(['node-b', server.running.services.hostId].sort());
    const b = await raw(server.url, 'GET', '/v2/system/services/analyzer/node-b');
    expect(b.status).toBe(200);
    expect(b.json).toHaveLength(1);
    expect(b.json[0]).toMatchObject({ host_id: 'node-b', service_name: 'analyzer', status: false, version: '0.0.1', base_url: 'http://node-b:8228' });
    expect(b.json[0].status_message).toMatch(/^no heartbeat since .* \(expected every 30 s\)$/);
    expect(b.json[0].service_detail).toMatchObject({ up: false, available: false, busy: false });

    expect((await raw(server.url, 'DELETE', '/v2/system/services/analyzer/node-b')).status).toBe(200);
    const gone = await raw(server.url, 'GET', '/v2/system/services/analyzer/node-b');
    expect(gone.status).toBe(404);
    expect(gone.json.error_type).toBe('not_found');
    // Only that record went: node-b's apiext stays until it is removed too.
    expect((await raw(server.url, 'GET', '/v2/system/services/apiext/node-b')).json[0].status).toBe(false);
    expect((await raw(server.url, 'DELETE', '/v2/system/services/apiext/node-b')).status).toBe(200);
  });

  it('refuses to remove a live registration (409) and answers 404 for unknown ones', async () => {
    const hostId = server.running.services.hostId;
    const live = await raw(server.url, 'DELETE', `/v2/system/services/analyzer/${hostId}`);
    expect(live.status).toBe(409);
    expect(live.json).toMatchObject({ error_type: 'conflict', detail: { service_name: 'analyzer', host_id: hostId } });
    expect((await raw(server.url, 'GET', `/v2/system/services/analyzer/${hostId}`)).json[0].status).toBe(true);
    expect((await raw(server.url, 'DELETE', '/v2/system/services/analyzer/no-such-host')).status).toBe(404);
    expect((await raw(server.url, 'GET', '/v2/system/services/no_such_service')).status).toBe(404);
    expect((await raw(server.url, 'GET', '/v2/system/services/Bad-Name')).status).toBe(400);
    expect((await raw(server.url, 'GET', '/v2/system/services/analyzer/bad%20host')).status).toBe(400);
  });

  it('refreshes the heartbeat, and a heartbeat writes back records removed meanwhile', async () => {
    const { db, hostId, registry } = server.running.services;
    const before = (await raw(server.url, 'GET', `/v2/system/services/catalog/${hostId}`)).json[0].service_detail.detail.last_heartbeat_at;
    await db('system_services').where({ host_id: hostId, service_name: 'catalog' }).delete();
    expect((await raw(server.url, 'GET', `/v2/system/services/catalog/${hostId}`)).status).toBe(404);
    const beat = new Promise((resolve) => registry.once('heartbeat', resolve));
    await registry.beat();
    await beat;
    const after = await raw(server.url, 'GET', `/v2/system/services/catalog/${hostId}`);
    expect(after.json[0].status).toBe(true);
    expect(Date.parse(after.json[0].service_detail.detail.last_heartbeat_at)).toBeGreaterThanOrEqual(Date.parse(before));
  });

  it('ages out a registration without a heartbeat for a day at the next heartbeat of a live node', async () => {
    const { db, registry } = server.running.services;
    await registerServices(db, otherNode('node-old'), ['analyzer'], new Date(Date.now() - 25 * 3600_000));
    await registerServices(db, otherNode('node-recent'), ['analyzer'], new Date(Date.now() - 23 * 3600_000));
    await registry.beat();
    expect((await raw(server.url, 'GET', '/v2/system/services/analyzer/node-old')).status).toBe(404);
    const recent = await raw(server.url, 'GET', '/v2/system/services/analyzer/node-recent');
    expect(recent.json[0]).toMatchObject({ status: false, service_detail: { detail: { vigil_roles: ['api', 'analyzer'] } } });
    expect((await raw(server.url, 'DELETE', '/v2/system/services/analyzer/node-recent')).status).toBe(200);
  });

  it('marks a stopped node stopped at once, and a restart of it takes its records back', async () => {
    const db = server.running.services.db;
    const probes = { busy: () => false, loggingLevel: () => 'warn' };
    const node = otherNode('node-c', 5);
    const first = new ServiceRegistry(db, pino({ level: 'silent' }), ['analyzer', 'notifications'], probes);
    await first.start(node);
    expect((await raw(server.url, 'GET', '/v2/system/services/analyzer/node-c')).json[0]).toMatchObject({ status: true });
    await first.stop();
    const stopped = (await raw(server.url, 'GET', '/v2/system/services/analyzer/node-c')).json[0];
    expect(stopped.status).toBe(false);
    expect(stopped.status_message).toMatch(/^stopped at /);
    expect(stopped.service_detail.detail.stopped_at).toBeDefined();

    // The restarted process on that host no longer delivers notifications: its old record of that role goes.
    const second = new ServiceRegistry(db, pino({ level: 'silent' }), ['analyzer'], probes);
    await second.start({ ...node, instanceId: 'node-c:2:test' });
    expect((await raw(server.url, 'GET', '/v2/system/services/analyzer/node-c')).json[0]).toMatchObject({ status: true });
    expect((await raw(server.url, 'GET', '/v2/system/services/notifications/node-c')).status).toBe(404);
    await second.stop();
    expect((await raw(server.url, 'DELETE', '/v2/system/services/analyzer/node-c')).status).toBe(200);
  });

  it('is for administrators only', async () => {
    const account = await createAccount(server.url);
    const user = await createUser(server.url, account, { roles: ['full-control'] });
    const hostId = server.running.services.hostId;
    for (const [method, path] of [
      ['GET', '/v2/system/services'],
      ['GET', '/v2/system/services/analyzer'],
      ['GET', `/v2/system/services/analyzer/${hostId}`],
      ['DELETE', `/v2/system/services/analyzer/${hostId}`],
    ] as const) {
      const res = await raw(server.url, method, path, { auth: user.auth });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error_type).toBe('forbidden');
    }
    // GET /system stays open to every authenticated user, as upstream.
    expect((await raw(server.url, 'GET', '/v2/system', { auth: user.auth })).status).toBe(200);
  });
});

describe('GET /system/deployment-history', () => {
  it('records the first start of a new database, with the migration that ran, in an {items} list', async () => {
    const res = await raw(server.url, 'GET', '/v2/system/deployment-history');
    expect(res.status).toBe(200);
    expect(res.json.items).toHaveLength(1);
    const [first] = res.json.items;
    expect(first).toMatchObject({ to_system_version: packageVersion, to_database_version: latestSchemaVersion(), outcome: 'success', upgrade_id: '1' });
    expect(first.db_upgrade_duration).toBeGreaterThan(0);
    // A new database has no earlier version of either kind.
    expect(first.from_system_version).toBeUndefined();
    expect(first.from_database_version).toBeUndefined();
  });

  it('adds nothing for a restart of the same release, and one record per upgrade', async () => {
    const db = server.running.services.db;
    await migrateAndRecord(db, packageVersion); // what a restart does
    expect((await raw(server.url, 'GET', '/v2/system/deployment-history')).json.items).toHaveLength(1);

    const upgrade = { version: '99.0.0', databaseVersion: latestSchemaVersion(), previousDatabaseVersion: latestSchemaVersion(), outcome: 'success' as const, migration: null, at: new Date(Date.now() + 1000) };
    expect(await recordDeployment(db, upgrade)).not.toBeNull();
    expect(await recordDeployment(db, upgrade)).toBeNull(); // a second node starting the same release
    const failed = await recordDeployment(db, { ...upgrade, version: '99.1.0', databaseVersion: '099_next', outcome: 'failure', at: new Date(Date.now() + 2000) });
    expect(failed).toMatchObject({ outcome: 'failure', from_system_version: '99.0.0', to_database_version: '099_next' });

    const items = (await raw(server.url, 'GET', '/v2/system/deployment-history')).json.items;
    expect(items.map((i: { to_system_version: string; outcome: string }) => `${i.to_system_version}:${i.outcome}`)).toEqual([
      `${packageVersion}:success`,
      '99.0.0:success',
      '99.1.0:failure',
    ]);
    expect(items[1]).toMatchObject({ from_system_version: packageVersion, from_database_version: latestSchemaVersion(), to_database_version: latestSchemaVersion() });
    expect(items[1].upgrade_id).toBeUndefined();
    expect(items[1].db_upgrade_duration).toBeUndefined();
  });

  it('is open to any authenticated user', async () => {
    const account = await createAccount(server.url);
    const user = await createUser(server.url, account);
    expect((await raw(server.url, 'GET', '/v2/system/deployment-history', { auth: user.auth })).status).toBe(200);
    expect((await raw(server.url, 'GET', '/v2/system/deployment-history', { auth: null })).status).toBe(401);
  });
});

describe('GET /system/statistics', () => {
  type Stat = { name: string; description: string; value_type: string; value: number };
  const statistics = async (): Promise<Record<string, Stat>> => {
    const res = await raw(server.url, 'GET', '/v2/system/statistics');
    expect(res.status).toBe(200);
    return Object.fromEntries(res.json.items.map((s: Stat) => [s.name, s]));
  };

  /** An image imported from a one-package syft SBOM, analyzed. */
  async function importImage(tag: string): Promise<string> {
    const { data } = await client(server.url).POST('/imports/images');
    const uuid = data!.uuid;
    const sbom = {
      artifacts: [{ id: 'p1', name: 'zlib', version: '1.3-r2', type: 'apk', foundBy: 'apk-db-cataloger', locations: [{ path: '/lib/apk/db/installed' }], licenses: [], language: '', cpes: [], purl: 'pkg:apk/alpine/zlib@1.3-r2', metadataType: 'ApkMetadata', metadata: {} }],
      artifactRelationships: [],
      source: { type: 'image', target: {} },
      distro: { name: 'alpine', version: '3.19.1', idLike: [] },
      descriptor: { name: 'syft', version: '0.98.0' },
      schema: { version: '16.0.0', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.0.json' },
    };
    const packages = (await json(server.url, 'POST', `/v2/imports/images/${uuid}/packages`, sbom)).json.digest;
    const digest = `sha256:${randomUUID().replace(/-/g, '').padEnd(64, '0')}`;
    const added = await json(server.url, 'POST', '/v2/images', { source: { import: { operation_uuid: uuid, digest, tags: [tag], contents: { packages } } } });
    expect(added.status, added.text).toBe(200);
    expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
    return digest;
  }

  it('counts what the database holds, over every account, under upstream names in an {items} list', async () => {
    const before = await statistics();
    for (const s of Object.values(before)) {
      expect(s.description.length).toBeGreaterThan(3);
      expect(['gauge', 'counter']).toContain(s.value_type);
    }
    expect(before.account_inventory.value).toBeGreaterThanOrEqual(1);

    const account = await createAccount(server.url);
    await createUser(server.url, account);
    await createUser(server.url, account);
    await importImage('registry.example.com/stats/app:1');
    const ns = randomUUID();
    const pod = randomUUID();
    const report = await json(server.url, 'POST', '/v2/kubernetes-inventory', {
      cluster_name: 'stats',
      timestamp: new Date().toISOString(),
      namespaces: [{ uid: ns, name: 'web' }],
      pods: [{ uid: pod, name: 'web-1', namespace_uid: ns }],
      containers: [
        { id: 'containerd://a', name: 'app', image_tag: 'registry.example.com/stats/app:1', image_digest: `sha256:${'a'.repeat(64)}`, pod_uid: pod },
        { id: 'containerd://b', name: 'proxy', image_tag: 'nginx:1.25', pod_uid: pod },
      ],
    });
    expect(report.status, report.text).toBe(201);

    const after = await statistics();
    const delta = (name: string) => after[name].value - before[name].value;
    expect(delta('account_inventory')).toBe(1);
    expect(delta('user_inventory')).toBe(2);
    expect(delta('image_inventory')).toBe(1);
    expect(delta('image_analysis')).toBe(1);
    expect(delta('sbom_imported_inventory')).toBe(1);
    expect(delta('sbom_imported_analysis')).toBe(1);
    expect(delta('kubernetes_namespace_inventory')).toBe(1);
    expect(delta('kubernetes_pod_inventory')).toBe(1);
    expect(delta('kubernetes_container_inventory')).toBe(2);
    expect(delta('kubernetes_image_inventory')).toBe(2);
    expect(delta('kubernetes_node_inventory')).toBe(0);
    expect(after.ecs_container_inventory.value).toBe(0);
    const db = server.running.services.db;
    const [{ n: evaluations }] = await db('policy_evaluations').count({ n: '*' });
    expect(after.policy_evaluation.value).toBe(Number(evaluations));
    const [{ n: policies }] = await db('policies').count({ n: '*' });
    expect(after.policy_inventory.value).toBe(Number(policies));
    expect(after.image_analysis.value_type).toBe('counter');
    expect(after.image_inventory.value_type).toBe('gauge');

    // Inventory rows past the TTL that the sweep has not deleted yet are not counted.
    await db('k8s_containers').where({ account_name: 'admin' }).update({ last_seen: '2000-01-01T00:00:00.000Z' });
    expect((await statistics()).kubernetes_container_inventory.value).toBe(after.kubernetes_container_inventory.value - 2);
  });

  it('is for administrators only', async () => {
    const account = await createAccount(server.url);
    const user = await createUser(server.url, account, { roles: ['full-control'] });
    const res = await raw(server.url, 'GET', '/v2/system/statistics', { auth: user.auth });
    expect(res.status).toBe(403);
    expect(res.json.error_type).toBe('forbidden');
  });
});

describe('POST /system/webhooks/{webhook_type}/test', () => {
  let receiver: HttpReceiver;
  let account: string;
  const EP = '/v2/notifications/endpoints/webhook/configurations';
  const SA = { 'x-service-account': '' };
  beforeAll(async () => {
    receiver = await startHttpReceiver({ responder: (r) => (r.path === '/down' ? { status: 500, body: 'receiver broken' } : { status: 200, body: 'ok' }) });
    account = await createAccount(server.url, 'hooks');
    SA['x-service-account'] = account;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const post = (path: string) => raw(server.url, 'POST', path, { headers: SA });
  const arrivals = (path: string) => receiver.requests.filter((r) => r.path === path);
  async function webhook(path: string, eventType: string | null): Promise<string> {
    const created = await json(server.url, 'POST', EP, { url: `${receiver.url}${path}`, signing_secret: 'test-signing-secret' }, undefined, SA);
    expect(created.status, created.text).toBe(200);
    if (eventType) {
      const selector = await json(server.url, 'POST', `${EP}/${created.json.uuid}/selectors`, { scope: 'account', event: { level: '*', resource_type: '*', type: eventType } }, undefined, SA);
      expect(selector.status, selector.text).toBe(200);
    }
    return created.json.uuid;
  }

  it('answers 404 while the account has no webhook of the type', async () => {
    const res = await post('/v2/system/webhooks/general/test');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error_type: 'not_found', detail: { webhook_type: 'general' } });
  });

  it('sends the sample to the webhooks whose selectors take that type of notification, through the normal delivery', async () => {
    const tags = await webhook('/tags', 'user.checks.tag.update');
    await webhook('/analyses', 'user.image.analysis.completed');

    const res = await post('/v2/system/webhooks/tag_update/test?notification_type=policy_eval');
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('');
    expect(arrivals('/tags')).toHaveLength(1);
    expect(arrivals('/analyses')).toHaveLength(0);
    const [sent] = arrivals('/tags');
    expect(sent.json.data).toMatchObject({ notification_type: 'policy_eval', notification_payload: { subscription_type: 'policy_eval' } });
    expect(sent.json.account_name).toBe(account);
    expect(sent.headers['x-vigil-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // As a test of the stored configuration: its operational status follows.
    expect((await raw(server.url, 'GET', `${EP}/${tags}/status`, { headers: SA })).json.status).toBe('healthy');

    expect((await post('/v2/system/webhooks/analysis_update/test')).status).toBe(200);
    expect(arrivals('/analyses').map((r) => r.json.data.notification_type)).toEqual(['tag_update']);

    // No selector takes vulnerability updates.
    const none = await post('/v2/system/webhooks/vuln_update/test');
    expect(none.status).toBe(404);
    expect(none.json.message).toContain('user.checks.tag.vulnerabilities.update');

    // general: every webhook of the account.
    expect((await post('/v2/system/webhooks/general/test?notification_type=vuln_update')).status).toBe(200);
    expect(arrivals('/tags')).toHaveLength(2);
    expect(arrivals('/analyses')).toHaveLength(2);
    expect(arrivals('/analyses')[1].json.data.notification_type).toBe('vuln_update');
  });

  it('answers 502 with every result when a receiver does not accept it', async () => {
    const down = await webhook('/down', null);
    const res = await post('/v2/system/webhooks/general/test');
    expect(res.status).toBe(502);
    expect(res.json.error_type).toBe('notification_delivery_failed');
    const results = res.json.detail.results as { configuration_uuid: string; status: string; response: string }[];
    expect(results).toHaveLength(3);
    expect(results.find((r) => r.configuration_uuid === down)).toMatchObject({ status: 'failure', response: expect.stringContaining('500') });
    expect(results.filter((r) => r.status === 'success')).toHaveLength(2);
    expect((await raw(server.url, 'GET', `${EP}/${down}/status`, { headers: SA })).json.status).toBe('unhealthy');
  });

  it('checks the types and the caller', async () => {
    expect((await post('/v2/system/webhooks/error_event/test')).status).toBe(400);
    expect((await post('/v2/system/webhooks/general/test?notification_type=repo_update')).status).toBe(400);
    const reader = await createUser(server.url, account, { roles: ['read-only'] });
    const denied = await raw(server.url, 'POST', '/v2/system/webhooks/general/test', { auth: reader.auth });
    expect(denied.status).toBe(403);
    const writer = await createUser(server.url, account, { roles: ['read-write'] });
    expect((await raw(server.url, 'POST', '/v2/system/webhooks/tag_update/test', { auth: writer.auth })).status).toBe(200);
  });
});

describe('POST /system/logging', () => {
  it("changes the running node's logging level for every service it runs, and answers each with it", async () => {
    const stream = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    });
    const node = await startTestServer({ VIGIL_LOG_LEVEL: 'warn' }, { logs: stream });
    try {
      const requestLines = () => lines.filter((l) => l.msg === 'request completed' && (l.req as { url?: string })?.url === '/v2/system/error-codes').length;
      await raw(node.url, 'GET', '/v2/system/error-codes');
      expect(requestLines()).toBe(0); // request lines are info

      const res = await json(node.url, 'POST', '/v2/system/logging', { service_name: 'apiext', logging_level: 'debug' });
      expect(res.status, res.text).toBe(200);
      const names = node.running.services.registry.names;
      expect(res.json).toEqual(names.map((service_name) => ({ service_name, logging_level: 'DEBUG' })));
      expect(node.running.services.log.level).toBe('debug');
      // Loggers made before the change (per request, per component) follow it.
      await raw(node.url, 'GET', '/v2/system/error-codes');
      expect(requestLines()).toBe(1);
      expect(lines.some((l) => l.msg === 'logging level set to debug (was warn)' && l.changed_by === 'admin')).toBe(true);
      // Published with the registrations at once.
      const analyzer = await raw(node.url, 'GET', `/v2/system/services/analyzer/${node.running.services.hostId}`);
      expect(analyzer.json[0].service_detail.detail.logging_level).toBe('debug');

      // Upstream's names, in any case: WARNING is warn, and the change is logged although it is below warn.
      const warning = await json(node.url, 'POST', '/v2/system/logging', { service_name: 'analyzer', logging_level: 'Warning' });
      expect(warning.json.every((l: { logging_level: string }) => l.logging_level === 'WARN')).toBe(true);
      expect(lines.some((l) => l.msg === 'logging level set to warn (was debug)' && l.service_name === 'analyzer')).toBe(true);
    } finally {
      await node.close();
    }
  });

  it('refuses unknown services and levels, services this node does not run, and non-administrators', async () => {
    const post = (body: unknown, auth?: Parameters<typeof json>[4]) => json(server.url, 'POST', '/v2/system/logging', body, auth);
    const badLevel = await post({ service_name: 'apiext', logging_level: 'loud' });
    expect(badLevel.status).toBe(400);
    expect(badLevel.json.detail.errors[0].location).toBe('body.logging_level');
    const badName = await post({ service_name: 'simple-queue', logging_level: 'info' });
    expect(badName.status).toBe(400);
    expect(badName.json.detail.errors[0].location).toBe('body.service_name');
    expect((await post({ service_name: 'apiext' })).status).toBe(400);
    expect(server.running.services.log.level).toBe('silent');

    const quiet = await startTestServer({ VIGIL_NOTIFICATIONS_DISPATCHER: 'false' });
    try {
      const res = await json(quiet.url, 'POST', '/v2/system/logging', { service_name: 'notifications', logging_level: 'debug' });
      expect(res.status).toBe(404);
      expect(res.json.detail.service_name).toBe('notifications');
      expect(quiet.running.services.registry.names).not.toContain('notifications');
    } finally {
      await quiet.close();
    }

    const account = await createAccount(server.url);
    const user = await createUser(server.url, account, { roles: ['full-control'] });
    expect((await post({ service_name: 'apiext', logging_level: 'debug' }, user.auth)).status).toBe(403);
  });
});

describe('GET /system/resource-limits', () => {
  it('lists the limits the running configuration enforces, in an {items} list', async () => {
    const node = await startTestServer({ VIGIL_BODY_LIMIT: '64kb', VIGIL_ANALYSIS_CONCURRENCY: '3', VIGIL_FEED_MAX_RECORD_BYTES: '2mb' });
    try {
      const res = await raw(node.url, 'GET', '/v2/system/resource-limits');
      expect(res.status).toBe(200);
      const limits = Object.fromEntries(res.json.items.map((l: { name: string; limit_value: number }) => [l.name, l.limit_value]));
      expect(limits).toMatchObject({
        request_body_bytes: 64 * 1024,
        request_body_json_depth: 256,
        image_analyses_per_node: 3,
        feed_record_bytes: 2 * 1024 ** 2,
        image_archive_upload_bytes: 8 * 1024 ** 3,
        inventory_report_bytes: 64 * 1024 ** 2,
        graphql_query_depth: 12,
        graphql_query_cost: 1000,
      });
      for (const item of res.json.items) expect(Object.keys(item).sort()).toEqual(['limit_value', 'name']);
      // The listed body limit is the one enforced.
      const body = (size: number) => JSON.stringify({ name: 'limits', email: `${'a'.repeat(size - 40)}@example.com` }).padEnd(size, ' ');
      const over = await raw(node.url, 'POST', '/v2/accounts', { headers: { 'content-type': 'application/json' }, body: body(limits.request_body_bytes + 1) });
      expect(over.status).toBe(413);
      const under = await raw(node.url, 'POST', '/v2/accounts', { headers: { 'content-type': 'application/json' }, body: body(limits.request_body_bytes) });
      expect(under.status).toBe(400); // read and validated (the address is too long), not refused for its size
    } finally {
      await node.close();
    }
  });

  it('is for administrators only', async () => {
    const account = await createAccount(server.url);
    const user = await createUser(server.url, account, { roles: ['full-control'] });
    expect((await raw(server.url, 'GET', '/v2/system/resource-limits', { auth: user.auth })).status).toBe(403);
  });
});
