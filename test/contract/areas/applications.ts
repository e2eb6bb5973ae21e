/**
 * Applications: an application with a version, an imported source (the fixture source tree's SBOM) associated with
 * the version and read back (artifacts, combined SBOM, vulnerabilities), then everything removed again.
 */
import { join } from 'node:path';
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { sourceTreeSbom } from '../../support/source-sbom.js';
import { defineArea, ok } from '../harness.js';

interface State {
  sourceId: string;
  applicationId: string;
  versionId: string;
  associationId: string;
}

const TREE = join(import.meta.dirname, '..', '..', 'fixtures', 'source-tree');
const application = (s: State) => ({ path: { application_id: s.applicationId } });
const version = (s: State) => ({ path: { application_id: s.applicationId, application_version_id: s.versionId } });

export const applicationsArea = defineArea<State>({
  name: 'applications',
  async setup() {
    const uuid = (await ok(sdk.createSourcesOperation())).uuid;
    const digest = (await ok(sdk.uploadImportSourcesSbom({ path: { operation_id: uuid }, body: await sourceTreeSbom(TREE) }))).digest;
    const body = { host: 'github.com', repository_name: 'example/application', revision: 'e'.repeat(40), contents: { sbom: digest } };
    const sourceId = (await ok(sdk.finalizeOperation({ path: { operation_id: uuid }, body }))).uuid;
    return { sourceId, applicationId: '', versionId: '', associationId: '' };
  },
  calls: {
    add_application: async (s) => {
      s.applicationId = (await ok(sdk.addApplication({ body: { name: 'contract-shop', description: 'contract' } }))).application_id!;
    },
    get_applications: () => ok(sdk.getApplications()),
    get_application: (s) => ok(sdk.getApplication(application(s))),
    update_application: (s) => ok(sdk.updateApplication({ ...application(s), body: { name: 'contract-shop-2' } })),
    add_application_version: async (s) => {
      s.versionId = (await ok(sdk.addApplicationVersion({ ...application(s), body: { version_name: 'v1' } }))).application_version_id!;
    },
    get_application_versions: (s) => ok(sdk.getApplicationVersions(application(s))),
    get_application_version: (s) => ok(sdk.getApplicationVersion(version(s))),
    update_application_version: (s) => ok(sdk.updateApplicationVersion({ ...version(s), body: { version_name: 'v1.1' } })),
    add_artifact_to_application_version: async (s) => {
      const body = { artifact_type: 'source' as const, artifact_keys: { source_id: s.sourceId } };
      s.associationId = (await ok(sdk.addArtifactToApplicationVersion({ ...version(s), body }))).artifact_association_metadata.association_id;
    },
    list_artifacts: (s) => ok(sdk.listArtifacts(version(s))),
    get_application_version_sbom: (s) => ok(sdk.getApplicationVersionSbom(version(s))),
    get_application_version_vulnerabilities: (s) => ok(sdk.getApplicationVersionVulnerabilities(version(s))),
    remove_artifact_from_application_version: (s) =>
      ok(sdk.removeArtifactFromApplicationVersion({ path: { ...version(s).path, association_id: s.associationId } })),
    delete_application_version: (s) => ok(sdk.deleteApplicationVersion(version(s))),
    delete_application: (s) => ok(sdk.deleteApplication(application(s))),
  },
});
