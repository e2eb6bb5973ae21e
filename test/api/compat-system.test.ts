/**
 * The upstream System operations Vigil adds for drop-in compatibility: error codes, the service registry
 * (heartbeats of the nodes sharing the database), statistics, deployment history, the webhook test, the
 * logging level and the resource limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { raw } from '../support/http.js';
import { createAccount, createUser } from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
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
