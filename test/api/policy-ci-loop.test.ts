/**
 * The loop a CI pipeline runs: push an image to a registry, add it by tag, wait for analysis, check it against
 * the active policy (fail, with findings), accept the risk with an allowlist item, check again (pass).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS, STATUS_D_LIBSSL3 } from '../support/ecosystem-fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { initialRecords, writeRecords } from '../vulns/fixture-feed.js';
import { missingTools } from '../support/tools.js';

let server: TestServer;
let registry: TestRegistry;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-ci-loop-'));
  writeRecords(join(work, 'osv'), initialRecords());
  [server, registry] = await Promise.all([startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` }), startRegistry()]);
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
});
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(missingTools('docker-registry'))('CI loop', () => {
  it('fails an image with a critical vulnerability, and passes it once the risk is allowlisted', async () => {
    const image = await buildImage({
      layers: [[
        { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
        { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
        { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
      ]],
    });
    await pushImage(registry.url, 'team/service', 'build-42', image);
    const tag = `${registry.host}/team/service:build-42`;
    const added = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: tag } } });
    expect(added.status).toBe(200);
    const digest = added.json.image_digest as string;
    expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');

    const check = async () => (await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(tag)}`)).json.evaluations[0];
    const failing = await check();
    expect(failing).toMatchObject({ status: 'fail', final_action: 'stop' });
    const stops = failing.details.findings.filter((f: { action: string; allowlisted: boolean }) => f.action === 'stop' && !f.allowlisted);
    expect(stops.map((f: { trigger_id: string }) => f.trigger_id)).toEqual(['DSA-9001-1+libssl3']);

    // Accept the risk: an allowlist item for the finding's trigger id in the active (default) policy.
    const current = (await raw(server.url, 'GET', '/v2/policies/vigil-default')).json.policy;
    const accepted = {
      ...current,
      allowlists: [{ id: 'accepted', name: 'Accepted risks', version: '2', items: [{ id: 'openssl-ticket-123', gate: 'vulnerabilities', trigger_id: stops[0].trigger_id }] }],
      mappings: current.mappings.map((m: { allowlist_ids: string[] }) => ({ ...m, allowlist_ids: ['accepted'] })),
    };
    expect((await json(server.url, 'PUT', '/v2/policies/vigil-default', { policy: accepted })).status).toBe(200);
    const passing = await check();
    expect(passing.status).toBe('pass');
    expect(passing.details.findings.find((f: { trigger_id: string }) => f.trigger_id === 'DSA-9001-1+libssl3')).toMatchObject({
      allowlisted: true,
      allowlist_match: { id: 'accepted', matched_rule_id: 'openssl-ticket-123' },
    });
  });
});
