/**
 * NVD CVSS end to end: NVD 2.0 feed files as sources (a local plain file, and a gzip file downloaded from a loopback
 * mirror through the outbound client), listed under vulnerability_db with the namespace `nvd`; a Debian image whose
 * distro records carry no severity gets NVD's rating of their CVE aliases, a record with its own severity keeps it,
 * and `nvd_data` holds NVD's scores in the image listing and in GET /v2/query/vulnerabilities. A malformed file
 * fails its sync with a clear error and the previous scores keep serving.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS } from '../support/ecosystem-fixtures.js';
import { gql, refreshReports } from '../support/graphql.js';
import { raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { osvRecord, writeRecords } from '../vulns/fixture-feed.js';
import { CRITICAL_31, HIGH_31, HIGH_V2, LOW_V2, nvdFeed, nvdFeedGz, sampleCves, v2, v31 } from '../vulns/fixture-nvd.js';

let server: TestServer;
let mirror: Server;
let work: string;
let localNvd: string;
let digest: string;

const [first, ...rest] = sampleCves();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-nvd-api-'));
  const osvDir = join(work, 'osv');
  writeRecords(osvDir, {
    // Debian's own records: no severity of their own, a CVE alias each.
    'DEBIAN-CVE-2099-1001': osvRecord('DEBIAN-CVE-2099-1001', 'Debian:12', 'glibc', [{ introduced: '0' }], { aliases: ['CVE-2099-1001'] }),
    'DEBIAN-CVE-2099-1002': osvRecord('DEBIAN-CVE-2099-1002', 'Debian:12', 'util-linux', [{ introduced: '0' }], { aliases: ['CVE-2099-1002'] }),
    // The publisher's word wins over NVD's rating.
    'DEBIAN-CVE-2099-1003': osvRecord('DEBIAN-CVE-2099-1003', 'Debian:12', 'zlib', [{ introduced: '0' }], { aliases: ['CVE-2099-1003'], databaseSpecific: { severity: 'low' } }),
    // NVD has not scored it yet.
    'DEBIAN-CVE-2099-1005': osvRecord('DEBIAN-CVE-2099-1005', 'Debian:12', 'glibc', [{ introduced: '0' }], { aliases: ['CVE-2099-1005'] }),
  });
  localNvd = join(work, 'nvdcve-2.0-local.json');
  writeFileSync(localNvd, nvdFeed([first!]));
  const gz = nvdFeedGz(rest);
  mirror = createServer((req, res) => {
    if (req.url === '/feeds/json/cve/2.0/nvdcve-2.0-2099.json.gz') res.writeHead(200, { 'content-length': gz.length }).end(gz);
    else res.writeHead(404).end();
  });
  await new Promise<void>((done) => mirror.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/feeds/json/cve/2.0/nvdcve-2.0-2099.json.gz`;
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${osvDir},nvd-local=${localNvd},${url}` });
  await syncNow();
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: DPKG_STATUS }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: ['registry.example.com/team/nvd:1'] }) });
  expect(res.status).toBe(200);
  digest = res.json.image_digest as string;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
});
afterAll(async () => {
  await server?.close();
  mirror?.closeAllConnections();
  await new Promise((done) => mirror?.close(done));
  rmSync(work, { recursive: true, force: true });
});

async function syncNow() {
  const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('done');
  return res.json as { feeds: { feed: string; status: string; error?: string }[] };
}

interface Vuln {
  vuln: string;
  severity: string;
  nvd_data: unknown[];
}

async function findings(): Promise<Map<string, Vuln>> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/os`);
  expect(res.status).toBe(200);
  return new Map((res.json.vulnerabilities as Vuln[]).map((v) => [v.vuln, v]));
}

const NVD_1001 = {
  id: 'CVE-2099-1001',
  type: 'Primary',
  source: 'nvd@nist.gov',
  cvss_v3: { base_score: 9.8, exploitability_score: 3.9, impact_score: 5.9, vector_string: CRITICAL_31 },
  cvss_v2: { base_score: 7.5, exploitability_score: 10, impact_score: 6.4, vector_string: HIGH_V2 },
};

describe('NVD enrichment', () => {
  it('lists each NVD file as a source of vulnerability_db with the namespace nvd', async () => {
    const res = await raw(server.url, 'GET', '/v2/system/feeds');
    expect(res.status).toBe(200);
    const db = res.json.find((f: { name: string }) => f.name === 'vulnerability_db');
    const group = (name: string) => db.groups.find((g: { name: string }) => g.name === name);
    expect(group('nvd-local')).toMatchObject({ kind: 'nvd', record_count: 1, last_sync_status: 'ok', namespaces: [expect.objectContaining({ name: 'nvd', record_count: 1 })] });
    expect(group('nvdcve-2.0-2099')).toMatchObject({ kind: 'nvd', record_count: 3, last_sync_stats: expect.objectContaining({ read: 4, stored: 3, unscored: 1 }) });
    expect(res.json.map((f: { name: string }) => f.name)).not.toContain('nvd');
    expect((await raw(server.url, 'GET', '/v2/system/feeds/vulnerability_db')).json).toMatchObject({ data_format: 'nvd+osv' });
  });

  it("rates distro records without a severity by NVD's score of their CVE, and fills nvd_data", async () => {
    const found = await findings();
    expect(found.get('DEBIAN-CVE-2099-1001')).toMatchObject({ severity: 'Critical', nvd_data: [NVD_1001] });
    // Only a v2 score: NVD's v2 scale.
    expect(found.get('DEBIAN-CVE-2099-1002')).toMatchObject({
      severity: 'Low',
      nvd_data: [{ id: 'CVE-2099-1002', type: 'Primary', source: 'nvd@nist.gov', cvss_v2: { base_score: 2.1, vector_string: LOW_V2 } }],
    });
    // Debian says low; NVD has only a CNA's (Secondary) score, shown as such.
    expect(found.get('DEBIAN-CVE-2099-1003')).toMatchObject({
      severity: 'Low',
      nvd_data: [{ id: 'CVE-2099-1003', type: 'Secondary', source: 'security-advisories@github.com', cvss_v3: { base_score: 7.5, vector_string: HIGH_31 } }],
    });
    expect(found.get('DEBIAN-CVE-2099-1005')).toMatchObject({ severity: 'Unknown', nvd_data: [] });
  });

  it('answers the same in GET /v2/query/vulnerabilities, by record id and by CVE alias', async () => {
    const byId = await raw(server.url, 'GET', '/v2/query/vulnerabilities?id=DEBIAN-CVE-2099-1001');
    expect(byId.status).toBe(200);
    expect(byId.json.vulnerabilities).toEqual([expect.objectContaining({ id: 'DEBIAN-CVE-2099-1001', severity: 'Critical', nvd_data: [NVD_1001] })]);
    const byAlias = await raw(server.url, 'GET', '/v2/query/vulnerabilities?id=CVE-2099-1002');
    expect(byAlias.json.vulnerabilities).toEqual([expect.objectContaining({ id: 'DEBIAN-CVE-2099-1002', severity: 'Low' })]);
  });

  it('fails the sync of a malformed NVD file with a clear error, and keeps serving the previous scores', async () => {
    const whole = nvdFeed([first!]);
    writeFileSync(localNvd, whole.slice(0, whole.length - 40));
    try {
      const outcome = await syncNow();
      const failed = outcome.feeds.find((f) => f.feed === 'nvd-local');
      expect(failed).toMatchObject({ status: 'failed' });
      expect(failed!.error).toMatch(/^nvd .*nvdcve-2\.0-local\.json: .*(ends inside element|closing "\}")/);
      const res = await raw(server.url, 'GET', '/v2/system/feeds');
      const group = res.json.flatMap((f: { groups: { name: string }[] }) => f.groups).find((g: { name: string }) => g.name === 'nvd-local');
      expect(group).toMatchObject({ kind: 'nvd', last_sync_status: 'failed', last_sync_error: failed!.error, record_count: 1, namespaces: [expect.objectContaining({ name: 'nvd', record_count: 1 })] });
      expect((await findings()).get('DEBIAN-CVE-2099-1001')).toMatchObject({ severity: 'Critical', nvd_data: [NVD_1001] });
    } finally {
      writeFileSync(localNvd, whole);
    }
    expect((await syncNow()).feeds.find((f) => f.feed === 'nvd-local')).toMatchObject({ status: 'ok' });
  });

  it('brings NVD ratings into the reports, also to records they already showed without one', async () => {
    const severities = async () => {
      await refreshReports(server);
      const res = await gql(server, '{ imagesByVulnerability(limit: 100) { results { vulnerabilityId severity } } }');
      expect(res.errors).toBeUndefined();
      return Object.fromEntries((res.data.imagesByVulnerability.results as { vulnerabilityId: string; severity: string }[]).map((r) => [r.vulnerabilityId, r.severity]));
    };
    expect(await severities()).toEqual({ 'DEBIAN-CVE-2099-1001': 'Critical', 'DEBIAN-CVE-2099-1002': 'Low', 'DEBIAN-CVE-2099-1003': 'Low', 'DEBIAN-CVE-2099-1005': 'Unknown' });
    // NVD scores CVE-2099-1005 later; the Debian record itself does not change.
    const whole = nvdFeed([first!]);
    writeFileSync(localNvd, nvdFeed([first!, { id: 'CVE-2099-1005', v31: [v31('Primary', HIGH_31, 7.5, 'HIGH')] }]));
    try {
      expect((await syncNow()).feeds.find((f) => f.feed === 'nvd-local')).toMatchObject({ status: 'ok' });
      expect(await severities()).toMatchObject({ 'DEBIAN-CVE-2099-1005': 'High', 'DEBIAN-CVE-2099-1001': 'Critical' });
      expect((await findings()).get('DEBIAN-CVE-2099-1005')).toMatchObject({ severity: 'High' });
    } finally {
      writeFileSync(localNvd, whole);
    }
    await syncNow();
    expect((await findings()).get('DEBIAN-CVE-2099-1005')).toMatchObject({ severity: 'Unknown', nvd_data: [] });
  });

  it('takes an NVD gzip file uploaded without a name (air-gapped); deleting the source removes its scores', async () => {
    const body = nvdFeedGz([{ id: 'CVE-2099-1005', v2: [v2('Primary', HIGH_V2, 7.5, 'HIGH')] }]);
    const checksum = createHash('sha256').update(body).digest('hex');
    const res = await raw(server.url, 'POST', `/v2/system/feeds/nvd-upload?version=2099.3&built=2099-03-01T03:00:00Z&checksum=${checksum}`, {
      headers: { 'content-type': 'application/octet-stream' },
      body,
    });
    expect(res.status).toBe(202);
    expect((await syncNow()).feeds.find((f) => f.feed === 'nvd-upload')).toMatchObject({ status: 'ok', kind: 'nvd' });
    expect((await findings()).get('DEBIAN-CVE-2099-1005')).toMatchObject({
      severity: 'High',
      nvd_data: [{ id: 'CVE-2099-1005', type: 'Primary', source: 'nvd@nist.gov', cvss_v2: { base_score: 7.5, vector_string: HIGH_V2 } }],
    });
    expect((await raw(server.url, 'DELETE', '/v2/system/feeds/vulnerability_db/nvd-upload')).status).toBe(200);
    expect((await findings()).get('DEBIAN-CVE-2099-1005')).toMatchObject({ severity: 'Unknown', nvd_data: [] });
    expect((await findings()).get('DEBIAN-CVE-2099-1001')).toMatchObject({ severity: 'Critical' });
  });
});
