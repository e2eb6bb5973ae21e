/**
 * A registry on this machine over plain HTTP (`docker run -p 5000:5000 registry`, here Debian's docker-registry
 * on 127.0.0.1), with no allow-list at all: refused until an administrator configures it in the admin account with
 * `registry_verify: false`; then it is pulled from and analyzed. The configuration opens that host and port only,
 * and only for the admin account: another loopback port, a verified configuration and an ordinary account's
 * configuration still get the neutral refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { createAccount, createUser } from '../support/rbac-fixtures.js';
import { alpineImage, registryPath } from '../support/registry-fixtures.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

let server: TestServer;
let registry: TestRegistry;
/** A second registry on another loopback port, serving the same storage. */
let otherPort: TestRegistry;
let port: string;

beforeAll(async () => {
  if (missingTools('docker-registry')) return;
  // No VIGIL_OUTBOUND_ALLOW / VIGIL_REGISTRY_ALLOW: loopback is refused as on a fresh install.
  [server, registry] = await Promise.all([startTestServer({ VIGIL_OUTBOUND_ALLOW: '', VIGIL_REGISTRY_ALLOW: '' }), startRegistry()]);
  otherPort = await startRegistry({ storageDir: registry.storageDir });
  port = registry.host.split(':')[1]!;
  await pushImage(registry.url, 'team/app', '1', await alpineImage('loopback-registry'));
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close(), otherPort?.close()]);
});

const addByTag = (pullString: string, auth?: Parameters<typeof json>[4]) =>
  json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: pullString } } }, auth);

function expectRefused(res: Awaited<ReturnType<typeof addByTag>>, registryName: string): void {
  expectError(res, 502, 'registry_unreachable');
  expect(res.json.message).toBe(`cannot reach registry ${registryName}: the address is not allowed or did not answer`);
}

describe.skipIf(missingTools('docker-registry'))('a plain-HTTP registry on loopback', () => {
  it('is refused while no administrator has configured it, and when configured with TLS verification on', async () => {
    expectRefused(await addByTag(`localhost:${port}/team/app:1`), `localhost:${port}`);
    const verified = await json(server.url, 'POST', '/v2/registries', { registry: `localhost:${port}`, registry_verify: true });
    expect(verified.status, verified.text).toBe(200);
    expectRefused(await addByTag(`localhost:${port}/team/app:1`), `localhost:${port}`);
    expect((await raw(server.url, 'DELETE', registryPath(`localhost:${port}`))).status).toBe(204);
  });

  it('cannot be validated before it is configured: ?validate=true gets the neutral refusal and stores nothing', async () => {
    const res = await json(server.url, 'POST', '/v2/registries?validate=true', { registry: `localhost:${port}`, registry_verify: false });
    expectRefused(res, `localhost:${port}`);
    expect((await raw(server.url, 'GET', registryPath(`localhost:${port}`))).status).toBe(404);
  });

  it('is pulled and analyzed once the admin account configures it with registry_verify false', async () => {
    for (const name of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const created = await json(server.url, 'POST', '/v2/registries', { registry: name, registry_verify: false });
      expect(created.status, created.text).toBe(200);
      expect(created.json[0]).toMatchObject({ registry: name, registry_verify: false });
      const added = await addByTag(`${name}/team/app:1`);
      expect(added.status, added.text).toBe(200);
      expect(added.json.image_detail[0].full_tag).toBe(`${name}/team/app:1`);
      expect(await waitForAnalysis(server, 'admin', added.json.image_digest)).toBe('analyzed');
      const content = await raw(server.url, 'GET', `/v2/images/${added.json.image_digest}/content/os`);
      expect(content.json.content.map((p: { package: string }) => p.package).sort()).toEqual(['musl', 'zlib']);
    }
  });

  it('opens only the configured port', async () => {
    const other = otherPort.host.split(':')[1]!;
    expectRefused(await addByTag(`localhost:${other}/team/app:1`), `localhost:${other}`);
    expectRefused(await addByTag(`127.0.0.1:${other}/team/app:1`), `127.0.0.1:${other}`);
  });

  it("is refused to an ordinary account, whatever that account's own configuration says", async () => {
    const account = await createAccount(server.url, 'loopback');
    const user = await createUser(server.url, account, { roles: ['full-control'] });
    const created = await json(server.url, 'POST', '/v2/registries', { registry: `localhost:${port}`, registry_verify: false }, user.auth);
    expect(created.status, created.text).toBe(200);
    expectRefused(await addByTag(`localhost:${port}/team/app:1`, user.auth), `localhost:${port}`);
    expectRefused(await addByTag(`127.0.0.1:${port}/team/app:1`, user.auth), `127.0.0.1:${port}`);
  });
});
