import { Validation } from '@cyclonedx/cyclonedx-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { validateSpdxStructure } from '../support/spdx-schema.js';

let server: TestServer;
let digest: string;

const DPKG = 'Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nSource: glibc\nVersion: 2.36-9+deb12u4\n\nPackage: bash\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.2.15-2+b2\n';

beforeAll(async () => {
  server = await startTestServer();
  const image = await buildImage({
    layers: [
      [
        { path: 'etc/os-release', content: 'ID=debian\nVERSION_ID="12"\n' },
        { path: 'var/lib/dpkg/status', content: DPKG },
        { path: 'srv/node_modules/@scope/lib/package.json', content: JSON.stringify({ name: '@scope/lib', version: '1.0.0', license: 'MIT OR Apache-2.0' }) },
        { path: 'srv/site/requests-2.28.1.dist-info/METADATA', content: 'Metadata-Version: 2.1\nName: requests\nVersion: 2.28.1\nLicense: Apache 2.0\n' },
      ],
    ],
  });
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: ['registry.example.com/team/sbom:1'] }),
  });
  digest = res.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string) => raw(server.url, 'GET', `/v2/images/${digest}/sboms/${path}`);

describe('SBOM exports', () => {
  it.each(['1.5', '1.6'] as const)('writes CycloneDX %s that validates against the official schema', async (version) => {
    const res = await get(`cyclonedx-json?spec_version=${version}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ bomFormat: 'CycloneDX', specVersion: version });
    const errors = await new Validation.JsonStrictValidator(version as never).validate(res.text);
    expect(errors).toBeNull();
    const components = res.json.components.map((c: { name: string; version: string; purl?: string }) => `${c.name}@${c.version} ${c.purl?.split('@')[0]}`);
    expect(components).toEqual(
      expect.arrayContaining([
        'libc6@2.36-9+deb12u4 pkg:deb/debian/libc6',
        'bash@5.2.15-2+b2 pkg:deb/debian/bash',
        '@scope/lib@1.0.0 pkg:npm/%40scope/lib',
        'debian@12 undefined', // the operating system, as an operating-system component
        'requests@2.28.1 pkg:pypi/requests',
      ]),
    );
    expect(res.json.metadata.component.name).toContain('registry.example.com/team/sbom');
  });

  it('writes SPDX 2.3 with a document describing the image that contains every package', async () => {
    const res = await get('spdx-json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc).toMatchObject({ spdxVersion: 'SPDX-2.3', dataLicense: 'CC0-1.0', SPDXID: 'SPDXRef-DOCUMENT' });
    const valid = validateSpdxStructure(doc);
    expect(valid ? [] : validateSpdxStructure.errors).toEqual([]);
    const ids = doc.packages.map((p: { SPDXID: string }) => p.SPDXID);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^SPDXRef-[A-Za-z0-9.-]+$/);
    const names = doc.packages.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['libc6', 'bash', '@scope/lib', 'requests']));
    const describes = doc.relationships.filter((r: { relationshipType: string }) => r.relationshipType === 'DESCRIBES');
    expect(describes).toHaveLength(1);
    const contains = doc.relationships.filter((r: { relationshipType: string }) => r.relationshipType === 'CONTAINS');
    expect(contains.length).toBe(5); // four packages and the operating system
    const lib = doc.packages.find((p: { name: string }) => p.name === '@scope/lib');
    expect(lib.licenseDeclared).toBe('MIT OR Apache-2.0');
    expect(lib.externalRefs).toContainEqual(expect.objectContaining({ referenceType: 'purl', referenceLocator: 'pkg:npm/%40scope/lib@1.0.0' }));
  });

  it('writes the native format with packages and files, and the same bytes twice', async () => {
    const first = await get('native-json');
    const second = await get('native-json');
    expect(first.text).toBe(second.text);
    expect(first.json.artifacts.map((a: { name: string }) => a.name).sort()).toEqual(['@scope/lib', 'bash', 'libc6', 'requests']);
    expect(first.json.files.length).toBeGreaterThan(4);
    expect(first.json.distro).toMatchObject({ name: 'debian', version: '12' });
  });

  it('answers 404 for unknown images and 400 for a bad spec version', async () => {
    expect((await raw(server.url, 'GET', `/v2/images/sha256:${'b'.repeat(64)}/sboms/spdx-json`)).status).toBe(404);
    expect((await get('cyclonedx-json?spec_version=1.2')).status).toBe(400);
  });
});
