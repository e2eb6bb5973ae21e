/**
 * Source repositories: a source import operation gets the SBOM of the fixture source tree and is finalized into a
 * source record, which is then read every way (content, SBOMs, vulnerabilities, policy check) and deleted; a second
 * operation is invalidated.
 */
import { join } from 'node:path';
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { sourceTreeSbom } from '../../support/source-sbom.js';
import { defineArea, ok } from '../harness.js';

interface State {
  sbom: Record<string, unknown>;
  uuid: string;
  other: string;
  digest: string;
  sourceId: string;
}

const TREE = join(import.meta.dirname, '..', '..', 'fixtures', 'source-tree');
const source = (s: State) => ({ path: { source_id: s.sourceId } });

export const sourcesArea = defineArea<State>({
  name: 'sources',
  async setup() {
    return { sbom: await sourceTreeSbom(TREE), uuid: '', other: '', digest: '', sourceId: '' };
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
    delete_source: (s) => ok(sdk.deleteSource(source(s))),
  },
});
