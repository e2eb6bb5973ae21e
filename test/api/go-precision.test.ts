/**
 * Go matching precision (issue 16, class 2), end to end: two images each holding a Go binary built here, one that
 * calls the vulnerable method `example.com/vulnlib/parser.(*Decoder).Decode` and one that does not, matched against
 * Go vulndb-shaped records (schema 1.3.1, SEMVER ranges, `database_specific.review_status`,
 * `ecosystem_specific.imports`):
 *
 *  - GO-2099-0001 (REVIEWED, HIGH) names the symbol `Decoder.Decode`: a finding only where the binary has it;
 *  - GO-2099-0002 (UNREVIEWED, no imports, critical CVSS): a finding in both images, `confidence: low`;
 *  - GO-2099-0003 (REVIEWED) names `net/http` `Server.Serve` in the standard library, which neither binary links.
 *
 * The API filters by confidence, and the default policy stops only on high-confidence findings above medium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { buildVulnlibBinaries, type VulnlibBinaries } from '../support/go-symbol-fixtures.js';
import { missingTools } from '../support/tools.js';
import { raw } from '../support/http.js';
import type { FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { writeRecords } from '../vulns/fixture-feed.js';


const CRITICAL_V3 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const WITH_TAG = 'registry.example.com/go/with-symbol:1';
const WITHOUT_TAG = 'registry.example.com/go/without-symbol:1';

/** A record as Go vulndb publishes it. */
function goRecord(id: string, module: string, fixed: string, o: { reviewed: boolean; imports?: { path: string; symbols?: string[] }[]; cvss?: string }) {
  return {
    schema_version: '1.3.1',
    id,
    modified: '2026-10-01T00:00:00Z',
    published: '2026-09-01T00:00:00Z',
    aliases: [`CVE-${id.slice(3)}`],
    summary: `Test advisory ${id} in ${module}`,
    details: `Details of ${id}.`,
    ...(o.cvss ? { severity: [{ type: 'CVSS_V3', score: o.cvss }] } : {}),
    affected: [
      {
        package: { name: module, ecosystem: 'Go' },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed }] }],
        ecosystem_specific: o.imports ? { imports: o.imports } : {},
      },
    ],
    references: [{ type: 'FIX', url: `https://example.com/fix/${id}` }],
    database_specific: { url: `https://pkg.go.dev/vuln/${id}`, review_status: o.reviewed ? 'REVIEWED' : 'UNREVIEWED' },
  };
}

const FEED = [
  goRecord('GO-2099-0001', 'example.com/vulnlib', '1.0.1', { reviewed: true, cvss: CRITICAL_V3, imports: [{ path: 'example.com/vulnlib/parser', symbols: ['Decoder.Decode'] }] }),
  goRecord('GO-2099-0002', 'example.com/vulnlib', '1.0.1', { reviewed: false, cvss: CRITICAL_V3 }),
  goRecord('GO-2099-0003', 'stdlib', '99.0.0', { reviewed: true, cvss: CRITICAL_V3, imports: [{ path: 'net/http', symbols: ['Server.Serve'] }] }),
];

let server: TestServer;
let binaries: VulnlibBinaries;
let work: string;
let withDigest: string;
let withoutDigest: string;

const appLayers = (binary: Buffer): FileSpec[][] => [[{ path: 'usr/local/bin/app', content: binary, mode: 0o755 }]];

interface Item {
  vuln: string;
  package_name: string;
  confidence?: string;
}

async function vulns(digest: string, query = ''): Promise<string[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all${query}`);
  expect(res.status).toBe(200);
  return (res.json.vulnerabilities as Item[]).map((v) => `${v.vuln} ${v.package_name} ${v.confidence}`).sort();
}

describe.skipIf(missingTools('go'))('Go advisories: confidence and symbol reachability', () => {
  beforeAll(async () => {
    binaries = buildVulnlibBinaries();
    work = mkdtempSync(join(tmpdir(), 'vigil-go-precision-'));
    writeRecords(join(work, 'osv'), Object.fromEntries(FEED.map((r) => [r.id, r])));
    server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
    const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
    expect(synced.json.status).toBe('done');
    withDigest = await analyzeArchiveImage(server, appLayers(binaries.withSymbol), WITH_TAG);
    withoutDigest = await analyzeArchiveImage(server, appLayers(binaries.withoutSymbol), WITHOUT_TAG);
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    binaries?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('reports the symbol-level advisory only for the binary that holds the symbol', async () => {
    expect(await vulns(withDigest)).toEqual(['GO-2099-0001 example.com/vulnlib high', 'GO-2099-0002 example.com/vulnlib low']);
    expect(await vulns(withoutDigest)).toEqual(['GO-2099-0002 example.com/vulnlib low']);
  });

  it('keeps the same verdicts when the findings are matched again (force_refresh)', async () => {
    expect(await vulns(withoutDigest, '?force_refresh=true')).toEqual(['GO-2099-0002 example.com/vulnlib low']);
    expect(await vulns(withDigest, '?force_refresh=true')).toEqual(['GO-2099-0001 example.com/vulnlib high', 'GO-2099-0002 example.com/vulnlib low']);
  });

  it('filters the listing by confidence', async () => {
    expect(await vulns(withDigest, '?confidence=low')).toEqual(['GO-2099-0002 example.com/vulnlib low']);
    expect(await vulns(withDigest, '?confidence=high')).toEqual(['GO-2099-0001 example.com/vulnlib high']);
    const bad = await raw(server.url, 'GET', `/v2/images/${withDigest}/vuln/all?confidence=medium`);
    expect(bad.status).toBe(400);
  });

  it('has the default policy stop on the reachable reviewed finding and only warn on the unreviewed one', async () => {
    const check = async (digest: string, tag: string) => {
      const res = await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(tag)}`);
      expect(res.status).toBe(200);
      return res.json.evaluations[0];
    };
    const withSymbol = await check(withDigest, WITH_TAG);
    expect(withSymbol.final_action).toBe('stop');
    const actions = (e: { details: { findings: { trigger_id: string; action: string; rule_id: string }[] } }) =>
      e.details.findings.filter((f) => f.trigger_id.startsWith('GO-')).map((f) => `${f.trigger_id.split('+')[0]} ${f.action} ${f.rule_id}`).sort();
    expect(actions(withSymbol)).toEqual(['GO-2099-0001 stop vulns-above-medium', 'GO-2099-0002 warn vulns-above-medium-low-confidence']);
    const withoutSymbol = await check(withoutDigest, WITHOUT_TAG);
    expect(actions(withoutSymbol)).toEqual(['GO-2099-0002 warn vulns-above-medium-low-confidence']);
    expect(withoutSymbol.final_action).toBe('warn');
  });

  it('raises the confidence when the feed marks the record reviewed, through the re-match after the sync', async () => {
    const reviewed = FEED.map((r) => (r.id === 'GO-2099-0002' ? { ...r, database_specific: { ...r.database_specific, review_status: 'REVIEWED' } } : r));
    writeRecords(join(work, 'osv'), Object.fromEntries(reviewed.map((r) => [r.id, r])));
    const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
    expect(synced.json.status).toBe('done');
    expect(await vulns(withoutDigest)).toEqual(['GO-2099-0002 example.com/vulnlib high']);
    expect(await vulns(withDigest)).toEqual(['GO-2099-0001 example.com/vulnlib high', 'GO-2099-0002 example.com/vulnlib high']);
  });
});
