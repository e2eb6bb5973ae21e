/**
 * Language packages installed by the OS package manager (issue 16, class 1), end to end: a Python distribution whose
 * metadata belongs to an rpm or dpkg package is the distribution's build, patched by the distribution, so it is
 * listed with its owner and matched through that owner's distro data only — never against the PyPI feed. A copy of
 * the same project that pip installed (owned by nobody) still matches PyPI.
 *
 *  - RHEL 8: an rpm database written by rpm itself holding python3-urllib3 1.24.2-4.el8, whose file list names
 *    /usr/lib/python3.6/site-packages/urllib3-1.24.2-py3.6.egg-info/; plus a pip-installed urllib3 1.24.2 under
 *    /usr/local/lib/python3.6/site-packages.
 *  - Ubuntu 14.04: dpkg's python-yaml 3.10-4 (source pyyaml) with /var/lib/dpkg/info/python-yaml.list naming the
 *    single-file PyYAML-3.10.egg-info; plus a pip-installed PyYAML 3.10 under /usr/local.
 *  - Alpine 3.19: apk's py3-urllib3 1.26.18-r0 whose file list (F:/R: lines of /lib/apk/db/installed) names the
 *    urllib3-1.26.18.dist-info directory under /usr/lib/python3.11/site-packages.
 *  - The RHEL content as a syft SBOM with an `ownership-by-file-overlap` relationship, as an SPDX document the way
 *    syft writes that relationship (OTHER, with a comment naming it) and as a CycloneDX document with the Python
 *    component nested in the rpm's, each scanned and imported.
 *  - The analyzed RHEL image exported in each format (native syft JSON, SPDX, CycloneDX) and imported again.
 *
 * Needs rpm and rpmbuild (Debian: rpm) and gpg (gnupg).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage, findingLines, imageFindingLines, waitForAnalysis } from '../support/analysis.js';
import { pkgInfo, wheelMetadata } from '../support/ecosystem-fixtures.js';
import { cycloneDxJsonErrors } from '../support/cyclonedx-schema.js';
import { json, raw } from '../support/http.js';
import type { FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { validateSpdxStructure } from '../support/spdx-schema.js';
import { buildRpmdbFixture, type RpmdbFixture } from '../unit/ecosystems/rpm/testdata/rpmdb.js';
import { osvRecord, writeRecords } from '../vulns/fixture-feed.js';
import { missingTools } from '../support/tools.js';

const rel = (path: string) => path.replace(/^\//, '');
const SITE = '/usr/lib/python3.6/site-packages';
const URLLIB3_EGG = `${SITE}/urllib3-1.24.2-py3.6.egg-info`;
const PIP_SITE = '/usr/local/lib/python3.6/site-packages';
const DIST = '/usr/lib/python2.7/dist-packages';
const PIP_DIST = '/usr/local/lib/python2.7/dist-packages';

const PYTHON3_URLLIB3_SPEC = `
Name: python3-urllib3
Version: 1.24.2
Release: 4.el8
Summary: Python3 HTTP library with thread-safe connection pooling
License: MIT
BuildArch: noarch
AutoReqProv: no

%description
urllib3 as the distribution builds it.

%install
mkdir -p %{buildroot}${URLLIB3_EGG} %{buildroot}${SITE}/urllib3
printf 'Metadata-Version: 1.1\\nName: urllib3\\nVersion: 1.24.2\\n' > %{buildroot}${URLLIB3_EGG}/PKG-INFO
echo urllib3 > %{buildroot}${URLLIB3_EGG}/top_level.txt
echo MIT > %{buildroot}${SITE}/urllib3/LICENSE.txt

%files
${URLLIB3_EGG}/
${SITE}/urllib3/
`;

const RHEL_OS_RELEASE = 'NAME="Red Hat Enterprise Linux"\nVERSION="8.9 (Ootpa)"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="8.9"\nPRETTY_NAME="Red Hat Enterprise Linux 8.9 (Ootpa)"\n';
const UBUNTU_OS_RELEASE = 'NAME="Ubuntu"\nVERSION="14.04.6 LTS, Trusty Tahr"\nID=ubuntu\nID_LIKE=debian\nPRETTY_NAME="Ubuntu 14.04.6 LTS"\nVERSION_ID="14.04"\n';
const UBUNTU_STATUS = `Package: python-yaml
Status: install ok installed
Priority: optional
Section: python
Installed-Size: 636
Maintainer: Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>
Architecture: amd64
Source: pyyaml
Version: 3.10-4
Depends: libc6 (>= 2.14), libyaml-0-2, python (>= 2.7), python (<< 2.8)
Description: YAML parser and emitter for Python

`;

const ALPINE_SITE = '/usr/lib/python3.11/site-packages';
const ALPINE_OS_RELEASE = 'NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n';
const ALPINE_INSTALLED = `P:py3-urllib3
V:1.26.18-r0
A:noarch
L:MIT
o:py3-urllib3
F:${rel(ALPINE_SITE)}/urllib3
R:__init__.py
F:${rel(ALPINE_SITE)}/urllib3-1.26.18.dist-info
R:METADATA
R:RECORD

`;

const urllib3Metadata = wheelMetadata({ name: 'urllib3', version: '1.24.2', summary: 'HTTP library', license: 'MIT', classifiers: [] });
const pyyamlInfo = pkgInfo({ name: 'PyYAML', version: '3.10', summary: 'YAML parser and emitter for Python', license: 'MIT', classifiers: [] });

const FEED = [
  osvRecord('PYSEC-2099-20', 'PyPI', 'urllib3', [{ introduced: '0' }, { fixed: '1.24.3' }], { aliases: ['CVE-2099-0020'] }),
  osvRecord('PYSEC-2099-21', 'PyPI', 'PyYAML', [{ introduced: '0' }, { fixed: '4.1' }], { aliases: ['CVE-2099-0021'] }),
  osvRecord('RHSA-2099:0022', 'Red Hat:8', 'python3-urllib3', [{ introduced: '0' }, { fixed: '1.24.2-5.el8' }], { aliases: ['CVE-2099-0020'] }),
  osvRecord('USN-2099-23', 'Ubuntu:14.04:LTS', 'pyyaml', [{ introduced: '0' }, { fixed: '3.10-4ubuntu0.1' }], { aliases: ['CVE-2099-0021'] }),
  osvRecord('PYSEC-2099-24', 'PyPI', 'urllib3', [{ introduced: '1.26.0' }, { fixed: '1.26.19' }], { aliases: ['CVE-2099-0024'] }),
  osvRecord('ALPINE-CVE-2099-0024', 'Alpine:v3.19', 'py3-urllib3', [{ introduced: '0' }, { fixed: '1.26.18-r1' }], { aliases: ['CVE-2099-0024'] }),
];

const RHEL_FINDINGS = [
  `PYSEC-2099-20 python:urllib3 ${PIP_SITE}/urllib3-1.24.2.dist-info/METADATA`,
  'RHSA-2099:0022 rpm:python3-urllib3 /var/lib/rpm/rpmdb.sqlite',
];

let server: TestServer;
let work: string;
let rpmdb: RpmdbFixture;
let rhelDigest: string;
let ubuntuDigest: string;
let alpineDigest: string;


function rhelLayers(): FileSpec[][] {
  return [
    [
      { path: 'etc/os-release', content: RHEL_OS_RELEASE },
      { path: 'var/lib/rpm/rpmdb.sqlite', content: rpmdb.sqlite },
      { path: rel(`${URLLIB3_EGG}/PKG-INFO`), content: 'Metadata-Version: 1.1\nName: urllib3\nVersion: 1.24.2\n' },
      { path: rel(`${URLLIB3_EGG}/top_level.txt`), content: 'urllib3\n' },
    ],
    [
      { path: rel(`${PIP_SITE}/urllib3-1.24.2.dist-info/METADATA`), content: urllib3Metadata },
      { path: rel(`${PIP_SITE}/urllib3-1.24.2.dist-info/INSTALLER`), content: 'pip\n' },
    ],
  ];
}

function alpineLayers(): FileSpec[][] {
  const urllib3 = wheelMetadata({ name: 'urllib3', version: '1.26.18', summary: 'HTTP library', license: 'MIT', classifiers: [] });
  return [
    [
      { path: 'etc/os-release', content: ALPINE_OS_RELEASE },
      { path: 'lib/apk/db/installed', content: ALPINE_INSTALLED },
      { path: rel(`${ALPINE_SITE}/urllib3-1.26.18.dist-info/METADATA`), content: urllib3 },
      { path: rel(`${ALPINE_SITE}/urllib3/__init__.py`), content: "__version__ = '1.26.18'\n" },
    ],
  ];
}

function ubuntuLayers(): FileSpec[][] {
  return [
    [
      { path: 'etc/os-release', content: UBUNTU_OS_RELEASE },
      { path: 'var/lib/dpkg/status', content: UBUNTU_STATUS },
      {
        path: 'var/lib/dpkg/info/python-yaml.list',
        content: ['/.', '/usr', '/usr/lib', '/usr/lib/python2.7', DIST, `${DIST}/yaml`, `${DIST}/yaml/__init__.py`, `${DIST}/PyYAML-3.10.egg-info`, ''].join('\n'),
      },
      { path: rel(`${DIST}/PyYAML-3.10.egg-info`), content: pyyamlInfo },
      { path: rel(`${DIST}/yaml/__init__.py`), content: "__version__ = '3.10'\n" },
    ],
    [{ path: rel(`${PIP_DIST}/PyYAML-3.10.dist-info/METADATA`), content: pyyamlInfo.replace('Metadata-Version: 1.1', 'Metadata-Version: 2.1') }],
  ];
}



const findings = (digest: string) => imageFindingLines(server, digest);

/** Imports `sbom` as the packages of a new image `digest` and waits for its analysis. */
async function importSbom(sbom: unknown, digest: string, tag: string): Promise<void> {
  const op = await json(server.url, 'POST', '/v2/imports/images', undefined);
  expect(op.status).toBe(200);
  const uuid = op.json.uuid as string;
  const part = await json(server.url, 'POST', `/v2/imports/images/${uuid}/packages`, sbom);
  expect(part.status).toBe(200);
  const added = await json(server.url, 'POST', '/v2/images', {
    source: { import: { operation_uuid: uuid, digest, tags: [tag], contents: { packages: part.json.digest } } },
  });
  expect(added.status).toBe(200);
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
}

/** The owners of an image's Python packages, in location order (null when unowned). */
async function pythonOwners(digest: string): Promise<unknown[]> {
  return (await pythonContent(digest)).map((p) => p.metadata.ownedBy ?? null);
}

const URLLIB3_OWNER = { type: 'rpm', name: 'python3-urllib3', version: '1.24.2-4.el8' };

async function pythonContent(digest: string): Promise<{ package: string; location: string; metadata: Record<string, unknown> }[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/content/python`);
  expect(res.status).toBe(200);
  return [...res.json.content].sort((a, b) => (a.location < b.location ? -1 : 1));
}

beforeAll(async () => {
  rpmdb = buildRpmdbFixture({ 'python3-urllib3': PYTHON3_URLLIB3_SPEC });
  work = mkdtempSync(join(tmpdir(), 'vigil-owned-'));
  writeRecords(join(work, 'osv'), Object.fromEntries(FEED.map((r) => [r.id, r])));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.status).toBe('done');
  rhelDigest = await analyzeArchiveImage(server, rhelLayers(), 'registry.example.com/owned/rhel:8');
  ubuntuDigest = await analyzeArchiveImage(server, ubuntuLayers(), 'registry.example.com/owned/ubuntu:14.04');
  alpineDigest = await analyzeArchiveImage(server, alpineLayers(), 'registry.example.com/owned/alpine:3.19');
}, 120_000);

afterAll(async () => {
  await server?.close();
  rpmdb?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('language packages owned by an rpm package', () => {
  it('matches the rpm-owned urllib3 through python3-urllib3 only, and the pip-installed copy against PyPI', async () => {
    expect(await findings(rhelDigest)).toEqual(RHEL_FINDINGS);
  });

  it('lists both copies, the owned one with its owner', async () => {
    const content = await pythonContent(rhelDigest);
    expect(content.map((p) => [p.package, p.location])).toEqual([
      ['urllib3', `${URLLIB3_EGG}/PKG-INFO`],
      ['urllib3', `${PIP_SITE}/urllib3-1.24.2.dist-info/METADATA`],
    ]);
    expect(content[0]!.metadata.ownedBy).toEqual({ type: 'rpm', name: 'python3-urllib3', version: '1.24.2-4.el8' });
    expect(content[1]!.metadata.ownedBy).toBeUndefined();
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('the ownership step', () => {
  it("reports its cost in each analysis' completion event", async () => {
    for (const digest of [rhelDigest, ubuntuDigest]) {
      const res = await raw(server.url, 'GET', `/v2/events?event_type=user.image.analysis.completed&resource_id=${digest}`);
      expect(res.status).toBe(200);
      const details = res.json.results.map((r: { event: { details: Record<string, unknown> } }) => r.event.details);
      expect(details).toEqual([expect.objectContaining({ ownership_ms: expect.any(Number) })]);
      expect(details[0].ownership_ms).toBeGreaterThanOrEqual(0);
    }
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('language packages owned by a dpkg package', () => {
  it('matches the dpkg-owned PyYAML through python-yaml (source pyyaml) only, and the pip-installed copy against PyPI', async () => {
    expect(await findings(ubuntuDigest)).toEqual([
      `PYSEC-2099-21 python:PyYAML ${PIP_DIST}/PyYAML-3.10.dist-info/METADATA`,
      'USN-2099-23 dpkg:python-yaml /var/lib/dpkg/status',
    ]);
  });

  it('lists both copies, the owned one with its owner', async () => {
    const content = await pythonContent(ubuntuDigest);
    expect(content.map((p) => p.location)).toEqual([`${DIST}/PyYAML-3.10.egg-info`, `${PIP_DIST}/PyYAML-3.10.dist-info/METADATA`]);
    expect(content[0]!.metadata.ownedBy).toEqual({ type: 'dpkg', name: 'python-yaml', version: '3.10-4' });
    expect(content[1]!.metadata.ownedBy).toBeUndefined();
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('language packages owned by an apk package', () => {
  it('matches the apk-owned urllib3 through py3-urllib3 against Alpine only, not against PyPI', async () => {
    expect(await findings(alpineDigest)).toEqual(['ALPINE-CVE-2099-0024 apk:py3-urllib3 /lib/apk/db/installed']);
  });

  it('lists the Python package with its apk owner', async () => {
    const content = await pythonContent(alpineDigest);
    expect(content.map((p) => [p.package, p.location, p.metadata.ownedBy])).toEqual([
      ['urllib3', `${ALPINE_SITE}/urllib3-1.26.18.dist-info/METADATA`, { type: 'apk', name: 'py3-urllib3', version: '1.26.18-r0' }],
    ]);
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('ownership relationships in a syft SBOM', () => {
  const artifact = (id: string, name: string, version: string, type: string, path: string, purl: string, metadata: Record<string, unknown> = {}) => ({
    id,
    name,
    version,
    type,
    foundBy: `${type}-cataloger`,
    locations: [{ path }],
    licenses: [],
    language: type === 'python' ? 'python' : '',
    cpes: [],
    purl,
    metadata,
  });
  const sbom = {
    artifacts: [
      artifact('rpm-1', 'python3-urllib3', '1.24.2-4.el8', 'rpm', '/var/lib/rpm/rpmdb.sqlite', 'pkg:rpm/rhel/python3-urllib3@1.24.2-4.el8?arch=noarch&distro=rhel-8.9', {
        name: 'python3-urllib3',
        version: '1.24.2',
        release: '4.el8',
        arch: 'noarch',
        sourceRpm: 'python-urllib3-1.24.2-4.el8.src.rpm',
      }),
      artifact('py-owned', 'urllib3', '1.24.2', 'python', `${URLLIB3_EGG}/PKG-INFO`, 'pkg:pypi/urllib3@1.24.2'),
      artifact('py-pip', 'urllib3', '1.24.2', 'python', `${PIP_SITE}/urllib3-1.24.2.dist-info/METADATA`, 'pkg:pypi/urllib3@1.24.2'),
    ],
    artifactRelationships: [
      { parent: 'rpm-1', child: 'py-owned', type: 'ownership-by-file-overlap', metadata: { files: [`${URLLIB3_EGG}/PKG-INFO`] } },
      // Other relationship types say nothing about who installed what.
      { parent: 'rpm-1', child: 'py-pip', type: 'dependency-of' },
    ],
    source: { type: 'image', metadata: { userInput: 'rhel-owned:8' } },
    distro: { id: 'rhel', versionID: '8.9', idLike: ['fedora'] },
    descriptor: { name: 'syft', version: '1.18.1' },
    schema: { version: '16.0.18', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.18.json' },
  };

  it('scans the SBOM with the same result as the analyzed image', async () => {
    const res = await json(server.url, 'POST', '/v2/vulnerability-scan', sbom);
    expect(res.status).toBe(200);
    expect(findingLines(res.json.vulnerabilities)).toEqual(RHEL_FINDINGS);
    expect(RHEL_FINDINGS).toEqual(await findings(rhelDigest));
  });

  it('imports the SBOM with the same findings and the owner in the content listing', async () => {
    const digest = `sha256:${'c'.repeat(64)}`;
    await importSbom(sbom, digest, 'registry.example.com/owned/rhel-sbom:8');
    expect(await findings(digest)).toEqual(await findings(rhelDigest));
    expect(await pythonOwners(digest)).toEqual([URLLIB3_OWNER, null]);
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('ownership in SPDX and CycloneDX SBOMs', () => {
  const RPM_PURL = 'pkg:rpm/rhel/python3-urllib3@1.24.2-4.el8?arch=noarch&distro=rhel-8.9';
  const PYPI_PURL = 'pkg:pypi/urllib3@1.24.2';

  // As syft 1.x writes SPDX 2.3 JSON: the rpm, both Python copies, the OS, and the ownership relationship as OTHER
  // with a comment that starts with the relationship's syft name.
  const spdxPackage = (id: string, name: string, version: string, purl: string, sourceInfo: string, purpose?: string) => ({
    name,
    SPDXID: id,
    versionInfo: version,
    supplier: 'NOASSERTION',
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    sourceInfo,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: 'MIT',
    copyrightText: 'NOASSERTION',
    externalRefs: purl ? [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl }] : [],
    ...(purpose ? { primaryPackagePurpose: purpose } : {}),
  });
  const spdx = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: 'rhel-owned',
    documentNamespace: 'https://anchore.com/syft/image/rhel-owned-5d2b0a63-8f0e-4f61-a0a4-1f5b1c4d2e3f',
    creationInfo: { licenseListVersion: '3.25', creators: ['Organization: Anchore, Inc', 'Tool: syft-1.18.1'], created: '2026-11-20T10:00:00Z' },
    packages: [
      spdxPackage('SPDXRef-Package-rpm-python3-urllib3-7b3c1f0e2a9d4c51', 'python3-urllib3', '1.24.2-4.el8', RPM_PURL, 'acquired package info from RPM DB: /var/lib/rpm/rpmdb.sqlite'),
      spdxPackage('SPDXRef-Package-python-urllib3-0a1b2c3d4e5f6789', 'urllib3', '1.24.2', PYPI_PURL, `acquired package info from installed python package manifest file: ${URLLIB3_EGG}/PKG-INFO`),
      spdxPackage('SPDXRef-Package-python-urllib3-9f8e7d6c5b4a3210', 'urllib3', '1.24.2', PYPI_PURL, `acquired package info from installed python package manifest file: ${PIP_SITE}/urllib3-1.24.2.dist-info/METADATA`),
      spdxPackage('SPDXRef-OperatingSystem-rhel-8.9', 'rhel', '8.9', '', '', 'OPERATING-SYSTEM'),
      spdxPackage('SPDXRef-DocumentRoot-Image-rhel-owned', 'rhel-owned', 'sha256:' + 'd'.repeat(64), '', '', 'CONTAINER'),
    ],
    relationships: [
      {
        spdxElementId: 'SPDXRef-Package-rpm-python3-urllib3-7b3c1f0e2a9d4c51',
        relatedSpdxElement: 'SPDXRef-Package-python-urllib3-0a1b2c3d4e5f6789',
        relationshipType: 'OTHER',
        comment:
          'ownership-by-file-overlap: indicates that the parent package claims ownership of a child package since the parent metadata indicates overlap with a location that a cataloger found the child package by',
      },
      // The same pair without the comment, or as a dependency, says nothing about who installed what.
      { spdxElementId: 'SPDXRef-Package-rpm-python3-urllib3-7b3c1f0e2a9d4c51', relatedSpdxElement: 'SPDXRef-Package-python-urllib3-9f8e7d6c5b4a3210', relationshipType: 'OTHER' },
      { spdxElementId: 'SPDXRef-Package-rpm-python3-urllib3-7b3c1f0e2a9d4c51', relatedSpdxElement: 'SPDXRef-Package-python-urllib3-9f8e7d6c5b4a3210', relationshipType: 'DEPENDS_ON' },
      { spdxElementId: 'SPDXRef-DOCUMENT', relatedSpdxElement: 'SPDXRef-DocumentRoot-Image-rhel-owned', relationshipType: 'DESCRIBES' },
    ],
  };

  // CycloneDX: the owned Python component nested in the rpm's component (its assembly); the pip copy a dependency of
  // the rpm, which is not ownership.
  const cdxComponent = (ref: string, name: string, version: string, purl: string, type: string, path: string, nested: unknown[] = []) => ({
    'bom-ref': ref,
    type: 'library',
    name,
    version,
    purl,
    properties: [
      { name: 'syft:package:type', value: type },
      { name: 'syft:location:0:path', value: path },
    ],
    ...(nested.length ? { components: nested } : {}),
  });
  const cyclonedx = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
    version: 1,
    metadata: { component: { 'bom-ref': 'image', type: 'container', name: 'rhel-owned' } },
    components: [
      cdxComponent('rpm-1', 'python3-urllib3', '1.24.2-4.el8', RPM_PURL, 'rpm', '/var/lib/rpm/rpmdb.sqlite', [
        cdxComponent('py-owned', 'urllib3', '1.24.2', PYPI_PURL, 'python', `${URLLIB3_EGG}/PKG-INFO`),
      ]),
      cdxComponent('py-pip', 'urllib3', '1.24.2', PYPI_PURL, 'python', `${PIP_SITE}/urllib3-1.24.2.dist-info/METADATA`),
      { 'bom-ref': 'os', type: 'operating-system', name: 'rhel', version: '8.9' },
    ],
    dependencies: [{ ref: 'rpm-1', dependsOn: ['py-pip'] }],
  };

  it('are valid documents of their formats', () => {
    expect(cycloneDxJsonErrors(cyclonedx, '1.6')).toEqual([]);
    expect(validateSpdxStructure(spdx) ? [] : validateSpdxStructure.errors).toEqual([]);
  });

  it.each([
    ['SPDX', spdx, '1'],
    ['CycloneDX', cyclonedx, '2'],
  ])('scans and imports %s with the same result as the analyzed image', async (_format, doc, digit) => {
    const scanned = await json(server.url, 'POST', '/v2/vulnerability-scan', doc);
    expect(scanned.status).toBe(200);
    expect(findingLines(scanned.json.vulnerabilities)).toEqual(RHEL_FINDINGS);
    const digest = `sha256:${digit.repeat(64)}`;
    await importSbom(doc, digest, `registry.example.com/owned/rhel-${_format.toLowerCase()}:8`);
    expect(await findings(digest)).toEqual(RHEL_FINDINGS);
    expect(await pythonOwners(digest)).toEqual([URLLIB3_OWNER, null]);
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('exported SBOMs carry the ownership', () => {
  it.each([
    ['native-json', '3'],
    ['spdx-json', '4'],
    ['cyclonedx-json', '5'],
  ])('%s: the export states it, and imports back with the same findings and owners', async (format, digit) => {
    const res = await raw(server.url, 'GET', `/v2/images/${rhelDigest}/sboms/${format}`);
    expect(res.status).toBe(200);
    const doc = res.json;
    if (format === 'native-json') {
      const ids = new Map(doc.artifacts.map((a: { id: string; name: string; locations: { path: string }[] }) => [a.id, `${a.name} ${a.locations[0]!.path}`]));
      const owned = doc.artifactRelationships.filter((r: { type: string }) => r.type === 'ownership-by-file-overlap');
      expect(owned.map((r: { parent: string; child: string; metadata: unknown }) => [ids.get(r.parent), ids.get(r.child), r.metadata])).toEqual([
        ['python3-urllib3 /var/lib/rpm/rpmdb.sqlite', `urllib3 ${URLLIB3_EGG}/PKG-INFO`, { files: [`${URLLIB3_EGG}/PKG-INFO`] }],
      ]);
    } else if (format === 'spdx-json') {
      expect(validateSpdxStructure(doc) ? [] : validateSpdxStructure.errors).toEqual([]);
      const names = new Map(doc.packages.map((p: { SPDXID: string; name: string; sourceInfo?: string }) => [p.SPDXID, `${p.name} ${p.sourceInfo?.split(': ')[1] ?? ''}`]));
      const other = doc.relationships.filter((r: { relationshipType: string }) => r.relationshipType === 'OTHER');
      expect(other.map((r: { spdxElementId: string; relatedSpdxElement: string; comment: string }) => [names.get(r.spdxElementId), names.get(r.relatedSpdxElement), r.comment.split(':')[0]])).toEqual([
        ['python3-urllib3 /var/lib/rpm/rpmdb.sqlite', `urllib3 ${URLLIB3_EGG}/PKG-INFO`, 'ownership-by-file-overlap'],
      ]);
    } else {
      expect(cycloneDxJsonErrors(doc, '1.6')).toEqual([]);
      const top = doc.components.map((c: { name: string; components?: { name: string }[] }) => [c.name, (c.components ?? []).map((n) => n.name)]);
      expect(top).toEqual([
        ['urllib3', []],
        ['python3-urllib3', ['urllib3']],
        ['rhel', []],
      ]);
    }
    const digest = `sha256:${digit.repeat(64)}`;
    await importSbom(doc, digest, `registry.example.com/owned/rhel-${format}:8`);
    expect(await findings(digest)).toEqual(RHEL_FINDINGS);
    expect(await pythonOwners(digest)).toEqual([URLLIB3_OWNER, null]);
  });
});
