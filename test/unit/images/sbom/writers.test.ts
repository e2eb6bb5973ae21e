/**
 * The SBOM writers: CycloneDX output must validate against the official CycloneDX JSON schemas (bundled with
 * @cyclonedx/cyclonedx-library), SPDX output against a structural validator written from the SPDX 2.3 spec (no
 * npm package ships the official 2.3 JSON schema), and every format must be deterministic. Reading our own
 * documents back closes the loop.
 */
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { PackageURL } from 'packageurl-js';
import parseSpdx from 'spdx-expression-parse';
import { describe, expect, it } from 'vitest';
import { validateSpdxStructure } from '../../../support/spdx-schema.js';
import { toCycloneDx, type CycloneDxSpecVersion } from '../../../../src/images/sbom/cyclonedx.js';
import type { SbomInput, SbomPackage } from '../../../../src/images/sbom/input.js';
import { toNativeSbom } from '../../../../src/images/sbom/native.js';
import { readSbomPackages } from '../../../../src/images/sbom/readers.js';
import { toSpdx, type SpdxDocument } from '../../../../src/images/sbom/spdx.js';

// ---------------------------------------------------------------------------------------------------------------
// A realistic input: several ecosystems, the awkward cases each writer must get right.

const DIGEST = 'sha256:4f5e3ba2a5ad3b6c1b7e8ac1d1b1b4a3c6d0e2f9a8b7c6d5e4f3a2b1c0d9e8f7';
const DEBIAN = { name: 'debian', version: '12', like: [], prettyName: 'Debian GNU/Linux 12 (bookworm)' };

const PACKAGES: SbomPackage[] = [
  {
    type: 'dpkg',
    name: 'libc6',
    version: '2.36-9+deb12u4',
    origin: 'glibc',
    sourceVersion: null,
    size: 12_984_320,
    licenses: ['LGPL-2.1-or-later', 'GPL-2.0-or-later'],
    locations: ['/var/lib/dpkg/status'],
    purl: 'pkg:deb/debian/libc6@2.36-9%2Bdeb12u4?arch=amd64&distro=debian-12',
    cpes: ['cpe:2.3:a:libc6:libc6:2.36-9\\+deb12u4:*:*:*:*:*:*:*'],
    metadata: { architecture: 'amd64', maintainer: 'GNU Libc Maintainers <debian-glibc@lists.debian.org>' },
  },
  // dpkg multiarch: the same name, version and database as the amd64 one, told apart only by the purl's arch.
  {
    type: 'dpkg',
    name: 'libc6',
    version: '2.36-9+deb12u4',
    origin: 'glibc',
    sourceVersion: null,
    size: 12_001_280,
    licenses: [],
    locations: ['/var/lib/dpkg/status'],
    purl: 'pkg:deb/debian/libc6@2.36-9%2Bdeb12u4?arch=i386&distro=debian-12',
    cpes: ['cpe:2.3:a:libc6:libc6:2.36-9\\+deb12u4:*:*:*:*:*:*:*'],
    metadata: { architecture: 'i386' },
  },
  {
    type: 'dpkg',
    name: 'libssl3',
    version: '3.0.11-1~deb12u2',
    origin: 'openssl',
    sourceVersion: '3.0.11-1~deb12u2',
    licenses: ['Apache-2.0'],
    locations: ['/var/lib/dpkg/status'],
    purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
    cpes: ['cpe:2.3:a:libssl3:libssl3:3.0.11-1\\~deb12u2:*:*:*:*:*:*:*'],
    metadata: { architecture: 'amd64' },
  },
  {
    type: 'apk',
    name: 'musl',
    version: '1.2.4-r2',
    origin: 'musl',
    licenses: ['MIT'],
    locations: ['/lib/apk/db/installed'],
    purl: 'pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&distro=alpine-3.18.4',
    cpes: ['cpe:2.3:a:musl:musl:1.2.4-r2:*:*:*:*:*:*:*'],
    metadata: { architecture: 'x86_64' },
  },
  {
    type: 'npm',
    name: '@babel/core',
    version: '7.24.0',
    licenses: ['MIT'],
    locations: ['/app/node_modules/@babel/core/package.json'],
    purl: 'pkg:npm/%40babel/core@7.24.0',
    cpes: ['cpe:2.3:a:babel:core:7.24.0:*:*:*:*:*:*:*'],
    metadata: {},
  },
  {
    type: 'npm',
    name: 'left-pad',
    version: '1.3.0',
    // Free text beside an expression: CycloneDX cannot mix them, SPDX needs a LicenseRef for the text.
    licenses: ['MIT OR Apache-2.0', 'Public Domain'],
    locations: ['/app/node_modules/left-pad/package.json'],
    purl: 'pkg:npm/left-pad@1.3.0',
    cpes: ['cpe:2.3:a:left-pad:left-pad:1.3.0:*:*:*:*:*:*:*'],
    metadata: {},
  },
  {
    type: 'python',
    name: 'requests',
    version: '2.31.0',
    licenses: ['apache-2.0'],
    locations: ['/usr/lib/python3/dist-packages/requests-2.31.0.dist-info/METADATA'],
    purl: 'pkg:pypi/requests@2.31.0',
    cpes: ['cpe:2.3:a:python:requests:2.31.0:*:*:*:*:*:*:*'],
    metadata: { summary: 'Python HTTP for Humans.' },
  },
  {
    type: 'python',
    name: 'python-dateutil',
    version: '2.8.2',
    licenses: ['BSD License', 'Dual License'],
    locations: ['/usr/lib/python3/dist-packages/python_dateutil-2.8.2.dist-info/METADATA'],
    purl: 'pkg:pypi/python-dateutil@2.8.2',
    cpes: ['cpe:2.3:a:python:python-dateutil:2.8.2:*:*:*:*:*:*:*'],
    metadata: {},
  },
  {
    type: 'gem',
    name: 'rack',
    version: '3.0.8',
    licenses: ['MIT'],
    locations: ['/usr/local/bundle/specifications/rack-3.0.8.gemspec'],
    purl: 'pkg:gem/rack@3.0.8',
    cpes: ['cpe:2.3:a:rack:rack:3.0.8:*:*:*:*:*:*:*'],
    metadata: {},
  },
  {
    type: 'java',
    name: 'log4j-core',
    version: '2.14.1',
    origin: 'org.apache.logging.log4j',
    licenses: ['Apache-2.0'],
    locations: ['/opt/app/lib/log4j-core-2.14.1.jar'],
    purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
    cpes: ['cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*', 'cpe:2.3:a:apache:log4j-core:2.14.1:*:*:*:*:*:*:*'],
    metadata: { virtualPath: '/opt/app/lib/log4j-core-2.14.1.jar', groupId: 'org.apache.logging.log4j', artifactId: 'log4j-core' },
  },
  {
    type: 'java',
    name: 'jakarta.servlet-api',
    version: '6.0.0',
    origin: 'jakarta.servlet',
    licenses: ['EPL-2.0 OR GPL-2.0-only WITH Classpath-exception-2.0'],
    locations: ['/opt/app/lib/jakarta.servlet-api-6.0.0.jar'],
    purl: 'pkg:maven/jakarta.servlet/jakarta.servlet-api@6.0.0',
    cpes: [],
    metadata: {},
  },
  {
    type: 'go',
    name: 'github.com/sirupsen/logrus',
    version: 'v1.9.3',
    origin: 'github.com/sirupsen/logrus',
    licenses: [],
    locations: ['/usr/local/bin/app'],
    purl: 'pkg:golang/github.com/sirupsen/logrus@v1.9.3',
    cpes: ['cpe:2.3:a:sirupsen:logrus:v1.9.3:*:*:*:*:*:*:*'],
    metadata: { h1Digest: 'h1:dueUQJ1C2q9oE3F7wvmSGAaVtTmUizReu6fjN8uqzbQ=' },
  },
  {
    type: 'rpm',
    name: 'bash',
    version: '1:5.1.8-6.el9',
    origin: 'bash',
    licenses: ['GPLv3+'],
    locations: ['/var/lib/rpm/rpmdb.sqlite'],
    purl: 'pkg:rpm/rhel/bash@5.1.8-6.el9?arch=x86_64&epoch=1&distro=rhel-9.3',
    cpes: ['cpe:2.3:a:bash:bash:1\\:5.1.8-6.el9:*:*:*:*:*:*:*'],
    metadata: { version: '5.1.8', release: '6.el9', epoch: 1, architecture: 'x86_64', vendor: 'Red Hat, Inc.', sourceRpm: 'bash-5.1.8-6.el9.src.rpm' },
  },
];

const INPUT: SbomInput = {
  image: {
    digest: DIGEST,
    imageId: 'sha256:9b2c1d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c',
    tags: ['docker.io/library/example:1.0', 'registry.example.com:5000/team/example:latest'],
    arch: 'amd64',
    distro: DEBIAN,
    createdAt: '2024-03-01T12:00:00.123Z',
    layers: [
      { digest: 'sha256:aaa1', size: 29_150_000, media_type: 'application/vnd.oci.image.layer.v1.tar+gzip' },
      { digest: 'sha256:bbb2', size: 1_024, media_type: 'application/vnd.oci.image.layer.v1.tar+gzip' },
    ],
  },
  packages: PACKAGES,
  files: [
    { path: '/var/lib/dpkg/status', type: 'file', mode: 0o644, uid: 0, gid: 0, size: 81_234, sha256: 'a'.repeat(64) },
    { path: '/usr/bin/sudo', type: 'file', mode: 0o4755, uid: 0, gid: 0, size: 232_416, sha256: 'b'.repeat(64) },
    { path: '/bin', type: 'symlink', mode: 0o777, uid: 0, gid: 0, size: 0, linkTarget: 'usr/bin' },
    { path: '/etc', type: 'dir', mode: 0o755, uid: 0, gid: 0, size: 0 },
  ],
  toolVersion: '0.1.0',
  analyzedAt: '2024-03-02T08:30:00.000Z',
};

const MINIMAL: SbomInput = {
  image: { digest: 'sha256:' + '0'.repeat(64), tags: [], layers: [] },
  packages: [],
  toolVersion: '0.1.0',
};

/** Odd but possible rows: no version, no purl, no CPE 2.3, a type Vigil does not catalog, names with blanks. */
const EDGE: SbomInput = {
  image: { digest: 'sha256:' + 'e'.repeat(64), tags: ['localhost:5000/My Team/app:v1'], arch: null, createdAt: null, layers: [] },
  packages: [
    { type: 'go', name: 'example.com/cmd/tool', version: '(devel)', licenses: [], locations: ['/usr/bin/tool'], purl: 'pkg:golang/example.com/cmd/tool', cpes: [], metadata: {} },
    { type: 'java', name: 'Weird Name ü', version: '', origin: null, licenses: ['  ', 'NOASSERTION'], locations: [], purl: '', cpes: ['cpe:/a:weird:name'], metadata: {} },
    { type: 'cargo', name: 'smallvec', version: '1.11.0', licenses: ['MIT OR Apache-2.0'], locations: [], purl: 'pkg:cargo/smallvec@1.11.0', cpes: [], metadata: {} },
  ],
  toolVersion: '0.1.0-dev+abc',
};

/** The same packages in another order, as a different query plan might return them. */
const SHUFFLED: SbomInput = { ...INPUT, packages: [...PACKAGES].reverse(), files: [...INPUT.files!].reverse() };

const byName = <T extends { name: string }>(items: T[], name: string) => items.filter((i) => i.name === name);

// ---------------------------------------------------------------------------------------------------------------
// Validators.

/** The library's strict validators: the official schemas with additionalProperties forbidden everywhere. */
const cdxValidators: Record<CycloneDxSpecVersion, Validation.JsonStrictValidator> = {
  '1.5': new Validation.JsonStrictValidator(Spec.Version.v1dot5),
  '1.6': new Validation.JsonStrictValidator(Spec.Version.v1dot6),
};
/** null when valid, else ajv's errors. */
async function cycloneDxErrors(doc: unknown, version: CycloneDxSpecVersion): Promise<unknown> {
  return cdxValidators[version].validate(JSON.stringify(doc));
}



/** CPE 2.3 formatted string, as NISTIR 7695 and the NVD CPE dictionary schema define it. */
const CPE23 =
  /^cpe:2\.3:[aho*-](:(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~]))+(\?*|\*?))|[*-])){5}(:(([a-zA-Z]{2,3}(-([a-zA-Z]{2}|[0-9]{3}))?)|[*-]))(:(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~]))+(\?*|\*?))|[*-])){4}$/;

/** The rules of the spec a JSON schema cannot express; each problem as a sentence. */
function spdxSemanticProblems(doc: SpdxDocument): string[] {
  const problems: string[] = [];
  const ids = doc.packages.map((p) => p.SPDXID);
  const known = new Set([...ids, 'SPDXRef-DOCUMENT']);
  if (new Set(ids).size !== ids.length) problems.push('SPDXIDs are not unique');
  for (const r of doc.relationships)
    for (const end of [r.spdxElementId, r.relatedSpdxElement]) if (!known.has(end)) problems.push(`relationship to unknown element ${end}`);
  if (!doc.relationships.some((r) => r.spdxElementId === 'SPDXRef-DOCUMENT' && r.relationshipType === 'DESCRIBES'))
    problems.push('the document DESCRIBES nothing');
  const defined = new Set((doc.hasExtractedLicensingInfos ?? []).map((e) => e.licenseId));
  for (const p of doc.packages) {
    for (const field of ['licenseDeclared', 'licenseConcluded'] as const) {
      const value = p[field];
      if (value === 'NOASSERTION' || value === 'NONE') continue;
      try {
        parseSpdx(value);
      } catch {
        problems.push(`${p.SPDXID}.${field} is not an SPDX expression: ${value}`);
      }
      for (const ref of value.match(/LicenseRef-[A-Za-z0-9.-]+/g) ?? [])
        if (!defined.has(ref)) problems.push(`${p.SPDXID}.${field} uses undefined ${ref}`);
    }
    for (const ref of p.externalRefs ?? []) {
      if (ref.referenceType === 'purl') {
        try {
          PackageURL.fromString(ref.referenceLocator);
        } catch {
          problems.push(`${p.SPDXID} has an invalid purl ${ref.referenceLocator}`);
        }
        if (ref.referenceCategory !== 'PACKAGE-MANAGER') problems.push(`${p.SPDXID}: purl outside PACKAGE-MANAGER`);
      }
      if (ref.referenceType === 'cpe23Type' && !CPE23.test(ref.referenceLocator)) problems.push(`${p.SPDXID} has an invalid CPE ${ref.referenceLocator}`);
    }
  }
  return problems;
}

function expectValidSpdx(doc: SpdxDocument): void {
  const ok = validateSpdxStructure(doc);
  expect(ok ? [] : validateSpdxStructure.errors).toEqual([]);
  expect(spdxSemanticProblems(doc)).toEqual([]);
}

// ---------------------------------------------------------------------------------------------------------------

describe('the validators themselves', () => {
  it('reject what they should, so passing them means something', async () => {
    const cdx = toCycloneDx(INPUT) as any;
    expect(await cycloneDxErrors({ ...cdx, components: [{ ...cdx.components[0], licenses: [{ license: { id: 'Not-A-License' } }] }] }, '1.6')).not.toBeNull();
    expect(await cycloneDxErrors({ ...cdx, serialNumber: 'urn:uuid:not-a-uuid' }, '1.6')).not.toBeNull();
    expect(await cycloneDxErrors({ ...cdx, components: [{ ...cdx.components[0], vigil: true }] }, '1.5')).not.toBeNull();
    const spdx = toSpdx(INPUT);
    expect(validateSpdxStructure({ ...spdx, packages: [{ ...spdx.packages[0], SPDXID: 'SPDXRef-a_b' }] })).toBe(false);
    expect(validateSpdxStructure({ ...spdx, creationInfo: { created: '2024-03-02T08:30:00.000Z', creators: ['vigil'] } })).toBe(false);
    expect(spdxSemanticProblems({ ...spdx, packages: spdx.packages.map((p) => ({ ...p, licenseDeclared: 'LicenseRef-Nowhere' })) })).not.toEqual([]);
    expect(spdxSemanticProblems({ ...spdx, packages: spdx.packages.map((p) => ({ ...p, licenseDeclared: 'GPLv2 or later' })) })).not.toEqual([]);
    expect(spdxSemanticProblems({ ...spdx, packages: [...spdx.packages, spdx.packages[1]!] })).toContain('SPDXIDs are not unique');
  });
});

describe('toCycloneDx', () => {
  for (const version of ['1.5', '1.6'] as const) {
    it(`validates against the official CycloneDX ${version} JSON schema (strict)`, async () => {
      for (const input of [INPUT, MINIMAL, EDGE]) {
        const doc = toCycloneDx(input, { specVersion: version });
        expect(doc.specVersion).toBe(version);
        expect(await cycloneDxErrors(doc, version)).toBeNull();
      }
    });
  }

  it('defaults to CycloneDX 1.6', () => {
    expect(toCycloneDx(MINIMAL).specVersion).toBe('1.6');
  });

  it('is deterministic, whatever order the packages arrive in', () => {
    const first = JSON.stringify(toCycloneDx(INPUT));
    expect(JSON.stringify(toCycloneDx(INPUT))).toBe(first);
    expect(JSON.stringify(toCycloneDx(SHUFFLED))).toBe(first);
  });

  it('derives a stable UUID serial number from the image digest', () => {
    const doc = toCycloneDx(INPUT);
    expect(doc.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toCycloneDx({ ...INPUT, packages: [] }).serialNumber).toBe(doc.serialNumber);
    expect(toCycloneDx({ ...INPUT, image: { ...INPUT.image, digest: 'sha256:' + '1'.repeat(64) } }).serialNumber).not.toBe(doc.serialNumber);
  });

  it('describes the image as the container metadata component, named by its first tag', () => {
    const doc = toCycloneDx(INPUT);
    expect(doc.version).toBe(1);
    expect(doc.metadata?.timestamp).toBe('2024-03-02T08:30:00.000Z');
    expect(doc.metadata?.tools).toEqual({ components: [{ type: 'application', name: 'vigil', version: '0.1.0' }] });
    const image = doc.metadata!.component!;
    expect(image).toMatchObject({ type: 'container', name: 'docker.io/library/example:1.0', version: DIGEST });
    expect(image.purl).toBe(`pkg:oci/example@${DIGEST}?arch=amd64&repository_url=docker.io%2Flibrary%2Fexample&tag=1.0`);
    expect(toCycloneDx(MINIMAL).metadata!.component).toMatchObject({ name: MINIMAL.image.digest, version: MINIMAL.image.digest });
  });

  it('lists every package as a library with a unique bom-ref, and the distro as an operating-system', () => {
    const doc = toCycloneDx(INPUT);
    const components = doc.components!;
    expect(components).toHaveLength(PACKAGES.length + 1);
    expect(new Set(components.map((c) => c['bom-ref'])).size).toBe(components.length);
    expect(components.filter((c) => c.type === 'library')).toHaveLength(PACKAGES.length);
    expect(components.find((c) => c.type === 'operating-system')).toMatchObject({ name: 'debian', version: '12', description: DEBIAN.prettyName });
    // The image depends on everything; nothing else declares dependencies.
    const imageRef = doc.metadata!.component!['bom-ref'];
    const root = doc.dependencies!.find((d) => d.ref === imageRef)!;
    expect([...root.dependsOn!].sort()).toEqual(components.map((c) => c['bom-ref']).sort());
    expect(doc.dependencies!.filter((d) => d.dependsOn)).toHaveLength(1);
  });

  it('puts purls, CPEs, groups, locations and origins where syft puts them', () => {
    const components = toCycloneDx(INPUT).components!;
    const log4j = byName(components, 'log4j-core')[0]!;
    expect(log4j).toMatchObject({ group: 'org.apache.logging.log4j', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' });
    expect(log4j.cpe).toBe('cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*');
    expect(log4j.properties).toEqual(
      expect.arrayContaining([
        { name: 'vigil:package:type', value: 'java' },
        { name: 'vigil:package:origin', value: 'org.apache.logging.log4j' },
        { name: 'vigil:cpe23', value: 'cpe:2.3:a:apache:log4j-core:2.14.1:*:*:*:*:*:*:*' },
        { name: 'vigil:location:0:path', value: '/opt/app/lib/log4j-core-2.14.1.jar' },
      ]),
    );
    const babel = byName(components, '@babel/core')[0]!;
    expect(babel.group).toBeUndefined();
    expect(babel.purl).toBe('pkg:npm/%40babel/core@7.24.0');
    expect(byName(components, 'libc6').map((c) => c.purl)).toEqual([PACKAGES[0]!.purl, PACKAGES[1]!.purl]);
    expect(byName(components, 'libc6')[0]!.publisher).toBe('GNU Libc Maintainers <debian-glibc@lists.debian.org>');
    expect(byName(components, 'bash')[0]).toMatchObject({ version: '1:5.1.8-6.el9', purl: PACKAGES.at(-1)!.purl });
  });

  it('writes SPDX ids, expressions and free-form names as the schema allows', () => {
    const components = toCycloneDx(INPUT).components!;
    const licenses = (name: string) => byName(components, name)[0]!.licenses;
    expect(licenses('musl')).toEqual([{ license: { id: 'MIT', acknowledgement: 'declared' } }]);
    // Lower-case ids are recognised, not passed off as names.
    expect(licenses('requests')).toEqual([{ license: { id: 'Apache-2.0', acknowledgement: 'declared' } }]);
    expect(licenses('libc6')).toEqual([
      { license: { id: 'LGPL-2.1-or-later', acknowledgement: 'declared' } },
      { license: { id: 'GPL-2.0-or-later', acknowledgement: 'declared' } },
    ]);
    expect(licenses('jakarta.servlet-api')).toEqual([
      { expression: 'EPL-2.0 OR GPL-2.0-only WITH Classpath-exception-2.0', acknowledgement: 'declared' },
    ]);
    expect(licenses('bash')).toEqual([{ license: { name: 'GPLv3+', acknowledgement: 'declared' } }]);
    // An expression cannot sit beside a name: it is demoted to a name, not dropped.
    expect(licenses('left-pad')).toEqual([
      { license: { name: 'MIT OR Apache-2.0', acknowledgement: 'declared' } },
      { license: { name: 'Public Domain', acknowledgement: 'declared' } },
    ]);
    expect(licenses('github.com/sirupsen/logrus')).toBeUndefined();
    // 1.5 has no acknowledgement.
    expect(byName(toCycloneDx(INPUT, { specVersion: '1.5' }).components!, 'musl')[0]!.licenses).toEqual([{ license: { id: 'MIT' } }]);
  });
});

describe('toSpdx', () => {
  it('validates as SPDX 2.3 (structure from the spec, plus its cross-reference rules)', () => {
    expectValidSpdx(toSpdx(INPUT));
    expectValidSpdx(toSpdx(MINIMAL));
    expectValidSpdx(toSpdx(EDGE));
  });

  it('is deterministic, whatever order the packages arrive in', () => {
    const first = JSON.stringify(toSpdx(INPUT));
    expect(JSON.stringify(toSpdx(INPUT))).toBe(first);
    expect(JSON.stringify(toSpdx(SHUFFLED))).toBe(first);
  });

  it('has the document header the spec requires, with a namespace stable per image', () => {
    const doc = toSpdx(INPUT);
    expect(doc).toMatchObject({ spdxVersion: 'SPDX-2.3', dataLicense: 'CC0-1.0', SPDXID: 'SPDXRef-DOCUMENT', name: 'docker.io/library/example:1.0' });
    expect(doc.creationInfo).toEqual({ created: '2024-03-02T08:30:00Z', creators: ['Tool: vigil-0.1.0', 'Organization: Vigil'] });
    expect(doc.documentNamespace).toMatch(/^https:\/\/vigil\.invalid\/spdx\/image\/docker.io-library-example-1.0-[0-9a-f-]{36}$/);
    expect(toSpdx({ ...INPUT, packages: [] }).documentNamespace).toBe(doc.documentNamespace);
    expect(toSpdx({ ...INPUT, image: { ...INPUT.image, digest: 'sha256:' + '1'.repeat(64) } }).documentNamespace).not.toBe(doc.documentNamespace);
    expect(toSpdx(INPUT, { namespaceBase: 'https://sbom.example.com/ns/', organization: 'Example Corp' })).toMatchObject({
      documentNamespace: expect.stringMatching(/^https:\/\/sbom\.example\.com\/ns\/docker/),
      creationInfo: { creators: ['Tool: vigil-0.1.0', 'Organization: Example Corp'] },
    });
    // Without analysis or build times the document still has a (fixed) creation time.
    expect(toSpdx(MINIMAL).creationInfo.created).toBe('1970-01-01T00:00:00Z');
  });

  it('gives every element a valid, unique SPDXID, the image DESCRIBED and CONTAINING the rest', () => {
    const doc = toSpdx(INPUT);
    const ids = doc.packages.map((p) => p.SPDXID);
    for (const id of ids) expect(id).toMatch(/^SPDXRef-[A-Za-z0-9.-]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.packages).toHaveLength(PACKAGES.length + 2); // + the image and the distro
    const image = doc.packages[0]!;
    expect(image).toMatchObject({ name: 'docker.io/library/example:1.0', versionInfo: DIGEST, primaryPackagePurpose: 'CONTAINER' });
    expect(image.externalRefs![0]!.referenceLocator).toMatch(/^pkg:oci\/example@sha256:[0-9a-f]{64}\?/);
    expect(doc.packages.find((p) => p.primaryPackagePurpose === 'OPERATING-SYSTEM')).toMatchObject({ name: 'debian', versionInfo: '12' });
    expect(doc.relationships[0]).toEqual({ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: image.SPDXID });
    expect(doc.relationships.slice(1).map((r) => r.relatedSpdxElement).sort()).toEqual(ids.slice(1).sort());
    expect(doc.relationships.slice(1).every((r) => r.spdxElementId === image.SPDXID && r.relationshipType === 'CONTAINS')).toBe(true);
  });

  it('puts purls and CPEs in externalRefs and keeps every package unasserted where Vigil knows nothing', () => {
    const doc = toSpdx(INPUT);
    const log4j = byName(doc.packages, 'log4j-core')[0]!;
    expect(log4j).toMatchObject({
      SPDXID: expect.stringMatching(/^SPDXRef-Package-java-archive-log4j-core-[0-9a-f]{16}$/),
      versionInfo: '2.14.1',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      supplier: 'NOASSERTION',
      sourceInfo: 'acquired package info from the java cataloger: /opt/app/lib/log4j-core-2.14.1.jar',
    });
    expect(log4j.externalRefs).toEqual([
      { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
      { referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*' },
      { referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:apache:log4j-core:2.14.1:*:*:*:*:*:*:*' },
    ]);
    expect(byName(doc.packages, 'bash')[0]!.supplier).toBe('Organization: Red Hat, Inc.');
    expect(byName(doc.packages, 'jakarta.servlet-api')[0]!.externalRefs).toHaveLength(1);
  });

  it('declares SPDX licenses as expressions and free-form ones as defined LicenseRefs', () => {
    const doc = toSpdx(INPUT);
    const declared = (name: string) => byName(doc.packages, name).map((p) => p.licenseDeclared);
    expect(declared('musl')).toEqual(['MIT']);
    expect(declared('requests')).toEqual(['Apache-2.0']);
    expect(declared('libc6')).toEqual(['LGPL-2.1-or-later AND GPL-2.0-or-later', 'NOASSERTION']);
    expect(declared('jakarta.servlet-api')).toEqual(['EPL-2.0 OR GPL-2.0-only WITH Classpath-exception-2.0']);
    expect(declared('bash')).toEqual(['LicenseRef-GPLv3']);
    expect(declared('left-pad')).toEqual(['(MIT OR Apache-2.0) AND LicenseRef-Public-Domain']);
    expect(declared('python-dateutil')).toEqual(['LicenseRef-BSD-License AND LicenseRef-Dual-License']);
    expect(doc.hasExtractedLicensingInfos).toEqual([
      { licenseId: 'LicenseRef-BSD-License', extractedText: 'BSD License', name: 'BSD License' },
      { licenseId: 'LicenseRef-Dual-License', extractedText: 'Dual License', name: 'Dual License' },
      { licenseId: 'LicenseRef-GPLv3', extractedText: 'GPLv3+', name: 'GPLv3+' },
      { licenseId: 'LicenseRef-Public-Domain', extractedText: 'Public Domain', name: 'Public Domain' },
    ]);
  });

  it('keeps LicenseRefs distinct when names sanitise alike, and defines refs that arrive inside expressions', () => {
    const pkg = (name: string, licenses: string[]): SbomPackage => ({
      type: 'npm', name, version: '1.0.0', licenses, locations: [], purl: `pkg:npm/${name}@1.0.0`, cpes: [], metadata: {},
    });
    const doc = toSpdx({ ...MINIMAL, packages: [pkg('a', ['GPL v2']), pkg('b', ['GPL/v2']), pkg('c', ['MIT OR LicenseRef-Acme'])] });
    expectValidSpdx(doc);
    const refs = doc.hasExtractedLicensingInfos!.map((e) => e.licenseId);
    expect(new Set(refs).size).toBe(3);
    expect(refs).toContain('LicenseRef-Acme');
    expect(byName(doc.packages, 'c')[0]!.licenseDeclared).toBe('MIT OR LicenseRef-Acme');
  });
});

describe('toNativeSbom', () => {
  it('is byte-identical across exports, whatever order packages and files arrive in', () => {
    const first = JSON.stringify(toNativeSbom(INPUT));
    expect(JSON.stringify(toNativeSbom(INPUT))).toBe(first);
    expect(JSON.stringify(toNativeSbom(SHUFFLED))).toBe(first);
  });

  it('has syft JSON shape: artifacts, relationships, files, source, distro, descriptor, schema', () => {
    const doc = toNativeSbom(INPUT);
    expect(doc.descriptor).toEqual({ name: 'vigil', version: '0.1.0' });
    expect(doc.schema.version).toBe('1.0.0');
    expect(doc.distro).toEqual({ name: 'debian', version: '12', idLike: [], prettyName: DEBIAN.prettyName });
    expect(doc.source).toMatchObject({
      type: 'image',
      target: {
        userInput: 'docker.io/library/example:1.0',
        imageID: INPUT.image.imageId,
        manifestDigest: DIGEST,
        tags: INPUT.image.tags,
        imageSize: 29_151_024,
        architecture: 'amd64',
        layers: [
          { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: 'sha256:aaa1', size: 29_150_000 },
          { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: 'sha256:bbb2', size: 1_024 },
        ],
      },
    });
    expect(toNativeSbom(MINIMAL).distro).toEqual({});
  });

  it('writes artifacts with syft types, languages, deterministic unique ids and Vigil origins', () => {
    const doc = toNativeSbom(INPUT);
    const ids = doc.artifacts.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(byName(doc.artifacts, 'log4j-core')[0]).toMatchObject({
      type: 'java-archive',
      language: 'java',
      foundBy: 'java',
      origin: 'org.apache.logging.log4j',
      locations: [{ path: '/opt/app/lib/log4j-core-2.14.1.jar' }],
      cpes: [
        { cpe: 'cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*', source: 'vigil' },
        { cpe: 'cpe:2.3:a:apache:log4j-core:2.14.1:*:*:*:*:*:*:*', source: 'vigil' },
      ],
    });
    expect(byName(doc.artifacts, 'libc6')[0]).toMatchObject({ type: 'deb', language: '', origin: 'glibc', size: 12_984_320 });
    expect(byName(doc.artifacts, 'logrus')).toEqual([]);
    expect(byName(doc.artifacts, 'github.com/sirupsen/logrus')[0]).toMatchObject({ type: 'go-module', foundBy: 'go-binary' });
    expect(byName(doc.artifacts, 'bash')[0]!.licenses).toEqual([{ value: 'GPLv3+', spdxExpression: '', type: 'declared' }]);
    expect(byName(doc.artifacts, 'requests')[0]!.licenses).toEqual([{ value: 'apache-2.0', spdxExpression: 'Apache-2.0', type: 'declared' }]);
  });

  it('lists files the way syft does and links packages to the files they were found in', () => {
    const doc = toNativeSbom(INPUT);
    expect(doc.files!.map((f) => f.location.path)).toEqual(['/bin', '/etc', '/usr/bin/sudo', '/var/lib/dpkg/status']);
    expect(doc.files!.find((f) => f.location.path === '/usr/bin/sudo')).toMatchObject({
      metadata: { mode: 4755, type: 'RegularFile', userID: 0, groupID: 0, size: 232_416 },
      digests: [{ algorithm: 'sha256', value: 'b'.repeat(64) }],
    });
    expect(doc.files!.find((f) => f.location.path === '/bin')!.metadata).toMatchObject({ type: 'SymbolicLink', linkDestination: 'usr/bin' });
    const statusId = doc.files!.find((f) => f.location.path === '/var/lib/dpkg/status')!.id;
    const evidentBy = doc.artifactRelationships.filter((r) => r.type === 'evident-by');
    expect(evidentBy.map((r) => r.child)).toEqual([statusId, statusId, statusId]); // the three dpkg packages
    expect(doc.artifactRelationships.filter((r) => r.type === 'contains')).toHaveLength(PACKAGES.length);
    expect(toNativeSbom(MINIMAL).files).toBeUndefined();
  });
});

describe('reading our own documents back', () => {
  const identity = (p: { name: string; version: string; type: string; purl: string }) => `${p.type} ${p.name} ${p.version} ${p.purl}`;
  const expected = PACKAGES.map(identity).sort();

  it.each([
    ['CycloneDX 1.6', () => toCycloneDx(INPUT), 'cyclonedx'],
    ['CycloneDX 1.5', () => toCycloneDx(INPUT, { specVersion: '1.5' }), 'cyclonedx'],
    ['SPDX 2.3', () => toSpdx(INPUT), 'spdx'],
    ['native', () => toNativeSbom(INPUT), 'syft'],
  ] as const)('%s gives back the same name, version, type and purl of every package, and the distro', (_label, write, format) => {
    const doc = JSON.parse(JSON.stringify(write()));
    const result = readSbomPackages(doc);
    expect(result.format).toBe(format);
    expect(result.warnings).toEqual([]);
    expect(result.packages.map(identity).sort()).toEqual(expected);
    expect(result.distro).toMatchObject({ name: 'debian', version: '12' });
  });

  it('CycloneDX and native keep origins, locations, CPEs and licenses too', () => {
    for (const doc of [toCycloneDx(INPUT), toNativeSbom(INPUT)]) {
      const read = readSbomPackages(JSON.parse(JSON.stringify(doc))).packages;
      for (const original of PACKAGES) {
        const back = read.find((p) => p.purl === original.purl)!;
        expect(back.origin).toBe(original.origin ?? undefined);
        expect(back.locations).toEqual(original.locations);
        expect(back.cpes).toEqual(original.cpes);
      }
      expect(read.find((p) => p.name === 'musl')!.licenses).toEqual(['MIT']);
      expect(read.find((p) => p.name === 'bash')!.licenses).toEqual(['GPLv3+']);
    }
  });

  it('SPDX gives back licenses, free-form names included, and locations', () => {
    const read = readSbomPackages(JSON.parse(JSON.stringify(toSpdx(INPUT)))).packages;
    expect(read.find((p) => p.name === 'bash')!.licenses).toEqual(['GPLv3+']);
    expect(read.find((p) => p.name === 'python-dateutil')!.licenses).toEqual(['BSD License', 'Dual License']);
    expect(read.find((p) => p.name === 'libssl3')!.locations).toEqual(['/var/lib/dpkg/status']);
    expect(read.find((p) => p.name === 'log4j-core')).toMatchObject({ origin: 'org.apache.logging.log4j', cpes: PACKAGES[9]!.cpes });
  });
});
