/**
 * SBOM import from documents other tools write: syft JSON, CycloneDX 1.4 with nesting and an operating system,
 * SPDX 2.2 with purls in externalRefs; and malformed documents, which must fail with a typed error naming the
 * field rather than crash.
 */
import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../../src/errors.js';
import { detectSbomFormat, parseSbomJson, readSbomPackages, SbomReadError } from '../../../../src/images/sbom/readers.js';

const byName = <T extends { name: string }>(items: T[], name: string) => items.find((i) => i.name === name);

/** What syft 1.x writes for a Debian image (trimmed to three artifacts; one in the older string-list style). */
const SYFT_JSON = {
  artifacts: [
    {
      id: '8fe5b3b5e4a0c3f1',
      name: 'libc6',
      version: '2.36-9+deb12u4',
      type: 'deb',
      foundBy: 'dpkg-db-cataloger',
      locations: [
        {
          path: '/var/lib/dpkg/status',
          layerID: 'sha256:7cea17427f83f6c4706c74f94fb6d7925b06ea9a0701234f1a9d43f6af11432a',
          accessPath: '/var/lib/dpkg/status',
          annotations: { evidence: 'primary' },
        },
      ],
      licenses: [
        { value: 'GPL-2.0-only', spdxExpression: 'GPL-2.0-only', type: 'declared', urls: [], locations: [] },
        { value: 'LGPL-2.1', spdxExpression: 'LGPL-2.1-only', type: 'declared', urls: [], locations: [] },
      ],
      language: '',
      cpes: [{ cpe: 'cpe:2.3:a:libc6:libc6:2.36-9\\+deb12u4:*:*:*:*:*:*:*', source: 'syft-generated' }],
      purl: 'pkg:deb/debian/libc6@2.36-9%2Bdeb12u4?arch=amd64&upstream=glibc&distro=debian-12',
      metadataType: 'dpkg-db-entry',
      metadata: {
        package: 'libc6',
        source: 'glibc',
        version: '2.36-9+deb12u4',
        sourceVersion: '',
        architecture: 'amd64',
        maintainer: 'GNU Libc Maintainers <debian-glibc@lists.debian.org>',
        installedSize: 12683,
      },
    },
    {
      id: '1b2a3c4d5e6f7a8b',
      name: 'requests',
      version: '2.31.0',
      type: 'python',
      foundBy: 'python-installed-package-cataloger',
      locations: [{ path: '/usr/local/lib/python3.11/site-packages/requests-2.31.0.dist-info/METADATA' }],
      licenses: [{ value: 'Apache 2.0', spdxExpression: '', type: 'declared' }],
      language: 'python',
      cpes: [
        { cpe: 'cpe:2.3:a:python-requests:requests:2.31.0:*:*:*:*:*:*:*', source: 'syft-generated' },
        { cpe: 'cpe:2.3:a:python:requests:2.31.0:*:*:*:*:*:*:*', source: 'syft-generated' },
      ],
      purl: 'pkg:pypi/requests@2.31.0',
      metadataType: 'python-package',
      metadata: { name: 'requests', version: '2.31.0', author: 'Kenneth Reitz', sitePackagesRootPath: '/usr/local/lib/python3.11/site-packages' },
    },
    {
      // Older syft schemas: plain strings for licenses and cpes.
      name: 'rack',
      version: '3.0.8',
      type: 'gem',
      locations: [{ path: '/usr/local/bundle/specifications/rack-3.0.8.gemspec' }],
      licenses: ['MIT'],
      cpes: ['cpe:2.3:a:rack:rack:3.0.8:*:*:*:*:*:*:*'],
      purl: 'pkg:gem/rack@3.0.8',
      metadata: {},
    },
    {
      name: 'busybox',
      version: '1.36.1',
      type: 'binary',
      foundBy: 'binary-classifier-cataloger',
      locations: [{ path: '/bin/busybox' }],
      licenses: [],
      cpes: [],
      purl: 'pkg:generic/busybox@1.36.1',
      metadata: {},
    },
  ],
  artifactRelationships: [],
  source: { id: 'abc', name: 'debian', version: 'sha256:deadbeef', type: 'image', metadata: {} },
  distro: {
    prettyName: 'Debian GNU/Linux 12 (bookworm)',
    name: 'Debian GNU/Linux',
    id: 'debian',
    version: '12 (bookworm)',
    versionID: '12',
    versionCodename: 'bookworm',
    homeURL: 'https://www.debian.org/',
  },
  descriptor: { name: 'syft', version: '1.4.1', configuration: {} },
  schema: { version: '16.0.10', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.10.json' },
};

/** A CycloneDX 1.4 document as syft 0.8x and cdxgen write them, with an application nesting its dependencies. */
const CYCLONEDX_14 = {
  bomFormat: 'CycloneDX',
  specVersion: '1.4',
  serialNumber: 'urn:uuid:1b671687-395b-41f5-a30f-a58921a69b79',
  version: 1,
  metadata: {
    timestamp: '2023-11-02T10:00:00Z',
    tools: [{ vendor: 'anchore', name: 'syft', version: '0.85.0' }],
    component: { 'bom-ref': 'f1d2b3', type: 'container', name: 'alpine:3.18', version: 'sha256:eece025e432126ce23f223450a0326fbebde39cdf496a85d8c016293fc851978' },
  },
  components: [
    {
      'bom-ref': 'pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&upstream=musl&distro=alpine-3.18.4&package-id=9d6cd1f7c5b8',
      type: 'library',
      publisher: 'Timo Teräs <timo.teras@iki.fi>',
      name: 'musl',
      version: '1.2.4-r2',
      licenses: [{ license: { id: 'MIT' } }],
      cpe: 'cpe:2.3:a:musl-libc:musl:1.2.4-r2:*:*:*:*:*:*:*',
      purl: 'pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&upstream=musl&distro=alpine-3.18.4',
      properties: [
        { name: 'syft:package:foundBy', value: 'apkdb-cataloger' },
        { name: 'syft:package:type', value: 'apk' },
        { name: 'syft:cpe23', value: 'cpe:2.3:a:musl:musl:1.2.4-r2:*:*:*:*:*:*:*' },
        { name: 'syft:location:0:layerID', value: 'sha256:cc2447e1835a40530975ab80bb1f872fbab0f2a0faecf2ab16fbbb89b3589438' },
        { name: 'syft:location:0:path', value: '/lib/apk/db/installed' },
        { name: 'syft:metadata:originPackage', value: 'musl' },
      ],
    },
    {
      type: 'application',
      name: 'storefront',
      version: '2.4.0',
      purl: 'pkg:npm/storefront@2.4.0',
      components: [
        // cyclonedx-npm style: the scope in `group`.
        { type: 'library', group: '@babel', name: 'core', version: '7.24.0', purl: 'pkg:npm/%40babel/core@7.24.0', licenses: [{ expression: 'MIT' }] },
        {
          type: 'library',
          group: 'com.fasterxml.jackson.core',
          name: 'jackson-databind',
          version: '2.15.2',
          purl: 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.15.2?type=jar',
          licenses: [{ license: { name: 'The Apache Software License, Version 2.0' } }],
          components: [{ type: 'library', name: 'smallvec', version: '1.11.0', purl: 'pkg:cargo/smallvec@1.11.0' }],
        },
      ],
    },
    { type: 'file', name: '/etc/passwd', hashes: [{ alg: 'SHA-256', content: 'a'.repeat(64) }] },
    {
      type: 'operating-system',
      name: 'alpine',
      version: '3.18.4',
      description: 'Alpine Linux v3.18',
      properties: [
        { name: 'syft:distro:id', value: 'alpine' },
        { name: 'syft:distro:versionID', value: '3.18.4' },
      ],
    },
    { type: 'library', group: 'golang.org/x', name: 'net', version: 'v0.17.0' , properties: [{ name: 'syft:package:type', value: 'go-module' }] },
    { type: 'library', name: 'mystery', version: '1.0' },
  ],
};

/** SPDX 2.2 as syft wrote it before package purposes existed: underscore category, documentDescribes. */
const SPDX_22 = {
  SPDXID: 'SPDXRef-DOCUMENT',
  name: 'registry.access.redhat.com/ubi9:9.3',
  spdxVersion: 'SPDX-2.2',
  creationInfo: { created: '2024-01-10T09:00:00Z', creators: ['Organization: Anchore, Inc', 'Tool: syft-0.68.1'], licenseListVersion: '3.19' },
  dataLicense: 'CC0-1.0',
  documentNamespace: 'https://anchore.com/syft/image/registry.access.redhat.com/ubi9-9.3-1c4a3f1e-4b6a-4bb0-9f69-0b6a3c9d2f11',
  documentDescribes: ['SPDXRef-DocumentRoot-Image-ubi9'],
  hasExtractedLicensingInfos: [{ licenseId: 'LicenseRef-OpenSSL-Custom', extractedText: 'Redistribution...', name: 'OpenSSL custom' }],
  packages: [
    {
      SPDXID: 'SPDXRef-DocumentRoot-Image-ubi9',
      name: 'registry.access.redhat.com/ubi9',
      versionInfo: 'sha256:0a1b2c',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
    },
    {
      SPDXID: 'SPDXRef-Package-rpm-openssl-libs-3f5a',
      name: 'openssl-libs',
      versionInfo: '1:3.0.7-24.el9',
      supplier: 'Organization: Red Hat, Inc.',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      sourceInfo: 'acquired package info from RPM DB: /var/lib/rpm/rpmdb.sqlite',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'Apache-2.0 AND LicenseRef-OpenSSL-Custom',
      copyrightText: 'NOASSERTION',
      externalRefs: [
        { referenceCategory: 'SECURITY', referenceLocator: 'cpe:2.3:a:redhat:openssl-libs:1\\:3.0.7-24.el9:*:*:*:*:*:*:*', referenceType: 'cpe23Type' },
        {
          referenceCategory: 'PACKAGE_MANAGER',
          referenceLocator: 'pkg:rpm/rhel/openssl-libs@3.0.7-24.el9?arch=x86_64&epoch=1&upstream=openssl-3.0.7-24.el9.src.rpm&distro=rhel-9.3',
          referenceType: 'purl',
        },
      ],
    },
    {
      SPDXID: 'SPDXRef-Package-python-PyYAML-77ab',
      name: 'PyYAML',
      versionInfo: '6.0.1',
      downloadLocation: 'NOASSERTION',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'MIT',
      copyrightText: 'NOASSERTION',
      externalRefs: [{ referenceCategory: 'PACKAGE_MANAGER', referenceLocator: 'pkg:pypi/pyyaml@6.0.1', referenceType: 'purl' }],
    },
    {
      SPDXID: 'SPDXRef-Package-unknown-blob',
      name: 'vendored-blob',
      versionInfo: '0.1',
      downloadLocation: 'NOASSERTION',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
    },
  ],
  relationships: [
    { spdxElementId: 'SPDXRef-DocumentRoot-Image-ubi9', relatedSpdxElement: 'SPDXRef-Package-rpm-openssl-libs-3f5a', relationshipType: 'CONTAINS' },
  ],
};

describe('detectSbomFormat', () => {
  it('recognises each format by content', () => {
    for (const v of ['1.4', '1.5', '1.6']) expect(detectSbomFormat({ bomFormat: 'CycloneDX', specVersion: v })).toBe('cyclonedx');
    for (const v of ['SPDX-2.2', 'SPDX-2.3']) expect(detectSbomFormat({ spdxVersion: v })).toBe('spdx');
    expect(detectSbomFormat(SYFT_JSON)).toBe('syft');
    expect(detectSbomFormat({ artifacts: [], descriptor: { name: 'syft' } })).toBe('syft');
    expect(detectSbomFormat({ artifacts: [], descriptor: { name: 'vigil' } })).toBe('syft');
  });

  it('answers null for other versions, other documents and non-objects', () => {
    expect(detectSbomFormat({ bomFormat: 'CycloneDX', specVersion: '1.3' })).toBeNull();
    expect(detectSbomFormat({ spdxVersion: 'SPDX-2.1' })).toBeNull();
    expect(detectSbomFormat({ artifacts: [] })).toBeNull();
    expect(detectSbomFormat({ name: 'package.json' })).toBeNull();
    for (const value of [null, undefined, [], 'CycloneDX', 3]) expect(detectSbomFormat(value)).toBeNull();
  });
});

describe('readSbomPackages: syft JSON', () => {
  const result = readSbomPackages(SYFT_JSON);

  it('reads artifacts as packages of the matching Vigil type, skipping what Vigil has no type for', () => {
    expect(result.format).toBe('syft');
    expect(result.packages.map((p) => `${p.type}:${p.name}@${p.version}`)).toEqual(['dpkg:libc6@2.36-9+deb12u4', 'python:requests@2.31.0', 'gem:rack@3.0.8']);
    expect(result.warnings).toEqual(["artifacts[3]: skipped 'busybox': unsupported package type 'binary'"]);
  });

  it('reads the distro block by os-release ID', () => {
    expect(result.distro).toEqual({ name: 'debian', version: '12', like: [], prettyName: 'Debian GNU/Linux 12 (bookworm)' });
  });

  it('keeps purls, CPEs, locations, licenses, metadata and the dpkg source', () => {
    expect(byName(result.packages, 'libc6')).toEqual({
      name: 'libc6',
      version: '2.36-9+deb12u4',
      type: 'dpkg',
      locations: ['/var/lib/dpkg/status'],
      licenses: ['GPL-2.0-only', 'LGPL-2.1-only'],
      origin: 'glibc',
      purl: SYFT_JSON.artifacts[0]!.purl,
      cpes: ['cpe:2.3:a:libc6:libc6:2.36-9\\+deb12u4:*:*:*:*:*:*:*'],
      metadata: SYFT_JSON.artifacts[0]!.metadata,
    });
    expect(byName(result.packages, 'requests')).toMatchObject({
      licenses: ['Apache 2.0'],
      cpes: ['cpe:2.3:a:python-requests:requests:2.31.0:*:*:*:*:*:*:*', 'cpe:2.3:a:python:requests:2.31.0:*:*:*:*:*:*:*'],
      locations: ['/usr/local/lib/python3.11/site-packages/requests-2.31.0.dist-info/METADATA'],
    });
    expect(byName(result.packages, 'rack')).toMatchObject({ licenses: ['MIT'], cpes: ['cpe:2.3:a:rack:rack:3.0.8:*:*:*:*:*:*:*'] });
  });
});

describe('readSbomPackages: CycloneDX 1.4', () => {
  const result = readSbomPackages(CYCLONEDX_14);

  it('flattens nested components and skips the container, files and the operating system', () => {
    expect(result.format).toBe('cyclonedx');
    expect(result.packages.map((p) => `${p.type}:${p.name}@${p.version}`).sort()).toEqual([
      'apk:musl@1.2.4-r2',
      'go:golang.org/x/net@v0.17.0',
      'java:jackson-databind@2.15.2',
      'npm:@babel/core@7.24.0',
      'npm:storefront@2.4.0',
      'rust:smallvec@1.11.0',
    ]);
    expect(result.warnings).toEqual([
      "components[5]: skipped 'mystery': neither a purl nor a package type says which ecosystem it is from",
    ]);
  });

  it('reads the distro from the operating-system component', () => {
    expect(result.distro).toEqual({ name: 'alpine', version: '3.18.4', like: [], prettyName: 'Alpine Linux v3.18' });
  });

  it("understands syft's properties and puts groups where Vigil keeps them", () => {
    expect(byName(result.packages, 'musl')).toEqual({
      name: 'musl',
      version: '1.2.4-r2',
      type: 'apk',
      locations: ['/lib/apk/db/installed'],
      licenses: ['MIT'],
      origin: 'musl',
      purl: 'pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&upstream=musl&distro=alpine-3.18.4',
      cpes: ['cpe:2.3:a:musl-libc:musl:1.2.4-r2:*:*:*:*:*:*:*', 'cpe:2.3:a:musl:musl:1.2.4-r2:*:*:*:*:*:*:*'],
      metadata: { maintainer: 'Timo Teräs <timo.teras@iki.fi>', architecture: 'x86_64' },
    });
    expect(byName(result.packages, '@babel/core')).toMatchObject({ purl: 'pkg:npm/%40babel/core@7.24.0', licenses: ['MIT'] });
    expect(byName(result.packages, 'jackson-databind')).toMatchObject({
      origin: 'com.fasterxml.jackson.core',
      licenses: ['The Apache Software License, Version 2.0'],
    });
    // No purl in the document: Vigil builds the one its cataloger would have.
    expect(byName(result.packages, 'golang.org/x/net')).toMatchObject({ purl: 'pkg:golang/golang.org/x/net@v0.17.0', origin: 'golang.org/x/net' });
  });
});

describe('readSbomPackages: SPDX 2.2', () => {
  const result = readSbomPackages(SPDX_22);

  it('takes types from externalRefs purls and leaves out the described image', () => {
    expect(result.format).toBe('spdx');
    expect(result.packages.map((p) => `${p.type}:${p.name}@${p.version}`)).toEqual(['rpm:openssl-libs@1:3.0.7-24.el9', 'python:PyYAML@6.0.1']);
    expect(result.warnings).toEqual(["packages[3]: skipped 'vendored-blob': neither a purl nor a package type says which ecosystem it is from"]);
  });

  it('reads origins from the upstream qualifier, licenses with LicenseRefs named, CPEs and locations', () => {
    expect(byName(result.packages, 'openssl-libs')).toEqual({
      name: 'openssl-libs',
      version: '1:3.0.7-24.el9',
      type: 'rpm',
      locations: ['/var/lib/rpm/rpmdb.sqlite'],
      licenses: ['Apache-2.0', 'OpenSSL custom'],
      origin: 'openssl',
      purl: SPDX_22.packages[1]!.externalRefs![1]!.referenceLocator,
      cpes: ['cpe:2.3:a:redhat:openssl-libs:1\\:3.0.7-24.el9:*:*:*:*:*:*:*'],
      metadata: { supplier: 'Organization: Red Hat, Inc.', architecture: 'x86_64' },
    });
    expect(byName(result.packages, 'PyYAML')).toMatchObject({ purl: 'pkg:pypi/pyyaml@6.0.1', licenses: ['MIT'], locations: [] });
  });

  it("falls back on the OS packages' distro qualifier when no element names the distro", () => {
    expect(result.distro).toEqual({ name: 'rhel', version: '9.3', like: [] });
  });
});

describe('readSbomPackages: malformed documents', () => {
  const failure = (doc: unknown): SbomReadError => {
    try {
      readSbomPackages(doc);
    } catch (err) {
      expect(err).toBeInstanceOf(SbomReadError);
      return err as SbomReadError;
    }
    throw new Error('expected readSbomPackages to throw');
  };

  it('rejects values that are not JSON objects', () => {
    expect(failure(null).message).toBe('SBOM must be a JSON object, got null');
    expect(failure([]).message).toBe('SBOM must be a JSON object, got an array');
    expect(failure('{"bomFormat":"CycloneDX"}').message).toBe('SBOM must be a JSON object, got a string');
    expect(failure(7).message).toBe('SBOM must be a JSON object, got a number');
  });

  it('raises a validation error (HTTP 400) that names the format and the field', () => {
    const err = failure({ bomFormat: 'CycloneDX', specVersion: '1.2', components: [] });
    expect(err).toBeInstanceOf(InvalidError);
    expect(err.status).toBe(400);
    expect(err.message).toBe("CycloneDX SBOM: specVersion '1.2' is not supported (supported: 1.4, 1.5, 1.6)");
    expect(err.format).toBe('cyclonedx');
    expect(err.field).toBe('specVersion');
    expect(err.detail).toEqual({ format: 'cyclonedx', field: 'specVersion' });
  });

  it('rejects unsupported or missing versions', () => {
    expect(failure({ bomFormat: 'CycloneDX' }).message).toBe('CycloneDX SBOM: specVersion is missing (supported: 1.4, 1.5, 1.6)');
    expect(failure({ bomFormat: 'CycloneDX', specVersion: 1.5 }).message).toBe(
      'CycloneDX SBOM: specVersion must be a string, got a number (supported: 1.4, 1.5, 1.6)',
    );
    expect(failure({ spdxVersion: 'SPDX-2.1', packages: [] }).message).toBe("SPDX SBOM: spdxVersion 'SPDX-2.1' is not supported (supported: SPDX-2.2, SPDX-2.3)");
  });

  it('rejects components that are not an array, and broken components by index', () => {
    const cdx = (components: unknown) => ({ bomFormat: 'CycloneDX', specVersion: '1.5', components });
    expect(failure(cdx({ musl: {} }))).toMatchObject({ message: 'CycloneDX SBOM: components must be an array, got an object', field: 'components' });
    expect(failure(cdx([{ type: 'library', name: 'ok', purl: 'pkg:npm/ok@1' }, { type: 'library', version: '1' }]))).toMatchObject({
      message: 'CycloneDX SBOM: components[1].name is required and must be a non-empty string',
      field: 'components[1].name',
    });
    expect(failure(cdx([{ type: 'application', name: 'app', components: [{ type: 'library', name: 'a' }, 'b'] }])).message).toBe(
      'CycloneDX SBOM: components[0].components[1] must be an object, got a string',
    );
    expect(failure(cdx([{ type: 'library', name: 'x', licenses: { id: 'MIT' } }])).message).toBe(
      'CycloneDX SBOM: components[0].licenses must be an array, got an object',
    );
    expect(failure(cdx([{ type: 'library', name: 'x', version: 2 }])).message).toBe('CycloneDX SBOM: components[0].version must be a string, got a number');
  });

  it('rejects broken SPDX packages and syft artifacts by index', () => {
    expect(failure({ spdxVersion: 'SPDX-2.3', packages: [{ SPDXID: 'SPDXRef-a', name: 'a' }, { name: 'b' }] }).message).toBe(
      'SPDX SBOM: packages[1].SPDXID is required and must be a non-empty string',
    );
    expect(failure({ spdxVersion: 'SPDX-2.3', packages: 'none' }).message).toBe('SPDX SBOM: packages must be an array, got a string');
    expect(failure({ ...SYFT_JSON, artifacts: [SYFT_JSON.artifacts[0], null] }).message).toBe('syft JSON SBOM: artifacts[1] must be an object, got null');
    expect(failure({ ...SYFT_JSON, artifacts: {} }).message).toBe('syft JSON SBOM: artifacts must be an array, got an object');
    expect(failure({ ...SYFT_JSON, artifacts: [{ ...SYFT_JSON.artifacts[1], cpes: [1] }] }).message).toBe(
      'syft JSON SBOM: artifacts[0].cpes[0] must be an object, got a number',
    );
  });

  it('rejects documents of no known format', () => {
    expect(failure({ name: 'my-app', dependencies: {} }).message).toMatch(/^not a recognised SBOM: expected CycloneDX JSON/);
    expect(failure({ name: 'my-app' }).format).toBeNull();
  });

  it('parseSbomJson turns syntax errors into the same typed error', () => {
    expect(parseSbomJson('\uFEFF{"spdxVersion":"SPDX-2.3"}')).toEqual({ spdxVersion: 'SPDX-2.3' });
    expect(() => parseSbomJson('{"bomFormat": ')).toThrow(SbomReadError);
    expect(() => parseSbomJson('{"bomFormat": ')).toThrow(/^SBOM is not valid JSON: /);
  });

  it('skips a component with an invalid purl only if nothing else types it, with a warning either way', () => {
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      components: [
        { type: 'library', name: 'left-pad', version: '1.3.0', purl: 'not a purl', properties: [{ name: 'vigil:package:type', value: 'npm' }] },
        { type: 'library', name: 'junk', version: '1', purl: 'junk' },
      ],
    };
    const result = readSbomPackages(doc);
    expect(result.packages).toMatchObject([{ name: 'left-pad', type: 'npm', purl: 'pkg:npm/left-pad@1.3.0' }]);
    expect(result.warnings).toEqual([
      "components[0]: ignored the invalid purl 'not a purl' of 'left-pad'",
      "components[1]: ignored the invalid purl 'junk' of 'junk'",
      "components[1]: skipped 'junk': neither a purl nor a package type says which ecosystem it is from",
    ]);
  });
});

describe('readSbomPackages: Rust, .NET and PHP packages', () => {
  it("reads syft's rust-crate, dotnet and php-composer artifacts, Composer names lower-cased", () => {
    const artifact = (name: string, version: string, type: string, purl: string) => ({ id: name, name, version, type, foundBy: `${type}-cataloger`, locations: [], licenses: [], language: '', cpes: [], purl });
    const result = readSbomPackages({
      artifacts: [
        artifact('hyper', '0.14.10', 'rust-crate', 'pkg:cargo/hyper@0.14.10'),
        artifact('Newtonsoft.Json', '13.0.1', 'dotnet', 'pkg:nuget/Newtonsoft.Json@13.0.1'),
        // An older registry's capitals: Composer itself lower-cases names.
        artifact('GuzzleHttp/Psr7', '2.4.1', 'php-composer', 'pkg:composer/guzzlehttp/psr7@2.4.1'),
      ],
      source: { type: 'image', metadata: { userInput: 'shop:1' } },
      distro: {},
      descriptor: { name: 'syft', version: '1.18.1' },
      schema: { version: '16.0.18', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.18.json' },
    });
    expect(result.packages.map((p) => `${p.type}:${p.name}@${p.version}`)).toEqual(['rust:hyper@0.14.10', 'nuget:Newtonsoft.Json@13.0.1', 'composer:guzzlehttp/psr7@2.4.1']);
    expect(result.warnings).toEqual([]);
  });

  it('joins a CycloneDX group to the Composer name and builds the purls a document left out', () => {
    const result = readSbomPackages({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      components: [
        { type: 'library', group: 'symfony', name: 'http-foundation', version: 'v6.4.0', purl: 'pkg:composer/symfony/http-foundation@v6.4.0' },
        { type: 'library', name: 'Microsoft.Data.SqlClient', version: '5.1.1', properties: [{ name: 'syft:package:type', value: 'dotnet' }] },
        { type: 'library', name: 'tokio', version: '1.35.1', properties: [{ name: 'syft:package:type', value: 'rust-crate' }] },
      ],
    });
    expect(result.packages.map((p) => `${p.type}:${p.name}@${p.version} ${p.purl}`)).toEqual([
      'composer:symfony/http-foundation@v6.4.0 pkg:composer/symfony/http-foundation@v6.4.0',
      'nuget:Microsoft.Data.SqlClient@5.1.1 pkg:nuget/Microsoft.Data.SqlClient@5.1.1',
      'rust:tokio@1.35.1 pkg:cargo/tokio@1.35.1',
    ]);
  });
});
