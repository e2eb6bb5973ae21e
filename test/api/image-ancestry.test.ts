/**
 * Image ancestry: images built on top of other analyzed images (their layers at the bottom) list those images as
 * ancestors, nearest first, with the base image chosen by the user's mark or by nearness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, type FileSpec } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

let server: TestServer;
let registry: TestRegistry;

const OS: FileSpec[] = [{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID=12\n' }];
const RUNTIME: FileSpec[] = [{ path: 'usr/lib/runtime.so', content: 'runtime' }];
const APP: FileSpec[] = [{ path: 'app/server', content: 'server', mode: 0o755 }];

/** Pushes an image with these layers and adds it by tag; resolves once it is analyzed. */
async function add(repo: string, layers: FileSpec[][], annotations: Record<string, string> = {}): Promise<string> {
  const image = await buildImage({ layers });
  await pushImage(registry.url, repo, 'latest', image);
  const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/${repo}:latest` } }, annotations });
  expect(res.status, res.text).toBe(200);
  expect(await waitForAnalysis(server, 'admin', res.json.image_digest)).toBe('analyzed');
  return res.json.image_digest;
}

const ancestors = async (digest: string) => {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/ancestors`);
  expect(res.status, res.text).toBe(200);
  return res.json as { image_digest: string; tags: string[]; layers: string[]; user_marked_base: boolean; chosen_base_image: boolean }[];
};

beforeAll(async () => {
  [server, registry] = await Promise.all([startTestServer(), startRegistry()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
});

describe.skipIf(missingTools('docker-registry'))('image ancestry', () => {
  let os: string;
  let runtime: string;
  let app: string;

  beforeAll(async () => {
    os = await add('base/os', [OS]);
    runtime = await add('base/runtime', [OS, RUNTIME]);
    app = await add('team/app', [OS, RUNTIME, APP]);
    await add('other/unrelated', [RUNTIME, APP]); // the same layers in another order share no base
  });

  it('lists the analyzed images whose layers are the bottom of the image, nearest first; the nearest is the base', async () => {
    const found = await ancestors(app);
    expect(found.map((a) => [a.image_digest, a.chosen_base_image, a.user_marked_base])).toEqual([
      [runtime, true, false],
      [os, false, false],
    ]);
    expect(found[0].tags).toEqual([`${registry.host}/base/runtime:latest`]);
    expect(found[0].layers).toHaveLength(2);
    expect(await ancestors(os)).toEqual([]);
  });

  it('prefers an ancestor the user marked as a base image', async () => {
    const marked = await add('base/os-marked', [OS, [{ path: 'etc/marked', content: 'golden image' }]], { 'anchore.user/marked_base_image': 'true' });
    const child = await add('team/on-marked', [OS, [{ path: 'etc/marked', content: 'golden image' }], RUNTIME, APP]);
    const found = await ancestors(child);
    expect(found.map((a) => [a.image_digest, a.chosen_base_image, a.user_marked_base])).toEqual([
      [marked, true, true],
      [os, false, false],
    ]);
  });

  it('drops an ancestor once it is deleted', async () => {
    const gone = await add('base/short-lived', [OS, [{ path: 'etc/short', content: 'lived' }]]);
    const child = await add('team/on-short-lived', [OS, [{ path: 'etc/short', content: 'lived' }], APP]);
    expect((await ancestors(child)).map((a) => a.image_digest)).toEqual([gone, os]);
    expect((await raw(server.url, 'DELETE', `/v2/images/${gone}?force=true`)).status).toBe(200);
    expect((await ancestors(child)).map((a) => a.image_digest)).toEqual([os]);
  });

  it('answers 400 for a malformed digest and 404 for an unknown image', async () => {
    expectError(await raw(server.url, 'GET', '/v2/images/sha256:nothex/ancestors'), 400);
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'0'.repeat(64)}/ancestors`), 404);
  });
});
