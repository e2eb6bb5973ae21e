/**
 * Runtime inventory: Kubernetes and ECS reports stored as per-cluster snapshots and read back through every
 * listing (with paging), the stale-report rule, report consistency checks, deletes, account isolation, expiry
 * by TTL, and the analysis of images seen running (pushed to a real local registry) — queued by default,
 * bounded per report, and not at all with VIGIL_INVENTORY_ANALYZE=false.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findImage } from '../../src/images/store.js';
import { ANALYZE_RUNNING_IMAGES_JOB } from '../../src/inventory/analysis-queue.js';
import { expireAllInventory, expireInventory, expiryCutoff, INVENTORY_EXPIRY_JOB, inventoryExpiryEveryMs } from '../../src/inventory/expiry.js';
import type { Services } from '../../src/service.js';
import type { JobFinished } from '../../src/jobs/worker.js';
import { waitForAnalysis } from '../support/analysis.js';
import { ISO_UTC, expectBodyRejections, expectError, expectValidationError } from '../support/fixtures.js';
import { adminAuth, json, raw, type Auth, type RawResponse } from '../support/http.js';
import { buildImage, buildIndex, type BuiltImage } from '../support/image-builder.js';
import { createAccount, createUser, type TestUser } from '../support/rbac-fixtures.js';
import { alpineImage } from '../support/registry-fixtures.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

const SA = 'x-service-account';
const D1 = `sha256:${'a1'.repeat(32)}`;
const D2 = `sha256:${'b2'.repeat(32)}`;

/** An ISO timestamp `minutes` ago, as the API writes them. */
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

let server: TestServer;
let registry: TestRegistry;
let url: string;

beforeAll(async () => {
  // Analysis of running images is off here (the reports name registries that do not exist); the
  // "analysis of images seen running" block starts its own server with it on.
  // The report body limit is lowered to the general one so the shared body checks see their 413.
  [server, registry] = await Promise.all([startTestServer({ VIGIL_INVENTORY_ANALYZE: 'false', VIGIL_INVENTORY_MAX_REPORT_BYTES: '1mb' }), startRegistry()]);
  url = server.url;
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
});

/** Requests as the administrator acting on `account` (x-service-account), or as `auth` in its own account. */
function as(account: string | null, auth: Auth = adminAuth, base = () => url) {
  const headers: Record<string, string> = account ? { [SA]: account } : {};
  return {
    post: (path: string, body: unknown) => json(base(), 'POST', `/v2${path}`, body, auth, headers),
    get: (path: string) => raw(base(), 'GET', `/v2${path}`, { auth, headers }),
    del: (path: string) => raw(base(), 'DELETE', `/v2${path}`, { auth, headers }),
  };
}

interface K8sCluster {
  name: string;
  ns: { web: string; jobs: string };
  node: string;
  pods: { web1: string; web2: string; cron: string };
}

function k8sCluster(name: string): K8sCluster {
  return {
    name,
    ns: { web: randomUUID(), jobs: randomUUID() },
    node: randomUUID(),
    pods: { web1: randomUUID(), web2: randomUUID(), cron: randomUUID() },
  };
}

/** Two namespaces, one node, three pods, five containers running three images (one without a digest). */
function k8sReport(c: K8sCluster, timestamp: string) {
  return {
    cluster_name: c.name,
    timestamp,
    namespaces: [
      { uid: c.ns.web, name: 'web', labels: { team: 'web' }, annotations: { 'example.com/owner': 'front' } },
      { uid: c.ns.jobs, name: 'jobs' },
    ],
    nodes: [{ uid: c.node, name: 'node-1', arch: 'amd64', kubelet_version: 'v1.30.2', labels: { 'kubernetes.io/os': 'linux' } }],
    pods: [
      { uid: c.pods.web1, name: 'web-1', namespace_uid: c.ns.web, node_uid: c.node, labels: { app: 'web' } },
      { uid: c.pods.web2, name: 'web-2', namespace_uid: c.ns.web, node_uid: c.node, labels: { app: 'web' } },
      { uid: c.pods.cron, name: 'cron-1', namespace_uid: c.ns.jobs },
    ],
    containers: [
      { id: 'containerd://web1-app', name: 'app', image_tag: 'registry.example.com/team/web:1.0', image_digest: D1, pod_uid: c.pods.web1 },
      { id: 'containerd://web1-proxy', name: 'proxy', image_tag: 'nginx:1.25', pod_uid: c.pods.web1 },
      { id: 'containerd://web2-app', name: 'app', image_tag: 'registry.example.com/team/web:1.0', image_digest: D1, pod_uid: c.pods.web2 },
      { id: 'containerd://web2-proxy', name: 'proxy', image_tag: 'nginx:1.25', pod_uid: c.pods.web2 },
      { id: 'containerd://cron', name: 'job', image_tag: 'registry.example.com/team/cron:2', image_digest: D2, pod_uid: c.pods.cron },
    ],
  };
}

type Row = Record<string, any>;

/** Every item of a paged list, page by page (`page_size` small to exercise paging). */
async function allPages(get: (path: string) => Promise<RawResponse>, path: string, pageSize: number): Promise<Row[]> {
  const items: Row[] = [];
  for (let page = 1; ; page++) {
    const res = await get(`${path}?page=${page}&page_size=${pageSize}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ page, page_size: pageSize });
    items.push(...res.json.items);
    expect(res.json.total_count).toBeGreaterThanOrEqual(items.length);
    if (!res.json.next_page) {
      expect(items).toHaveLength(res.json.total_count);
      return items;
    }
    expect(res.json.items).toHaveLength(pageSize);
  }
}

const byKeys =
  (...keys: string[]) =>
  (a: Row, b: Row) => {
    for (const k of keys) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
  };

const times = (seen: string) => ({ created_at: expect.stringMatching(ISO_UTC), last_updated: expect.stringMatching(ISO_UTC), last_seen: seen });

describe.skipIf(missingTools('docker-registry'))('Kubernetes inventory', () => {
  let account: string;
  let a: ReturnType<typeof as>;
  const c = k8sCluster('prod-eu');
  const T1 = ago(60);
  const T2 = ago(30);
  let firstNamespaces: Row[];
  let firstItems: Row[];

  beforeAll(async () => {
    account = await createAccount(url, 'k8s');
    a = as(account);
  });

  it('records a report (201, no body) and lists every namespace, node, pod and container back', async () => {
    const res = await a.post('/kubernetes-inventory', k8sReport(c, T1));
    expect(res.status, res.text).toBe(201);
    expect(res.text).toBe('');

    const namespaces = await a.get('/kubernetes-namespaces?page=1');
    expect(namespaces.status, namespaces.text).toBe(200);
    expect(namespaces.json).toEqual({
      page: 1,
      page_size: 1000,
      next_page: false,
      total_count: 2,
      items: [
        { id: c.ns.jobs, name: 'jobs', cluster_name: c.name, account_name: account, labels: {}, annotations: {}, ...times(T1) },
        { id: c.ns.web, name: 'web', cluster_name: c.name, account_name: account, labels: { team: 'web' }, annotations: { 'example.com/owner': 'front' }, ...times(T1) },
      ],
    });
    firstNamespaces = namespaces.json.items;

    const nodes = await a.get('/kubernetes-nodes?page=1');
    expect(nodes.json).toEqual({
      page: 1,
      page_size: 1000,
      next_page: false,
      total_count: 1,
      items: [
        {
          id: c.node,
          name: 'node-1',
          cluster_name: c.name,
          account_name: account,
          labels: { 'kubernetes.io/os': 'linux' },
          annotations: {},
          arch: 'amd64',
          kubelet_version: 'v1.30.2',
          ...times(T1),
        },
      ],
    });

    const pods = await a.get('/kubernetes-pods?page=1&page_size=10');
    const pod = (uid: string, name: string, ns: 'web' | 'jobs', extra: Row) => ({
      id: uid,
      name,
      cluster_name: c.name,
      account_name: account,
      context: `${c.name}/${ns}`,
      namespace_id: c.ns[ns],
      annotations: {},
      ...extra,
      ...times(T1),
    });
    expect(pods.json).toEqual({
      page: 1,
      page_size: 10,
      next_page: false,
      total_count: 3,
      items: [
        pod(c.pods.cron, 'cron-1', 'jobs', { labels: {} }),
        pod(c.pods.web1, 'web-1', 'web', { node_id: c.node, labels: { app: 'web' } }),
        pod(c.pods.web2, 'web-2', 'web', { node_id: c.node, labels: { app: 'web' } }),
      ],
    });

    const containers = await a.get('/kubernetes-containers?page=1');
    const expected = k8sReport(c, T1)
      .containers.map((k) => ({
        id: k.id,
        name: k.name,
        pod_id: k.pod_uid,
        account_name: account,
        cluster_name: c.name,
        context: `${c.name}/${k.pod_uid === c.pods.cron ? 'jobs' : 'web'}`,
        image_tag: k.image_tag,
        image_digest: k.image_digest ?? '',
        ...times(T1),
      }))
      .sort(byKeys('context', 'pod_id', 'name', 'id'));
    expect(containers.json).toEqual({ page: 1, page_size: 1000, next_page: false, total_count: 5, items: expected });
  });

  it('gets namespaces, nodes and pods by uid (case-insensitively); unknown uids are 404, malformed ones 400', async () => {
    const ns = await a.get(`/kubernetes-namespaces/${c.ns.web}`);
    expect(ns.status, ns.text).toBe(200);
    expect(ns.json).toEqual(firstNamespaces.find((n) => n.id === c.ns.web));
    expect((await a.get(`/kubernetes-namespaces/${c.ns.web.toUpperCase()}`)).json).toEqual(ns.json);

    const node = await a.get(`/kubernetes-nodes/${c.node}`);
    expect(node.status, node.text).toBe(200);
    expect(node.json).toMatchObject({ id: c.node, name: 'node-1', arch: 'amd64' });

    const pod = await a.get(`/kubernetes-pods/${c.pods.web2}`);
    expect(pod.status, pod.text).toBe(200);
    expect(pod.json).toMatchObject({ id: c.pods.web2, name: 'web-2', namespace_id: c.ns.web, node_id: c.node, context: `${c.name}/web` });

    for (const kind of ['namespaces', 'nodes', 'pods']) {
      const missing = randomUUID();
      const res = await a.get(`/kubernetes-${kind}/${missing}`);
      expectError(res, 404, 'not_found');
      expect(res.json.message).toContain(missing);
    }
    expectValidationError(await a.get('/kubernetes-namespaces/not-a-uid'), ['path.namespace_id']);
    expectValidationError(await a.get('/kubernetes-nodes/1234'), ['path.node_id']);
    expectValidationError(await a.get(`/kubernetes-pods/${c.pods.web1}x`), ['path.pod_id']);
  });

  it('records each image once per context, last seen at the report timestamp', async () => {
    const res = await a.get('/inventories');
    expect(res.status, res.text).toBe(200);
    const item = (ns: string, image_tag: string, image_digest: string) => ({
      inventory_type: 'kubernetes',
      context: `${c.name}/${ns}`,
      image_tag,
      image_digest,
      ...times(T1),
    });
    expect(res.json).toEqual({
      items: [
        item('jobs', 'registry.example.com/team/cron:2', D2),
        item('web', 'nginx:1.25', ''),
        item('web', 'registry.example.com/team/web:1.0', D1),
      ],
    });
    firstItems = res.json.items;
  });

  it('pages every list with page and page_size; a page past the end is empty', async () => {
    const full = (await a.get('/kubernetes-containers?page=1')).json.items;
    expect(await allPages(a.get, '/kubernetes-containers', 2)).toEqual(full);
    expect(await allPages(a.get, '/kubernetes-pods', 1)).toEqual((await a.get('/kubernetes-pods?page=1')).json.items);
    expect(await allPages(a.get, '/kubernetes-namespaces', 1)).toEqual(firstNamespaces);
    const third = await a.get('/kubernetes-containers?page=3&page_size=2');
    expect(third.json).toMatchObject({ page: 3, page_size: 2, next_page: false, total_count: 5 });
    expect(third.json.items).toHaveLength(1);
    const past = await a.get('/kubernetes-containers?page=4&page_size=2');
    expect(past.json).toEqual({ items: [], page: 4, page_size: 2, next_page: false, total_count: 5 });
  });

  it('requires page (from 1) and bounds page_size (1 to 1000) on every list', async () => {
    for (const path of ['/kubernetes-namespaces', '/kubernetes-nodes', '/kubernetes-pods', '/kubernetes-containers', '/ecs-containers', '/ecs-services', '/ecs-tasks']) {
      expectValidationError(await a.get(path), ['query.page']);
      expectValidationError(await a.get(`${path}?page=0`), ['query.page']);
      expectValidationError(await a.get(`${path}?page=x`), ['query.page']);
      expectValidationError(await a.get(`${path}?page=1&page_size=0`), ['query.page_size']);
      expectValidationError(await a.get(`${path}?page=1&page_size=1001`), ['query.page_size']);
    }
  });

  it('a newer report replaces the cluster snapshot; surviving objects and items keep created_at', async () => {
    const second = k8sReport(c, T2);
    second.namespaces = second.namespaces.filter((n) => n.name !== 'jobs');
    second.pods = second.pods.filter((p) => p.uid !== c.pods.cron);
    second.containers = [
      ...second.containers.filter((k) => k.pod_uid !== c.pods.cron),
      { id: 'containerd://web2-sidecar', name: 'sidecar', image_tag: 'busybox:1.36', pod_uid: c.pods.web2 },
    ];
    const res = await a.post('/kubernetes-inventory', second);
    expect(res.status, res.text).toBe(201);

    const namespaces = (await a.get('/kubernetes-namespaces?page=1')).json.items;
    const firstWeb = firstNamespaces.find((n) => n.id === c.ns.web)!;
    expect(namespaces).toEqual([{ ...firstWeb, last_updated: expect.stringMatching(ISO_UTC), last_seen: T2 }]);
    expect(namespaces[0].created_at).toBe(firstWeb.created_at);
    expect(namespaces[0].last_updated >= firstWeb.last_updated).toBe(true);
    expect((await a.get('/kubernetes-pods?page=1')).json.items.map((p: Row) => p.name)).toEqual(['web-1', 'web-2']);
    const containers = (await a.get('/kubernetes-containers?page=1')).json;
    expect(containers.total_count).toBe(5);
    expect(containers.items.map((k: Row) => k.id).sort()).toEqual(
      ['containerd://web1-app', 'containerd://web1-proxy', 'containerd://web2-app', 'containerd://web2-proxy', 'containerd://web2-sidecar'].sort(),
    );
    expect(containers.items.every((k: Row) => k.last_seen === T2)).toBe(true);
    expectError(await a.get(`/kubernetes-pods/${c.pods.cron}`), 404, 'not_found');

    // Items are not removed by a snapshot: the cron image was seen at T1 and stays until the TTL expires it.
    const items = (await a.get('/inventories')).json.items as Row[];
    const find = (tag: string) => items.find((i) => i.image_tag === tag)!;
    expect(items).toHaveLength(4);
    expect(find('registry.example.com/team/cron:2')).toEqual(firstItems[0]);
    const nginx = find('nginx:1.25');
    expect(nginx).toMatchObject({ context: `${c.name}/web`, last_seen: T2, created_at: firstItems[1].created_at });
    expect(find('busybox:1.36')).toMatchObject({ context: `${c.name}/web`, image_digest: '', ...times(T2) });
  });

  it('refuses a report older than the stored one with 409 and changes nothing; the same timestamp applies again', async () => {
    const before = (await a.get('/kubernetes-containers?page=1')).json;
    const stale = await a.post('/kubernetes-inventory', k8sReport(c, T1));
    expectError(stale, 409, 'conflict');
    expect(stale.json.message).toContain(c.name);
    expect(stale.json.detail).toMatchObject({ cluster: c.name, timestamp: T1, latest_timestamp: T2 });
    expect((await a.get('/kubernetes-containers?page=1')).json).toEqual(before);
    expect((await a.get('/kubernetes-namespaces?page=1')).json.total_count).toBe(1);

    // A retry of the latest report (same timestamp) is accepted: it carries the same snapshot.
    const retry = k8sReport(c, T2);
    retry.namespaces = retry.namespaces.filter((n) => n.name !== 'jobs');
    retry.pods = retry.pods.filter((p) => p.uid !== c.pods.cron);
    retry.containers = retry.containers.filter((k) => k.pod_uid !== c.pods.cron);
    expect((await a.post('/kubernetes-inventory', retry)).status).toBe(201);
    expect((await a.get('/kubernetes-containers?page=1')).json.total_count).toBe(4);
  });

  it('stores timestamps with offsets as UTC, and refuses one more than 15 minutes ahead of the server', async () => {
    const other = k8sCluster('offsets');
    const at = new Date(Date.now() - 20 * 60_000);
    const withOffset = new Date(at.getTime() + 2 * 3600_000).toISOString().replace(/\.(\d{3})Z$/, '.$1+02:00');
    expect((await a.post('/kubernetes-inventory', k8sReport(other, withOffset))).status).toBe(201);
    const ns = await a.get(`/kubernetes-namespaces/${other.ns.web}`);
    expect(ns.json.last_seen).toBe(at.toISOString());

    const future = k8sCluster('future');
    const res = await a.post('/kubernetes-inventory', k8sReport(future, new Date(Date.now() + 3600_000).toISOString()));
    expectValidationError(res, ['body.timestamp']);
    expect(res.json.message).toMatch(/in the future/);
    expectError(await a.get(`/kubernetes-namespaces/${future.ns.web}`), 404, 'not_found');
    expect((await a.del('/kubernetes-namespaces?cluster_name=offsets')).status).toBe(204);
  });

  it('rejects reports that break the schema, naming every violation', async () => {
    const valid = k8sReport(k8sCluster('invalid'), ago(5));
    expectValidationError(await a.post('/kubernetes-inventory', {}), ['body.cluster_name', 'body.timestamp']);
    // A property the schema does not declare is ignored (upstream's schema accepts it), never named as a violation.
    expectValidationError(await a.post('/kubernetes-inventory', { ...valid, extra: true, cluster_name: '' }), ['body.cluster_name']);
    expectValidationError(await a.post('/kubernetes-inventory', { ...valid, cluster_name: '' }), ['body.cluster_name']);
    expectValidationError(await a.post('/kubernetes-inventory', { ...valid, cluster_name: 'has space' }), ['body.cluster_name']);
    expectValidationError(await a.post('/kubernetes-inventory', { ...valid, cluster_name: 'x'.repeat(257) }), ['body.cluster_name']);
    for (const timestamp of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-01', 1700000000])
      expectValidationError(await a.post('/kubernetes-inventory', { ...valid, timestamp }), ['body.timestamp']);
    expectValidationError(
      await a.post('/kubernetes-inventory', {
        ...valid,
        namespaces: [{ ...valid.namespaces[0], uid: 'not-a-uuid' }, { name: 'Not_A_Name', uid: randomUUID() }],
      }),
      ['body.namespaces.0.uid', 'body.namespaces.1.name'],
    );
    expectValidationError(
      await a.post('/kubernetes-inventory', { ...valid, pods: [{ uid: randomUUID(), name: 'p' }] }),
      ['body.pods.0.namespace_uid'],
    );
    expectValidationError(
      await a.post('/kubernetes-inventory', {
        ...valid,
        containers: [{ id: 'c1', name: 'x' }, { ...valid.containers[0], image_digest: 'sha256:nothex' }, { ...valid.containers[1], image_tag: '' }],
      }),
      ['body.containers.0.image_tag', 'body.containers.0.pod_uid', 'body.containers.1.image_digest', 'body.containers.2.image_tag'],
    );
    expectValidationError(await a.post('/kubernetes-inventory', { ...valid, nodes: [{ ...valid.nodes[0], labels: { a: 1 } }] }), ['body.nodes.0.labels.a']);
    expectValidationError(await a.post('/kubernetes-inventory', { ...valid, containers: 'none' }), ['body.containers']);
    await expectBodyRejections(url, 'POST', '/v2/kubernetes-inventory', valid);
    expect((await a.get('/inventories')).json.items.some((i: Row) => i.context.startsWith('invalid/'))).toBe(false);
  });

  it('rejects references to uids the report does not hold, and duplicate uids, storing nothing', async () => {
    const bad = k8sCluster('dangling');
    const base = () => k8sReport(bad, ago(5));
    const unknown = randomUUID();

    const podToNamespace = base();
    podToNamespace.pods[1].namespace_uid = unknown;
    let res = await a.post('/kubernetes-inventory', podToNamespace);
    expectValidationError(res, ['body.pods.1.namespace_uid']);
    expect(res.json.message).toContain(unknown);
    // The containers of that pod are fine: only the broken reference is named.
    expect(res.json.detail.errors).toEqual([{ location: 'body.pods.1.namespace_uid', message: `names namespace ${unknown}, which is not in this report` }]);

    const containerToPod = base();
    containerToPod.containers[4].pod_uid = unknown;
    res = await a.post('/kubernetes-inventory', containerToPod);
    expectValidationError(res, ['body.containers.4.pod_uid']);
    expect(res.json.message).toContain(unknown);

    const podToNode = base();
    podToNode.pods[0].node_uid = unknown;
    expectValidationError(await a.post('/kubernetes-inventory', podToNode), ['body.pods.0.node_uid']);

    const noNodes = { ...base(), nodes: undefined };
    expectValidationError(await a.post('/kubernetes-inventory', noNodes), ['body.pods.0.node_uid', 'body.pods.1.node_uid']);

    const duplicates = base();
    duplicates.namespaces[1].uid = duplicates.namespaces[0].uid;
    duplicates.containers[3].id = duplicates.containers[0].id;
    // The jobs namespace's uid is gone with the duplicate, so its pod's reference no longer resolves either.
    expectValidationError(await a.post('/kubernetes-inventory', duplicates), ['body.namespaces.1.uid', 'body.containers.3.id', 'body.pods.2.namespace_uid']);

    // Thousands of broken references are summarised: the first hundred listed, the rest counted.
    const many = base();
    many.containers = Array.from({ length: 150 }, (_, i) => ({ id: `c-${i}`, name: 'c', image_tag: 'nginx:1', pod_uid: unknown }));
    res = await a.post('/kubernetes-inventory', many);
    expectError(res, 400, 'validation_error');
    expect(res.json.detail.errors).toHaveLength(100);
    expect(res.json.detail.more_errors).toBe(50);
    expect(res.json.message).toMatch(/and 50 more$/);

    for (const kind of ['namespaces', 'nodes', 'pods']) expect((await a.get(`/kubernetes-${kind}?page=1`)).json.items.some((o: Row) => o.cluster_name === bad.name)).toBe(false);
    expectError(await a.del(`/kubernetes-namespaces?cluster_name=${bad.name}`), 404, 'not_found');
  });

  it('lists inventory items filtered by type, context and digest', async () => {
    const all = (await a.get('/inventories')).json.items as Row[];
    expect((await a.get('/inventories?inventory_type=kubernetes')).json.items).toEqual(all);
    expect((await a.get('/inventories?inventory_type=ecs')).json.items).toEqual([]);
    expect((await a.get(`/inventories?image_digest=${D1}`)).json.items).toEqual(all.filter((i) => i.image_digest === D1));
    expect((await a.get(`/inventories?context=${encodeURIComponent(`${c.name}/jobs`)}`)).json.items).toEqual(all.filter((i) => i.context === `${c.name}/jobs`));
    expectValidationError(await a.get('/inventories?inventory_type=docker'), ['query.inventory_type']);
    expectValidationError(await a.get('/inventories?image_digest=sha256:abc'), ['query.image_digest']);
  });

  it('deletes inventory items by type and context, optionally one digest; nothing matched is 404', async () => {
    const web = encodeURIComponent(`${c.name}/web`);
    expectValidationError(await a.del('/inventories'), ['query.inventory_type', 'query.context']);
    expectValidationError(await a.del(`/inventories?inventory_type=docker&context=${web}`), ['query.inventory_type']);
    expectError(await a.del(`/inventories?inventory_type=ecs&context=${web}`), 404, 'not_found');
    expectError(await a.del(`/inventories?inventory_type=kubernetes&context=${web}&image_digest=${D2}`), 404, 'not_found');
    expectError(await a.del('/inventories?inventory_type=kubernetes&context=elsewhere'), 404, 'not_found');

    expect((await a.del(`/inventories?inventory_type=kubernetes&context=${web}&image_digest=${D1}`)).status).toBe(204);
    const left = (await a.get(`/inventories?context=${web}`)).json.items as Row[];
    expect(left.map((i) => i.image_tag).sort()).toEqual(['busybox:1.36', 'nginx:1.25']);
    expect((await a.del(`/inventories?inventory_type=kubernetes&context=${web}`)).status).toBe(204);
    expect((await a.get(`/inventories?context=${web}`)).json.items).toEqual([]);
    expect((await a.get(`/inventories?context=${encodeURIComponent(`${c.name}/jobs`)}`)).json.items).toHaveLength(1);
    // The cluster's objects stay until its next report or its expiry.
    expect((await a.get('/kubernetes-containers?page=1')).json.total_count).toBe(4);
  });

  it("deletes a cluster's whole Kubernetes inventory and forgets its last report", async () => {
    const other = k8sCluster('arn:aws:eks:eu-west-1:123456789012:cluster/staging');
    expect((await a.post('/kubernetes-inventory', k8sReport(other, ago(5)))).status).toBe(201);
    expectValidationError(await a.del('/kubernetes-namespaces'), ['query.cluster_name']);
    expectError(await a.del('/kubernetes-namespaces?cluster_name=no-such-cluster'), 404, 'not_found');

    expect((await a.del(`/kubernetes-namespaces?cluster_name=${c.name}`)).status).toBe(204);
    for (const kind of ['namespaces', 'nodes', 'pods', 'containers']) {
      const list = (await a.get(`/kubernetes-${kind}?page=1`)).json;
      expect(list.items.length).toBeGreaterThan(0);
      expect(list.items.every((o: Row) => o.cluster_name === other.name)).toBe(true);
    }
    expect(((await a.get('/inventories')).json.items as Row[]).every((i) => i.context.startsWith(`${other.name}/`))).toBe(true);
    expectError(await a.del(`/kubernetes-namespaces?cluster_name=${c.name}`), 404, 'not_found');

    // Forgotten: a report older than the deleted one's is accepted now.
    expect((await a.post('/kubernetes-inventory', k8sReport(c, T1))).status).toBe(201);
    expect((await a.get(`/kubernetes-pods/${c.pods.cron}`)).status).toBe(200);

    expect((await a.del(`/kubernetes-namespaces?cluster_name=${encodeURIComponent(other.name)}`)).status).toBe(204);
    expectError(await a.get(`/kubernetes-nodes/${other.node}`), 404, 'not_found');
  });
});

const ARN = 'arn:aws:ecs:eu-west-1:123456789012';

describe.skipIf(missingTools('docker-registry'))('ECS inventory', () => {
  let account: string;
  let a: ReturnType<typeof as>;
  const cluster = `${ARN}:cluster/prod`;
  const svc = `${ARN}:service/prod/web`;
  const task = (id: string) => `${ARN}:task/prod/${id}`;
  const ctr = (id: string) => `${ARN}:container/prod/${id}`;
  const taskDef = `${ARN}:task-definition/web:3`;
  const T1 = ago(40);
  const T2 = ago(20);

  function ecsReport(timestamp: string) {
    return {
      cluster_arn: cluster,
      timestamp,
      services: [{ arn: svc, tags: { team: 'web' } }],
      tasks: [{ arn: task('t1'), service_arn: svc, task_definition_arn: taskDef, tags: { env: 'prod' } }, { arn: task('t2') }],
      containers: [
        { arn: ctr('c1'), task_arn: task('t1'), image_tag: 'registry.example.com/team/web:1.0', image_digest: D1 },
        { arn: ctr('c2'), task_arn: task('t2'), image_tag: 'nginx:1.25' },
        { arn: ctr('c3'), image_tag: 'busybox:1.36' },
      ],
    };
  }

  beforeAll(async () => {
    account = await createAccount(url, 'ecs');
    a = as(account);
  });

  it('records a report (204) and lists services, tasks and containers back', async () => {
    const res = await a.post('/ecs-inventory', ecsReport(T1));
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    const base = { cluster_arn: cluster, account_name: account, ...times(T1) };
    expect((await a.get('/ecs-services?page=1')).json).toEqual({
      page: 1,
      page_size: 1000,
      next_page: false,
      total_count: 1,
      items: [{ arn: svc, tags: { team: 'web' }, ...base }],
    });
    expect((await a.get('/ecs-tasks?page=1')).json.items).toEqual([
      { arn: task('t1'), service_arn: svc, task_definition_arn: taskDef, tags: { env: 'prod' }, ...base },
      { arn: task('t2'), tags: {}, ...base },
    ]);
    expect((await a.get('/ecs-containers?page=1')).json.items).toEqual([
      { arn: ctr('c1'), task_arn: task('t1'), context: cluster, image_tag: 'registry.example.com/team/web:1.0', image_digest: D1, ...base },
      { arn: ctr('c2'), task_arn: task('t2'), context: cluster, image_tag: 'nginx:1.25', image_digest: '', ...base },
      { arn: ctr('c3'), context: cluster, image_tag: 'busybox:1.36', image_digest: '', ...base },
    ]);
    expect(await allPages(a.get, '/ecs-containers', 2)).toEqual((await a.get('/ecs-containers?page=1')).json.items);
    expect(await allPages(a.get, '/ecs-tasks', 1)).toHaveLength(2);

    const items = (await a.get('/inventories?inventory_type=ecs')).json.items as Row[];
    expect(items).toEqual([
      { inventory_type: 'ecs', context: cluster, image_tag: 'busybox:1.36', image_digest: '', ...times(T1) },
      { inventory_type: 'ecs', context: cluster, image_tag: 'nginx:1.25', image_digest: '', ...times(T1) },
      { inventory_type: 'ecs', context: cluster, image_tag: 'registry.example.com/team/web:1.0', image_digest: D1, ...times(T1) },
    ]);
    expect((await a.get(`/inventories?context=${encodeURIComponent(cluster)}&image_digest=${D1}`)).json.items).toHaveLength(1);
  });

  it('replaces the snapshot with a newer report and refuses an older one with 409', async () => {
    const second = ecsReport(T2);
    second.tasks = second.tasks.slice(0, 1);
    second.containers = second.containers.slice(0, 1);
    expect((await a.post('/ecs-inventory', second)).status).toBe(204);
    expect((await a.get('/ecs-tasks?page=1')).json.items.map((t: Row) => t.arn)).toEqual([task('t1')]);
    const containers = (await a.get('/ecs-containers?page=1')).json;
    expect(containers.items).toEqual([expect.objectContaining({ arn: ctr('c1'), last_seen: T2 })]);

    const stale = await a.post('/ecs-inventory', ecsReport(T1));
    expectError(stale, 409, 'conflict');
    expect(stale.json.detail).toMatchObject({ cluster, latest_timestamp: T2 });
    expect((await a.get('/ecs-containers?page=1')).json).toEqual(containers);
  });

  it('accepts null or absent tasks and services', async () => {
    const other = `${ARN}:cluster/batch`;
    const res = await a.post('/ecs-inventory', { cluster_arn: other, timestamp: ago(5), tasks: null, services: null, containers: [{ arn: ctr('b1'), image_tag: 'busybox:1.36' }] });
    expect(res.status, res.text).toBe(204);
    expect((await a.post('/ecs-inventory', { cluster_arn: `${ARN}:cluster/empty`, timestamp: ago(5) })).status).toBe(204);
    expect((await a.get(`/inventories?context=${encodeURIComponent(other)}`)).json.items).toHaveLength(1);
  });

  it('rejects schema violations and references to tasks or services the report does not hold', async () => {
    const valid = ecsReport(ago(1));
    expectValidationError(await a.post('/ecs-inventory', {}), ['body.cluster_arn', 'body.timestamp']);
    expectValidationError(await a.post('/ecs-inventory', { ...valid, cluster_arn: 'prod' }), ['body.cluster_arn']);
    expectValidationError(await a.post('/ecs-inventory', { ...valid, timestamp: 'now' }), ['body.timestamp']);
    expectValidationError(await a.post('/ecs-inventory', { ...valid, containers: [{ arn: ctr('x') }] }), ['body.containers.0.image_tag']);
    // An undeclared property is ignored (upstream's schema accepts it): only the real violation is named.
    expectValidationError(await a.post('/ecs-inventory', { ...valid, timestamp: 'now', services: [{ arn: svc, name: 'web' }] }), ['body.timestamp']);
    expectValidationError(await a.post('/ecs-inventory', { ...valid, tasks: [{ arn: task('t1'), tags: { env: 3 } }] }), ['body.tasks.0.tags.env']);

    const danglingTask = ecsReport(ago(1));
    danglingTask.containers[1].task_arn = task('gone');
    let res = await a.post('/ecs-inventory', danglingTask);
    expectValidationError(res, ['body.containers.1.task_arn']);
    expect(res.json.message).toContain(task('gone'));

    const danglingService = ecsReport(ago(1));
    danglingService.tasks[0].service_arn = `${ARN}:service/prod/gone`;
    expectValidationError(await a.post('/ecs-inventory', danglingService), ['body.tasks.0.service_arn']);

    res = await a.post('/ecs-inventory', { ...ecsReport(ago(1)), tasks: null });
    expectValidationError(res, ['body.containers.0.task_arn', 'body.containers.1.task_arn']);

    const duplicate = ecsReport(ago(1));
    duplicate.containers[2].arn = duplicate.containers[0].arn;
    expectValidationError(await a.post('/ecs-inventory', duplicate), ['body.containers.2.arn']);
    await expectBodyRejections(url, 'POST', '/v2/ecs-inventory', valid);

    // Nothing of the refused reports was stored.
    expect((await a.get('/ecs-tasks?page=1')).json.items.map((t: Row) => t.arn)).toEqual([task('t1')]);
  });
});

describe.skipIf(missingTools('docker-registry'))('account isolation and access', () => {
  let x: string;
  let y: string;
  let xWriter: TestUser;
  let xReader: TestUser;
  let yWriter: TestUser;
  const c = k8sCluster('shared-name');

  beforeAll(async () => {
    x = await createAccount(url, 'inv-x');
    y = await createAccount(url, 'inv-y');
    xWriter = await createUser(url, x, { prefix: 'x-rw', roles: ['read-write'] });
    xReader = await createUser(url, x, { prefix: 'x-ro', roles: ['read-only'] });
    yWriter = await createUser(url, y, { prefix: 'y-rw', roles: ['read-write'] });
  });

  it("shows one account's inventory to nobody else", async () => {
    const asX = as(null, xWriter.auth);
    const asY = as(null, yWriter.auth);
    expect((await asX.post('/kubernetes-inventory', k8sReport(c, ago(10)))).status).toBe(201);
    expect((await asX.post('/ecs-inventory', { cluster_arn: `${ARN}:cluster/x`, timestamp: ago(10), containers: [{ arn: `${ARN}:container/x/x1`, image_tag: 'nginx:1.25' }] })).status).toBe(204);

    const xTotals: Record<string, number> = {
      '/kubernetes-namespaces': 2,
      '/kubernetes-nodes': 1,
      '/kubernetes-pods': 3,
      '/kubernetes-containers': 5,
      '/ecs-containers': 1,
      '/ecs-services': 0,
      '/ecs-tasks': 0,
    };
    for (const [path, total] of Object.entries(xTotals)) {
      expect((await asY.get(`${path}?page=1`)).json).toMatchObject({ items: [], total_count: 0 });
      expect((await asX.get(`${path}?page=1`)).json.total_count).toBe(total);
    }
    expect((await asY.get('/inventories')).json).toEqual({ items: [] });
    expectError(await asY.get(`/kubernetes-namespaces/${c.ns.web}`), 404, 'not_found');
    expectError(await asY.get(`/kubernetes-pods/${c.pods.web1}`), 404, 'not_found');
    expectError(await asY.del(`/kubernetes-namespaces?cluster_name=${c.name}`), 404, 'not_found');
    expectError(await asY.del(`/inventories?inventory_type=kubernetes&context=${c.name}/web`), 404, 'not_found');

    // Y reporting a cluster of the same name is its own cluster: an older timestamp than X's is fine.
    expect((await asY.post('/kubernetes-inventory', k8sReport(c, ago(50)))).status).toBe(201);
    expect((await asY.get(`/kubernetes-namespaces/${c.ns.web}`)).json).toMatchObject({ account_name: y, last_seen: expect.any(String) });
    expect((await asX.get(`/kubernetes-namespaces/${c.ns.web}`)).json).toMatchObject({ account_name: x });
    expect((await asY.del(`/kubernetes-namespaces?cluster_name=${c.name}`)).status).toBe(204);
    expect((await asX.get('/kubernetes-pods?page=1')).json.total_count).toBe(3);

    // The administrator reaches X's inventory with x-service-account; X's user cannot reach Y's.
    expect((await as(x).get('/kubernetes-containers?page=1')).json.total_count).toBe(5);
    expectError(await as(y, xWriter.auth).get('/kubernetes-containers?page=1'), 403, 'forbidden');
    expectError(await as(y, xWriter.auth).post('/kubernetes-inventory', k8sReport(k8sCluster('sneaky'), ago(1))), 403, 'forbidden');
  });

  it('lets read-only users read the inventory but not report or delete', async () => {
    const reader = as(null, xReader.auth);
    expect((await reader.get('/inventories')).status).toBe(200);
    expect((await reader.get('/kubernetes-namespaces?page=1')).json.total_count).toBe(2);
    expect((await reader.get(`/kubernetes-nodes/${c.node}`)).status).toBe(200);
    expectError(await reader.post('/kubernetes-inventory', k8sReport(c, ago(1))), 403, 'forbidden');
    expectError(await reader.post('/ecs-inventory', { cluster_arn: `${ARN}:cluster/x`, timestamp: ago(1) }), 403, 'forbidden');
    expectError(await reader.del(`/kubernetes-namespaces?cluster_name=${c.name}`), 403, 'forbidden');
    expectError(await reader.del(`/inventories?inventory_type=kubernetes&context=${c.name}/web`), 403, 'forbidden');
    expect((await reader.get('/kubernetes-pods?page=1')).json.total_count).toBe(3);
  });
});

describe.skipIf(missingTools('docker-registry'))('expiry after VIGIL_INVENTORY_TTL_SECONDS (default one day)', () => {
  let account: string;
  let a: ReturnType<typeof as>;
  const INVENTORY_TABLES = ['inventory_items', 'inventory_clusters', 'k8s_namespaces', 'k8s_nodes', 'k8s_pods', 'k8s_containers', 'ecs_services', 'ecs_tasks', 'ecs_containers'];

  /** Rows the account holds in each inventory table, straight from the database. */
  async function storedRows(): Promise<Record<string, number>> {
    const db = server.running.services.db;
    const counts: Record<string, number> = {};
    for (const table of INVENTORY_TABLES) counts[table] = Number((await db(table).where({ account_name: account }).count({ n: '*' }))[0].n);
    return counts;
  }
  const none = Object.fromEntries(INVENTORY_TABLES.map((t) => [t, 0]));

  beforeAll(async () => {
    account = await createAccount(url, 'expiry');
    a = as(account);
  });

  it('refuses a report older than the TTL with a message, storing nothing (it would expire on arrival)', async () => {
    const old = k8sCluster('old');
    const k8s = await a.post('/kubernetes-inventory', k8sReport(old, ago(2 * 24 * 60)));
    expectError(k8s, 400, 'validation_error');
    expect(k8s.json.message).toMatch(/body\.timestamp is older than the inventory expiry \(the runtime setting inventory.ttl_seconds=86400, default VIGIL_INVENTORY_TTL_SECONDS/);
    expect(k8s.json.detail.errors).toEqual([{ location: 'body.timestamp', message: expect.stringContaining('send the time the agent took the snapshot') }]);
    const ecs = await a.post('/ecs-inventory', { cluster_arn: `${ARN}:cluster/old`, timestamp: ago(25 * 60), tasks: [{ arn: task('old') }], containers: [{ arn: ctr('old'), image_tag: 'nginx:1' }] });
    expectError(ecs, 400, 'validation_error');
    expect(ecs.json.message).toMatch(/older than the inventory expiry/);
    expect((await a.get('/inventories')).json).toEqual({ items: [] });
    expectError(await a.get(`/kubernetes-pods/${old.pods.web1}`), 404, 'not_found');
    expect(await storedRows()).toEqual(none);
    // Just inside the TTL is accepted.
    expect((await a.post('/kubernetes-inventory', k8sReport(old, ago(23 * 60)))).status).toBe(201);
    await a.del('/kubernetes-namespaces?cluster_name=old');
  });

  it("accepts the README's example reports as written (with the shell's date)", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Runtime inventory'));
    const bodies = [...section.matchAll(/<<EOF[^\n]*\n([\s\S]*?)\nEOF\n/g)].slice(0, 2).map((m) => m[1].replaceAll('$(date -u +%Y-%m-%dT%H:%M:%SZ)', new Date().toISOString().replace(/\.\d+Z$/, 'Z')));
    expect(bodies).toHaveLength(2);
    const k8s = await a.post('/kubernetes-inventory', JSON.parse(bodies[0]));
    expect(k8s.status, k8s.text).toBe(201);
    const ecs = await a.post('/ecs-inventory', JSON.parse(bodies[1]));
    expect(ecs.status, ecs.text).toBe(204);
    const items = (await a.get('/inventories')).json.items.map((i: Row) => `${i.inventory_type} ${i.context} ${i.image_tag}`).sort();
    expect(items).toEqual(['ecs arn:aws:ecs:eu-west-1:123456789012:cluster/prod registry.example.com/team/app:1.4', 'kubernetes prod/web registry.example.com/team/app:1.4']);
  });

  it('the sweep deletes everything not seen within the TTL, in every account, and forgets the clusters', async () => {
    const fresh = k8sCluster('fresh');
    const T = ago(10);
    expect((await a.post('/kubernetes-inventory', k8sReport(fresh, T))).status).toBe(201);
    expect((await a.post('/ecs-inventory', { cluster_arn: `${ARN}:cluster/fresh`, timestamp: T, services: [{ arn: svc('fresh') }], tasks: [{ arn: task('f') }], containers: [{ arn: ctr('f'), task_arn: task('f'), image_tag: 'nginx:1' }] })).status).toBe(204);
    const before = await storedRows();
    expect(Object.values(before).every((n) => n > 0)).toBe(true);

    const { db, config } = server.running.services;
    // An hour from now nothing has expired yet; two days from now everything reported ten minutes ago has.
    expect(await expireInventory(db, expiryCutoff(config.inventory.ttlSeconds, Date.now() + 3600_000))).toBe(0);
    expect(await storedRows()).toEqual(before);
    const deleted = await expireInventory(db, expiryCutoff(config.inventory.ttlSeconds, Date.now() + 2 * 86400_000));
    expect(deleted).toBeGreaterThanOrEqual(Object.values(before).reduce((s, n) => s + n, 0));
    expect(await storedRows()).toEqual(none);
    expect((await a.get('/kubernetes-containers?page=1')).json.total_count).toBe(0);
    // The cluster's report history went with it: an older report is accepted.
    expect((await a.post('/kubernetes-inventory', k8sReport(fresh, ago(20)))).status).toBe(201);
  });

  it('runs the sweep as a periodic job, every TTL (at most every five minutes)', async () => {
    expect((await a.post('/kubernetes-inventory', k8sReport(k8sCluster('periodic'), ago(10)))).status).toBe(201);
    const services = server.running.services;
    expect(inventoryExpiryEveryMs(60)).toBe(60_000);
    expect(inventoryExpiryEveryMs(86400)).toBe(300_000);
    // The server keeps the sweep's next slot queued, a slot of its interval.
    const next = await services.db('jobs').where({ kind: INVENTORY_EXPIRY_JOB.kind, status: 'queued' }).first();
    expect(next).toMatchObject({ dedup_key: 'periodic:inventory_expiry' });
    expect(Date.parse(JSON.parse(next.payload).slot) % inventoryExpiryEveryMs(services.config.inventory.ttlSeconds)).toBe(0);
    // The sweep's work: with a one-minute TTL the ten-minute-old report has expired; its log line counts the rows.
    let deleted = 0;
    const log = { info: (o: { deleted: number }) => (deleted = o.deleted) };
    const settings = { get: async (key: string) => (key === 'inventory.ttl_seconds' ? 60 : services.settings.get(key as never)) };
    await expireAllInventory({ ...services, settings, log } as unknown as Services);
    expect(deleted).toBeGreaterThan(0);
    expect(await storedRows()).toEqual(none);
  });

  function svc(name: string) {
    return `${ARN}:service/fresh/${name}`;
  }
  function task(name: string) {
    return `${ARN}:task/fresh/${name}`;
  }
  function ctr(name: string) {
    return `${ARN}:container/fresh/${name}`;
  }
});

describe.skipIf(missingTools('docker-registry'))('large reports (megabytes, within the default inventory report limit while other bodies keep theirs)', () => {
  let big: TestServer;
  let a: ReturnType<typeof as>;

  beforeAll(async () => {
    big = await startTestServer({ VIGIL_INVENTORY_ANALYZE: 'false' });
    a = as(null, adminAuth, () => big.url);
  }, 60_000);
  afterAll(async () => {
    await big?.close();
  });

  function bigReport(timestamp: string, podCount: number, ns: string, podUids: string[]) {
    const pods = podUids.slice(0, podCount).map((uid, i) => ({ uid, name: `pod-${i}`, namespace_uid: ns }));
    const containers = pods.flatMap((p, i) =>
      [0, 1, 2].map((j) => ({ id: `containerd://${i}-${j}`, name: `c${j}`, image_tag: `registry.example.com/app-${i % 700}:1.${j}`, pod_uid: p.uid })),
    );
    return { cluster_name: 'big', timestamp, namespaces: [{ uid: ns, name: 'apps' }], pods, containers };
  }

  it('stores a report of 2,000 pods and 6,000 containers, and replaces it with a smaller one', async () => {
    const ns = randomUUID();
    const podUids = Array.from({ length: 2000 }, () => randomUUID());
    const T1 = ago(20);
    expect((await a.post('/kubernetes-inventory', bigReport(T1, 2000, ns, podUids))).status).toBe(201);
    const last = await a.get('/kubernetes-containers?page=6&page_size=1000');
    expect(last.json).toMatchObject({ page: 6, next_page: false, total_count: 6000 });
    expect(last.json.items).toHaveLength(1000);
    expect((await a.get('/kubernetes-pods?page=2&page_size=1000')).json).toMatchObject({ next_page: false, total_count: 2000 });
    const items = (await a.get('/inventories')).json.items as Row[];
    expect(items).toHaveLength(2100);
    expect(items.every((i) => i.last_seen === T1)).toBe(true);

    const T2 = ago(10);
    expect((await a.post('/kubernetes-inventory', bigReport(T2, 1000, ns, podUids))).status).toBe(201);
    expect((await a.get('/kubernetes-containers?page=1&page_size=1')).json.total_count).toBe(3000);
    const pod = await a.get(`/kubernetes-pods/${podUids[999]}`);
    expect(pod.json).toMatchObject({ name: 'pod-999', last_seen: T2 });
    expectError(await a.get(`/kubernetes-pods/${podUids[1000]}`), 404, 'not_found');
    const after = (await a.get('/inventories')).json.items as Row[];
    expect(after).toHaveLength(2100);
    expect(after.filter((i) => i.last_seen === T2)).toHaveLength(2100);
  });

  it('refuses a report of more than 50,000 containers', async () => {
    const ns = randomUUID();
    const pod = randomUUID();
    const containers = Array.from({ length: 50_001 }, (_, i) => ({ id: `${i}`, name: 'c', image_tag: 'nginx:1', pod_uid: pod }));
    const res = await a.post('/kubernetes-inventory', {
      cluster_name: 'huge',
      timestamp: ago(1),
      namespaces: [{ uid: ns, name: 'apps' }],
      pods: [{ uid: pod, name: 'p', namespace_uid: ns }],
      containers,
    });
    expectValidationError(res, ['body.containers']);
  });
});

describe.skipIf(missingTools('docker-registry'))('analysis of images seen running', () => {
  let analyzing: TestServer;
  let a: ReturnType<typeof as>;

  beforeAll(async () => {
    analyzing = await startTestServer({ VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT: '2' });
    a = as(null, adminAuth, () => analyzing.url);
  }, 60_000);
  afterAll(async () => {
    await analyzing?.close();
  });

  async function push(repository: string, tag: string, image?: BuiltImage): Promise<BuiltImage> {
    const built = image ?? (await alpineImage(`${repository}:${tag}`));
    await pushImage(registry.url, repository, tag, built);
    return built;
  }

  /** Resolves once no job that adds running images is queued or running (awaiting worker events, not sleeping). */
  async function settled(target: TestServer = analyzing): Promise<void> {
    const { db, worker } = target.running.services;
    const pending = async () =>
      Number((await db('jobs').where({ kind: ANALYZE_RUNNING_IMAGES_JOB.kind }).whereIn('status', ['queued', 'running']).count({ n: '*' }))[0].n);
    await new Promise<void>((resolve, reject) => {
      const check = () =>
        pending()
          .then((n) => {
            if (n === 0) {
              worker.off('finished', onFinished);
              resolve();
            }
          })
          .catch(reject);
      const onFinished = (f: JobFinished) => {
        if (f.kind === ANALYZE_RUNNING_IMAGES_JOB.kind) check();
      };
      worker.on('finished', onFinished);
      check();
    });
  }

  async function queuedJobs(target: TestServer = analyzing): Promise<{ images: { tag: string; digest: string | null }[] }[]> {
    const rows = await target.running.services.db('jobs').where({ kind: ANALYZE_RUNNING_IMAGES_JOB.kind }).orderBy('id').select('payload');
    return rows.map((r: { payload: string }) => JSON.parse(r.payload));
  }

  function podReport(cluster: string, timestamp: string, images: { image_tag: string; image_digest?: string }[]) {
    const ns = randomUUID();
    const pod = randomUUID();
    return {
      cluster_name: cluster,
      timestamp,
      namespaces: [{ uid: ns, name: 'apps' }],
      pods: [{ uid: pod, name: 'apps-1', namespace_uid: ns }],
      containers: images.map((img, i) => ({ id: `containerd://${cluster}-${i}`, name: `c${i}`, pod_uid: pod, ...img })),
    };
  }

  it('adds an image running by tag and digest, and analyzes it', async () => {
    const image = await push('team/running', '1.0');
    const tag = `${registry.host}/team/running:1.0`;
    const res = await a.post('/kubernetes-inventory', podReport('analyze', ago(30), [{ image_tag: tag, image_digest: image.manifestDigest }]));
    expect(res.status, res.text).toBe(201);
    expect(await queuedJobs()).toEqual([{ accountName: 'admin', images: [{ tag, digest: image.manifestDigest }] }]);
    expect(await waitForAnalysis(analyzing, 'admin', image.manifestDigest)).toBe('analyzed');
    const stored = await a.get(`/images/${image.manifestDigest}`);
    expect(stored.json.image_detail).toEqual([expect.objectContaining({ full_tag: tag, current: true })]);
    await settled();
  });

  it('queues nothing for images the account already knows, by digest or by current tag', async () => {
    const before = (await queuedJobs()).length;
    const known = (await analyzing.running.services.db('images').where({ account_name: 'admin' }).first('image_digest')).image_digest;
    const res = await a.post('/kubernetes-inventory', podReport('analyze', ago(20), [
      { image_tag: `${registry.host}/team/running:1.0` },
      { image_tag: `${registry.host}/team/renamed:9`, image_digest: known },
    ]));
    expect(res.status, res.text).toBe(201);
    expect(await queuedJobs()).toHaveLength(before);
  });

  it('adds an image running by tag alone', async () => {
    const image = await push('team/tagonly', '2.0');
    expect((await a.post('/ecs-inventory', { cluster_arn: `${ARN}:cluster/analyze`, timestamp: ago(10), containers: [{ arn: `${ARN}:container/a/1`, image_tag: `${registry.host}/team/tagonly:2.0` }] })).status).toBe(204);
    expect(await waitForAnalysis(analyzing, 'admin', image.manifestDigest)).toBe('analyzed');
    await settled();
  });

  it('analyzes the platform image of a running multi-platform index', async () => {
    const layers = (arch: string) => [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\n' }, { path: 'arch', content: arch }]];
    const amd64 = await buildImage({ layers: layers('amd64'), architecture: 'amd64' });
    const arm64 = await buildImage({ layers: layers('arm64'), architecture: 'arm64' });
    const index = buildIndex([arm64, amd64]);
    await pushImage(registry.url, 'team/multi', '3.0', index);
    const tag = `${registry.host}/team/multi:3.0`;
    expect((await a.post('/kubernetes-inventory', podReport('multi', ago(10), [{ image_tag: tag, image_digest: index.digest }]))).status).toBe(201);
    expect(await waitForAnalysis(analyzing, 'admin', amd64.manifestDigest)).toBe('analyzed');
    await settled();
    expect(await findImage(analyzing.running.services.db, 'admin', index.digest)).toBeUndefined();
    expect(await findImage(analyzing.running.services.db, 'admin', arm64.manifestDigest)).toBeUndefined();
  });

  it('queues at most VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT images per report; later reports take the rest', async () => {
    const images = [await push('team/bulk', 'a'), await push('team/bulk', 'b'), await push('team/bulk', 'c')];
    const running = images.map((img, i) => ({ image_tag: `${registry.host}/team/bulk:${'abc'[i]}`, image_digest: img.manifestDigest }));
    const before = (await queuedJobs()).length;
    expect((await a.post('/kubernetes-inventory', podReport('bulk', ago(10), running))).status).toBe(201);
    const jobs = await queuedJobs();
    expect(jobs).toHaveLength(before + 1);
    expect(jobs.at(-1)!.images.map((i) => i.digest)).toEqual([images[0].manifestDigest, images[1].manifestDigest]);
    expect(await waitForAnalysis(analyzing, 'admin', images[0].manifestDigest)).toBe('analyzed');
    expect(await waitForAnalysis(analyzing, 'admin', images[1].manifestDigest)).toBe('analyzed');
    await settled();
    expect(await findImage(analyzing.running.services.db, 'admin', images[2].manifestDigest)).toBeUndefined();

    expect((await a.post('/kubernetes-inventory', podReport('bulk', ago(5), running))).status).toBe(201);
    expect((await queuedJobs()).at(-1)!.images.map((i) => i.digest)).toEqual([images[2].manifestDigest]);
    expect(await waitForAnalysis(analyzing, 'admin', images[2].manifestDigest)).toBe('analyzed');
    await settled();
  });

  it('an image that cannot be added neither fails the report nor stops the others', async () => {
    const good = await push('team/survivor', '1.0');
    const unreachable = '127.0.0.1:1/team/missing:1.0';
    const res = await a.post('/kubernetes-inventory', podReport('failing', ago(5), [
      { image_tag: unreachable },
      { image_tag: 'Not A Reference' },
      { image_tag: `${registry.host}/team/survivor:1.0` },
    ]));
    expect(res.status, res.text).toBe(201);
    expect((await queuedJobs()).at(-1)!.images.map((i) => i.tag)).toEqual([unreachable, `${registry.host}/team/survivor:1.0`]);
    expect(await waitForAnalysis(analyzing, 'admin', good.manifestDigest)).toBe('analyzed');
    await settled();
    const events = await a.get('/events?event_type=system.image_analysis.registry_lookup_failed');
    expect(events.json.results.map((e: Row) => e.event.resource.id)).toContain(unreachable);
    expect((await analyzing.running.services.db('jobs').where({ kind: ANALYZE_RUNNING_IMAGES_JOB.kind }).whereNot({ status: 'done' })).length).toBe(0);
  });

  it('queues nothing with VIGIL_INVENTORY_ANALYZE=false', async () => {
    const account = await createAccount(url, 'no-analysis');
    const image = await push('team/not-analyzed', '1.0');
    const report = podReport('quiet', ago(5), [
      { image_tag: `${registry.host}/team/not-analyzed:1.0`, image_digest: image.manifestDigest },
      { image_tag: `${registry.host}/team/not-analyzed:1.0` },
    ]);
    expect((await as(account).post('/kubernetes-inventory', report)).status).toBe(201);
    expect(await queuedJobs(server)).toEqual([]);
    expect(await server.running.services.db('images').where({ account_name: account })).toEqual([]);
    expect((await as(account).get('/inventories')).json.items).toHaveLength(2);
  });
});
