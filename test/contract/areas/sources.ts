/**
 * Source repositories: a source import operation gets the SBOM of the fixture source tree and is finalized into a
 * source record, which is then read every way (content, SBOMs, vulnerabilities, policy check) and deleted; a second
 * operation is invalidated. Before it is deleted, the source is related to an image built from the same tree, and
 * the relationship is read, diffed and deleted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { analyzeArchiveImage } from '../../support/analysis.js';
import { sourceTreeSbom } from '../../support/source-sbom.js';
import { defineArea, ok } from '../harness.js';

interface State {
  sbom: Record<string, unknown>;
  uuid: string;
  other: string;
  digest: string;
  sourceId: string;
  imageDigest: string;
  relationshipId: string;
}

const TREE = join(import.meta.dirname, '..', '..', 'fixtures', 'source-tree');
const source = (s: State) => ({ path: { source_id: s.sourceId } });

export const sourcesArea = defineArea<State>({
  name: 'sources',
  async setup(_url, server) {
    const layers = [
      [{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.18.4\n' }],
      [{ path: 'app/package-lock.json', content: readFileSync(join(TREE, 'package-lock.json')) }],
    ];
    const imageDigest = await analyzeArchiveImage(server, layers, 'contract.example/sources/app:1');
    return { sbom: await sourceTreeSbom(TREE), uuid: '', other: '', digest: '', sourceId: '', imageDigest, relationshipId: '' };
  },
  calls: {
    create_sources_operation: async (s) => {
      s.uuid = (await ok(sdk.createSourcesOperation())).uuid;
      s.other = (await ok(sdk.createSourcesOperation())).uuid;
    },
    upload_import_sources_sbom: async (s) => {
      s.digest = (await ok(sdk.uploadImportSourcesSbom({ path: { operation_id: s.uuid }, body: s.sbom }))).digest;
    },
    get_import_sources_sbom: (s) => ok(sdk.getImportSourcesSbom({ path: { operation_id: s.uuid } })),
    list_sources_operations: () => ok(sdk.listSourcesOperations()),
    finalize_operation: async (s) => {
      const body = { host: 'github.com', repository_name: 'example/contract', revision: 'f'.repeat(40), branch_name: 'main', contents: { sbom: s.digest } };
      s.sourceId = (await ok(sdk.finalizeOperation({ path: { operation_id: s.uuid }, body }))).uuid;
    },
    get_sources_operation: async (s) => {
      const operation = await ok(sdk.getSourcesOperation({ path: { operation_id: s.uuid } }));
      if (operation.status !== 'complete') throw new Error(`the finalized operation is ${operation.status}`);
    },
    invalidate_sources_operation: (s) => ok(sdk.invalidateSourcesOperation({ path: { operation_id: s.other } })),
    list_sources: () => ok(sdk.listSources()),
    get_source: (s) => ok(sdk.getSource(source(s))),
    get_source_content_types: (s) => ok(sdk.getSourceContentTypes(source(s))),
    get_source_content_summary: (s) => ok(sdk.getSourceContentSummary(source(s))),
    get_source_content_by_type: (s) => ok(sdk.getSourceContentByType({ path: { source_id: s.sourceId, content_type: 'npm' } })),
    get_source_sbom_native_json: (s) => ok(sdk.getSourceSbomNativeJson(source(s))),
    get_source_sbom_cyclonedx_json: (s) => ok(sdk.getSourceSbomCyclonedxJson(source(s))),
    get_source_sbom_spdx_json: (s) => ok(sdk.getSourceSbomSpdxJson(source(s))),
    get_source_vulnerability_types: (s) => ok(sdk.getSourceVulnerabilityTypes(source(s))),
    get_source_vulnerabilities: (s) => ok(sdk.getSourceVulnerabilities({ path: { source_id: s.sourceId, vuln_type: 'all' } })),
    get_source_policy_check: (s) => ok(sdk.getSourcePolicyCheck(source(s))),
    add_artifact_relationship: async (s) => {
      const body = { source: { artifact_type: 'image' as const, artifact_id: s.imageDigest }, target: { artifact_type: 'source' as const, artifact_id: s.sourceId }, relationship_type: 'contains' as const };
      s.relationshipId = (await ok(sdk.addArtifactRelationship({ body }))).uuid!;
    },
    list_artifact_relationships: (s) => ok(sdk.listArtifactRelationships({ query: { artifact_id: s.sourceId } })),
    get_artifact_relationship: (s) => ok(sdk.getArtifactRelationship({ path: { relationship_id: s.relationshipId } })),
    get_relationship_sbom_diff: (s) => ok(sdk.getRelationshipSbomDiff({ path: { relationship_id: s.relationshipId } })),
    delete_artifact_relationships: (s) => ok(sdk.deleteArtifactRelationships({ query: { relationship_ids: [s.relationshipId] } })),
    delete_source: (s) => ok(sdk.deleteSource(source(s))),
  },
});
