/**
 * Regressions found by the spec fuzz test (spec-fuzz.test.ts): requests the pipeline answered 500 or with a
 * status the operation did not declare. Every answer is validated against the spec by the raw() helper.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectValidationError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

describe('malformed requests', () => {
  it.each([
    ['GET', '/v2/user/api-keys/%FF'],
    ['GET', '/v2/images/%E0%A4%A/content/java'],
    ['DELETE', '/v2/accounts/%'],
    ['GET', '/v2/notifications/endpoints/slack/configurations/%ZZ/deliveries/x'],
  ])('answers 400 for a path parameter that is not valid percent-encoding: %s %s', async (method, path) => {
    const res = await raw(server.url, method, path);
    expectValidationError(res, ['path']);
    expect(res.json.message).toMatch(/not valid percent-encoded UTF-8/);
  });

  it('answers a token request without a body as an empty form: 400 naming the missing field', async () => {
    const res = await raw(server.url, 'POST', '/v2/oauth/token', { auth: null, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(res, 400, 'validation_error');
    expect(res.json.message).toMatch(/username/);
  });

  it('answers 400 for an import part sent as text without a body', async () => {
    const operation = await raw(server.url, 'POST', '/v2/imports/images');
    expect(operation.status).toBe(200);
    const res = await raw(server.url, 'POST', `/v2/imports/images/${operation.json.uuid}/dockerfile`, { headers: { 'content-type': 'text/plain' } });
    expectValidationError(res, ['body']);
  });

  // (page - 1) × limit is the query's OFFSET: past int64 the database failed (500), past 2^53 it was silently wrong.
  it.each([
    '/v2/kubernetes-containers?page=10000000000000000&page_size=1000',
    '/v2/kubernetes-pods?page=1e308',
    '/v2/events?page=10000000000000000&limit=1000',
    '/v2/summaries/image-tags?page=100000000000000000',
    '/v2/query/images/by-package?name=x&page=100000000000000000&limit=1000',
  ])('refuses a page number past the declared maximum with 400: %s', async (path) => {
    expectValidationError(await raw(server.url, 'GET', path), ['query.page']);
  });

  it('answers an empty page at the largest page number', async () => {
    const res = await raw(server.url, 'GET', '/v2/kubernetes-containers?page=2147483647&page_size=1000');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ items: [], page: 2147483647, next_page: false });
    const events = await raw(server.url, 'GET', '/v2/events?page=2147483647&limit=1000');
    expect(events.status, events.text).toBe(200);
    expect(events.json.results).toEqual([]);
  });

  // PostgreSQL stores no NUL in text or jsonb: these were 500s there (and stored on SQLite).
  it('refuses a NUL character in a query parameter, a body field or a body key with 400', async () => {
    const query = await raw(server.url, 'DELETE', '/v2/kubernetes-namespaces?cluster_name=a%00b');
    expectValidationError(query, ['query.cluster_name']);
    const field = await json(server.url, 'POST', '/v2/subscriptions', { subscription_key: 'registry.example.com/a:b\u0000', subscription_type: 'tag_update' });
    expectValidationError(field, ['body.subscription_key']);
    const operation = (await raw(server.url, 'POST', '/v2/imports/images')).json.uuid;
    const key = await json(server.url, 'POST', `/v2/imports/images/${operation}/image-config`, { config: { Labels: { ['x\u0000']: 'y' } } });
    expectValidationError(key, ['body.config.Labels.x\\u0000']);
  });

  describe('bodies with very many violations', () => {
    let operation: string;
    beforeAll(async () => {
      operation = (await raw(server.url, 'POST', '/v2/imports/images')).json.uuid;
    });
    const searches = (n: number) => `[${Array.from({ length: n }, () => '[]').join(',')}]`;

    it('lists at most 100 violations, and says how many there were', async () => {
      const res = await raw(server.url, 'POST', `/v2/imports/images/${operation}/secret-searches`, { headers: { 'content-type': 'application/json' }, body: searches(500) });
      expectError(res, 400, 'validation_error');
      expect(res.json.detail.errors).toHaveLength(100);
      expect(res.json.message).toMatch(/^request validation failed \(the first 100 of 500 listed\)/);
    });

    // Listing every violation of these held one error object per element (and overflowed the call stack: 500).
    it('reports a huge body with its first violation', async () => {
      const res = await raw(server.url, 'POST', `/v2/imports/images/${operation}/secret-searches`, { headers: { 'content-type': 'application/json' }, body: searches(300_000) });
      expectError(res, 400, 'validation_error');
      expect(res.json.detail.errors.length).toBeLessThanOrEqual(2);
    });

    it('reports a multi-megabyte inventory report of wrong elements with its first violation', async () => {
      const body = `{"cluster_name":"c","timestamp":"2024-01-01T00:00:00Z","namespaces":[${Array.from({ length: 2_000_000 }, () => '1').join(',')}]}`;
      const res = await raw(server.url, 'POST', '/v2/kubernetes-inventory', { headers: { 'content-type': 'application/json' }, body });
      expectError(res, 400, 'validation_error');
      expect(res.json.detail.errors.length).toBeLessThanOrEqual(2);
    });
  });

  it.each(['/v2', '/v2/health', '/v2/version', '/v2/openapi.json', '/v2/user', '/v2/user/credentials', '/v2/user/api-keys', '/v2/accounts/users', '/v2/rbac-manager/my-roles'])(
    'refuses an unknown query parameter with a declared 400 in the error shape: %s',
    async (path) => {
      const res = await raw(server.url, 'GET', `${path}?unknown_param=1`);
      expectValidationError(res, ['query.unknown_param']);
    },
  );
});
