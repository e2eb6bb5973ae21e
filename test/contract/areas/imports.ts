/**
 * SBOM import ("distributed analysis"): an import operation gets every kind of part (a syft SBOM, manifest,
 * config, parent manifest, Dockerfile, secret and content searches, file contents), each part is listed, the
 * image is added from the import and analyzed, and a second operation is invalidated.
 */
import { createHash } from 'node:crypto';
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { waitForAnalysis } from '../../support/analysis.js';
import type { TestServer } from '../../support/server.js';
import { defineArea, ok } from '../harness.js';

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
      cpes: [],
      purl: 'pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      metadataType: 'DpkgMetadata',
      metadata: { package: 'openssl', source: 'openssl', version: '3.0.11-1~deb12u2', architecture: 'amd64' },
    },
  ],
  artifactRelationships: [],
  source: { type: 'image', target: { imageID: 'sha256:abc' } },
  distro: { name: 'debian', version: '12', idLike: [] },
  descriptor: { name: 'syft', version: '0.98.0' },
  schema: { version: '16.0.0', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.0.json' },
};

const MANIFEST = {
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${'c'.repeat(64)}`, size: 100 },
  layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${'d'.repeat(64)}`, size: 1234 }],
};
const PARENT_MANIFEST = {
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: [{ mediaType: MANIFEST.mediaType, digest: `sha256:${'a'.repeat(64)}`, size: 500, platform: { architecture: 'arm64', os: 'linux' } }],
};
const CONFIG = { architecture: 'arm64', os: 'linux', history: [{ created_by: '/bin/sh -c #(nop) CMD ["python3"]' }] };
const DOCKERFILE = 'FROM debian:12\nRUN apt-get install -y openssl\n';
const IMAGE_DIGEST = `sha256:${'a'.repeat(64)}`;

interface State {
  server: TestServer;
  uuid: string;
  other: string;
  contents: Record<string, string>;
}

export const importsArea = defineArea<State>({
  name: 'imports',
  async setup(_url, server) {
    return { server, uuid: '', other: '', contents: {} };
  },
  calls: {
    create_operation: async (s) => {
      s.uuid = (await ok(sdk.createOperation())).uuid;
      s.other = (await ok(sdk.createOperation())).uuid;
    },
    import_image_packages: async (s) => {
      s.contents.packages = (await ok(sdk.importImagePackages({ path: { operation_id: s.uuid }, body: SYFT }))).digest;
    },
    import_image_manifest: async (s) => {
      s.contents.manifest = (await ok(sdk.importImageManifest({ path: { operation_id: s.uuid }, body: MANIFEST }))).digest;
    },
    import_image_parent_manifest: async (s) => {
      s.contents.parent_manifest = (await ok(sdk.importImageParentManifest({ path: { operation_id: s.uuid }, body: PARENT_MANIFEST }))).digest;
    },
    import_image_config: async (s) => {
      s.contents.image_config = (await ok(sdk.importImageConfig({ path: { operation_id: s.uuid }, body: CONFIG }))).digest;
    },
    import_image_dockerfile: async (s) => {
      const part = await ok(sdk.importImageDockerfile({ path: { operation_id: s.uuid }, body: DOCKERFILE }));
      const expected = `sha256:${createHash('sha256').update(DOCKERFILE).digest('hex')}`;
      if (part.digest !== expected) throw new Error(`the Dockerfile part is ${part.digest}, expected ${expected}`);
      s.contents.dockerfile = part.digest;
    },
    import_secret_searches: async (s) => {
      const body = [
        {
          location: { path: '/root/.aws/credentials', layerID: `sha256:${'d'.repeat(64)}` },
          content_searches: [{ classification: 'aws-access-key', line_number: 2, line_offset: 0, seek_position: 10, length: 20 }],
        },
      ];
      s.contents.secret_searches = (await ok(sdk.importSecretSearches({ path: { operation_id: s.uuid }, body }))).digest;
    },
    import_content_searches: async (s) => {
      const body = [{ location: { path: '/etc/app.conf' }, content_searches: [{ classification: 'DEBUG', line_number: 1, line_offset: 0, seek_position: 0, length: 9 }] }];
      s.contents.content_searches = (await ok(sdk.importContentSearches({ path: { operation_id: s.uuid }, body }))).digest;
    },
    import_file_contents: async (s) => {
      const body = [{ location: { path: '/etc/passwd' }, contents: Buffer.from('root:x:0:0:root:/root:/bin/sh\n').toString('base64') }];
      s.contents.file_contents = (await ok(sdk.importFileContents({ path: { operation_id: s.uuid }, body }))).digest;
    },
    list_import_packages: (s) => ok(sdk.listImportPackages({ path: { operation_id: s.uuid } })),
    list_import_image_manifests: (s) => ok(sdk.listImportImageManifests({ path: { operation_id: s.uuid } })),
    list_import_parent_manifests: (s) => ok(sdk.listImportParentManifests({ path: { operation_id: s.uuid } })),
    list_import_image_configs: (s) => ok(sdk.listImportImageConfigs({ path: { operation_id: s.uuid } })),
    list_import_dockerfiles: (s) => ok(sdk.listImportDockerfiles({ path: { operation_id: s.uuid } })),
    list_import_secret_searches: (s) => ok(sdk.listImportSecretSearches({ path: { operation_id: s.uuid } })),
    list_import_content_searches: (s) => ok(sdk.listImportContentSearches({ path: { operation_id: s.uuid } })),
    list_import_file_contents: (s) => ok(sdk.listImportFileContents({ path: { operation_id: s.uuid } })),
    list_operations: () => ok(sdk.listOperations()),
    get_operation: async (s) => {
      // Analysed from the import, the operation is complete.
      const added = await ok(
        sdk.addImage({
          body: { source: { import: { operation_uuid: s.uuid, digest: IMAGE_DIGEST, tags: ['registry.example.com/team/imported:1'], contents: s.contents as any } } },
        }),
      );
      const status = await waitForAnalysis(s.server, 'admin', added.image_digest);
      if (status !== 'analyzed') throw new Error(`the imported image ended ${status}`);
      const operation = await ok(sdk.getOperation({ path: { operation_id: s.uuid } }));
      if (operation.status !== 'complete') throw new Error(`the import operation is ${operation.status}`);
    },
    import_image_sbom: async (s) => {
      const part = await ok(sdk.importImageSbom({ path: { operation_id: s.other }, body: SYFT as any }));
      if (!part.digest.startsWith('sha256:')) throw new Error(`the SBOM part's digest is ${part.digest}`);
    },
    // The same SBOM scanned once, against the active policy, with nothing stored.
    stateless_scan: () => ok(sdk.statelessScan({ query: { tag: 'registry.example.com/team/scanned:1' }, body: { sbom: SYFT as any } })),
    invalidate_operation: (s) => ok(sdk.invalidateOperation({ path: { operation_id: s.other } })),
  },
});
