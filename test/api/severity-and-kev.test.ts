/**
 * Severity where the feed gives no word, and the default policy's known-exploited rule, end to end: Debian records
 * that carry only a CVSS v3, v4 or v2 vector, or nothing but a CVE alias that an NVD file scores, are rated from
 * those; and the default policy stops an image on known-exploited (CISA KEV) findings of low and unknown severity,
 * while a low finding outside KEV passes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS } from '../support/ecosystem-fixtures.js';
import { raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { KEV_CATALOG, osvRecord, writeRecords } from '../vulns/fixture-feed.js';
import { nvdFeed, v31 } from '../vulns/fixture-nvd.js';

const TAG = 'registry.example.com/team/kev:1';
const LOW_V3 = 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N'; // 1.8
const MEDIUM_V4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:L/UI:N/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N'; // 5.3
const MEDIUM_V2 = 'AV:N/AC:M/Au:N/C:P/I:N/A:N'; // 4.3

let server: TestServer;
let work: string;
let digest: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-sev-kev-'));
  const debian = (id: string, source: string, o: Parameters<typeof osvRecord>[4]) => osvRecord(id, 'Debian:12', source, [{ introduced: '0' }], o);
  writeRecords(join(work, 'osv'), {
    // Only a CVSS v3 vector, rated Low by it; its CVE is known exploited.
    'DEBIAN-CVE-2099-0201': debian('DEBIAN-CVE-2099-0201', 'glibc', { aliases: ['CVE-2099-0201'], severity: [{ type: 'CVSS_V3', score: LOW_V3 }] }),
    // Nothing to rate it by; known exploited.
    'DEBIAN-CVE-2099-0202': debian('DEBIAN-CVE-2099-0202', 'util-linux', { aliases: ['CVE-2099-0202'] }),
    // No severity of its own; NVD scores its CVE Low; known exploited.
    'DEBIAN-CVE-2099-0203': debian('DEBIAN-CVE-2099-0203', 'zlib', { aliases: ['CVE-2099-0203'] }),
    // Only a v4 vector, only a v2 vector: Medium each (warn), not in KEV.
    'DEBIAN-CVE-2099-0204': debian('DEBIAN-CVE-2099-0204', 'util-linux', { severity: [{ type: 'CVSS_V4', score: MEDIUM_V4 }] }),
    'DEBIAN-CVE-2099-0205': debian('DEBIAN-CVE-2099-0205', 'zlib', { severity: [{ type: 'CVSS_V2', score: MEDIUM_V2 }] }),
    // Low and not exploited: no rule of the default policy takes it.
    'DEBIAN-CVE-2099-0206': debian('DEBIAN-CVE-2099-0206', 'glibc', { aliases: ['CVE-2099-0206'], databaseSpecific: { severity: 'low' } }),
  });
  writeFileSync(join(work, 'nvdcve-2.0-2099.json'), nvdFeed([{ id: 'CVE-2099-0203', v31: [v31('Primary', LOW_V3, 1.8, 'LOW')] }]));
  const kevEntry = (cveID: string) => ({ ...KEV_CATALOG.vulnerabilities[0]!, cveID });
  const kev = { ...KEV_CATALOG, count: 3, vulnerabilities: ['CVE-2099-0201', 'CVE-2099-0202', 'CVE-2099-0203'].map(kevEntry) };
  writeFileSync(join(work, 'kev.json'), JSON.stringify(kev));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')},nvd=${join(work, 'nvdcve-2.0-2099.json')},kev=${join(work, 'kev.json')}` });
  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.status).toBe('done');
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }, { path: 'var/lib/dpkg/status', content: DPKG_STATUS }]] });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [TAG] }) });
  expect(res.status).toBe(200);
  digest = res.json.image_digest as string;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('severity where the feed gives no word', () => {
  it('rates records by their CVSS vector, else by NVD scores of their CVE aliases', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/os`);
    expect(res.status).toBe(200);
    const found = (res.json.vulnerabilities as { vuln: string; package_name: string; severity: string; is_kev: boolean }[])
      .map((v) => `${v.vuln} ${v.package_name} ${v.severity}${v.is_kev ? ' kev' : ''}`)
      .sort();
    expect(found).toEqual([
      'DEBIAN-CVE-2099-0201 libc6 Low kev',
      'DEBIAN-CVE-2099-0202 libblkid1 Unknown kev',
      'DEBIAN-CVE-2099-0203 zlib1g Low kev',
      'DEBIAN-CVE-2099-0204 libblkid1 Medium',
      'DEBIAN-CVE-2099-0205 zlib1g Medium',
      'DEBIAN-CVE-2099-0206 libc6 Low',
    ]);
  });
});

describe('the default policy and known-exploited vulnerabilities', () => {
  it('stops on KEV findings of low and unknown severity, warns on medium ones, and leaves other low ones alone', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(TAG)}`);
    expect(res.status).toBe(200);
    const [evaluation] = res.json.evaluations;
    expect(evaluation).toMatchObject({ status: 'fail', final_action: 'stop', final_action_reason: 'policy_evaluation' });
    const vulnFindings = (evaluation.details.findings as { gate: string; trigger_id: string; action: string; rule_id: string; message: string }[])
      .filter((f) => f.gate === 'vulnerabilities')
      .map((f) => `${f.trigger_id} ${f.action} ${f.rule_id}`)
      .sort();
    expect(vulnFindings).toEqual([
      'DEBIAN-CVE-2099-0201+libc6 stop known-exploited',
      'DEBIAN-CVE-2099-0202+libblkid1 stop known-exploited',
      'DEBIAN-CVE-2099-0203+zlib1g stop known-exploited',
      'DEBIAN-CVE-2099-0204+libblkid1 warn vulns-medium',
      'DEBIAN-CVE-2099-0205+zlib1g warn vulns-medium',
    ]);
    const low = evaluation.details.findings.find((f: { trigger_id: string }) => f.trigger_id === 'DEBIAN-CVE-2099-0201+libc6');
    expect(low.message).toMatch(/^LOW Vulnerability found in os package type \(dpkg\) - libc6 /);
  });
});
