import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertResponseMatchesSpec } from '../support/spec-validator.js';
import { missingTools } from '../support/tools.js';

let dir: string;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  server = await startTestServer({ VIGIL_TLS_CERT_FILE: join(dir, 'cert.pem'), VIGIL_TLS_KEY_FILE: join(dir, 'key.pem') });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missingTools('openssl'))('native TLS', () => {
  it('serves HTTPS with the configured certificate', async () => {
    expect(server.url.startsWith('https://')).toBe(true);
    const ca = readFileSync(join(dir, 'cert.pem'));
    const { status, type, body } = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      https
        .get(`${server.url}/v2/version`, { ca }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
        })
        .on('error', reject);
    });
    assertResponseMatchesSpec('GET', `${server.url}/v2/version`, status, type, body);
    expect(status).toBe(200);
    expect(JSON.parse(body).api.version).toBe('2');
  });
});
