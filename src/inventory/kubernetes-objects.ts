/** Reading an account's Kubernetes inventory (namespaces, nodes, pods, containers), and deleting a cluster's. */
import { NotFoundError } from '../errors.js';
import type { Services } from '../service.js';
import { forgetCluster } from './clusters.js';
import { expireAccountInventory } from './expiry.js';
import { deleteClusterItems } from './items.js';
import { readPage, type Page, type PageRequest } from './paging.js';

interface ObjectTimes {
  created_at: string;
  last_updated: string;
  last_seen: string;
}

export interface NamespaceRecord extends ObjectTimes {
  account_name: string;
  cluster_name: string;
  uid: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface NodeRecord extends NamespaceRecord {
  kernel_version: string | null;
  kubernetes_version: string | null;
  arch: string | null;
  container_runtime_version: string | null;
  kube_proxy_version: string | null;
  kubelet_version: string | null;
  operating_system: string | null;
}

export interface PodRecord extends NamespaceRecord {
  namespace_uid: string;
  context: string;
  node_uid: string | null;
}

export interface ContainerRecord extends ObjectTimes {
  account_name: string;
  cluster_name: string;
  id: string;
  name: string;
  pod_uid: string;
  context: string;
  image_tag: string;
  image_digest: string;
}

type Stored<T> = Omit<T, 'labels' | 'annotations'> & { labels: string; annotations: string };

function parsed<T extends NamespaceRecord>(row: Stored<T>): T {
  return { ...row, labels: JSON.parse(row.labels), annotations: JSON.parse(row.annotations) } as T;
}

/** Each object kind: its table and a total order for paging. */
const KINDS = {
  namespace: { table: 'k8s_namespaces', order: ['cluster_name', 'name', 'uid'] },
  node: { table: 'k8s_nodes', order: ['cluster_name', 'name', 'uid'] },
  pod: { table: 'k8s_pods', order: ['cluster_name', 'context', 'name', 'uid'] },
  container: { table: 'k8s_containers', order: ['cluster_name', 'context', 'pod_uid', 'name', 'id'] },
} as const;

/** The path parameter that names each kind fetched by uid, for the 404's detail. */
const ID_PARAMS = { namespace: 'namespace_id', node: 'node_id', pod: 'pod_id' } as const;

async function listKind<T>(services: Services, accountName: string, kind: keyof typeof KINDS, req: PageRequest): Promise<Page<T>> {
  await expireAccountInventory(services, accountName);
  const { table, order } = KINDS[kind];
  return readPage<T>(services.db(table).where({ account_name: accountName }), order, req);
}

/** By uid; when two clusters report the same uid (one cluster under two names), the most recently seen. */
async function getKind<T>(services: Services, accountName: string, kind: 'namespace' | 'node' | 'pod', uid: string): Promise<T> {
  await expireAccountInventory(services, accountName);
  const { table } = KINDS[kind];
  const row = await services
    .db(table)
    .where({ account_name: accountName, uid: uid.toLowerCase() })
    .orderBy([{ column: 'last_seen', order: 'desc' }, { column: 'cluster_name' }])
    .first();
  if (!row) throw new NotFoundError(`Kubernetes ${kind} '${uid}' is not in this account's inventory`, { [ID_PARAMS[kind]]: uid });
  return row as T;
}

const parsedPage = <T extends NamespaceRecord>(page: Page<Stored<T>>): Page<T> => ({ ...page, items: page.items.map((r) => parsed<T>(r)) });

export const listNamespaces = async (s: Services, account: string, req: PageRequest) => parsedPage(await listKind<Stored<NamespaceRecord>>(s, account, 'namespace', req));
export const listNodes = async (s: Services, account: string, req: PageRequest) => parsedPage(await listKind<Stored<NodeRecord>>(s, account, 'node', req));
export const listPods = async (s: Services, account: string, req: PageRequest) => parsedPage(await listKind<Stored<PodRecord>>(s, account, 'pod', req));
export const listContainers = (s: Services, account: string, req: PageRequest) => listKind<ContainerRecord>(s, account, 'container', req);

export const getNamespace = async (s: Services, account: string, uid: string) => parsed(await getKind<Stored<NamespaceRecord>>(s, account, 'namespace', uid));
export const getNode = async (s: Services, account: string, uid: string) => parsed(await getKind<Stored<NodeRecord>>(s, account, 'node', uid));
export const getPod = async (s: Services, account: string, uid: string) => parsed(await getKind<Stored<PodRecord>>(s, account, 'pod', uid));

/**
 * Deletes everything a Kubernetes cluster reported (objects and image inventory items) and forgets its last
 * report time; NotFoundError when the account has no inventory of that cluster.
 */
export async function deleteKubernetesCluster(services: Services, accountName: string, clusterName: string): Promise<void> {
  await expireAccountInventory(services, accountName);
  const cluster = { accountName, type: 'kubernetes' as const, cluster: clusterName };
  const known = await services.db.transaction(async (trx) => {
    for (const kind of Object.values(KINDS)) await trx(kind.table).where({ account_name: accountName, cluster_name: clusterName }).delete();
    await deleteClusterItems(trx, cluster);
    return forgetCluster(trx, cluster);
  });
  if (!known) throw new NotFoundError(`Kubernetes cluster '${clusterName}' is not in this account's inventory`, { cluster_name: clusterName });
}
