/**
 * Drop-in compatibility of requests (issue 15), checked in the pipeline for every operation alike:
 * - query enums upstream declares as free strings (`x-case-insensitive` in the spec) match in any case, while the
 *   enums upstream declares too stay exact;
 * - unknown body properties that upstream's schemas accept are ignored (removed before the handler, so never
 *   stored, and named in a debug log line), while security-relevant objects refuse them.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { PASSWORD, expectValidationError, uniqueName } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { createAccount } from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
const logLines: Record<string, any>[] = [];

beforeAll(async () => {
  const logs = new PassThrough();
  let pending = '';
  logs.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) logLines.push(JSON.parse(line));
  });
  server = await startTestServer({}, { logs });
});
afterAll(async () => {
  await server?.close();
});

describe('query enums upstream leaves free are matched in any case', () => {
  beforeAll(async () => {
    // An INFO event (analysis started and completed) and an ERROR one (a registry lookup that fails).
    const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.18.4\n' }]] });
    const upload = await raw(server.url, 'POST', '/v2/images/archives', {
      headers: { 'content-type': 'application/x-tar' },
      body: await dockerArchiveTar(image, { repoTags: ['registry.example.com/compat/case:1'] }),
    });
    expect(upload.status, upload.text).toBe(200);
    expect(await waitForAnalysis(server, 'admin', upload.json.image_digest)).toBe('analyzed');
    const failed = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: '127.0.0.1:1/compat/missing:1' } } });
    expect(failed.status, failed.text).toBe(502);
  });

  it('lists and deletes events by level in any case', async () => {
    const levels = async (query: string) => {
      const res = await raw(server.url, 'GET', `/v2/events?${query}`);
      expect(res.status, res.text).toBe(200);
      return res.json.results.map((e: { event: { level: string } }) => e.event.level) as string[];
    };
    const info = await levels('level=info');
    expect(info.length).toBeGreaterThan(0);
    expect(new Set(info)).toEqual(new Set(['INFO']));
    expect(await levels('level=Info')).toEqual(info);
    const errors = await levels('level=error');
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors)).toEqual(new Set(['ERROR']));

    const deleted = await raw(server.url, 'DELETE', '/v2/events?level=eRRor');
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toHaveLength(errors.length);
    expect(await levels('level=ERROR')).toEqual([]);
    expect(await levels('level=INFO')).toEqual(info);
  });

  it('still refuses values that are not in the enum in any case', async () => {
    expectValidationError(await raw(server.url, 'GET', '/v2/events?level=warn'), ['query.level']);
    expectValidationError(await raw(server.url, 'GET', '/v2/subscriptions?subscription_type=tag-update'), ['query.subscription_type']);
  });

  it('matches subscription types, package types and inventory types in any case', async () => {
    for (const path of [
      '/v2/subscriptions?subscription_type=TAG_UPDATE',
      '/v2/query/images/by-package?name=musl&package_type=APK',
      '/v2/inventories?inventory_type=Kubernetes',
    ]) {
      const res = await raw(server.url, 'GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
  });

  it('keeps exact matching where upstream declares the enum too', async () => {
    expectValidationError(await raw(server.url, 'GET', '/v2/images?image_status=ACTIVE'), ['query.image_status']);
    expectValidationError(await raw(server.url, 'GET', '/v2/accounts?state=Enabled'), ['query.state']);
  });
});

/** The debug lines that name ignored properties, for the request with this id. */
function ignoredLogged(requestId: string | null): string[] {
  return logLines.filter((l) => l.msg === 'ignored request body properties the operation does not take' && l.req?.id === requestId).flatMap((l) => l.ignored_properties);
}

describe('unknown body properties', () => {
  it('ignores and logs those of a notification configuration and selector (refused before)', async () => {
    const res = await json(server.url, 'POST', '/v2/notifications/endpoints/webhook/configurations', {
      url: 'http://127.0.0.1:1/hook',
      description: 'compat',
      enabled: true,
      name: 'upstream-style',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).not.toHaveProperty('enabled');
    expect(res.json).not.toHaveProperty('name');
    expect(ignoredLogged(res.headers.get('x-request-id')).sort()).toEqual(['body.enabled', 'body.name']);
    const stored = await raw(server.url, 'GET', `/v2/notifications/endpoints/webhook/configurations/${res.json.uuid}`);
    expect(stored.json).toMatchObject({ description: 'compat' });
    expect(stored.json).not.toHaveProperty('name');

    const selector = await json(server.url, 'POST', `/v2/notifications/endpoints/webhook/configurations/${res.json.uuid}/selectors`, {
      scope: 'account',
      event: { level: 'error', resource_type: '*', type: '*', severity: 'high' },
      label: 'x',
    });
    expect(selector.status, selector.text).toBe(200);
    expect(selector.json.event).not.toHaveProperty('severity');
    expect(ignoredLogged(selector.headers.get('x-request-id')).sort()).toEqual(['body.event.severity', 'body.label']);
  });

  it('ignores those of a Kubernetes inventory report at any depth (refused before)', async () => {
    const res = await json(server.url, 'POST', '/v2/kubernetes-inventory', {
      cluster_name: 'compat',
      timestamp: new Date().toISOString(),
      agent_version: '1.7.0',
      namespaces: [{ uid: randomUUID(), name: 'default', owner: 'ops' }],
    });
    expect(res.status, res.text).toBe(201);
    expect(ignoredLogged(res.headers.get('x-request-id')).sort()).toEqual(['body.agent_version', 'body.namespaces.0.owner']);
  });

  it('never stores an ignored property of a document that is stored whole (a policy)', async () => {
    const doc = {
      id: 'compat-extra',
      name: 'Extra keys',
      version: '2',
      upstream_only: { note: 'dropped' },
      rule_sets: [{ id: 'rs1', name: 'Rules', version: '2', rules: [{ id: 'r1', gate: 'always', trigger: 'always', action: 'WARN', params: [], comment: 'dropped' }] }],
      mappings: [{ id: 'm1', name: 'All', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs1'], allowlist_ids: [] }],
    };
    const added = await json(server.url, 'POST', '/v2/policies', doc);
    expect(added.status, added.text).toBe(200);
    const stored = await raw(server.url, 'GET', '/v2/policies/compat-extra');
    expect(stored.json.policy).not.toHaveProperty('upstream_only');
    expect(stored.json.policy.rule_sets[0].rules[0]).not.toHaveProperty('comment');
    expect(stored.json.policy.rule_sets[0].rules[0]).toMatchObject({ id: 'r1', gate: 'always' });
    const row = await server.running.services.db('policies').where({ account_name: 'admin', policy_id: 'compat-extra' }).first();
    expect(JSON.stringify(row)).not.toContain('dropped');
  });

  it('refuses them on security-relevant objects, naming each', async () => {
    const account = await createAccount(server.url, 'compat');
    expectValidationError(await json(server.url, 'POST', '/v2/accounts', { name: uniqueName('acct'), emial: 'a@example.com' }), ['body.emial']);
    expectValidationError(await json(server.url, 'POST', `/v2/accounts/${account}/users`, { username: uniqueName('u'), password: PASSWORD, idp: 'x' }), ['body.idp']);
    expectValidationError(await json(server.url, 'POST', '/v2/user/api-keys', { name: uniqueName('k'), expires: '2099-01-01T00:00:00Z' }), ['body.expires']);
    expectValidationError(await json(server.url, 'POST', '/v2/user/credentials', { type: 'password', value: PASSWORD, user: 'admin' }), ['body.user']);
    expectValidationError(
      await json(server.url, 'POST', '/v2/rbac-manager/roles/read-only/members', { username: 'admin', domian_name: account }),
      ['body.domian_name'],
    );
    expectValidationError(
      await json(server.url, 'POST', '/v2/registries', { registry: 'registry.example.com', registry_user: 'u', registry_passwd: 'p' }),
      ['body.registry_passwd'],
    );
    expectValidationError(await json(server.url, 'PUT', `/v2/accounts/${account}/state`, { state: 'disabled', force: true }), ['body.force']);
  });
});
