/**
 * Images and everything read from an analyzed one (content, SBOMs, metadata, artifacts, vulnerabilities,
 * annotations, VEX, policy checks), summaries and queries, policies, subscriptions, repositories and registry
 * credentials. Fixtures: a local docker-registry holding a base image (Alpine-like, with apk packages, a jar, an
 * npm and a Python package, /etc/passwd, a secret and a searched expression) and an app image built on it, an
 * uploaded OSV feed with an advisory for the base's musl, and a third image uploaded as a `docker save` archive.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { waitForAnalysis } from '../../support/analysis.js';
import { mavenJar, wheelMetadata } from '../../support/ecosystem-fixtures.js';
import { buildImage, dockerArchiveTar, type BuiltImage, type FileSpec } from '../../support/image-builder.js';
import { alpineImage } from '../../support/registry-fixtures.js';
import { pushImage, startRegistry, type TestRegistry } from '../../support/registry.js';
import type { TestServer } from '../../support/server.js';
import { binaryBody, defineArea, expectAnswer, knownMismatch, ok } from '../harness.js';
import { uploadFeed } from './system.js';

const APK_DB = 'P:musl\nV:1.2.4-r4\nA:x86_64\nL:MIT\no:musl\n\nP:zlib\nV:1.3.1-r0\nA:x86_64\nL:Zlib\no:zlib\n\n';

const BASE_LAYER: FileSpec[] = [
  { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n' },
  { path: 'lib/apk/db/installed', content: APK_DB },
  { path: 'etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n' },
  { path: 'etc/app/app.conf', content: 'user = app\npassword = not-a-real-one\n' },
  { path: 'root/.aws/credentials', content: '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n' },
];

const APP_LAYER: FileSpec[] = [
  { path: 'app/node_modules/lodash/package.json', content: JSON.stringify({ name: 'lodash', version: '4.17.20', license: 'MIT' }) },
  {
    path: 'usr/lib/python3.11/site-packages/urllib3-1.26.12.dist-info/METADATA',
    content: wheelMetadata({ name: 'urllib3', version: '1.26.12', summary: 'HTTP library', license: 'MIT', classifiers: [] }),
  },
  { path: 'opt/app/log4j-core-2.14.1.jar', content: mavenJar({ groupId: 'org.apache.logging.log4j', artifactId: 'log4j-core', version: '2.14.1', manifest: { 'Implementation-Version': '2.14.1' } }) },
];

const VULN = 'ALPINE-CVE-2099-7001';

interface State {
  server: TestServer;
  registry: TestRegistry;
  base: BuiltImage;
  app: BuiltImage;
  baseTag: string;
  appTag: string;
  baseDigest: string;
  appDigest: string;
  archiveDigest: string;
  nativeSbom: Record<string, unknown>;
  annotationUuid: string;
  policy: Record<string, any>;
  subscriptionId: string;
  correctionUuid: string;
  registryName: string;
}

async function analyzed(s: State, digest: string): Promise<string> {
  const status = await waitForAnalysis(s.server, 'admin', digest);
  if (status !== 'analyzed') throw new Error(`image ${digest} ended ${status}`);
  return digest;
}

export const imagesArea = defineArea<State>({
  tools: ['docker-registry'],
  name: 'images',
  env: () => ({
    VIGIL_FEED_SYNC_ON_START: 'false',
    VIGIL_WATCH_INTERVAL_SECONDS: '0',
    VIGIL_RETRIEVE_FILES: '/etc/passwd,/etc/app/app.conf',
    VIGIL_CONTENT_SEARCH_REGEXES: JSON.stringify({ PASSWORD: '(?i).*password *=.*' }),
  }),
  async setup(_url, server) {
    const registry = await startRegistry();
    const base = await buildImage({ layers: [BASE_LAYER] });
    const app = await buildImage({ layers: [BASE_LAYER, APP_LAYER] });
    await pushImage(registry.url, 'base/os', '1', base);
    await pushImage(registry.url, 'team/app', '1', app);
    await uploadFeed('contract-images-feed');
    return {
      server,
      registry,
      base,
      app,
      baseTag: `${registry.host}/base/os:1`,
      appTag: `${registry.host}/team/app:1`,
      baseDigest: '',
      appDigest: '',
      archiveDigest: '',
      nativeSbom: {},
      annotationUuid: '',
      policy: {},
      subscriptionId: '',
      correctionUuid: '',
      registryName: `${registry.host}/team`,
    };
  },
  async teardown(s) {
    await s.registry.close();
  },
  calls: {
    add_image: async (s) => {
      const base = await ok(sdk.addImage({ body: { source: { tag: { pull_string: s.baseTag } } } }));
      s.baseDigest = await analyzed(s, base.image_digest);
      const appReference = s.appTag.replace(/:1$/, `@${s.app.manifestDigest}`);
      const app = await ok(sdk.addImage({ body: { source: { digest: { pull_string: appReference, tag: s.appTag } }, annotations: { team: 'contract' } } }));
      s.appDigest = await analyzed(s, app.image_digest);
    },
    add_image_archive: async (s) => {
      const image = await alpineImage('contract-archive');
      const tar = await dockerArchiveTar(image, { repoTags: ['contract.example/archive/app:1'] });
      const added = await ok(sdk.addImageArchive({ query: { tag: 'contract.example/archive/app:1' }, ...binaryBody(tar, 'application/x-tar') }));
      s.archiveDigest = await analyzed(s, added.image_digest);
    },
    list_images: async () => {
      await ok(sdk.listImages({ query: { image_status: 'active' } }));
      // A value the spec does not allow, sent past the SDK's request validator: Vigil's 400 is checked too.
      await expectAnswer(400, sdk.listImages({ query: { analysis_status: 'finished' as 'analyzed' }, requestValidator: undefined }));
    },
    get_image: async (s) => {
      await ok(sdk.getImage({ path: { image_digest: s.appDigest } }));
      await expectAnswer(404, sdk.getImage({ path: { image_digest: `sha256:${'0'.repeat(64)}` } }));
    },
    get_image_ancestors: async (s) => {
      const ancestors = await ok(sdk.getImageAncestors({ path: { image_digest: s.appDigest } }));
      if (!JSON.stringify(ancestors).includes(s.baseDigest)) throw new Error(`the base image is not an ancestor: ${JSON.stringify(ancestors)}`);
    },
    list_image_content: (s) => ok(sdk.listImageContent({ path: { image_digest: s.appDigest } })),
    get_image_content_summary: (s) => ok(sdk.getImageContentSummary({ path: { image_digest: s.appDigest } })),
    get_image_content_by_type: async (s) => {
      for (const content_type of ['os', 'npm', 'python'] as const) await ok(sdk.getImageContentByType({ path: { image_digest: s.appDigest, content_type } }));
    },
    get_image_content_by_type_files: (s) => ok(sdk.getImageContentByTypeFiles({ path: { image_digest: s.appDigest }, query: { page: '1', limit: 100 } })),
    get_image_content_by_type_java_package: (s) => ok(sdk.getImageContentByTypeJavaPackage({ path: { image_digest: s.appDigest } })),
    list_retrieved_files: (s) => ok(sdk.listRetrievedFiles({ path: { image_digest: s.appDigest } })),
    list_file_content_search_results: (s) => ok(sdk.listFileContentSearchResults({ path: { image_digest: s.appDigest } })),
    list_secret_search_results: (s) => ok(sdk.listSecretSearchResults({ path: { image_digest: s.appDigest } })),
    get_image_sbom_native_json: async (s) => {
      s.nativeSbom = await ok(sdk.getImageSbomNativeJson({ path: { image_digest: s.appDigest } }));
    },
    get_image_sbom_cyclonedx_json: (s) => ok(sdk.getImageSbomCyclonedxJson({ path: { image_digest: s.appDigest }, query: { spec_version: '1.6' } })),
    get_image_sbom_spdx_json: (s) => ok(sdk.getImageSbomSpdxJson({ path: { image_digest: s.appDigest } })),
    list_image_metadata: (s) => ok(sdk.listImageMetadata({ path: { image_digest: s.appDigest } })),
    get_image_metadata_by_type: async (s) => {
      for (const metadata_type of ['manifest', 'docker_history', 'dockerfile'] as const)
        await ok(sdk.getImageMetadataByType({ path: { image_digest: s.appDigest, metadata_type } }));
    },
    get_image_vulnerability_types: (s) => ok(sdk.getImageVulnerabilityTypes({ path: { image_digest: s.appDigest } })),
    get_image_vulnerabilities_by_digest: async (s) => {
      const report = await ok(sdk.getImageVulnerabilitiesByDigest({ path: { image_digest: s.appDigest, vuln_type: 'all' }, query: { include_vuln_description: true } }));
      if (!JSON.stringify(report).includes(VULN)) throw new Error(`the feed's advisory is not among the findings: ${JSON.stringify(report).slice(0, 400)}`);
    },
    get_image_vulnerability_matching_debug: async (s) => {
      const debug = await ok(sdk.getImageVulnerabilityMatchingDebug({ path: { image_digest: s.appDigest } }));
      if (!debug.matches.some((m) => m.vuln === VULN && m.matched_by)) throw new Error(`the feed's advisory is not among the explained matches: ${JSON.stringify(debug).slice(0, 400)}`);
    },
    create_image_vuln_annotation: async (s) => {
      const created = await ok(
        sdk.createImageVulnAnnotation({
          path: { image_digest: s.appDigest },
          body: {
            annotation: { vulnerability_id: VULN, status: 'not_affected', justification: 'vulnerable_code_not_present' },
            package_identifier: { name: 'musl' },
          },
        }),
      );
      s.annotationUuid = created.annotation.uuid!;
    },
    list_image_vuln_annotations: (s) => ok(sdk.listImageVulnAnnotations({ path: { image_digest: s.appDigest }, query: { vulnerability_id: VULN } })),
    get_image_vuln_annotation: (s) => ok(sdk.getImageVulnAnnotation({ path: { image_digest: s.appDigest, vuln_annotation_uuid: s.annotationUuid } })),
    update_image_vuln_annotation: (s) =>
      ok(
        sdk.updateImageVulnAnnotation({
          path: { image_digest: s.appDigest, vuln_annotation_uuid: s.annotationUuid },
          body: { vulnerability_id: VULN, status: 'affected', action_statement: 'upgrade musl' },
        }),
      ),
    get_image_openvex: (s) => ok(sdk.getImageOpenvex({ path: { image_digest: s.appDigest } })),
    get_image_cyclonedx_json: (s) => ok(sdk.getImageCyclonedxJson({ path: { image_digest: s.appDigest } })),
    get_image_cyclonedx_xml: (s) => ok(sdk.getImageCyclonedxXml({ path: { image_digest: s.appDigest } })),
    get_image_vulnerabilities_by_digest_cyclonedx_json: (s) =>
      ok(sdk.getImageVulnerabilitiesByDigestCyclonedxJson({ path: { image_digest: s.appDigest, vuln_type: 'all' }, query: { include_vuln_description: true } })),
    get_image_vulnerabilities_by_digest_cyclonedx_xml: (s) =>
      ok(sdk.getImageVulnerabilitiesByDigestCyclonedxXml({ path: { image_digest: s.appDigest, vuln_type: 'os' }, query: { include_annotation_detail: true } })),
    get_image_content_by_type_license: (s) => ok(sdk.getImageContentByTypeLicense({ path: { image_digest: s.appDigest } })),
    get_image_content_by_type_malware: (s) => ok(sdk.getImageContentByTypeMalware({ path: { image_digest: s.appDigest } })),
    delete_image_vuln_annotation: (s) => ok(sdk.deleteImageVulnAnnotation({ path: { image_digest: s.appDigest, vuln_annotation_uuid: s.annotationUuid } })),
    summary_image_tags: () => ok(sdk.summaryImageTags({ query: { current_only: true, limit: 10, page: 1 } })),
    summary_image_counts: () => ok(sdk.summaryImageCounts()),
    query_images_by_package: () => ok(sdk.queryImagesByPackage({ query: { name: 'musl', package_type: 'apk' } })),
    query_vulnerabilities: () => ok(sdk.queryVulnerabilities({ query: { id: [VULN] } })),
    vulnerability_scan_sbom: (s) => ok(sdk.vulnerabilityScanSbom({ body: s.nativeSbom, query: { include_vuln_description: true } })),

    list_policies: async (s) => {
      const policies = await ok(sdk.listPolicies({ query: { detail: true } }));
      s.policy = { ...policies.find((p) => p.active)!.policy!, id: 'contract-policy', name: 'contract policy' };
    },
    get_image_policy_check_by_digest: (s) => ok(sdk.getImagePolicyCheckByDigest({ path: { image_digest: s.baseDigest }, query: { tag: s.baseTag, detail: true } })),
    add_policy: (s) => ok(sdk.addPolicy({ body: s.policy as any })),
    get_policy: () => ok(sdk.getPolicy({ path: { policy_id: 'contract-policy' }, query: { detail: true } })),
    update_policy: (s) => ok(sdk.updatePolicy({ path: { policy_id: 'contract-policy' }, body: { policy: { ...(s.policy as any), description: 'changed' } } })),
    dry_run_policy: (s) => ok(sdk.dryRunPolicy({ body: s.policy as any })),
    delete_policy: () => ok(sdk.deletePolicy({ path: { policy_id: 'contract-policy' } })),

    add_subscription: async (s) => {
      const [sub] = await ok(sdk.addSubscription({ body: { subscription_key: s.baseTag, subscription_type: 'vuln_update', subscription_value: null } }));
      s.subscriptionId = sub.subscription_id!;
    },
    list_subscriptions: (s) => ok(sdk.listSubscriptions({ query: { subscription_key: s.baseTag } })),
    get_subscription: (s) => ok(sdk.getSubscription({ path: { subscription_id: s.subscriptionId } })),
    update_subscription: (s) => ok(sdk.updateSubscription({ path: { subscription_id: s.subscriptionId }, body: { active: false } })),
    delete_subscription: (s) => ok(sdk.deleteSubscription({ path: { subscription_id: s.subscriptionId } })),
    // Corrections of a package no image holds: their re-matches find nothing to do.
    add_correction: async (s) => {
      const correction = await ok(sdk.addCorrection({ body: { type: 'package', match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'left-pad' }] }, replace: [{ field_name: 'version', field_value: '1.3.0' }] } }));
      s.correctionUuid = correction.uuid!;
    },
    get_corrections: () => ok(sdk.getCorrections({ query: { correction_type: 'package' } })),
    get_correction_by_uuid: (s) => ok(sdk.getCorrectionByUuid({ path: { uuid: s.correctionUuid } })),
    update_correction_by_uuid: (s) =>
      ok(sdk.updateCorrectionByUuid({ path: { uuid: s.correctionUuid }, body: { type: 'package', description: 'changed', match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'left-pad' }] }, replace: [{ field_name: 'name', field_value: 'leftpad' }] } })),
    delete_correction_by_uuid: (s) => ok(sdk.deleteCorrectionByUuid({ path: { uuid: s.correctionUuid } })),
    add_repository: (s) => ok(sdk.addRepository({ query: { repository: `${s.registry.host}/team/app`, dry_run: true } })),

    create_registry: (s) =>
      ok(sdk.createRegistry({ body: { registry: s.registryName, registry_name: 'team', registry_user: 'puller', registry_pass: 'secret-pass', registry_verify: false } })),
    list_registries: () => ok(sdk.listRegistries()),
    get_registry: (s) => ok(sdk.getRegistry({ path: { registry: s.registryName } })),
    update_registry: (s) =>
      ok(sdk.updateRegistry({ path: { registry: s.registryName }, body: { registry: s.registryName, registry_user: 'puller', registry_pass: 'other-pass', registry_verify: false } })),
    delete_registry: (s) => ok(sdk.deleteRegistry({ path: { registry: s.registryName } })),

    add_action_plan: (s) =>
      ok(sdk.addActionPlan({ body: { image_digest: s.baseDigest, image_tag: s.baseTag, resolutions: [{ trigger_ids: ['contract-trigger'], content: 'upgrade' }], subject: 'contract' } })),
    get_action_plans: (s) => ok(sdk.getActionPlans({ query: { image_digest: s.baseDigest } })),

    delete_images_async: (s) => ok(sdk.deleteImagesAsync({ query: { image_digests: [s.archiveDigest] } })),
    delete_image: (s) => ok(sdk.deleteImage({ path: { image_digest: s.appDigest } })),
  },
});
