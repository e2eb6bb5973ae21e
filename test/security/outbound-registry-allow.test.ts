/**
 * VIGIL_REGISTRY_ALLOW opens internal addresses to registry traffic only: the documented way to use an internal
 * registry. The same address stays refused for feed downloads (which follow VIGIL_OUTBOUND_ALLOW alone).
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { json, raw } from '../support/http.js';
import { closeServer, listenOnLoopback } from '../support/receivers.js';
import { startTestServer, type TestServer } from '../support/server.js';

let internal: http.Server;
let host: string;
let server: TestServer;
let requests = 0;

beforeAll(async () => {
  // An internal registry that wants credentials, also serving a file at /kev.json.
  internal = http.createServer((req, res) => {
    requests++;
    if (req.url?.startsWith('/v2/')) res.writeHead(401, { 'www-authenticate': 'Basic realm="internal"' }).end();
    else res.writeHead(200).end('{"vulnerabilities":[]}');
  });
  host = new URL(await listenOnLoopback(internal)).host;
  server = await startTestServer({
    VIGIL_OUTBOUND_ALLOW: '',
    VIGIL_REGISTRY_ALLOW: '127.0.0.1/32',
    VIGIL_FEED_SOURCES: `internal=http://${host}/kev.json`,
    VIGIL_FEED_SYNC_ON_START: 'false',
  });
});

afterAll(async () => {
  await server?.close();
  await closeServer(internal);
});

it('lets registry traffic reach the allowed internal registry, and nothing else', async () => {
  const validated = await json(server.url, 'POST', '/v2/registries?validate=true', { registry: host, registry_user: 'u', registry_pass: 'p', registry_verify: false });
  // the registry answered: its refusal of the credentials comes through as such
  expect(validated.status, validated.text).toBe(422);
  expect(validated.json.error_type).toBe('registry_unauthorized');
  const seenByRegistry = requests;
  expect(seenByRegistry).toBeGreaterThan(0);

  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.feeds).toEqual([{ feed: 'internal', status: 'failed', error: `cannot download http://${host}/kev.json: the address is not allowed or did not answer` }]);
  expect(requests).toBe(seenByRegistry);
});
