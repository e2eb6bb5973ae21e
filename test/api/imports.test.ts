import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectValidationError } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

const digestOf = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

/** A syft JSON document as `syft -o json` writes it (trimmed to what matters). */
const SYFT = {
  artifacts: [
    {
      id: 'a1',
      name: 'openssl',
      version: '3.0.11-1~deb12u2',
      type: 'deb',
      foundBy: 'dpkg-db-cataloger',
      locations: [{ path: '/var/lib/dpkg/status' }],
      licenses: [],
      language: '',
      cpes: ['cpe:2.3:a:openssl:openssl:3.0.11-1~deb12u2:*:*:*:*:*:*:*'],
      purl: 'pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      metadataType: 'DpkgMetadata',
      metadata: { package: 'openssl', source: 'openssl', version: '3.0.11-1~deb12u2', architecture: 'amd64' },
    },
    {
      id: 'a2',
      name: 'urllib3',
      version: '1.26.12',
      type: 'python',
      foundBy: 'python-package-cataloger',
      locations: [{ path: '/usr/lib/python3/dist-packages/urllib3-1.26.12.dist-info/METADATA' }],
      licenses: ['MIT'],
      language: 'python',
      cpes: [],
      purl: 'pkg:pypi/urllib3@1.26.12',
      metadataType: 'PythonPackageMetadata',
      metadata: {},
    },
  ],
  artifactRelationships: [],
  source: { type: 'image', target: { imageID: 'sha256:abc' } },
  distro: { name: 'debian', version: '12', idLike: [] },
  descriptor: { name: 'syft', version: '0.98.0' },
  schema: { version: '16.0.0', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.0.json' },
};

const SPDX = {
  spdxVersion: 'SPDX-2.3',
  dataLicense: 'CC0-1.0',
  SPDXID: 'SPDXRef-DOCUMENT',
  name: 'app',
  documentNamespace: 'https://example.com/spdx/app-1',
  creationInfo: { created: '2026-01-01T00:00:00Z', creators: ['Tool: other-scanner-1.0'] },
  packages: [
    {
      SPDXID: 'SPDXRef-Package-npm-lodash',
      name: 'lodash',
      versionInfo: '4.17.20',
      downloadLocation: 'NOASSERTION',
      licenseDeclared: 'MIT',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:npm/lodash@4.17.20' }],
    },
  ],
};

const MANIFEST = {
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${'c'.repeat(64)}`, size: 100 },
  layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${'d'.repeat(64)}`, size: 1234 }],
};
const CONFIG = { architecture: 'arm64', os: 'linux', history: [{ created_by: '/bin/sh -c #(nop) CMD ["python3"]' }] };

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function newOperation(): Promise<string> {
  const { data } = await client(server.url).POST('/imports/images');
  expect(data?.status).toBe('pending');
  return data!.uuid;
}

async function put(uuid: string, part: string, body: unknown) {
  const res = await json(server.url, 'POST', `/v2/imports/images/${uuid}/${part}`, body);
  expect(res.status).toBe(200);
  return res.json.digest as string;
}

describe('SBOM import', () => {
  it('imports a syft SBOM with its manifest, config and Dockerfile, and serves it like an analysis', async () => {
    const uuid = await newOperation();
    const packages = await put(uuid, 'packages', SYFT);
    const manifest = await put(uuid, 'manifest', MANIFEST);
    const config = await put(uuid, 'image-config', CONFIG);
    const dockerfileText = 'FROM debian:12\nRUN apt-get install -y python3-urllib3\n';
    const dockerfile = await raw(server.url, 'POST', `/v2/imports/images/${uuid}/dockerfile`, { headers: { 'content-type': 'text/plain' }, body: dockerfileText });
    expect(dockerfile.status).toBe(200);
    expect(dockerfile.json.digest).toBe(digestOf(dockerfileText));
    expect((await client(server.url).GET('/imports/images/{operation_id}/packages', { params: { path: { operation_id: uuid } } })).data).toEqual([packages]);

    const imageDigest = `sha256:${'e'.repeat(64)}`;
    const added = await json(server.url, 'POST', '/v2/images', {
      source: { import: { operation_uuid: uuid, digest: imageDigest, tags: ['registry.example.com/team/py:1'], contents: { packages, manifest, image_config: config, dockerfile: dockerfile.json.digest } } },
    });
    expect(added.status).toBe(200);
    expect(await waitForAnalysis(server, 'admin', imageDigest)).toBe('analyzed');

    const c = client(server.url);
    const image = await c.GET('/images/{image_digest}', { params: { path: { image_digest: imageDigest } } });
    expect(image.data?.image_content?.metadata).toMatchObject({ distro: 'debian', distro_version: '12', arch: 'arm64', layer_count: 1, image_size: 1234, dockerfile_mode: 'Actual' });
    expect(image.data?.image_id).toBe(MANIFEST.config.digest);
    const os = await c.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: imageDigest, content_type: 'os' } } });
    expect(os.data?.content).toEqual([expect.objectContaining({ package: 'openssl', version: '3.0.11-1~deb12u2', type: 'dpkg', origin: 'openssl' })]);
    const py = await c.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: imageDigest, content_type: 'python' } } });
    expect(py.data?.content).toEqual([expect.objectContaining({ package: 'urllib3', version: '1.26.12', purl: 'pkg:pypi/urllib3@1.26.12' })]);
    const df = await c.GET('/images/{image_digest}/metadata/{metadata_type}', { params: { path: { image_digest: imageDigest, metadata_type: 'dockerfile' } } });
    expect(df.data?.metadata).toBe(dockerfileText);
    expect((await c.GET('/imports/images/{operation_id}', { params: { path: { operation_id: uuid } } })).data?.status).toBe('complete');
  });

  it('imports an SPDX document from another tool without manifest or config', async () => {
    const uuid = await newOperation();
    const packages = await put(uuid, 'packages', SPDX);
    const imageDigest = `sha256:${'f'.repeat(64)}`;
    await json(server.url, 'POST', '/v2/images', { source: { import: { operation_uuid: uuid, digest: imageDigest, tags: ['app:1'], contents: { packages } } } });
    expect(await waitForAnalysis(server, 'admin', imageDigest)).toBe('analyzed');
    const npm = await client(server.url).GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: imageDigest, content_type: 'npm' } } });
    expect(npm.data?.content).toEqual([expect.objectContaining({ package: 'lodash', version: '4.17.20', licenses: ['MIT'] })]);
  });

  it('imports secret searches, content searches and file contents, which the artifacts routes and the gates read', async () => {
    const uuid = await newOperation();
    const packages = await put(uuid, 'packages', SPDX);
    const secretSearches = await put(uuid, 'secret-searches', [
      { location: { path: '/root/.aws/credentials', layerID: `sha256:${'d'.repeat(64)}` }, content_searches: [
        { classification: 'aws-access-key', line_number: 3, line_offset: 0, seek_position: 40, length: 20 },
        { classification: 'aws-access-key', line_number: 2, line_offset: 0, seek_position: 10, length: 20 },
      ] },
    ]);
    const contentSearches = await put(uuid, 'content-searches', [{ location: { path: 'etc/app.conf' }, content_searches: [{ classification: 'DEBUG', line_number: 1, line_offset: 0, seek_position: 0, length: 9 }] }]);
    const passwd = 'root:x:0:0:root:/root:/bin/bash\n';
    const fileContents = await put(uuid, 'file-contents', [{ location: { path: '/etc/passwd' }, contents: Buffer.from(passwd).toString('base64') }]);
    expect((await raw(server.url, 'GET', `/v2/imports/images/${uuid}/secret-searches`)).json).toEqual([secretSearches]);

    const imageDigest = `sha256:${'9'.repeat(64)}`;
    const tag = 'registry.example.com/team/imported-secrets:1';
    const contents = { packages, secret_searches: secretSearches, content_searches: contentSearches, file_contents: fileContents };
    expect((await json(server.url, 'POST', '/v2/images', { source: { import: { operation_uuid: uuid, digest: imageDigest, tags: [tag], contents } } })).status).toBe(200);
    expect(await waitForAnalysis(server, 'admin', imageDigest)).toBe('analyzed');

    const artifact = async (kind: string) => (await raw(server.url, 'GET', `/v2/images/${imageDigest}/artifacts/${kind}`)).json;
    expect(await artifact('secret-search')).toEqual([{ path: '/root/.aws/credentials', matches: [{ name: 'aws-access-key', regex: '', lines: [2, 3] }] }]);
    expect(await artifact('file-content-search')).toEqual([{ path: '/etc/app.conf', matches: [{ name: 'DEBUG', regex: '', lines: [1] }] }]);
    expect(await artifact('retrieved-files')).toEqual([{ path: '/etc/passwd', b64_content: Buffer.from(passwd).toString('base64') }]);

    const rules = [
      { id: 'secrets', gate: 'secret_scans', trigger: 'content_regex_checks', action: 'STOP', params: [{ name: 'content_regex_name', value: 'aws-access-key' }] },
      { id: 'root-shell', gate: 'passwd_file', trigger: 'blacklist_shells', action: 'WARN', params: [{ name: 'shells', value: '/bin/bash' }] },
    ];
    const policy = {
      id: 'imported-content', name: 'imported content', version: '2',
      rule_sets: [{ id: 'rs', name: 'rs', version: '2', rules }],
      mappings: [{ id: 'all', name: 'all', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
    };
    expect((await json(server.url, 'POST', '/v2/policies', policy)).status).toBe(200);
    const check = async (digest: string, t: string) =>
      (await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(t)}&policy_id=imported-content`)).json.evaluations[0];
    const evaluation = await check(imageDigest, tag);
    expect(evaluation.details.findings.map((f: { rule_id: string; message: string }) => [f.rule_id, f.message])).toEqual([
      ['secrets', 'The secret search found a match for aws-access-key in /root/.aws/credentials'],
      ['root-shell', 'Login shell /bin/bash is listed in /etc/passwd: root:x:0:0:root:/root:/bin/bash'],
    ]);
    expect(evaluation).toMatchObject({ status: 'fail', evaluation_problems: [] });

    // An import without a secret search part: the gate says it could not look, rather than that nothing was found.
    const bare = await check(`sha256:${'f'.repeat(64)}`, 'docker.io/library/app:1');
    expect(bare.details.findings).toEqual([]);
    expect(bare.evaluation_problems).toEqual([expect.objectContaining({ severity: 'warn', problem_type: 'TriggerNotEvaluable', details: expect.stringMatching(/secret search did not run/) })]);
  });

  it('round-trips: our own CycloneDX export imports back to the same packages', async () => {
    const source = `sha256:${'e'.repeat(64)}`;
    const cdx = await raw(server.url, 'GET', `/v2/images/${source}/sboms/cyclonedx-json`);
    expect(cdx.status).toBe(200);
    const uuid = await newOperation();
    const packages = await put(uuid, 'packages', cdx.json);
    const copy = `sha256:${'1'.repeat(64)}`;
    await json(server.url, 'POST', '/v2/images', { source: { import: { operation_uuid: uuid, digest: copy, tags: ['copy:1'], contents: { packages } } } });
    expect(await waitForAnalysis(server, 'admin', copy)).toBe('analyzed');
    const c = client(server.url);
    const names = async (d: string) =>
      (await Promise.all((['os', 'python'] as const).map((t) => c.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: d, content_type: t } } }))))
        .flatMap((r) => r.data!.content.map((p) => `${p.type} ${p.package}@${p.version}`))
        .sort();
    expect(await names(copy)).toEqual(await names(source));
  });

  it('lists, gets and invalidates operations', async () => {
    const uuid = await newOperation();
    const listed = await client(server.url).GET('/imports/images');
    expect(listed.data?.map((o) => o.uuid)).toContain(uuid);
    const invalidated = await raw(server.url, 'DELETE', `/v2/imports/images/${uuid}`);
    expect(invalidated.json.status).toBe('expired');
    const late = await json(server.url, 'POST', `/v2/imports/images/${uuid}/packages`, SYFT);
    expect(late.status).toBe(409);
  });

  it('refuses what cannot be imported, with clear errors', async () => {
    const uuid = await newOperation();
    const notSbom = await json(server.url, 'POST', `/v2/imports/images/${uuid}/packages`, { hello: 'world' });
    expect(notSbom.status).toBe(400);
    expect(notSbom.json.message).toMatch(/syft|CycloneDX|SPDX/);
    const badCdx = await json(server.url, 'POST', `/v2/imports/images/${uuid}/packages`, { bomFormat: 'CycloneDX', specVersion: '1.5', components: 'nope' });
    expect(badCdx.status).toBe(400);
    expect(badCdx.json.message).toMatch(/components/);
    expect((await raw(server.url, 'POST', `/v2/imports/images/${uuid}/dockerfile`, { headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(415);
    expectValidationError(await json(server.url, 'POST', `/v2/imports/images/${uuid}/secret-searches`, [{ content_searches: [] }]), ['body.0.location']);
    expectValidationError(
      await json(server.url, 'POST', `/v2/imports/images/${uuid}/content-searches`, [{ location: { path: '/a' }, content_searches: [{ classification: 'x', line_number: -1, line_offset: 0, seek_position: 0, length: 1 }] }]),
      ['body.0.content_searches.0.line_number'],
    );
    expectValidationError(await json(server.url, 'POST', `/v2/imports/images/${uuid}/file-contents`, [{ location: { path: '/etc/passwd' }, contents: 'not base64!' }]), ['body.0.contents']);
    const missingSecrets = await json(server.url, 'POST', '/v2/images', {
      source: { import: { operation_uuid: uuid, digest: `sha256:${'2'.repeat(64)}`, tags: ['x:1'], contents: { packages: `sha256:${'3'.repeat(64)}`, secret_searches: `sha256:${'4'.repeat(64)}` } } },
    });
    expect(missingSecrets.status).toBe(400);
    expect((await raw(server.url, 'GET', '/v2/imports/images/not-a-uuid')).status).toBe(400);
    expect((await raw(server.url, 'GET', `/v2/imports/images/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)).status).toBe(404);

    const missingPart = await json(server.url, 'POST', '/v2/images', {
      source: { import: { operation_uuid: uuid, digest: `sha256:${'2'.repeat(64)}`, tags: ['x:1'], contents: { packages: `sha256:${'3'.repeat(64)}` } } },
    });
    expect(missingPart.status).toBe(400);
    expect(missingPart.json.detail.errors[0].location).toBe('body.source.import.contents.packages');
    const noTags = await json(server.url, 'POST', '/v2/images', {
      source: { import: { operation_uuid: uuid, digest: `sha256:${'2'.repeat(64)}`, tags: [], contents: { packages: `sha256:${'3'.repeat(64)}` } } },
    });
    expect(noTags.status).toBe(400);
  });
});
