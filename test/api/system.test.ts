import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { packageVersion } from '../../src/util/project.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('system routes', () => {
  it('answers ping at GET /v2 and GET /v2/ with the JSON string "v2", as upstream clients expect', async () => {
    for (const path of ['/v2', '/v2/']) {
      const res = await raw(server.url, 'GET', path, { auth: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(res.text).toBe('"v2"');
    }
  });

  it('reports health without credentials, as a JSON body with a JSON content type', async () => {
    const res = await raw(server.url, 'GET', '/v2/health', { auth: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(res.json).toEqual({ status: 'ok' });
  });

  it('answers the liveness and readiness probes without credentials', async () => {
    const live = await raw(server.url, 'GET', '/v2/health/live', { auth: null });
    expect(live.status).toBe(200);
    expect(live.json).toEqual({ status: 'ok' });
    const ready = await raw(server.url, 'GET', '/v2/health/ready', { auth: null });
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ok' });
  });

  it('is not ready while starting or shutting down, and says which check failed; liveness is unaffected', async () => {
    const { lifecycle } = server.running.services;
    try {
      lifecycle.started = false;
      const starting = await raw(server.url, 'GET', '/v2/health/ready', { auth: null });
      expect(starting.status).toBe(503);
      expect(starting.json).toMatchObject({ error_type: 'service_unavailable', message: 'not ready: the node is still starting' });
      expect(starting.json.detail.checks).toEqual({ started: false, stopping: false, database: true });
      lifecycle.started = true;
      lifecycle.stopping = true;
      const stopping = await raw(server.url, 'GET', '/v2/health/ready', { auth: null });
      expect(stopping.status).toBe(503);
      expect(stopping.json.message).toBe('not ready: the node is shutting down');
      expect((await raw(server.url, 'GET', '/v2/health/live', { auth: null })).status).toBe(200);
    } finally {
      lifecycle.started = true;
      lifecycle.stopping = false;
    }
  });

  it('reports versions', async () => {
    const { data, response } = await client(server.url, null).GET('/version');
    expect(response.status).toBe(200);
    expect(data?.service.version).toBe(packageVersion);
    expect(data?.api.version).toBe('2');
    expect(data?.db.schema_version).toMatch(/^\d{3}_/);
  });

  it('reports status and the service list to authenticated callers only', async () => {
    const c = client(server.url);
    const status = await c.GET('/status');
    expect(status.data?.up).toBe(true);
    const system = await c.GET('/system');
    // One registration per role this node runs, all alive (the registry itself: compat-system.test.ts).
    expect(system.data?.service_states.map((s) => s.service_name).sort()).toEqual([...server.running.services.registry.names].sort());
    expect(system.data?.service_states.every((s) => s.status && s.host_id === server.running.services.hostId)).toBe(true);
    expect((await raw(server.url, 'GET', '/v2/status', { auth: null })).status).toBe(401);
  });

  it('serves a valid Swagger 2.0 document whose version is the package version', async () => {
    const res = await raw(server.url, 'GET', '/v2/openapi.json', { auth: null });
    expect(res.status).toBe(200);
    expect(res.json.swagger).toBe('2.0');
    expect(res.json.basePath).toBe('/v2');
    expect(res.json.info.version).toBe(packageVersion);
    await expect(SwaggerParser.validate(res.json)).resolves.toBeTruthy();
  });

  it('serves Swagger UI from local assets', async () => {
    const page = await fetch(`${server.url}/v2/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${server.url}/v2/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    const init = await (await fetch(`${server.url}/v2/docs/swagger-initializer.js`)).text();
    expect(init).toContain('../openapi.json');
    const redirect = await fetch(`${server.url}/v2/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
  });
});

describe('errors', () => {
  it('answers 404 for a version-less path such as GET /images', async () => {
    const res = await raw(server.url, 'GET', '/images', { auth: null });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 404, error_type: 'not_found' });
    expect(res.json.message).toContain('/v2/images');
  });

  it('answers 404 for unknown routes under /v2, authenticated or not', async () => {
    for (const auth of [null, undefined]) {
      const res = await raw(server.url, 'GET', '/v2/no-such-thing', { auth });
      expect(res.status).toBe(404);
      expect(res.json.error_type).toBe('not_found');
    }
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const res = await raw(server.url, 'DELETE', '/v2/health', { auth: null });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.json.error_type).toBe('method_not_allowed');
  });

  it('answers malformed JSON with 400', async () => {
    const res = await raw(server.url, 'POST', '/v2/accounts', { headers: { 'content-type': 'application/json' }, body: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/not valid JSON/);
  });

  it('answers a wrong content type with 415', async () => {
    const res = await raw(server.url, 'POST', '/v2/accounts', { headers: { 'content-type': 'text/plain' }, body: 'name=x' });
    expect(res.status).toBe(415);
    expect(res.json.detail.accepted).toEqual(['application/json']);
  });

  it('answers an oversize body with 413', async () => {
    const body = JSON.stringify({ name: 'big', email: 'a'.repeat(2 * 1024 * 1024) });
    const res = await raw(server.url, 'POST', '/v2/accounts', { headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(413);
    expect(res.json.error_type).toBe('payload_too_large');
  });

  it('names every violation in a 400', async () => {
    const res = await raw(server.url, 'POST', '/v2/accounts', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bad name!', email: 'not-an-email', type: 'admin' }),
    });
    expect(res.status).toBe(400);
    const locations = res.json.detail.errors.map((e: { location: string }) => e.location).sort();
    expect(locations).toEqual(['body.email', 'body.name', 'body.type']);
  });

  it('echoes a valid incoming request id and replaces an invalid one', async () => {
    const mine = await raw(server.url, 'GET', '/v2/health', { auth: null, headers: { 'x-request-id': 'ci-run-42' } });
    expect(mine.headers.get('x-request-id')).toBe('ci-run-42');
    const bad = await raw(server.url, 'GET', '/v2/health', { auth: null, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const err = await raw(server.url, 'GET', '/images', { auth: null, headers: { 'x-request-id': 'trace-1' } });
    expect(err.json.detail.request_id).toBe('trace-1');
  });
});
