/**
 * A server with real report data: a two-record feed (curl Critical with a fix, openssl Medium without), three
 * analyzed images in the admin account and one in a second account. api:1.0 moved from oldApi to newApi, so
 * oldApi's mapping is historic. Analysis evaluates every tag with the active policy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CRITICAL_V3, MEDIUM_V3, osvRecord, writeRecords } from '../vulns/fixture-feed.js';
import { waitForAnalysis } from './analysis.js';
import { createUserWithRole, type TestUser } from './auth-fixtures.js';
import { DEBIAN_OS_RELEASE } from './ecosystem-fixtures.js';
import { raw, type Auth } from './http.js';
import { buildImage, dockerArchiveTar } from './image-builder.js';
import { startTestServer, type TestServer } from './server.js';

export const FETCHER = 'registry.example.com/team/fetcher:2.0';
export const FETCHER_LATEST = 'registry.example.com/team/fetcher:latest';
export const API = 'registry.example.com/team/api:1.0';
export const THEIRS = 'registry.example.com/other/app:1';

const dpkg = (name: string, version: string, source = name) =>
  `Package: ${name}\nStatus: install ok installed\nArchitecture: amd64\nSource: ${source}\nVersion: ${version}\nDescription: ${name}\n`;
const CURL = dpkg('curl', '7.88.1-10+deb12u5');
const SSL = dpkg('libssl3', '3.0.11-1~deb12u2', 'openssl');

export interface ReportFixture {
  server: TestServer;
  reader: TestUser;
  readerAuth: Auth;
  digests: { fetcher: string; oldApi: string; newApi: string; theirs: string };
  close(): Promise<void>;
}

async function addArchive(server: TestServer, status: string, tags: string[], salt: string, auth?: Auth): Promise<string> {
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: status }, { path: 'salt', content: salt }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    auth,
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: tags }),
  });
  expect(res.status).toBe(200);
  return res.json.image_digest;
}

export async function startReportServer(env: Record<string, string> = {}): Promise<ReportFixture> {
  const work = mkdtempSync(join(tmpdir(), 'vigil-reports-'));
  writeRecords(join(work, 'osv'), {
    'DSA-9100-1': osvRecord('DSA-9100-1', 'Debian:12', 'curl', [{ introduced: '0' }, { fixed: '7.88.1-10+deb12u6' }], {
      aliases: ['CVE-2099-9100'],
      severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }],
    }),
    'DSA-9200-1': osvRecord('DSA-9200-1', 'Debian:12', 'openssl', [{ introduced: '0' }], { aliases: ['CVE-2099-9200'], severity: [{ type: 'CVSS_V3', score: MEDIUM_V3 }] }),
  });
  // The refresh runs when a test asks (refreshReports), so what each test sees is deterministic.
  const server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}`, VIGIL_REPORTS_REFRESH_SECONDS: '3600', ...env });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  const reader = await createUserWithRole(server.url, { role: 'read-write' });
  const readerAuth: Auth = { basic: [reader.username, reader.password] };
  const digests = { fetcher: '', oldApi: '', newApi: '', theirs: '' };
  digests.fetcher = await addArchive(server, `${CURL}\n${SSL}`, [FETCHER, FETCHER_LATEST], 'fetcher');
  digests.oldApi = await addArchive(server, SSL, [API], 'old');
  for (const d of [digests.fetcher, digests.oldApi]) expect(await waitForAnalysis(server, 'admin', d)).toBe('analyzed');
  digests.newApi = await addArchive(server, CURL, [API], 'new');
  digests.theirs = await addArchive(server, CURL, [THEIRS], 'theirs', readerAuth);
  expect(await waitForAnalysis(server, 'admin', digests.newApi)).toBe('analyzed');
  expect(await waitForAnalysis(server, reader.account, digests.theirs)).toBe('analyzed');
  return {
    server,
    reader,
    readerAuth,
    digests,
    async close() {
      await server.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
