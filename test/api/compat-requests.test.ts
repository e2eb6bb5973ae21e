/**
 * Drop-in compatibility of requests (issue 15), checked in the pipeline for every operation alike:
 * - query enums upstream declares as free strings (`x-case-insensitive` in the spec) match in any case, while the
 *   enums upstream declares too stay exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectValidationError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
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
