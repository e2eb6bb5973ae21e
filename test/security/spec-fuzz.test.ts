/**
 * Spec-driven fuzzing of the REST API (issue 14). For every operation of the spec, requests generated from its
 * parameters and body schema — valid ones, and ones broken on purpose (test/security/spec-fuzz-requests.ts) — are
 * sent as the administrator mostly, and without or with bad or other credentials sometimes. Every answer must be
 * below 500, declared for the operation and shaped as the spec says (errors as {code, error_type, message,
 * detail}); afterwards the server must still answer. No request may lead the server to traffic beyond loopback.
 *
 * The seed is fixed (VIGIL_FUZZ_SEED overrides it, VIGIL_FUZZ_RUNS the runs per operation); a failure prints the
 * seed, fast-check's replay path and the shrunk request. VIGIL_FUZZ_STATS=1 prints the statuses seen per operation.
 */
import { createHash } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationTable, type OperationId } from '../../generated/operations.js';
import { waitForAnalysis } from '../support/analysis.js';
import { adminAuth, authHeader, client, json, raw } from '../support/http.js';
import { installLoopbackGuard, isLoopbackHost, type LoopbackGuard } from '../support/loopback-guard.js';
import { alpineImage, uploadArchive } from '../support/registry-fixtures.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../support/server.js';
import { assertResponseMatchesSpec } from '../support/spec-validator.js';
import {
  describeRequest,
  operationSeed,
  requestArbitrary,
  resourceExamples,
  specOperations,
  type FuzzFixtures,
  type FuzzOperation,
  type FuzzRequest,
  type RequestParts,
} from './spec-fuzz-requests.js';

const SEED = Number(process.env.VIGIL_FUZZ_SEED ?? 14_000_014);
const RUNS = Number(process.env.VIGIL_FUZZ_RUNS ?? 60);

/**
 * Operations that reach a registry, or (test_webhook) the notification receivers of the fixtures; pointed at a
 * closed loopback port, they answer the declared 502.
 */
const UPSTREAM_CLIENTS = new Set(['add_image', 'create_registry', 'update_registry', 'add_repository', 'test_webhook']);

const FUZZ_ACCOUNT = 'fuzz-acct';
const FUZZ_USER = 'fuzz-user';
const FUZZ_SELF = 'fuzz-self';
const PASSWORD = 'fuzz-password-1';
/** A port nothing listens on: connections to it fail at once. */
const CLOSED = '127.0.0.1:9';

let server: TestServer;
let guard: LoopbackGuard;
let fixtures: FuzzFixtures;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

// ---------------------------------------------------------------------------------------------------------------
// Sending

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

function send(req: FuzzRequest): Promise<Answer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = req.body.length;
    const r = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: (res.headers['content-type'] as string | undefined) ?? null, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // A hang is a failure too; the limit is generous so a loaded CI machine never trips it.
    r.setTimeout(30_000, () => r.destroy(new Error('no answer within 30 s')));
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * The spec validator reads the path through URL, which resolves dot segments the server does not (to the router
 * `..` is a parameter value). Any segment that would be resolved is replaced for validation by a plain one.
 */
function validationUrl(path: string): string {
  const [pathname, query] = path.split(/\?(.*)/s, 2);
  const segments = pathname.split('/').map((seg) => {
    let decoded = seg;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      // not decodable: the URL parser keeps it as it is
    }
    return decoded === '.' || decoded === '..' ? 'dot-segment' : seg;
  });
  // The router also takes a path with one trailing slash as the path without it.
  const joined = segments.join('/');
  const trimmed = joined.length > 1 && joined.endsWith('/') && !joined.endsWith('//') ? joined.slice(0, -1) : joined;
  return `${server.url}${trimmed}${query !== undefined ? `?${query}` : ''}`;
}

/** Statuses seen per operation, printed with VIGIL_FUZZ_STATS=1 to see how deep the generated requests get. */
const statusCounts = new Map<string, Map<number, number>>();

function checkAnswer(req: FuzzRequest, answer: Answer): void {
  const counts = statusCounts.get(req.operationId) ?? new Map<number, number>();
  counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
  statusCounts.set(req.operationId, counts);
  const where = () => `${answer.status} for ${describeRequest(req)}\nanswer: ${answer.text.slice(0, 600)}`;
  // A request earlier in this file took the administrator's login away: stop here rather than fuzz on with 401s.
  if (!operationTable[req.operationId as OperationId].public && req.headers.authorization === fixtures.adminAuthorization && (answer.status === 401 || answer.status === 429))
    throw new Error(`the administrator can no longer log in: ${where()}`);
  const upstream = answer.status === 502 && UPSTREAM_CLIENTS.has(req.operationId);
  if (answer.status >= 500 && !upstream) throw new Error(`server error ${where()}`);
  // Declared for the operation, and the body as its schema says.
  assertResponseMatchesSpec(req.method, validationUrl(req.path), answer.status, answer.contentType, answer.text);
  if (answer.status >= 400) {
    let body: any;
    try {
      body = JSON.parse(answer.text);
    } catch {
      throw new Error(`error answer is not JSON: ${where()}`);
    }
    const shaped =
      body && body.code === answer.status && typeof body.error_type === 'string' && typeof body.message === 'string' && body.detail && typeof body.detail === 'object';
    if (!shaped) throw new Error(`error answer without the error shape: ${where()}`);
  }
  const refused = guard.take();
  if (refused.length) throw new Error(`the server tried to leave loopback (${refused.join(', ')}) after ${describeRequest(req)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// What must not be sent: requests that would take the test's own login away

const isAdminName = (v: string | undefined) => v !== undefined && v.trim().toLowerCase() === 'admin';

/**
 * Skipped (not excluded: every operation still runs): deleting or disabling the admin account or user, changing
 * or deleting the admin's password, revoking the admin's roles, and failed password grants for the admin (the
 * failure throttle would lock the admin out). The admin's own password change (add_credential) runs as another
 * user instead; see authorizationOverrides.
 */
function wouldLockOutTheTest(req: FuzzRequest): boolean {
  const { account_name: account, username } = req.pathParams;
  switch (req.operationId) {
    case 'delete_account':
    case 'update_account_state':
      return isAdminName(account);
    case 'delete_user':
    case 'update_user_state':
    case 'create_user_credential':
    case 'delete_user_credential':
      return isAdminName(account) || isAdminName(username);
    case 'delete_role_user':
      return req.query.some(([k, v]) => k === 'username' && isAdminName(v));
    case 'get_oauth_token': {
      const user = req.form?.username;
      const password = req.form?.password;
      return [user].flat().some(isAdminName) && password !== ADMIN_PASSWORD;
    }
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Keeping generated network-facing values on loopback

const LOOPBACK_REFERENCE = /^(127\.0\.0\.1|localhost|\[::1\]):9\//;

/** An image reference on the closed loopback port; the fuzzed text stays as the repository part. */
function loopbackReference(v: unknown): unknown {
  if (typeof v !== 'string' || LOOPBACK_REFERENCE.test(v)) return v;
  return `${CLOSED}/${v.replace(/^\/+/, '')}`;
}

/** A registry host[:port][/prefix] on the closed port. */
function loopbackRegistry(v: unknown): unknown {
  if (typeof v !== 'string' || LOOPBACK_REFERENCE.test(`${v}/`)) return v;
  const slash = v.indexOf('/');
  return `${CLOSED}${slash >= 0 ? v.slice(slash) : ''}`;
}

/** A URL whose host is moved to the closed loopback port; text that is no URL stays (it is refused as such). */
function loopbackUrl(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return v;
  }
  if (!url.host) return v;
  if (isLoopbackHost(url.hostname) && url.port === '9') return v;
  try {
    url.hostname = '127.0.0.1';
    url.port = '9';
  } catch {
    return `http://${CLOSED}/`;
  }
  return url.hostname === '127.0.0.1' && url.port === '9' ? url.toString() : `http://${CLOSED}/`;
}

function loopbackHost(v: unknown): unknown {
  if (typeof v !== 'string' || v.length === 0 || v.length > 253 || isLoopbackHost(v)) return v;
  return '127.0.0.1';
}

function closedPort(v: unknown): unknown {
  return typeof v === 'number' && v >= 1 && v <= 65535 ? 9 : v;
}

/** Rewrites every property named `key`, at any depth of a generated JSON body. */
function rewriteKey(node: unknown, key: string, fix: (v: unknown) => unknown, depth = 0): void {
  if (!node || typeof node !== 'object' || depth > 64) return;
  if (Array.isArray(node)) {
    for (const item of node.slice(0, 64)) rewriteKey(item, key, fix, depth + 1);
    // Large generated arrays repeat one element; the first ones cover them.
    return;
  }
  const record = node as Record<string, unknown>;
  if (Object.hasOwn(record, key)) record[key] = fix(record[key]);
  for (const value of Object.values(record)) rewriteKey(value, key, fix, depth + 1);
}

function bodyKeys(rewrites: Record<string, (v: unknown) => unknown>) {
  return (parts: RequestParts) => {
    for (const [key, fix] of Object.entries(rewrites)) rewriteKey(parts.json, key, fix);
  };
}

function networkSanitizers(): FuzzFixtures['sanitize'] {
  const sanitize: FuzzFixtures['sanitize'] = {};
  // Images by tag or digest: the registry is asked at once (tag) or by the analysis job (digest).
  sanitize.add_image = bodyKeys({ pull_string: loopbackReference });
  // ?validate=true logs in to the registry.
  sanitize.create_registry = bodyKeys({ registry: loopbackRegistry });
  sanitize.update_registry = (parts) => {
    bodyKeys({ registry: loopbackRegistry })(parts);
    if (parts.pathParams.registry !== undefined) parts.pathParams.registry = String(loopbackRegistry(parts.pathParams.registry));
  };
  // The repository's tags are listed from its registry.
  sanitize.add_repository = (parts) => {
    parts.query = parts.query.map(([k, v]) => [k, k === 'repository' ? String(loopbackReference(v)) : v]);
    // Raw pieces are not rewritten: the one a client could mean as a repository (400 digits) would name Docker Hub.
    parts.rawQuery = parts.rawQuery.filter((piece) => !piece.startsWith('repository='));
  };
  for (const kind of ['webhook', 'slack', 'teams']) {
    for (const op of [`add_${kind}_configuration`, `update_${kind}_configuration`, `test_${kind}_configuration`]) sanitize[op] = bodyKeys({ url: loopbackUrl });
  }
  for (const op of ['add_smtp_configuration', 'update_smtp_configuration', 'test_smtp_configuration']) sanitize[op] = bodyKeys({ host: loopbackHost, port: closedPort });
  return sanitize;
}

// ---------------------------------------------------------------------------------------------------------------
// Fixtures: real resources, so valid-looking requests reach the handlers and the domain code

function ok(res: { status: number; text: string }, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(300);
}

function osvFeed(): string {
  return JSON.stringify({
    schema_version: '1.6.0',
    id: 'ALPINE-CVE-2099-0001',
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    aliases: ['CVE-2099-0001'],
    summary: 'fuzz fixture',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [{ package: { ecosystem: 'Alpine:v3.19', name: 'musl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.5-r0' }] }] }],
  });
}

const SYFT_SBOM = {
  artifacts: [
    {
      id: 'a1',
      name: 'musl',
      version: '1.2.4-r4',
      type: 'apk',
      foundBy: 'apk-db-cataloger',
      locations: [{ path: '/lib/apk/db/installed' }],
      licenses: ['MIT'],
      language: '',
      cpes: [],
      purl: 'pkg:apk/alpine/musl@1.2.4-r4?distro=alpine-3.19.1',
    },
  ],
  artifactRelationships: [],
  source: { type: 'image', target: { imageID: 'sha256:abc' } },
  distro: { name: 'alpine', version: '3.19.1', idLike: [] },
  descriptor: { name: 'syft', version: '0.98.0' },
  schema: { version: '16.0.0', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.0.json' },
};

async function createFixtures(): Promise<FuzzFixtures> {
  const url = server.url;
  const c = client(url);
  const values: Record<string, string[]> = {};
  const resources: string[][] = [];
  const add = (name: string, ...vs: Array<string | undefined>) => (values[name] ??= []).push(...vs.filter((v): v is string => typeof v === 'string'));

  // Accounts and users: one non-admin caller, and one whose password the self-service operation may change.
  ok(await json(url, 'POST', '/v2/accounts', { name: FUZZ_ACCOUNT, email: 'fuzz@example.com' }), 'account');
  for (const username of [FUZZ_USER, FUZZ_SELF])
    ok(await json(url, 'POST', `/v2/accounts/${FUZZ_ACCOUNT}/users`, { username, password: PASSWORD }), `user ${username}`);
  ok(await json(url, 'POST', '/v2/rbac-manager/roles/read-write/members', { username: FUZZ_USER, domain_name: FUZZ_ACCOUNT }), 'role');
  const selfKey = await json(url, 'POST', `/v2/accounts/${FUZZ_ACCOUNT}/users/${FUZZ_SELF}/api-keys`, { name: 'fuzz-self-key' });
  ok(selfKey, 'self key');
  const userKey = await json(url, 'POST', `/v2/accounts/${FUZZ_ACCOUNT}/users/${FUZZ_USER}/api-keys`, { name: 'fuzz-user-key' });
  ok(userKey, 'user key');
  ok(await json(url, 'POST', '/v2/user/api-keys', { name: 'fuzz-admin-key' }), 'admin key');
  add('account_name', 'admin', FUZZ_ACCOUNT);
  add('domain_name', 'admin', FUZZ_ACCOUNT);
  add('for_account', FUZZ_ACCOUNT);
  add('username', 'admin', FUZZ_USER, FUZZ_SELF);
  add('password', PASSWORD);
  add('key_name', 'fuzz-admin-key', 'fuzz-self-key', 'fuzz-user-key');
  add('role_name', 'read-only', 'read-write', 'full-control', 'account-user-admin', 'image-analyzer', 'policy-editor', 'report-admin');
  add('role', 'read-write');
  resources.push(
    ['accounts', FUZZ_ACCOUNT, 'users', FUZZ_USER, 'api-keys', 'fuzz-user-key'],
    ['accounts', FUZZ_ACCOUNT, 'users', FUZZ_SELF, 'api-keys', 'fuzz-self-key'],
    ['accounts', 'admin', 'users', 'admin', 'api-keys', 'fuzz-admin-key'],
    ['user', 'api-keys', 'fuzz-admin-key'],
    ['rbac-manager', 'roles', 'read-write'],
    ['rbac-manager', 'users', FUZZ_USER],
  );

  // Notification configurations of every kind, each with a selector matching every event of the account, made
  // before the image below so its events queue notifications (deliveries, failing on the closed port).
  const configurations: Record<string, unknown> = {
    webhook: { url: `http://${CLOSED}/hook`, description: 'fuzz' },
    slack: { url: `https://${CLOSED}/services/x` },
    teams: { url: `https://${CLOSED}/webhook/x` },
    smtp: { host: '127.0.0.1', port: 9, from: 'vigil@example.com', to: 'ops@example.com', use_tls: false },
  };
  const selector = { scope: 'account', event: { level: '*', resource_type: '*', type: '*' } };
  const configurationUuids: Record<string, string> = {};
  for (const [kind, body] of Object.entries(configurations)) {
    const created = await json(url, 'POST', `/v2/notifications/endpoints/${kind}/configurations`, body);
    ok(created, `${kind} configuration`);
    configurationUuids[kind] = created.json.uuid;
    const sel = await json(url, 'POST', `/v2/notifications/endpoints/${kind}/configurations/${created.json.uuid}/selectors`, selector);
    ok(sel, `${kind} selector`);
    add('uuid', created.json.uuid);
    resources.push(['notifications', 'endpoints', kind, 'configurations', created.json.uuid, 'selectors', sel.json.uuid]);
  }
  add('name', 'webhook', 'slack', 'teams', 'smtp');

  // A feed with one advisory for a package of the image, so the vulnerability routes have findings to show.
  const feed = osvFeed();
  const checksum = createHash('sha256').update(feed).digest('hex');
  ok(
    await raw(url, 'POST', `/v2/system/feeds/fuzzfeed?version=1&built=2024-01-01T00:00:00Z&checksum=${checksum}`, {
      headers: { 'content-type': 'application/octet-stream' },
      body: feed,
    }),
    'feed upload',
  );
  ok(await raw(url, 'POST', '/v2/system/feeds?wait=true'), 'feed sync');
  const feeds = await raw(url, 'GET', '/v2/system/feeds');
  // The uploaded source is a group of its dataset; its namespaces are its own groups.
  const source = feeds.json.flatMap((f: { groups: { name: string }[] }) => f.groups).find((g: { name: string }) => g.name === 'fuzzfeed');
  const groups: string[] = source.namespaces.map((g: { name: string }) => g.name);
  expect(groups.length).toBeGreaterThan(0);
  add('version', '1');
  add('built', '2024-01-01T00:00:00Z');
  add('checksum', checksum, `sha256:${checksum}`);
  add('namespace', ...groups);
  resources.push(...groups.map((g) => ['system', 'feeds', 'fuzzfeed', g]));

  // An analyzed image with a finding and an annotation.
  const image = await alpineImage('spec-fuzz');
  const tag = 'fuzz.local/fuzz/app:1';
  const added = await uploadArchive(url, image, tag);
  ok(added, 'image');
  const digest: string = added.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
  add('image_digests', digest);
  add('tag', tag);
  add('full_tag', tag);
  add('affected_package', 'musl');
  add('vulnerability_id', 'CVE-2099-0001', 'ALPINE-CVE-2099-0001');
  add('id', 'CVE-2099-0001', 'ALPINE-CVE-2099-0001');
  const annotation = await json(url, 'POST', `/v2/images/${digest}/vuln-annotations`, { vulnerability_id: 'CVE-2099-0001', status: 'not_affected', justification: 'component_not_present' });
  ok(annotation, 'annotation');
  resources.push(['images', digest, 'vuln-annotations', annotation.json.annotation.uuid]);
  for (const type of ['os', 'files', 'java', 'python', 'npm', 'gem', 'go', 'binary']) resources.push(['images', digest, 'content', type]);
  for (const type of ['manifest', 'dockerfile', 'docker_history']) resources.push(['images', digest, 'metadata', type]);
  for (const type of ['os', 'non-os', 'all']) resources.push(['images', digest, 'vuln', type]);

  // The image's events queued notifications: their ids.
  for (const [kind, uuid] of Object.entries(configurationUuids)) {
    const deliveries = await raw(url, 'GET', `/v2/notifications/endpoints/${kind}/configurations/${uuid}/deliveries`);
    ok(deliveries, `${kind} deliveries`);
    for (const d of deliveries.json.items.slice(0, 2)) resources.push(['notifications', 'endpoints', kind, 'configurations', uuid, 'deliveries', d.notification_id]);
  }

  // Policies.
  const policies = await c.GET('/policies', { params: { query: { detail: true } } });
  const active = policies.data!.find((p) => p.active)!;
  resources.push(['policies', active.policy_id]);
  const policyDocument = active.policy!;

  // Subscriptions, registries, imports.
  const sub = await json(url, 'POST', '/v2/subscriptions', { subscription_key: `${CLOSED}/fuzz/app:1`, subscription_type: 'vuln_update' });
  ok(sub, 'subscription');
  resources.push(['subscriptions', sub.json[0].subscription_id]);
  add('subscription_key', `${CLOSED}/fuzz/app:1`);
  ok(await json(url, 'POST', '/v2/registries', { registry: `${CLOSED}/fuzz`, registry_user: 'u', registry_pass: 'p' }), 'registry');
  resources.push(['registries', `${CLOSED}/fuzz`]);
  const operation = await raw(url, 'POST', '/v2/imports/images');
  ok(operation, 'import operation');
  resources.push(['imports', 'images', operation.json.uuid]);

  // Runtime inventory.
  const [ns, node, pod] = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333'];
  // Reported now: objects last seen longer ago than the inventory TTL are gone before the next read.
  const reportedAt = new Date().toISOString();
  const inventory = (cluster: string) => ({
    cluster_name: cluster,
    timestamp: reportedAt,
    namespaces: [{ uid: ns, name: 'web', labels: { team: 'web' } }],
    nodes: [{ uid: node, name: 'node-1' }],
    pods: [{ uid: pod, name: 'web-1', namespace_uid: ns, node_uid: node }],
    containers: [{ id: 'containerd://web1', name: 'app', image_tag: tag, image_digest: digest, pod_uid: pod }],
  });
  ok(await json(url, 'POST', '/v2/kubernetes-inventory', inventory('fuzz-cluster')), 'inventory');
  resources.push(['kubernetes-namespaces', ns], ['kubernetes-nodes', node], ['kubernetes-pods', pod]);
  add('cluster_name', 'fuzz-cluster');
  add('context', 'fuzz-cluster/web', 'fuzz-cluster');
  const ecsInventory = {
    cluster_arn: 'arn:aws:ecs:eu-west-1:123456789012:cluster/fuzz',
    timestamp: reportedAt,
    services: [{ arn: 'arn:aws:ecs:eu-west-1:123456789012:service/fuzz/web' }],
    tasks: [{ arn: 'arn:aws:ecs:eu-west-1:123456789012:task/fuzz/1', service_arn: 'arn:aws:ecs:eu-west-1:123456789012:service/fuzz/web' }],
    containers: [{ arn: 'arn:aws:ecs:eu-west-1:123456789012:container/fuzz/1', task_arn: 'arn:aws:ecs:eu-west-1:123456789012:task/fuzz/1', image_tag: tag }],
  };

  const events = await raw(url, 'GET', '/v2/events?limit=3');
  for (const e of events.json.results) resources.push(['events', e.generated_uuid]);

  // Each real path parameter is also a valid value of its parameter on its own.
  for (const op of specOperations())
    for (const example of resourceExamples(op, resources)) for (const [name, value] of Object.entries(example)) if (!values[name]?.includes(value)) add(name, value);

  const archive = await dockerArchiveTar(image, { repoTags: [tag] });
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return {
    values,
    resources,
    adminAuthorization: authHeader(adminAuth).authorization,
    // Never the administrator by another credential: its own password change would lock the test out.
    otherAuthorizations: [basic(FUZZ_USER, PASSWORD), authHeader({ apiKey: userKey.json.value }).authorization],
    // The caller's own password change would lock the administrator out: it runs as a throwaway user (by API key,
    // which a password change leaves working).
    authorizationOverrides: { add_credential: authHeader({ apiKey: selfKey.json.value }).authorization },
    exampleBodies: {
      add_policy: [policyDocument, { ...policyDocument, id: 'fuzz-policy' }],
      dry_run_policy: [policyDocument],
      update_policy: [{ policy: policyDocument, active: false }],
      vulnerability_scan_sbom: [SYFT_SBOM],
      import_image_packages: [SYFT_SBOM],
      // Another cluster than the fixture's: a report replaces its cluster's objects.
      post_kubernetes_inventory: [inventory('fuzz-cluster-2')],
      post_ecs_inventory: [ecsInventory],
      add_image: [{ source: { tag: { pull_string: `${CLOSED}/fuzz/app:2` } } }, { source: { digest: { pull_string: `${CLOSED}/fuzz/app@${digest}`, tag: `${CLOSED}/fuzz/app:3` } } }],
      create_image_vuln_annotation: [
        { annotation: { vulnerability_id: 'CVE-2099-0001', status: 'affected' }, package_identifier: { name: 'musl', version: '1.2.4-r1', type: 'apk' } },
        { vulnerability_id: 'CVE-2099-0001', status: 'affected', package_name: 'musl' },
      ],
      add_role_user: [{ username: FUZZ_SELF, domain_name: FUZZ_ACCOUNT }],
      add_subscription: [{ subscription_key: `${CLOSED}/fuzz/app:1`, subscription_type: 'policy_eval' }],
      create_registry: [{ registry: `${CLOSED}/other`, registry_user: 'u', registry_pass: 'p' }],
      ...Object.fromEntries(Object.entries(configurations).flatMap(([kind, body]) => [`add_${kind}_configuration`, `update_${kind}_configuration`, `test_${kind}_configuration`].map((op) => [op, [body]]))),
      ...Object.fromEntries(['webhook', 'slack', 'teams', 'smtp'].flatMap((kind) => [`add_${kind}_selector`, `update_${kind}_selector`].map((op) => [op, [selector]]))),
    },
    exampleUploads: {
      add_image_archive: [{ contentType: 'application/x-tar', body: archive }],
      upload_system_feed: [{ contentType: 'application/octet-stream', body: Buffer.from(feed) }],
    },
    sanitize: networkSanitizers(),
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** Deletions last, so the resources the other operations find are still there when they run. */
function runOrder(ops: FuzzOperation[]): FuzzOperation[] {
  return [...ops.filter((o) => o.method !== 'DELETE'), ...ops.filter((o) => o.method === 'DELETE')];
}

beforeAll(async () => {
  guard = installLoopbackGuard();
  server = await startTestServer({
    // Nothing in the background reaches out on its own: no tag watches, no analysis of reported running images.
    VIGIL_WATCH_INTERVAL_SECONDS: '0',
    VIGIL_INVENTORY_ANALYZE: 'false',
    VIGIL_FEED_SYNC_ON_START: 'false',
    VIGIL_REGISTRY_TIMEOUT_SECONDS: '5',
  });
  fixtures = await createFixtures();
  expect(guard.take()).toEqual([]);
}, 120_000);

afterAll(async () => {
  if (process.env.VIGIL_FUZZ_STATS)
    for (const [op, counts] of statusCounts)
      console.log(`${op.padEnd(48)} ${[...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}x${n}`).join(' ')}`);
  agent.destroy();
  await server?.close();
  guard?.uninstall();
});

describe(`spec fuzz (seed ${SEED}, ${RUNS} runs per operation)`, () => {
  it('runs with the loopback guard in force (a connection or look-up elsewhere is refused before it is made)', async () => {
    // 192.0.2.1 is TEST-NET-1 and .invalid never resolves: nothing could be reached even without the guard.
    const connectError = await new Promise<Error>((resolve) => net.connect(9, '192.0.2.1').on('error', resolve));
    expect(connectError.message).toMatch(/loopback guard refused connect 192\.0\.2\.1:9/);
    await expect(dns.promises.lookup('vigil-fuzz.invalid')).rejects.toThrow(/loopback guard refused lookup/);
    expect(guard.take()).toEqual(['connect 192.0.2.1:9', 'lookup vigil-fuzz.invalid']);
  });

  for (const op of runOrder(specOperations())) {
    it(`${op.operationId}: ${op.method} ${op.template}`, async () => {
      const seed = operationSeed(SEED, op.operationId);
      try {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(op, fixtures), async (req) => {
            fc.pre(!wouldLockOutTheTest(req));
            checkAnswer(req, await send(req));
          }),
          { seed, numRuns: RUNS },
        );
      } catch (err) {
        // The same requests again (after the other operations' requests, which change the server's state):
        (err as Error).message += `\nrerun: VIGIL_FUZZ_SEED=${SEED} VIGIL_FUZZ_RUNS=${RUNS} npx vitest run test/security/spec-fuzz.test.ts`;
        throw err;
      }
    }, 300_000);
  }

  it('leaves a live server that still serves the administrator, and nothing left loopback', async () => {
    const health = await raw(server.url, 'GET', '/v2/health', { auth: null });
    expect(health.status).toBe(200);
    const account = await client(server.url).GET('/account');
    expect(account.response.status).toBe(200);
    expect(account.data!.name).toBe('admin');
    expect(guard.take()).toEqual([]);
  });
});
