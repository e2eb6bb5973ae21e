/**
 * Runtime inventory (a Kubernetes and an ECS report naming an analyzed image, every object listing, removal) and
 * the stored results of scheduled report queries (account and global), for an image with a finding from an
 * uploaded feed, so the report has rows.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { gql, refreshReports } from '../../support/graphql.js';
import { dockerArchiveTar } from '../../support/image-builder.js';
import { alpineImage } from '../../support/registry-fixtures.js';
import { waitForAnalysis } from '../../support/analysis.js';
import type { TestServer } from '../../support/server.js';
import { binaryBody, defineArea, ok } from '../harness.js';
import { uploadFeed } from './system.js';

const TAG = 'contract.example/runtime/app:1';
const CLUSTER = 'contract-cluster';
const NS = '11111111-1111-4111-8111-111111111111';
const NODE = '22222222-2222-4222-8222-222222222222';
const POD = '33333333-3333-4333-8333-333333333333';
const ECS_CLUSTER = 'arn:aws:ecs:eu-west-1:123456789012:cluster/contract';
const ECS_SERVICE = 'arn:aws:ecs:eu-west-1:123456789012:service/contract/web';
const ECS_TASK = 'arn:aws:ecs:eu-west-1:123456789012:task/contract/1';

const REPORT_QUERY = `query { tagsByVulnerability { results {
  vulnerabilityId cve registries { registryName repositories { repositoryName tags { tagName current image { digest } } } }
} } }`;

interface State {
  server: TestServer;
  digest: string;
  resultUuid: string;
  globalResultUuid: string;
}

/** Creates a scheduled query on `path` (account or global endpoint), runs it now and answers the execution's uuid. */
async function executedQuery(server: TestServer, path: string): Promise<string> {
  const created = await gql(
    server,
    'mutation($q: String!) { createScheduledQuery(name: "contract", cronSchedule: "0 0 1 1 *", query: $q) { ok scheduledQuery { uuid } } }',
    { path, variables: { q: REPORT_QUERY } },
  );
  const uuid = created.data?.createScheduledQuery?.scheduledQuery?.uuid;
  if (!uuid) throw new Error(`createScheduledQuery failed: ${JSON.stringify(created.body)}`);
  const executed = await gql(server, 'mutation($uuid: ID!) { executeScheduledQuery(uuid: $uuid) { uuid status } }', { path, variables: { uuid } });
  const execution = executed.data?.executeScheduledQuery;
  if (execution?.status !== 'complete') throw new Error(`executeScheduledQuery: ${JSON.stringify(executed.body)}`);
  return execution.uuid;
}

export const runtimeArea = defineArea<State>({
  name: 'runtime',
  env: () => ({ VIGIL_FEED_SYNC_ON_START: 'false', VIGIL_INVENTORY_ANALYZE: 'false', VIGIL_WATCH_INTERVAL_SECONDS: '0' }),
  async setup(_url, server) {
    await uploadFeed('contract-runtime-feed');
    const tar = await dockerArchiveTar(await alpineImage('contract-runtime'), { repoTags: [TAG] });
    const added = await ok(sdk.addImageArchive({ query: { tag: TAG }, ...binaryBody(tar, 'application/x-tar') }));
    const status = await waitForAnalysis(server, 'admin', added.image_digest);
    if (status !== 'analyzed') throw new Error(`the runtime image ended ${status}`);
    await refreshReports(server);
    return {
      server,
      digest: added.image_digest,
      resultUuid: await executedQuery(server, '/v2/reports/graphql'),
      globalResultUuid: await executedQuery(server, '/v2/reports/global/graphql'),
    };
  },
  calls: {
    get_query_result: async (s) => {
      const result = await ok(sdk.getQueryResult({ path: { result_uuid: s.resultUuid } }));
      if (!JSON.stringify(result).includes(s.digest)) throw new Error(`the report has no row for the image: ${JSON.stringify(result).slice(0, 400)}`);
    },
    get_global_query_result: (s) => ok(sdk.getGlobalQueryResult({ path: { result_uuid: s.globalResultUuid } })),

    post_kubernetes_inventory: (s) =>
      ok(
        sdk.postKubernetesInventory({
          body: {
            cluster_name: CLUSTER,
            timestamp: new Date().toISOString(),
            namespaces: [{ uid: NS, name: 'web', labels: { team: 'web' } }],
            nodes: [{ uid: NODE, name: 'node-1', arch: 'amd64', operating_system: 'linux' }],
            pods: [{ uid: POD, name: 'web-1', namespace_uid: NS, node_uid: NODE }],
            containers: [{ id: 'containerd://web1', name: 'app', image_tag: TAG, image_digest: s.digest, pod_uid: POD }],
          },
        }),
      ),
    post_ecs_inventory: (s) =>
      ok(
        sdk.postEcsInventory({
          body: {
            cluster_arn: ECS_CLUSTER,
            timestamp: new Date().toISOString(),
            services: [{ arn: ECS_SERVICE }],
            tasks: [{ arn: ECS_TASK, service_arn: ECS_SERVICE }],
            containers: [{ arn: 'arn:aws:ecs:eu-west-1:123456789012:container/contract/1', task_arn: ECS_TASK, image_tag: TAG, image_digest: s.digest }],
          },
        }),
      ),
    get_image_inventory: () => ok(sdk.getImageInventory({ query: { inventory_type: 'kubernetes' } })),
    get_kubernetes_namespaces: () => ok(sdk.getKubernetesNamespaces({ query: { page: 1 } })),
    get_kubernetes_namespace: () => ok(sdk.getKubernetesNamespace({ path: { namespace_id: NS } })),
    get_kubernetes_nodes: () => ok(sdk.getKubernetesNodes({ query: { page: 1 } })),
    get_kubernetes_node: () => ok(sdk.getKubernetesNode({ path: { node_id: NODE } })),
    get_kubernetes_pods: () => ok(sdk.getKubernetesPods({ query: { page: 1 } })),
    get_kubernetes_pod: () => ok(sdk.getKubernetesPod({ path: { pod_id: POD } })),
    get_kubernetes_containers: () => ok(sdk.getKubernetesContainers({ query: { page: 1 } })),
    get_ecs_services: () => ok(sdk.getEcsServices({ query: { page: 1 } })),
    get_ecs_tasks: () => ok(sdk.getEcsTasks({ query: { page: 1 } })),
    get_ecs_containers: () => ok(sdk.getEcsContainers({ query: { page: 1 } })),
    delete_inventory: () => ok(sdk.deleteInventory({ query: { inventory_type: 'ecs', context: ECS_CLUSTER } })),
    delete_kubernetes_namespaces: () => ok(sdk.deleteKubernetesNamespaces({ query: { cluster_name: CLUSTER } })),
  },
});
