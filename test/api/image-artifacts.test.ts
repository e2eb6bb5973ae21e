/**
 * What analysis reads out of file contents, through the artifacts routes: copies of the configured files, and the
 * secret and content searches with their line numbers (never the secrets themselves).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectError } from '../support/fixtures.js';
import { raw } from '../support/http.js';
import { buildImage, dockerArchiveTar, type FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\napp:x:1000:1000::/home/app:/bin/sh\n';
let server: TestServer;
let digest: string;

async function upload(layers: FileSpec[][], tag: string): Promise<string> {
  const image = await buildImage({ layers });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [tag] }) });
  expect(res.status).toBe(200);
  return res.json.image_digest;
}

beforeAll(async () => {
  server = await startTestServer({
    VIGIL_RETRIEVE_FILES: '/etc/passwd,/etc/app/app.conf',
    VIGIL_CONTENT_SEARCH_REGEXES: JSON.stringify({ PASSWORD: '(?i).*password *=.*' }),
  });
  digest = await upload(
    [
      [
        { path: 'etc/passwd', content: PASSWD },
        { path: 'etc/app/app.conf', content: 'listen=8080\npassword = hunter2\n' },
        { path: 'root/.aws/credentials', content: '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n' },
        { path: 'srv/old.pem', content: '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n' },
      ],
      [{ path: 'srv/.wh.old.pem' }],
    ],
    'registry.example.com/team/artifacts:1',
  );
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
});
afterAll(async () => {
  await server?.close();
});

describe('image artifacts', () => {
  it('lists the retrieved files, base64-encoded', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/artifacts/retrieved-files`);
    expect(res.status).toBe(200);
    expect(res.json.map((f: { path: string; b64_content: string }) => [f.path, Buffer.from(f.b64_content, 'base64').toString()])).toEqual([
      ['/etc/app/app.conf', 'listen=8080\npassword = hunter2\n'],
      ['/etc/passwd', PASSWD],
    ]);
  });

  it('lists where the secret search found secrets, without the secrets, and not in deleted files', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/artifacts/secret-search`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([{ path: '/root/.aws/credentials', matches: [{ name: 'AWS_ACCESS_KEY', regex: expect.any(String), lines: [2] }] }]);
    expect(JSON.stringify(res.json)).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('lists the content search matches of the configured expressions', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/artifacts/file-content-search`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([{ path: '/etc/app/app.conf', matches: [{ name: 'PASSWORD', regex: '(?i).*password *=.*', lines: [2] }] }]);
  });

  it('answers 400 for a malformed digest, 404 for an unknown image and 409 for one whose analysis failed', async () => {
    for (const kind of ['retrieved-files', 'secret-search', 'file-content-search']) {
      expectError(await raw(server.url, 'GET', `/v2/images/sha256:nothex/artifacts/${kind}`), 400);
      expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'0'.repeat(64)}/artifacts/${kind}`), 404);
    }
    const failed = await upload([[{ path: '../../escape', content: 'x' }]], 'registry.example.com/team/broken:1');
    expect(await waitForAnalysis(server, 'admin', failed)).toBe('analysis_failed');
    const res = await raw(server.url, 'GET', `/v2/images/${failed}/artifacts/secret-search`);
    expectError(res, 409);
    expect(res.json.detail.analysis_status).toBe('analysis_failed');
  });

  it('is scoped to the account: another account cannot see the image', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/artifacts/retrieved-files`, { headers: { 'x-service-account': 'nobody-here' } });
    expect([403, 404]).toContain(res.status);
  });
});
