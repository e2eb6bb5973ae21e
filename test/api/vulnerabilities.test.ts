/**
 * Vulnerabilities end to end: feeds configured by VIGIL_FEED_SOURCES (OSV directory, KEV, EPSS) and synced
 * through the API, images uploaded and analyzed by the worker, their findings with fix state, severity, KEV and
 * EPSS, re-matching after a feed update (with the vuln_update diff event), a failed sync leaving the data
 * serving, feed administration, annotations and VEX exports, the vulnerability query and the SBOM scan.
 */
import { writeFileSync, mkdtempSync, rmSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS, STATUS_D_LIBSSL3, installedGemspec, mavenJar, requestsMetadata, wheelMetadata } from '../support/ecosystem-fixtures.js';
import { expectError, expectValidationError, accountWithUser } from '../support/fixtures.js';
import { raw, json } from '../support/http.js';
import { buildImage, dockerArchiveTar, type FileSpec } from '../support/image-builder.js';
import { cycloneDxJsonErrors, cycloneDxXmlErrors } from '../support/cyclonedx-schema.js';
import { missingTools } from '../support/tools.js';
import { validateOpenVex } from '../support/openvex-schema.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { EPSS_CSV, KEV_CATALOG, initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

let server: TestServer;
let work: string;
let osvDir: string;
let debianDigest: string;
let alpineDigest: string;
const DEBIAN_TAG = 'registry.example.com/team/vulns:1';

const dist = 'usr/lib/python3/dist-packages';
function debianLayers(): FileSpec[][] {
  return [
    [
      { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
      { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
      { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
    ],
    [
      { path: `${dist}/requests-2.28.1.dist-info/METADATA`, content: requestsMetadata('2.28.1') },
      {
        path: `${dist}/urllib3-1.26.12.dist-info/METADATA`,
        content: wheelMetadata({ name: 'urllib3', version: '1.26.12', summary: 'HTTP library', license: 'MIT', classifiers: [] }),
      },
      { path: 'app/node_modules/lodash/package.json', content: JSON.stringify({ name: 'lodash', version: '4.17.20', license: 'MIT' }) },
      {
        path: 'usr/lib/ruby/gems/3.1.0/specifications/rack-2.2.6.gemspec',
        content: installedGemspec({ name: 'rack', version: '2.2.6', licenses: ['MIT'], authors: ['Leah Neukirchen'], homepage: 'https://github.com/rack/rack', summary: 'rack' }),
      },
      {
        path: 'opt/app/log4j-core-2.14.1.jar',
        content: mavenJar({ groupId: 'org.apache.logging.log4j', artifactId: 'log4j-core', version: '2.14.1', manifest: { 'Implementation-Version': '2.14.1' } }),
      },
    ],
  ];
}

const APK_INSTALLED = ['busybox', 'ssl_client']
  .map((name) => `C:Q1${name}=\nP:${name}\nV:1.36.1-r1\nA:x86_64\nS:1000\nI:2000\nT:${name}\nU:https://busybox.net/\nL:GPL-2.0-only\no:busybox\n`)
  .join('\n');

async function uploadImage(layers: FileSpec[][], tag: string): Promise<string> {
  const image = await buildImage({ layers });
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: [tag] }),
  });
  expect(res.status).toBe(200);
  const digest = res.json.image_digest as string;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
  return digest;
}

async function syncNow(query = '') {
  const res = await raw(server.url, 'POST', `/v2/system/feeds?wait=true${query}`);
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('done');
  return res.json;
}

interface Vuln {
  vuln: string;
  package_name: string;
  package_version: string;
  package_type: string;
  fix: string;
  severity: string;
  will_not_fix: boolean;
  is_kev: boolean;
  matched_by: string;
  confidence: string;
  epss: { epss: number; percentile: number }[];
  detected_at: string;
  fix_observed_at: string | null;
  feed_group: string;
  annotation_status?: string;
  description?: string;
}

async function vulns(digest: string, type = 'all', query = ''): Promise<Vuln[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/${type}${query}`);
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ image_digest: digest, vulnerability_type: type });
  return res.json.vulnerabilities;
}

const summary = (list: Vuln[]) => list.map((v) => `${v.vuln} ${v.package_name} fix=${v.fix} ${v.severity}${v.will_not_fix ? ' wont-fix' : ''}`).sort();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-vuln-api-'));
  osvDir = join(work, 'osv');
  writeRecords(osvDir, initialRecords());
  writeFileSync(join(work, 'kev.json'), JSON.stringify(KEV_CATALOG));
  writeFileSync(join(work, 'epss.csv'), EPSS_CSV);
  server = await startTestServer({
    VIGIL_FEED_SOURCES: `osv=${osvDir},kev=${join(work, 'kev.json')},epss=${join(work, 'epss.csv')}`,
  });
  // The start-up sync is queued; an identical request waits for that same job.
  await syncNow();
  debianDigest = await uploadImage(debianLayers(), DEBIAN_TAG);
  alpineDigest = await uploadImage(
    [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.18.4\nPRETTY_NAME="Alpine Linux v3.18"\n' }, { path: 'lib/apk/db/installed', content: APK_INSTALLED }]],
    'registry.example.com/team/alpine:3.18',
  );
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A source as the feed listing shows it: a group of its dataset, with its namespaces. */
async function sourceGroup(name: string) {
  const res = await raw(server.url, 'GET', '/v2/system/feeds');
  expect(res.status).toBe(200);
  return res.json.flatMap((f: { groups: unknown[] }) => f.groups).find((g: { name: string }) => g.name === name);
}

describe('feeds', () => {
  it("lists the feeds under upstream's names, one group per source, each with its namespaces", async () => {
    const res = await raw(server.url, 'GET', '/v2/system/feeds');
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.json.map((f: { name: string }) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual(['epss_db', 'kev_db', 'vulnerability_db']);
    for (const feed of res.json) {
      // Upstream's string fields are strings when present, never null.
      for (const field of ['version', 'dataset_checksum', 'data_service_built_at', 'enterprise_received_at', 'updated_at', 'last_full_sync'])
        expect(feed[field] === undefined || typeof feed[field] === 'string').toBe(true);
      expect(feed).toMatchObject({ dataset_name: feed.name, enabled: true, version: expect.any(String), enterprise_received_at: expect.any(String) });
    }
    expect(byName.vulnerability_db.groups.map((g: { name: string }) => g.name)).toEqual(['osv']);
    const osv = byName.vulnerability_db.groups[0];
    expect(osv).toMatchObject({ kind: 'osv', configured: true, enabled: true, last_sync_status: 'ok', source: osvDir, record_count: 11 });
    const namespaces = Object.fromEntries(osv.namespaces.map((g: { name: string; record_count: number }) => [g.name, g.record_count]));
    // Withdrawn records (PYSEC-2099-7) are kept but index nothing, so groups do not count them.
    expect(namespaces).toEqual({ 'alpine:3.18': 1, 'debian:11': 1, 'debian:12': 4, maven: 1, npm: 1, pypi: 2, rubygems: 1 });
    expect(byName.kev_db.groups).toEqual([expect.objectContaining({ name: 'kev', kind: 'kev', record_count: 2, namespaces: [expect.objectContaining({ name: 'kev', record_count: 2 })] })]);
    expect(byName.epss_db.groups).toEqual([expect.objectContaining({ name: 'epss', kind: 'epss', record_count: 2 })]);
    // Configured sources declare no version: a dataset's version is when its newest data was received.
    expect(byName.vulnerability_db.version).toBe(osv.enterprise_received_at);
  });

  it('answers GET /system/feeds/vulnerability_db?version with the dataset record the listing describes', async () => {
    const listed = (await raw(server.url, 'GET', '/v2/system/feeds')).json.find((f: { name: string }) => f.name === 'vulnerability_db');
    const res = await raw(server.url, 'GET', `/v2/system/feeds/vulnerability_db?version=${encodeURIComponent(listed.version)}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: 'vulnerability_db',
      name: 'vulnerability_db',
      dataset: 'vulnerability_db',
      data_format: 'osv',
      version: listed.version,
      enterprise_received_at: listed.enterprise_received_at,
      created_at: listed.created_at,
      updated_at: listed.updated_at,
    });
    expectError(await raw(server.url, 'GET', '/v2/system/feeds/vulnerability_db?version=5'), 404, 'not_found');
    expect((await raw(server.url, 'GET', '/v2/system/feeds/kev_db')).json).toMatchObject({ name: 'kev_db', data_format: 'kev' });
    // A source by its own name is still a feed, its namespaces its groups.
    expect((await raw(server.url, 'PUT', '/v2/system/feeds/kev?enabled=true')).json).toMatchObject({ name: 'kev', groups: [expect.objectContaining({ name: 'kev' })] });
  });

  it('toggles a source as a group of its dataset, and a dataset as a whole', async () => {
    const off = await raw(server.url, 'PUT', '/v2/system/feeds/epss_db/epss?enabled=false');
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ name: 'epss', enabled: false, record_count: 2, namespaces: [expect.objectContaining({ name: 'epss' })] });
    expect((await sourceGroup('epss')).enabled).toBe(false);
    expect((await raw(server.url, 'PUT', '/v2/system/feeds/epss_db?enabled=true')).json).toMatchObject({ name: 'epss_db', enabled: true, groups: [expect.objectContaining({ name: 'epss', enabled: true })] });
    expectError(await raw(server.url, 'PUT', '/v2/system/feeds/kev_db/osv?enabled=false'), 404, 'not_found');
    expectError(await raw(server.url, 'DELETE', '/v2/system/feeds/vulnerability_db/nope'), 404, 'not_found');
  });

  it('answers 404 for unknown feeds and groups, and 400 for bad names and flags', async () => {
    expectError(await raw(server.url, 'GET', '/v2/system/feeds/nope'), 404, 'not_found');
    expectError(await raw(server.url, 'PUT', '/v2/system/feeds/osv/nope:1?enabled=false'), 404, 'not_found');
    expectValidationError(await raw(server.url, 'PUT', '/v2/system/feeds/osv'), ['query.enabled']);
    expectValidationError(await raw(server.url, 'PUT', '/v2/system/feeds/osv?enabled=maybe'), ['query.enabled']);
    expectValidationError(await raw(server.url, 'GET', '/v2/system/feeds/Not%20A%20Name'), ['path.feed']);
    expect((await raw(server.url, 'GET', '/v2/system/feeds/osv')).json).toMatchObject({ id: 'osv', name: 'osv', data_format: 'osv' });
    expectError(await raw(server.url, 'GET', '/v2/system/feeds/osv?version=7'), 404, 'not_found');
  });

  it('lets only administrators sync or change feeds; any user may list them', async () => {
    const user = await accountWithUser(server.url, ['read-write']);
    const auth = user.auth;
    expect((await raw(server.url, 'GET', '/v2/system/feeds', { auth })).status).toBe(200);
    expectError(await raw(server.url, 'POST', '/v2/system/feeds', { auth }), 403, 'forbidden');
    expectError(await raw(server.url, 'PUT', '/v2/system/feeds/osv?enabled=false', { auth }), 403, 'forbidden');
    expectError(await raw(server.url, 'DELETE', '/v2/system/feeds/osv', { auth }), 403, 'forbidden');
  });
});

describe('image vulnerabilities', () => {
  it('lists the vulnerability types of an analyzed image', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(['os', 'non-os', 'all']);
  });

  it('reports every fixture match with fix state and severity, by source package and window', async () => {
    expect(summary(await vulns(debianDigest))).toEqual([
      'DEBIAN-CVE-2099-0002 libc6 fix=None Low',
      'DSA-9001-1 libssl3 fix=3.0.13-1~deb12u1 Critical',
      'DSA-9004-1 libblkid1 fix=2.38.1-6 Medium',
      'GHSA-lodash-0008 lodash fix=4.17.21 High',
      'GHSA-log4j-0010 log4j-core fix=2.15.0 Critical',
      'GHSA-rack-0009 rack fix=None Unknown',
      'PYSEC-2099-6 requests fix=2.31.0 Medium',
    ]);
    expect(summary(await vulns(debianDigest, 'os')).map((s) => s.split(' ')[0])).toEqual(['DEBIAN-CVE-2099-0002', 'DSA-9001-1', 'DSA-9004-1']);
    expect(summary(await vulns(debianDigest, 'non-os')).map((s) => s.split(' ')[0])).toEqual(['GHSA-lodash-0008', 'GHSA-log4j-0010', 'GHSA-rack-0009', 'PYSEC-2099-6']);
    expect(summary(await vulns(alpineDigest))).toEqual(['ALPINE-CVE-2099-0005 busybox fix=1.36.1-r2 Unknown', 'ALPINE-CVE-2099-0005 ssl_client fix=1.36.1-r2 Unknown']);
  });

  it("shows won't-fix vulnerabilities only with vendor_only=false", async () => {
    const all = await vulns(debianDigest, 'os', '?vendor_only=false');
    expect(summary(all)).toContain('DEBIAN-CVE-2099-0003 zlib1g fix=None Unknown wont-fix');
  });

  it('carries KEV, EPSS, CVSS data, detection time and (on request) descriptions', async () => {
    const list = await vulns(debianDigest, 'all', '?include_vuln_description=true');
    const ssl = list.find((v) => v.vuln === 'DSA-9001-1')!;
    expect(ssl).toMatchObject({ is_kev: true, epss: [{ epss: 0.97, percentile: 0.999 }], feed: 'osv', feed_group: 'debian:12', description: 'Details of DSA-9001-1 for openssl.' });
    expect((ssl as unknown as { vendor_data: unknown[] }).vendor_data).toEqual([
      expect.objectContaining({ id: 'DSA-9001-1', cvss_v3: expect.objectContaining({ base_score: 9.8, exploitability_score: 3.9, impact_score: 5.9 }) }),
    ]);
    expect(ssl.fix_observed_at).toBe(ssl.detected_at);
    const requests = list.find((v) => v.vuln === 'PYSEC-2099-6')!;
    expect(requests).toMatchObject({ is_kev: false, epss: [{ epss: 0.0123, percentile: 0.456 }] });
    const libc = list.find((v) => v.vuln === 'DEBIAN-CVE-2099-0002')!;
    expect(libc.fix_observed_at).toBeNull();
    expect((await vulns(debianDigest)).every((v) => v.description === undefined)).toBe(true);
  });

  it('answers 400 for a bad type or flag, 404 for an unknown image', async () => {
    expectValidationError(await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln/everything`), ['path.vuln_type']);
    expectValidationError(await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln/all?vendor_only=perhaps`), ['query.vendor_only']);
    expectValidationError(await raw(server.url, 'GET', '/v2/images/sha256:xyz/vuln/all'), ['path.image_digest']);
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'0'.repeat(64)}/vuln/all`), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'0'.repeat(64)}/vuln`), 404, 'not_found');
  });
});

describe('feed updates', () => {
  it('re-matches affected images without re-analysis and records the diff for subscribed tags', async () => {
    const sub = await json(server.url, 'POST', '/v2/subscriptions', { subscription_type: 'vuln_update', subscription_key: DEBIAN_TAG });
    expect(sub.status).toBe(200);
    const before = await vulns(debianDigest);
    const libcBefore = before.find((v) => v.vuln === 'DEBIAN-CVE-2099-0002')!;

    const records = initialRecords();
    // glibc gets a fix, lodash's advisory goes away, urllib3 gets a new one.
    records['DEBIAN-CVE-2099-0002'] = osvRecord('DEBIAN-CVE-2099-0002', 'Debian:12', 'glibc', [{ introduced: '0' }, { fixed: '2.36-9+deb12u7' }], {
      aliases: ['CVE-2099-0002'],
      databaseSpecific: { severity: 'low' },
      modified: '2026-11-01T00:00:00Z',
    });
    delete records['GHSA-lodash-0008'];
    records['PYSEC-2099-12'] = osvRecord('PYSEC-2099-12', 'PyPI', 'urllib3', [{ introduced: '1.25.0' }, { fixed: '1.26.17' }]);
    writeRecords(osvDir, records);
    const analyzedAt = (await raw(server.url, 'GET', `/v2/images/${debianDigest}`)).json.analyzed_at;

    const outcome = await syncNow();
    expect(outcome.feeds.find((f: { feed: string }) => f.feed === 'osv')).toMatchObject({ status: 'ok', stats: expect.objectContaining({ inserted: 1, updated: 1, removed: 1 }) });
    expect(outcome.rematch).toMatchObject({ changed_images: 1, added: 1, updated: 1, removed: 1 });

    const after = await vulns(debianDigest);
    expect(summary(after)).toEqual([
      'DEBIAN-CVE-2099-0002 libc6 fix=2.36-9+deb12u7 Low',
      'DSA-9001-1 libssl3 fix=3.0.13-1~deb12u1 Critical',
      'DSA-9004-1 libblkid1 fix=2.38.1-6 Medium',
      'GHSA-log4j-0010 log4j-core fix=2.15.0 Critical',
      'GHSA-rack-0009 rack fix=None Unknown',
      'PYSEC-2099-12 urllib3 fix=1.26.17 Unknown',
      'PYSEC-2099-6 requests fix=2.31.0 Medium',
    ]);
    const libc = after.find((v) => v.vuln === 'DEBIAN-CVE-2099-0002')!;
    expect(libc.detected_at).toBe(libcBefore.detected_at);
    expect(libc.fix_observed_at).not.toBeNull();
    expect((await raw(server.url, 'GET', `/v2/images/${debianDigest}`)).json.analyzed_at).toBe(analyzedAt);

    const events = await raw(server.url, 'GET', '/v2/events?event_type=user.checks.tag.vulnerabilities.update');
    expect(events.status).toBe(200);
    const [event] = events.json.results;
    expect(event.event).toMatchObject({ type: 'user.checks.tag.vulnerabilities.update', resource: { type: 'image_tag', id: DEBIAN_TAG } });
    const diff = event.event.details.diff_vulnerability_result;
    expect(diff.added.map((d: { vuln: string }) => d.vuln)).toEqual(['PYSEC-2099-12']);
    expect(diff.updated.map((d: { vuln: string; fix: string }) => `${d.vuln} ${d.fix}`)).toEqual(['DEBIAN-CVE-2099-0002 2.36-9+deb12u7']);
    expect(diff.removed.map((d: { vuln: string }) => d.vuln)).toEqual(['GHSA-lodash-0008']);
    expect(event.event.details).toMatchObject({ subscription_type: 'vuln_update', image_digest: debianDigest });
    // The Alpine image was not touched and has no subscription: no event for it.
    expect(events.json.results).toHaveLength(1);

    const again = await syncNow();
    expect(again.rematch).toMatchObject({ images: 0, changed_images: 0 });
  });

  it('keeps serving the previous data when a sync fails, and says why', async () => {
    const before = summary(await vulns(debianDigest));
    const aside = `${osvDir}.aside`;
    renameSync(osvDir, aside);
    writeFileSync(osvDir, 'not a directory of records');
    try {
      const outcome = await syncNow();
      expect(outcome.feeds.find((f: { feed: string }) => f.feed === 'osv')).toMatchObject({ status: 'failed' });
      expect(summary(await vulns(debianDigest))).toEqual(before);
      const feed = await sourceGroup('osv');
      expect(feed.last_sync_status).toBe('failed');
      expect(feed.last_sync_error).toBeTruthy();
      expect(feed.namespaces.find((g: { name: string }) => g.name === 'debian:12').record_count).toBe(4);
    } finally {
      rmSync(osvDir, { force: true });
      renameSync(aside, osvDir);
    }
    expect((await syncNow()).feeds.find((f: { feed: string }) => f.feed === 'osv')).toMatchObject({ status: 'ok' });
  });

  it('stops matching a disabled group and matches it again once enabled', async () => {
    const off = await raw(server.url, 'PUT', '/v2/system/feeds/osv/debian:12?enabled=false');
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ name: 'debian:12', enabled: false });
    const without = await vulns(debianDigest, 'os', '?force_refresh=true');
    expect(without).toEqual([]);
    const on = await raw(server.url, 'PUT', '/v2/system/feeds/osv/debian:12?enabled=true');
    expect(on.json.enabled).toBe(true);
    expect((await vulns(debianDigest, 'os', '?force_refresh=true')).map((v) => v.vuln).sort()).toEqual(['DEBIAN-CVE-2099-0002', 'DSA-9001-1', 'DSA-9004-1']);
  });
});

describe('annotations and VEX', () => {
  const base = () => `/v2/images/${debianDigest}/vuln-annotations`;

  it('validates annotations and refuses a second one for the same target', async () => {
    expectError(await json(server.url, 'POST', base(), { vulnerability_id: 'DSA-9001-1', status: 'not_affected' }), 400, 'validation_error');
    expectValidationError(await json(server.url, 'POST', base(), { vulnerability_id: 'DSA-9001-1', status: 'maybe' }), ['body.status']);
    expectValidationError(await json(server.url, 'POST', base(), { status: 'affected' }), ['body.vulnerability_id']);
    expectError(await json(server.url, 'POST', base(), { vulnerability_id: 'X', status: 'affected', justification: 'component_not_present' }), 400, 'validation_error');
    expectError(await json(server.url, 'POST', `/v2/images/sha256:${'1'.repeat(64)}/vuln-annotations`, { vulnerability_id: 'X', status: 'affected' }), 404, 'not_found');
    const first = await json(server.url, 'POST', base(), { vulnerability_id: 'GHSA-rack-0009', status: 'affected', package_name: 'rack', action_statement: 'Upgrade rack' });
    expect(first.status).toBe(201);
    expectError(await json(server.url, 'POST', base(), { vulnerability_id: 'GHSA-rack-0009', status: 'fixed', package_name: 'rack' }), 409, 'conflict');
    expect((await raw(server.url, 'DELETE', `${base()}/${first.json.annotation.uuid}`)).status).toBe(204);
  });

  it("takes upstream's body {annotation, package_identifier} and answers in upstream's shape", async () => {
    const blkid = (await vulns(debianDigest)).find((v) => v.vuln === 'DSA-9004-1')!;
    const pkg = { name: blkid.package_name, version: blkid.package_version, type: blkid.package_type };
    const created = await json(server.url, 'POST', base(), {
      annotation: { vulnerability_id: 'DSA-9004-1', status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path', status_notes: 'no mounts' },
      package_identifier: pkg,
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      annotation: {
        uuid: expect.any(String),
        vulnerability_id: 'DSA-9004-1',
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        status_notes: 'no mounts',
        impact_statement: null,
        action_statement: null,
        additional_details: null,
        author: 'admin',
        version: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      package_identifier: pkg,
      image_digest: debianDigest,
    });
    const uuid = created.json.annotation.uuid;
    expect((await vulns(debianDigest)).find((v) => v.vuln === 'DSA-9004-1')).toMatchObject({ annotation_status: 'not_affected', annotation_uuid: uuid });
    expect((await raw(server.url, 'GET', `${base()}/${uuid}`)).json).toEqual(created.json);
    const listed = await raw(server.url, 'GET', `${base()}?vulnerability_id=DSA-9004-1`);
    expect(listed.json.items).toEqual([created.json]);
    // The same target again, in either form, is the same annotation.
    expectError(await json(server.url, 'POST', base(), { annotation: { vulnerability_id: 'DSA-9004-1', status: 'fixed' }, package_identifier: pkg }), 409, 'conflict');
    expectError(await json(server.url, 'POST', base(), { vulnerability_id: 'DSA-9004-1', status: 'fixed', package_name: pkg.name, package_version: pkg.version, package_type: pkg.type }), 409, 'conflict');
    expect((await raw(server.url, 'DELETE', `${base()}/${uuid}`)).status).toBe(204);

    // No package_identifier (or null): the whole image.
    const whole = await json(server.url, 'POST', base(), { annotation: { vulnerability_id: 'DSA-9004-1', status: 'affected' }, package_identifier: null });
    expect(whole.status).toBe(201);
    expect(whole.json.package_identifier).toBeNull();
    expect((await raw(server.url, 'DELETE', `${base()}/${whole.json.annotation.uuid}`)).status).toBe(204);

    // The two forms are not mixed, and the identifier takes only upstream's fields.
    expectValidationError(await json(server.url, 'POST', base(), { annotation: { vulnerability_id: 'X', status: 'affected' }, status: 'fixed' }), ['body.status']);
    expectValidationError(await json(server.url, 'POST', base(), { vulnerability_id: 'X', status: 'affected', package_identifier: pkg }), ['body.annotation']);
    expectValidationError(await json(server.url, 'POST', base(), { annotation: { status: 'affected' } }), ['body.annotation.vulnerability_id']);
    const extra = await json(server.url, 'POST', base(), { annotation: { vulnerability_id: 'X', status: 'affected' }, package_identifier: { ...pkg, arch: 'amd64' } });
    expectError(extra, 400, 'validation_error');
  });

  it('creates, reads, updates and deletes an annotation, and shows it on the vulnerability', async () => {
    const created = await json(server.url, 'POST', base(), {
      vulnerability_id: 'CVE-2099-0001',
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      package_name: 'libssl3',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      annotation: { vulnerability_id: 'CVE-2099-0001', status: 'not_affected', version: 1, author: 'admin' },
      package_identifier: { name: 'libssl3' },
      image_digest: debianDigest,
    });
    const uuid = created.json.annotation.uuid as string;
    // The annotation names the CVE; it applies to the Debian advisory that aliases it.
    const ssl = (await vulns(debianDigest)).find((v) => v.vuln === 'DSA-9001-1')!;
    expect(ssl).toMatchObject({ annotation_status: 'not_affected', annotation_uuid: uuid });

    const updated = await json(server.url, 'PUT', `${base()}/${uuid}`, { vulnerability_id: 'CVE-2099-0001', status: 'fixed', status_notes: 'patched in our build' });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ annotation: { status: 'fixed', version: 2 }, package_identifier: { name: 'libssl3' } });
    expect((await raw(server.url, 'GET', `${base()}/${uuid}`)).json.annotation.status).toBe('fixed');
    const listed = await raw(server.url, 'GET', `${base()}?package_name=libssl3`);
    expect(listed.json.items.map((a: { annotation: { uuid: string } }) => a.annotation.uuid)).toEqual([uuid]);
    expect((await raw(server.url, 'GET', `${base()}?package_name=nothing`)).json.items).toEqual([]);

    expect((await raw(server.url, 'DELETE', `${base()}/${uuid}`)).status).toBe(204);
    expectError(await raw(server.url, 'GET', `${base()}/${uuid}`), 404, 'not_found');
    expectError(await raw(server.url, 'DELETE', `${base()}/${uuid}`), 404, 'not_found');
    expectValidationError(await raw(server.url, 'GET', `${base()}/not-a-uuid`), ['path.vuln_annotation_uuid']);
  });

  it('exports OpenVEX and CycloneDX VEX with the annotations and the open findings', async () => {
    const created = await json(server.url, 'POST', base(), {
      vulnerability_id: 'GHSA-log4j-0010',
      status: 'not_affected',
      justification: 'vulnerable_code_not_present',
      impact_statement: 'JNDI lookups are removed from our build',
    });
    expect(created.status).toBe(201);
    const openvex = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vex/openvex`);
    expect(openvex.status).toBe(200);
    const valid = validateOpenVex(openvex.json);
    expect(validateOpenVex.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const statuses = Object.fromEntries(
      openvex.json.statements.map((s: { vulnerability: { name: string }; status: string }) => [s.vulnerability.name, s.status]),
    );
    expect(statuses).toMatchObject({ 'GHSA-log4j-0010': 'not_affected', 'DSA-9001-1': 'under_investigation' });

    const cdx = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vex/cyclonedx-json`);
    expect(cdx.status).toBe(200);
    expect(cdx.json).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5' });
    const log4j = cdx.json.vulnerabilities.find((v: { id: string }) => v.id === 'GHSA-log4j-0010');
    expect(log4j.analysis).toMatchObject({ state: 'not_affected', justification: 'code_not_present' });
    expectValidationError(await raw(server.url, 'GET', `/v2/images/${debianDigest}/vex/cyclonedx-json?spec_version=2.0`), ['query.spec_version']);
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'2'.repeat(64)}/vex/openvex`), 404, 'not_found');

    const xml = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vex/cyclonedx-xml`);
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(xml.text).toContain('<bom xmlns="http://cyclonedx.org/schema/bom/1.6"');
    expect(xml.text).toMatch(/<vulnerability bom-ref="[^"]+"><id>GHSA-log4j-0010<\/id>.*?<analysis><state>not_affected<\/state><justification>code_not_present<\/justification>/);
    if (!missingTools('xmllint')) expect(cycloneDxXmlErrors(xml.text, '1.6')).toEqual([]);
    const xml15 = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vex/cyclonedx-xml?spec_version=1.5`);
    if (!missingTools('xmllint')) expect(cycloneDxXmlErrors(xml15.text, '1.5')).toEqual([]);
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'2'.repeat(64)}/vex/cyclonedx-xml`), 404, 'not_found');
  });

  it('reports the vulnerabilities as CycloneDX 1.6 JSON and XML: components, affects, ratings, analysis from annotations', async () => {
    const created = await json(server.url, 'POST', base(), {
      annotation: { vulnerability_id: 'DSA-9001-1', status: 'affected', action_statement: 'rebuild on the next base image' },
      package_identifier: { name: 'libssl3' },
    });
    expect(created.status).toBe(201);
    const listed = await vulns(debianDigest, 'all');
    const res = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln/all/cyclonedx-json`);
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(cycloneDxJsonErrors(doc, '1.6')).toEqual([]);
    expect(doc).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6', metadata: { component: { type: 'container', version: debianDigest } } });
    // One entry per finding (grouped only when everything but the package agrees), each pointing at its package.
    const refs = new Set(doc.components.map((c: { 'bom-ref': string }) => c['bom-ref']));
    const affected = doc.vulnerabilities.flatMap((v: { id: string; affects: { ref: string }[] }) => v.affects.map((a) => `${v.id} ${a.ref}`)).sort();
    expect(affected).toEqual(listed.map((v) => `${v.vuln} ${(v as unknown as { purl: string }).purl}`).sort());
    for (const v of doc.vulnerabilities) for (const a of v.affects) expect(refs.has(a.ref)).toBe(true);
    // How each finding matched, as in the JSON listing.
    const matchOf = (v: { properties?: { name: string; value: string }[] }) => Object.fromEntries((v.properties ?? []).map((p) => [p.name, p.value]));
    const fromReport = doc.vulnerabilities.flatMap((v: { id: string; affects: { ref: string }[]; properties?: { name: string; value: string }[] }) => v.affects.map((a) => ({ key: `${v.id} ${a.ref}`, ...matchOf(v) })));
    const fromListing = listed.map((v) => ({ key: `${v.vuln} ${(v as unknown as { purl: string }).purl}`, 'vigil:finding:matched_by': v.matched_by, 'vigil:finding:confidence': v.confidence }));
    const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
    expect(fromReport.sort(byKey)).toEqual(fromListing.sort(byKey));
    const ssl = doc.vulnerabilities.find((v: { id: string }) => v.id === 'DSA-9001-1');
    expect(ssl.ratings[0]).toEqual({ source: { name: 'osv' }, severity: 'critical', method: 'other' });
    expect(ssl.ratings.slice(1)).toEqual(expect.arrayContaining([expect.objectContaining({ method: expect.stringMatching(/^CVSSv3/), score: expect.any(Number), vector: expect.stringMatching(/^CVSS:3/) })]));
    expect(ssl.analysis).toEqual({ state: 'exploitable', lastUpdated: created.json.annotation.updated_at });
    expect(ssl).not.toHaveProperty('description');
    // Unannotated findings are not assessed: no analysis.
    expect(doc.vulnerabilities.find((v: { id: string }) => v.id === 'DSA-9004-1')).not.toHaveProperty('analysis');

    const detailed = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln/os/cyclonedx-json?include_annotation_detail=true&include_vuln_description=true`);
    const sslDetailed = detailed.json.vulnerabilities.find((v: { id: string }) => v.id === 'DSA-9001-1');
    expect(sslDetailed.analysis.detail).toBe('Action statement: rebuild on the next base image');
    expect(sslDetailed.description).toBeTruthy();
    expect(detailed.json.vulnerabilities.every((v: { affects: { ref: string }[] }) => v.affects.every((a) => a.ref.startsWith('pkg:deb/')))).toBe(true);

    const xml = await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln/all/cyclonedx-xml?include_annotation_detail=true`);
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(xml.text.match(/<vulnerability bom-ref=/g)).toHaveLength(doc.vulnerabilities.length);
    expect(xml.text).toContain('<detail>Action statement: rebuild on the next base image</detail>');
    expect(xml.text.match(/<property name="vigil:finding:matched_by">/g)).toHaveLength(doc.vulnerabilities.length);
    if (!missingTools('xmllint')) expect(cycloneDxXmlErrors(xml.text, '1.6')).toEqual([]);

    expectValidationError(await raw(server.url, 'GET', `/v2/images/${debianDigest}/vuln/binary/cyclonedx-xml`), ['path.vuln_type']);
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'2'.repeat(64)}/vuln/all/cyclonedx-json`), 404, 'not_found');
    expect((await raw(server.url, 'DELETE', `${base()}/${created.json.annotation.uuid}`)).status).toBe(204);
  });
});

describe('vulnerability query', () => {
  it('finds records by id or alias, by package and version, and by namespace', async () => {
    const byAlias = await raw(server.url, 'GET', '/v2/query/vulnerabilities?id=CVE-2099-0001');
    expect(byAlias.status).toBe(200);
    expect(byAlias.json).toMatchObject({ page: '1', next_page: '', returned_count: 1 });
    expect(byAlias.json.vulnerabilities[0]).toMatchObject({
      id: 'DSA-9001-1',
      namespace: 'debian:12',
      severity: 'Critical',
      is_kev: true,
      affected_packages: [{ name: 'openssl', version: '3.0.13-1~deb12u1', type: 'dpkg', namespace: 'debian:12' }],
    });
    const affected = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=openssl&affected_package_version=3.0.11-1~deb12u2');
    expect(affected.json.vulnerabilities.map((v: { id: string }) => v.id).sort()).toEqual(['DSA-9001-1', 'PYSEC-2099-11']);
    const fixedVersion = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=openssl&affected_package_version=3.0.13-1~deb12u1&namespace=debian:12');
    expect(fixedVersion.json.vulnerabilities).toEqual([]);
    const ns = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=openssl&namespace=debian:11');
    expect(ns.json.vulnerabilities.map((v: { id: string }) => v.id)).toEqual(['DSA-9002-1']);
    const page1 = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=openssl&limit=1');
    expect(page1.json).toMatchObject({ page: '1', next_page: '2', returned_count: 1 });
    const page3 = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=openssl&limit=1&page=3');
    expect(page3.json).toMatchObject({ page: '3', next_page: '', returned_count: 1 });
  });

  it('answers 400 without a search term or with bad paging', async () => {
    expectError(await raw(server.url, 'GET', '/v2/query/vulnerabilities'), 400, 'validation_error');
    expectValidationError(await raw(server.url, 'GET', '/v2/query/vulnerabilities?id=X&page=0'), ['query.page']);
    expectValidationError(await raw(server.url, 'GET', '/v2/query/vulnerabilities?id=X&limit=-1'), ['query.limit']);
  });
});

describe('SBOM scan', () => {
  const sbom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: { component: { type: 'container', name: 'scan-me' } },
    components: [
      { type: 'operating-system', name: 'debian', version: '12' },
      { type: 'library', name: 'requests', version: '2.28.1', purl: 'pkg:pypi/requests@2.28.1' },
      { type: 'library', name: 'libssl3', version: '3.0.11-1~deb12u2', purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?upstream=openssl&distro=debian-12' },
      { type: 'library', name: 'openssl', version: '1.0', purl: 'pkg:npm/openssl@1.0' },
    ],
  };

  it('matches an SBOM without storing it', async () => {
    const res = await json(server.url, 'POST', '/v2/vulnerability-scan', sbom);
    expect(res.status).toBe(200);
    expect(res.json.sbom_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(res.json.vulnerabilities.map((v: Vuln) => `${v.vuln} ${v.package_name}`).sort()).toEqual(['DSA-9001-1 libssl3', 'PYSEC-2099-6 requests']);
    expect(res.json.vulnerabilities.every((v: Vuln) => v.detected_at === undefined)).toBe(true);
  });

  it('answers 400 for a body that is not an SBOM', async () => {
    expectError(await json(server.url, 'POST', '/v2/vulnerability-scan', { hello: 'world' }), 400);
    expectError(await raw(server.url, 'POST', '/v2/vulnerability-scan', { headers: { 'content-type': 'application/json' }, body: '{not json' }), 400);
  });
});

describe('feed upload (air-gapped)', () => {
  const record = JSON.stringify(osvRecord('GO-2099-0001', 'Go', 'example.com/mod', [{ introduced: '0' }, { fixed: '1.2.3' }]));
  const checksum = createHash('sha256').update(record).digest('hex');
  const upload = (query: string, body: string | Buffer, type = 'application/octet-stream') =>
    raw(server.url, 'POST', `/v2/system/feeds/uploaded-go?${query}`, { headers: { 'content-type': type }, body });

  it('rejects a wrong checksum or missing parameters and keeps nothing', async () => {
    expectError(await upload(`version=1&built=2099-01-01T00:00:00Z&checksum=${'0'.repeat(64)}`, record), 400, 'validation_error');
    expectValidationError(await upload('version=1&built=2099-01-01T00:00:00Z', record), ['query.checksum']);
    expectValidationError(await upload(`version=1&built=yesterday&checksum=${checksum}`, record), ['query.built']);
    expectError(await upload(`version=1&built=2099-01-01T00:00:00Z&checksum=${checksum}`, record, 'text/plain'), 415);
    expectError(await raw(server.url, 'GET', '/v2/system/feeds/uploaded-go'), 404, 'not_found');
  });

  it('stores a verified upload as a feed and syncs it', async () => {
    const boundary = 'vigil-test-boundary';
    const multipart = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="GO-2099-0001.json"\r\nContent-Type: application/json\r\n\r\n${record}\r\n--${boundary}--\r\n`,
    );
    const res = await upload(`version=2099.1&built=2099-01-01T00:00:00Z&checksum=sha256:${checksum}`, multipart, `multipart/form-data; boundary=${boundary}`);
    expect(res.status).toBe(202);
    await syncNow();
    const feed = await sourceGroup('uploaded-go');
    expect(feed).toMatchObject({ kind: 'osv', configured: false, version: '2099.1', dataset_checksum: `sha256:${checksum}`, last_sync_status: 'ok', data_service_built_at: '2099-01-01T00:00:00.000Z' });
    expect(feed.namespaces).toEqual([expect.objectContaining({ name: 'go', record_count: 1 })]);
    expect((await raw(server.url, 'GET', '/v2/system/feeds/uploaded-go?version=2099.1')).json).toMatchObject({ version: '2099.1', data_format: 'osv' });
    // Two sources with data in vulnerability_db: its version is the newest receipt, and no single checksum.
    const db = (await raw(server.url, 'GET', '/v2/system/feeds')).json.find((f: { name: string }) => f.name === 'vulnerability_db');
    expect(db.groups.map((g: { name: string }) => g.name)).toEqual(['osv', 'uploaded-go']);
    expect(db).not.toHaveProperty('dataset_checksum');
    expect(db).toMatchObject({ data_service_built_at: '2099-01-01T00:00:00.000Z', version: db.enterprise_received_at });

    expect((await raw(server.url, 'DELETE', '/v2/system/feeds/vulnerability_db/uploaded-go')).status).toBe(200);
    expect(await sourceGroup('uploaded-go')).toMatchObject({ enabled: false, record_count: 0, namespaces: [] });
  });
});
