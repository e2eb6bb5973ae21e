/**
 * The default feed set (`VIGIL_FEED_SOURCES=default`, `nvd`): its expansion into public sources, how it combines
 * with configured ones, and a feed of the set's shape (NVD's gzip JSON under its own path) fetched through the
 * guarded outbound client from a loopback mirror, then detected and read. No network: the public URLs are only
 * compared as text.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config.js';
import { OutboundPolicy } from '../../../../src/outbound/policy.js';
import { comparatorForEcosystem, MATCHED_ECOSYSTEMS } from '../../../../src/ecosystems/registry.js';
import { configuredSources } from '../../../../src/vulns/feeds.js';
import { defaultFeedSources, nvdFeedSources } from '../../../../src/vulns/sources/default-feeds.js';
import { detectFeedKind } from '../../../../src/vulns/sources/detect.js';
import { FeedFetchError } from '../../../../src/vulns/sources/errors.js';
import { fetchFeedSource } from '../../../../src/vulns/sources/fetch.js';
import { readNvdFeed } from '../../../../src/vulns/sources/nvd.js';
import { LOOPBACK_POLICY } from '../../../support/outbound.js';
import { nvdFeedGz, sampleCves } from '../../../vulns/fixture-nvd.js';

const OSV = 'https://osv-vulnerabilities.storage.googleapis.com';
const DEFAULT_SET = [
  { name: 'debian', location: `${OSV}/Debian/all.zip` },
  { name: 'ubuntu', location: `${OSV}/Ubuntu/all.zip` },
  { name: 'alpine', location: `${OSV}/Alpine/all.zip` },
  { name: 'wolfi', location: `${OSV}/Wolfi/all.zip` },
  { name: 'chainguard', location: `${OSV}/Chainguard/all.zip` },
  { name: 'red-hat', location: `${OSV}/Red%20Hat/all.zip` },
  { name: 'rocky-linux', location: `${OSV}/Rocky%20Linux/all.zip` },
  { name: 'almalinux', location: `${OSV}/AlmaLinux/all.zip` },
  { name: 'suse', location: `${OSV}/SUSE/all.zip` },
  { name: 'opensuse', location: `${OSV}/openSUSE/all.zip` },
  { name: 'mageia', location: `${OSV}/Mageia/all.zip` },
  { name: 'npm', location: `${OSV}/npm/all.zip` },
  { name: 'rubygems', location: `${OSV}/RubyGems/all.zip` },
  { name: 'pypi', location: `${OSV}/PyPI/all.zip` },
  { name: 'maven', location: `${OSV}/Maven/all.zip` },
  { name: 'go', location: `${OSV}/Go/all.zip` },
  { name: 'crates-io', location: `${OSV}/crates.io/all.zip` },
  { name: 'nuget', location: `${OSV}/NuGet/all.zip` },
  { name: 'packagist', location: `${OSV}/Packagist/all.zip` },
  { name: 'kev', location: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json' },
  { name: 'epss', location: 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz' },
];

describe('the default feed set', () => {
  it("is OSV's export of every ecosystem Vigil matches, then KEV and EPSS", () => {
    expect(defaultFeedSources()).toEqual(DEFAULT_SET);
    // Every ecosystem a package can be looked up in has its export in the set, and Vigil can order its versions.
    expect(MATCHED_ECOSYSTEMS.length).toBe(DEFAULT_SET.length - 2);
    for (const ecosystem of MATCHED_ECOSYSTEMS) expect(comparatorForEcosystem(ecosystem), ecosystem).toBeDefined();
  });

  it("adds NVD's yearly JSON 2.0 files on request, up to the current year", () => {
    const years = nvdFeedSources(new Date('2026-11-26T01:00:00Z'));
    expect(years).toHaveLength(2026 - 2002 + 1);
    expect(years[0]).toEqual({ name: 'nvd-2002', location: 'https://nvd.nist.gov/feeds/json/cve/2.0/nvdcve-2.0-2002.json.gz' });
    expect(years.at(-1)).toEqual({ name: 'nvd-2026', location: 'https://nvd.nist.gov/feeds/json/cve/2.0/nvdcve-2.0-2026.json.gz' });
  });

  it('is selected by VIGIL_FEED_SOURCES=default, combines with other sources, and a source of the same name replaces its member', () => {
    expect(loadConfig({ VIGIL_FEED_SOURCES: 'default' }).feeds.sources).toEqual(DEFAULT_SET);
    const combined = loadConfig({ VIGIL_FEED_SOURCES: 'default, debian=/mirror/Debian/all.zip,./default,nvd' }).feeds.sources;
    expect(combined.find((s) => s.name === 'debian')).toEqual({ name: 'debian', location: '/mirror/Debian/all.zip' });
    expect(combined.filter((s) => s.name === 'debian')).toHaveLength(1);
    expect(combined).toContainEqual({ name: null, location: resolve('default') });
    expect(combined).toContainEqual({ name: 'nvd-2024', location: 'https://nvd.nist.gov/feeds/json/cve/2.0/nvdcve-2.0-2024.json.gz' });
    expect(combined).toHaveLength(DEFAULT_SET.length + 1 + (new Date().getUTCFullYear() - 2002 + 1));
    // Named once each, so each has its own feed row, download directory and group.
    const names = configuredSources(combined).map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    // Entries only stand for a set when they are the word alone; the air-gapped path form is unchanged.
    expect(loadConfig({ VIGIL_FEED_SOURCES: '/mirror/osv/Debian/all.zip' }).feeds.sources).toEqual([{ name: null, location: '/mirror/osv/Debian/all.zip' }]);
    expect(loadConfig({ VIGIL_FEED_SOURCES: 'toString' }).feeds.sources).toEqual([{ name: null, location: resolve('toString') }]);
  });
});

describe('a feed of the set fetched through the outbound client', () => {
  let server: Server;
  let base: string;
  let dest: string;
  const body = nvdFeedGz(sampleCves());

  beforeAll(async () => {
    dest = await mkdtemp(join(tmpdir(), 'vigil-default-feeds-'));
    server = createServer((req, res) => {
      if (req.url === '/feeds/json/cve/2.0/nvdcve-2.0-2099.json.gz') res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': body.length }).end(body);
      else res.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await rm(dest, { recursive: true, force: true });
  });

  it("downloads NVD's gzip file under its own name, detected and read as NVD", async () => {
    const fetched = await fetchFeedSource(`${base}/feeds/json/cve/2.0/nvdcve-2.0-2099.json.gz`, { policy: LOOPBACK_POLICY, destDir: dest, maxBytes: 1_000_000, timeoutMs: 5_000 });
    if (fetched.notModified) throw new Error('expected a download');
    expect(fetched).toMatchObject({ bytes: body.length, path: join(dest, 'nvdcve-2.0-2099.json.gz') });
    expect(await detectFeedKind(fetched.path)).toBe('nvd');
    const read = readNvdFeed(fetched.path, { maxRecordBytes: 1 << 20 });
    const ids: string[] = [];
    for await (const entry of read.entries) ids.push(entry.cveId);
    expect(ids).toEqual(['CVE-2099-1001', 'CVE-2099-1002', 'CVE-2099-1003', 'CVE-2099-1004']);
  });

  it('is refused when the outbound policy does not allow the address', async () => {
    const err = await fetchFeedSource(`${base}/feeds/json/cve/2.0/nvdcve-2.0-2099.json.gz`, { policy: OutboundPolicy.parse(''), destDir: dest, maxBytes: 1_000_000, timeoutMs: 5_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FeedFetchError);
    expect((err as FeedFetchError).message).toMatch(/not allowed or did not answer/);
  });
});
