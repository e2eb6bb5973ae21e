import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedUploadCounts, waitForAnalysis } from '../support/analysis.js';
import { client, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar, ociLayoutTar, type FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

const ALPINE: FileSpec[] = [
  { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n' },
  {
    path: 'lib/apk/db/installed',
    content: 'C:Q1abc=\nP:musl\nV:1.2.4_git20230717-r4\nA:x86_64\nS:383152\nI:622592\nT:the musl c library\nL:MIT\no:musl\n\nC:Q1def=\nP:busybox\nV:1.36.1-r15\nA:x86_64\nL:GPL-2.0-only\no:busybox\n\n',
  },
];

beforeAll(async () => {
  server = await startTestServer({ VIGIL_MAX_UPLOAD_BYTES: '64kb' });
});
afterAll(async () => {
  await server?.close();
});

function upload(body: Buffer, query = '', type = 'application/x-tar') {
  return raw(server.url, 'POST', `/v2/images/archives${query}`, { headers: { 'content-type': type }, body });
}


describe('uploading an image archive', () => {
  it('analyzes a docker save tarball under its RepoTags and removes the upload afterwards', async () => {
    const image = await buildImage({ layers: [ALPINE] });
    const tar = await dockerArchiveTar(image, { repoTags: ['example.com/team/alpine:3.19'] });
    const res = await upload(tar);
    expect(res.status).toBe(200);
    expect(res.json.image_detail[0]).toMatchObject({ registry: 'example.com', repo: 'team/alpine', tag: '3.19' });
    expect(await waitForAnalysis(server, 'admin', res.json.image_digest)).toBe('analyzed');
    const os = await client(server.url).GET('/images/{image_digest}/content/{content_type}', {
      params: { path: { image_digest: res.json.image_digest, content_type: 'os' } },
    });
    expect(os.data?.content.map((p) => [p.package, p.version, p.origin, p.purl])).toEqual([
      ['busybox', '1.36.1-r15', 'busybox', 'pkg:apk/alpine/busybox@1.36.1-r15?arch=x86_64&distro=alpine-3.19.1'],
      ['musl', '1.2.4_git20230717-r4', 'musl', 'pkg:apk/alpine/musl@1.2.4_git20230717-r4?arch=x86_64&distro=alpine-3.19.1'],
    ]);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('analyzes a gzipped OCI layout under the tag given in the query', async () => {
    const image = await buildImage({ layers: [ALPINE], mediaTypes: 'oci' });
    const tar = gzipSync(await ociLayoutTar(image));
    const res = await upload(tar, '?tag=alpine:custom', 'application/gzip');
    expect(res.status).toBe(200);
    expect(res.json.image_digest).toBe(image.manifestDigest);
    expect(res.json.image_detail[0]).toMatchObject({ full_tag: 'docker.io/library/alpine:custom' });
    expect(await waitForAnalysis(server, 'admin', image.manifestDigest)).toBe('analyzed');
  });

  it('asks for a tag when the archive has none', async () => {
    const image = await buildImage({ layers: [ALPINE] });
    const res = await upload(await dockerArchiveTar(image, { omitRepoTags: true }));
    expect(res.status).toBe(400);
    expect(res.json.detail.errors[0].location).toBe('query.tag');
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('refuses uploads over the limit with 413 and keeps nothing', async () => {
    const res = await upload(Buffer.alloc(100 * 1024, 1));
    expect(res.status).toBe(413);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('refuses an empty body, garbage, and a wrong content type', async () => {
    expect((await upload(Buffer.alloc(0))).status).toBe(400);
    const garbage = await upload(Buffer.from('this is not a tar archive at all'.repeat(40)));
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
    expect(garbage.json.message).toBeTruthy();
    expect((await upload(Buffer.from('{}'), '', 'application/json')).status).toBe(415);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });
});
