/**
 * Runtime settings on two nodes of one database: a change made through one node is seen by the other at once, and
 * its logger follows at its next heartbeat. Two nodes need a shared PostgreSQL database (SQLite lives in one node's
 * data dir), so this runs where VIGIL_TEST_DATABASE_URL is set (vitest.config.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecsReport } from '../support/ecs-report.js';
import { client, json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BASE = '/v2/system/configurations';
const TTL = 'inventory.ttl_seconds';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('runtime settings on two nodes of one database', () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startTestServer({ VIGIL_HOST_ID: 'settings-other', VIGIL_DATABASE_URL: server.running.services.config.databaseUrl! });
  }, 60_000);
  afterAll(async () => {
    await other?.close();
  });

  it('shows a change made through one node on the other at once, and its logger follows at its next heartbeat', async () => {
    const put = await json(server.url, 'PUT', `${BASE}/log_level`, { key: 'log_level', value: 'fatal' });
    expect(put.status, put.text).toBe(200);
    expect((await client(other.url).GET('/system/configurations/{config_key}', { params: { path: { config_key: 'log_level' } } })).data).toMatchObject({ value: 'fatal', source: 'api' });
    await other.running.services.registry.beat();
    expect(other.running.services.log.level).toBe('fatal');

    const ttl = await json(server.url, 'PUT', `${BASE}/${TTL}`, { key: TTL, value: 60 });
    expect(ttl.status, ttl.text).toBe(200);
    const old = await json(other.url, 'POST', '/v2/ecs-inventory', ecsReport('other-node', 10));
    expect(old.status, old.text).toBe(400);

    for (const key of ['log_level', TTL]) expect((await raw(other.url, 'DELETE', `${BASE}/${key}`)).status).toBe(204);
    await server.running.services.registry.beat();
    expect(server.running.services.log.level).toBe('silent');
  });
});
