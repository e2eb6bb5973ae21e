/** Handlers of the Inventories tag: agents' runtime reports in, the images and cluster objects they named out. */
import { syncEcsInventory } from '../inventory/ecs-sync.js';
import { listEcsContainers, listEcsServices, listEcsTasks } from '../inventory/ecs-objects.js';
import * as items from '../inventory/items.js';
import * as k8s from '../inventory/kubernetes-objects.js';
import { syncKubernetesInventory } from '../inventory/kubernetes-sync.js';
import type { Page, PageRequest } from '../inventory/paging.js';
import type { HandlerGroup } from '../server/handler-types.js';

type InventoryOps =
  | 'post_kubernetes_inventory'
  | 'post_ecs_inventory'
  | 'get_image_inventory'
  | 'delete_inventory'
  | 'get_kubernetes_namespaces'
  | 'delete_kubernetes_namespaces'
  | 'get_kubernetes_namespace'
  | 'get_kubernetes_nodes'
  | 'get_kubernetes_node'
  | 'get_kubernetes_pods'
  | 'get_kubernetes_pod'
  | 'get_kubernetes_containers'
  | 'get_ecs_containers'
  | 'get_ecs_services'
  | 'get_ecs_tasks';

const pageRequest = (q: { page: number; page_size?: number }): PageRequest => ({ page: q.page, pageSize: q.page_size ?? 1000 });

function pageShape<T, R>(page: Page<T>, shape: (item: T) => R) {
  return { items: page.items.map(shape), page: page.page, page_size: page.pageSize, next_page: page.nextPage, total_count: page.totalCount };
}

/** Optional columns are left out of the answer when the reporter did not send them. */
function present<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: NonNullable<T[K]> };
}

const times = (r: { created_at: string; last_updated: string; last_seen: string }) => ({
  created_at: r.created_at,
  last_updated: r.last_updated,
  last_seen: r.last_seen,
});

function namespaceShape(r: k8s.NamespaceRecord) {
  return { id: r.uid, name: r.name, cluster_name: r.cluster_name, account_name: r.account_name, labels: r.labels, annotations: r.annotations, ...times(r) };
}

function nodeShape(r: k8s.NodeRecord) {
  return {
    ...namespaceShape(r),
    ...present({
      kernel_version: r.kernel_version,
      kubernetes_version: r.kubernetes_version,
      arch: r.arch,
      container_runtime_version: r.container_runtime_version,
      kube_proxy_version: r.kube_proxy_version,
      kubelet_version: r.kubelet_version,
      operating_system: r.operating_system,
    }),
  };
}

function podShape(r: k8s.PodRecord) {
  return { ...namespaceShape(r), context: r.context, namespace_id: r.namespace_uid, ...present({ node_id: r.node_uid }) };
}

function containerShape(r: k8s.ContainerRecord) {
  return {
    id: r.id,
    name: r.name,
    pod_id: r.pod_uid,
    account_name: r.account_name,
    cluster_name: r.cluster_name,
    context: r.context,
    image_tag: r.image_tag,
    image_digest: r.image_digest,
    ...times(r),
  };
}

export const inventoryHandlers: HandlerGroup<InventoryOps> = {
  async post_kubernetes_inventory(ctx, { body }) {
    await syncKubernetesInventory(ctx.services, ctx.account.name, body);
    return { status: 201 };
  },
  async post_ecs_inventory(ctx, { body }) {
    await syncEcsInventory(ctx.services, ctx.account.name, body);
    return { status: 204 };
  },
  async get_image_inventory(ctx, { query }) {
    const list = await items.listItems(ctx.services, ctx.account.name, { inventoryType: query.inventory_type, imageDigest: query.image_digest, context: query.context });
    return { status: 200, body: { items: list } };
  },
  async delete_inventory(ctx, { query }) {
    await items.deleteItems(ctx.services, ctx.account.name, { inventoryType: query.inventory_type, context: query.context, imageDigest: query.image_digest });
    return { status: 204 };
  },
  async get_kubernetes_namespaces(ctx, { query }) {
    return { status: 200, body: pageShape(await k8s.listNamespaces(ctx.services, ctx.account.name, pageRequest(query)), namespaceShape) };
  },
  async delete_kubernetes_namespaces(ctx, { query }) {
    await k8s.deleteKubernetesCluster(ctx.services, ctx.account.name, query.cluster_name);
    return { status: 204 };
  },
  async get_kubernetes_namespace(ctx, { params }) {
    return { status: 200, body: namespaceShape(await k8s.getNamespace(ctx.services, ctx.account.name, params.namespace_id)) };
  },
  async get_kubernetes_nodes(ctx, { query }) {
    return { status: 200, body: pageShape(await k8s.listNodes(ctx.services, ctx.account.name, pageRequest(query)), nodeShape) };
  },
  async get_kubernetes_node(ctx, { params }) {
    return { status: 200, body: nodeShape(await k8s.getNode(ctx.services, ctx.account.name, params.node_id)) };
  },
  async get_kubernetes_pods(ctx, { query }) {
    return { status: 200, body: pageShape(await k8s.listPods(ctx.services, ctx.account.name, pageRequest(query)), podShape) };
  },
  async get_kubernetes_pod(ctx, { params }) {
    return { status: 200, body: podShape(await k8s.getPod(ctx.services, ctx.account.name, params.pod_id)) };
  },
  async get_kubernetes_containers(ctx, { query }) {
    return { status: 200, body: pageShape(await k8s.listContainers(ctx.services, ctx.account.name, pageRequest(query)), containerShape) };
  },
  async get_ecs_containers(ctx, { query }) {
    const page = await listEcsContainers(ctx.services, ctx.account.name, pageRequest(query));
    return {
      status: 200,
      body: pageShape(page, (r) => ({
        arn: r.arn,
        cluster_arn: r.cluster_arn,
        account_name: r.account_name,
        context: r.cluster_arn,
        ...present({ task_arn: r.task_arn }),
        image_tag: r.image_tag,
        image_digest: r.image_digest,
        ...times(r),
      })),
    };
  },
  async get_ecs_services(ctx, { query }) {
    const page = await listEcsServices(ctx.services, ctx.account.name, pageRequest(query));
    return { status: 200, body: pageShape(page, (r) => ({ arn: r.arn, cluster_arn: r.cluster_arn, account_name: r.account_name, tags: r.tags, ...times(r) })) };
  },
  async get_ecs_tasks(ctx, { query }) {
    const page = await listEcsTasks(ctx.services, ctx.account.name, pageRequest(query));
    return {
      status: 200,
      body: pageShape(page, (r) => ({
        arn: r.arn,
        cluster_arn: r.cluster_arn,
        account_name: r.account_name,
        ...present({ service_arn: r.service_arn, task_definition_arn: r.task_definition_arn }),
        tags: r.tags,
        ...times(r),
      })),
    };
  },
};
