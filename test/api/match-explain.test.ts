/**
 * Matches that explain themselves (issue 16): every finding says how it matched (`matched_by`), binary packages are
 * matched by binary name where the distribution's data names binaries (class 3), and the debug view counts what
 * precision rules suppressed.
 *
 * An Ubuntu 22.04 image (dpkg status and file lists as dpkg writes them) with:
 *  - libssl3 and libssl-doc, both built from source openssl; a USN-shaped record filed under openssl lists the
 *    binaries it affects as Ubuntu's notices do (`ecosystem_specific.binaries` of `{binary_name, binary_version}`),
 *    naming libssl3 and not libssl-doc;
 *  - zlib1g (source zlib) and a source-level record (no binaries list), so it matches by its source package;
 *  - python3-yaml (source pyyaml) owning PyYAML's egg-info, and a PyPI advisory for PyYAML that must not apply.
 * Plus an Alpine 3.18 SBOM holding ssl_client, a subpackage of busybox, matched through secdb-style source-level
 * data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { pkgInfo } from '../support/ecosystem-fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const OS_RELEASE = 'PRETTY_NAME="Ubuntu 22.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION="22.04.3 LTS (Jammy Jellyfish)"\nID=ubuntu\nID_LIKE=debian\n';
const DIST = '/usr/lib/python3/dist-packages';

function dpkgEntry(name: string, version: string, source: string, arch = 'amd64'): string {
  return [
    `Package: ${name}`,
    'Status: install ok installed',
    'Priority: optional',
    'Section: libs',
    'Installed-Size: 100',
    'Maintainer: Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>',
    `Architecture: ${arch}`,
    `Source: ${source}`,
    `Version: ${version}`,
    `Description: ${name} as Ubuntu builds it`,
    '',
  ].join('\n');
}

const STATUS = [
  dpkgEntry('libssl3', '3.0.2-0ubuntu1.9', 'openssl'),
  dpkgEntry('libssl-doc', '3.0.2-0ubuntu1.9', 'openssl', 'all'),
  dpkgEntry('zlib1g', '1:1.2.11.dfsg-2ubuntu9.2', 'zlib'),
  dpkgEntry('python3-yaml', '5.4.1-1ubuntu1', 'pyyaml'),
].join('\n');

/** A record in the shape of Ubuntu's USN OSV files: filed under the source package, with the binaries it fixes. */
const USN = {
  ...osvRecord('USN-7001-1', 'Ubuntu:22.04:LTS', 'openssl', [{ introduced: '0' }, { fixed: '3.0.2-0ubuntu1.10' }], {
    aliases: ['CVE-2099-7001'],
    ecosystemSpecific: {
      binaries: [
        { binary_name: 'libssl-dev', binary_version: '3.0.2-0ubuntu1.10' },
        { binary_name: 'libssl3', binary_version: '3.0.2-0ubuntu1.10' },
        { binary_name: 'openssl', binary_version: '3.0.2-0ubuntu1.10' },
      ],
      availability: 'No subscription required',
    },
  }),
};
USN.affected[0]!.package = { ecosystem: 'Ubuntu:22.04:LTS', name: 'openssl', purl: 'pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?arch=source&distro=jammy' } as never;

const FEED = [
  USN,
  osvRecord('UBUNTU-CVE-2099-7002', 'Ubuntu:22.04:LTS', 'zlib', [{ introduced: '0' }, { fixed: '1:1.2.11.dfsg-2ubuntu9.3' }], { aliases: ['CVE-2099-7002'] }),
  osvRecord('PYSEC-2099-7003', 'PyPI', 'PyYAML', [{ introduced: '0' }, { fixed: '6.0' }], { aliases: ['CVE-2099-7003'] }),
  osvRecord('ALPINE-CVE-2099-7004', 'Alpine:v3.18', 'busybox', [{ introduced: '0' }, { fixed: '1.36.1-r2' }], { aliases: ['CVE-2099-7004'] }),
];

let server: TestServer;
let work: string;
let digest: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-explain-'));
  writeRecords(join(work, 'osv'), Object.fromEntries(FEED.map((r) => [r.id, r])));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.status).toBe('done');
  const image = await buildImage({
    layers: [
      [
        { path: 'etc/os-release', content: OS_RELEASE },
        { path: 'var/lib/dpkg/status', content: STATUS },
        { path: 'var/lib/dpkg/info/python3-yaml.list', content: ['/.', '/usr', DIST, `${DIST}/yaml/__init__.py`, `${DIST}/PyYAML-5.4.1.egg-info`, ''].join('\n') },
        { path: `${DIST.slice(1)}/PyYAML-5.4.1.egg-info`, content: pkgInfo({ name: 'PyYAML', version: '5.4.1', summary: 'YAML parser and emitter for Python', license: 'MIT', classifiers: [] }) },
        { path: `${DIST.slice(1)}/yaml/__init__.py`, content: "__version__ = '5.4.1'\n" },
      ],
    ],
  });
  const upload = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: ['registry.example.com/explain/ubuntu:22.04'] }),
  });
  expect(upload.status).toBe(200);
  digest = upload.json.image_digest as string;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Item {
  vuln: string;
  package_name: string;
  matched_by?: string;
}
/** The findings of a CycloneDX SBOM of one distribution release holding the given [name, version, purl] packages. */
async function scan(os: string, release: string, packages: [string, string, string][]): Promise<Item[]> {
  const res = await json(server.url, 'POST', '/v2/vulnerability-scan', {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    components: [{ type: 'operating-system', name: os, version: release }, ...packages.map(([name, version, purl]) => ({ type: 'library', name, version, purl }))],
  });
  expect(res.status).toBe(200);
  return res.json.vulnerabilities;
}

const explained = (list: Item[]) => list.map((v) => `${v.vuln} ${v.package_name} ${v.matched_by}`).sort();

describe('matched_by on findings, and binaries named by the distribution data', () => {
  it('reports the USN for the binary it lists and not for the one it leaves out; the source-level record by source package', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all`);
    expect(res.status).toBe(200);
    expect(explained(res.json.vulnerabilities)).toEqual(['UBUNTU-CVE-2099-7002 zlib1g source-package', 'USN-7001-1 libssl3 package']);
  });

  it('explains SBOM scans the same way, an Alpine subpackage matching by its origin', async () => {
    const ubuntu = await scan('ubuntu', '22.04', [
      ['libssl3', '3.0.2-0ubuntu1.9', 'pkg:deb/ubuntu/libssl3@3.0.2-0ubuntu1.9?arch=amd64&upstream=openssl&distro=ubuntu-22.04'],
      ['libssl-doc', '3.0.2-0ubuntu1.9', 'pkg:deb/ubuntu/libssl-doc@3.0.2-0ubuntu1.9?arch=all&upstream=openssl&distro=ubuntu-22.04'],
    ]);
    expect(explained(ubuntu)).toEqual(['USN-7001-1 libssl3 package']);
    const alpine = await scan('alpine', '3.18.4', [
      ['busybox', '1.36.1-r1', 'pkg:apk/alpine/busybox@1.36.1-r1?arch=x86_64&upstream=busybox&distro=alpine-3.18.4'],
      ['ssl_client', '1.36.1-r1', 'pkg:apk/alpine/ssl_client@1.36.1-r1?arch=x86_64&upstream=busybox&distro=alpine-3.18.4'],
    ]);
    expect(explained(alpine)).toEqual(['ALPINE-CVE-2099-7004 busybox package', 'ALPINE-CVE-2099-7004 ssl_client source-package']);
  });
});

describe('the matching debug view', () => {
  it('lists matches with how they matched and counts suppressed candidates by reason', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln-debug`);
    expect(res.status).toBe(200);
    const body = res.json;
    expect(body.image_digest).toBe(digest);
    expect(body.matched_count).toBe(2);
    expect(body.matched_by).toEqual({ package: 1, 'source-package': 1 });
    expect(body.suppressed_count).toBe(2);
    expect(body.suppressed_by_reason).toMatchObject({ 'binary-not-affected': 1, 'owned-by-os-package': 1 });
    expect(body.reasons.map((r: { reason: string }) => r.reason)).toEqual(expect.arrayContaining(['binary-not-affected', 'owned-by-os-package']));
    expect(body.matches.map((m: Item & { matched_name: string }) => `${m.vuln} ${m.package_name} ${m.matched_name} ${m.matched_by}`)).toEqual([
      'UBUNTU-CVE-2099-7002 zlib1g zlib source-package',
      'USN-7001-1 libssl3 openssl package',
    ]);
    expect(body.suppressed).toEqual([
      {
        vuln: 'PYSEC-2099-7003',
        feed: 'osv',
        feed_group: 'pypi',
        package_name: 'PyYAML',
        package_version: '5.4.1',
        package_type: 'python',
        package_path: `${DIST}/PyYAML-5.4.1.egg-info`,
        matched_name: 'pyyaml',
        reason: 'owned-by-os-package',
        detail: 'owned by dpkg python3-yaml 5.4.1-1ubuntu1; matched through that package against the distribution data',
      },
      {
        vuln: 'USN-7001-1',
        feed: 'osv',
        feed_group: 'ubuntu:22.04',
        package_name: 'libssl-doc',
        package_version: '3.0.2-0ubuntu1.9',
        package_type: 'dpkg',
        package_path: '/var/lib/dpkg/status',
        matched_name: 'openssl',
        reason: 'binary-not-affected',
        detail: 'lists 3 binaries (libssl-dev, libssl3, openssl), not libssl-doc',
      },
    ]);
  });

  it('answers 404 for an unknown image', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/sha256:${'0'.repeat(64)}/vuln-debug`);
    expect(res.status).toBe(404);
  });
});

describe('a feed update that only changes how a finding matched', () => {
  it('updates matched_by in place, without reporting the finding as changed', async () => {
    const zlib = osvRecord('UBUNTU-CVE-2099-7002', 'Ubuntu:22.04:LTS', 'zlib', [{ introduced: '0' }, { fixed: '1:1.2.11.dfsg-2ubuntu9.3' }], {
      aliases: ['CVE-2099-7002'],
      modified: '2026-11-01T00:00:00Z',
      ecosystemSpecific: { binaries: [{ binary_name: 'zlib1g', binary_version: '1:1.2.11.dfsg-2ubuntu9.3' }] },
    });
    writeRecords(join(work, 'osv'), Object.fromEntries([...FEED.filter((r) => r.id !== zlib.id), zlib].map((r) => [r.id, r])));
    const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
    expect(synced.json.status).toBe('done');
    expect(synced.json.rematch).toMatchObject({ changed_images: 0, added: 0, updated: 0, removed: 0 });
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/os`);
    expect(explained(res.json.vulnerabilities)).toEqual(['UBUNTU-CVE-2099-7002 zlib1g package', 'USN-7001-1 libssl3 package']);
  });
});
