/**
 * A Kubernetes report turned into the rows it stores: uids normalised (UUIDs compare case-insensitively),
 * every reference checked to resolve within the report, and each container placed in its context
 * (`<cluster>/<namespace name>`). Pure: no database.
 */
import { checkReferences, invalidReport, keysOf } from './report-checks.js';
import type { KubernetesReport, ReportProblem, RunningImage } from './model.js';
import type { SeenImage } from './items.js';

export interface KubernetesSnapshot {
  namespaces: Record<string, unknown>[];
  nodes: Record<string, unknown>[];
  pods: Record<string, unknown>[];
  containers: Record<string, unknown>[];
  /** What inventory_items records: each (context, image) once. */
  seen: SeenImage[];
  /** Each image once, in report order (the order images are queued for analysis). */
  images: RunningImage[];
}

const uid = (s: string) => s.toLowerCase();
const json = (m: Record<string, string> | undefined) => JSON.stringify(m ?? {});

/** Throws InvalidError listing every duplicate key and unresolved reference. */
export function kubernetesSnapshot(report: KubernetesReport): KubernetesSnapshot {
  const namespaces = (report.namespaces ?? []).map((n) => ({ ...n, uid: uid(n.uid) }));
  const nodes = (report.nodes ?? []).map((n) => ({ ...n, uid: uid(n.uid) }));
  const pods = (report.pods ?? []).map((p) => ({ ...p, uid: uid(p.uid), namespace_uid: uid(p.namespace_uid), node_uid: p.node_uid && uid(p.node_uid) }));
  const containers = (report.containers ?? []).map((c) => ({ ...c, pod_uid: uid(c.pod_uid), image_digest: c.image_digest ?? '' }));

  const problems: ReportProblem[] = [];
  keysOf(namespaces, (n) => n.uid, { list: 'namespaces', field: 'uid' }, problems);
  const nodeUids = keysOf(nodes, (n) => n.uid, { list: 'nodes', field: 'uid' }, problems);
  keysOf(pods, (p) => p.uid, { list: 'pods', field: 'uid' }, problems);
  keysOf(containers, (c) => c.id, { list: 'containers', field: 'id' }, problems);
  const namespaceNames = new Map(namespaces.map((n) => [n.uid, n.name]));
  checkReferences(pods, (p) => p.namespace_uid, new Set(namespaceNames.keys()), { list: 'pods', field: 'namespace_uid', target: 'namespace' }, problems);
  checkReferences(pods, (p) => p.node_uid, nodeUids, { list: 'pods', field: 'node_uid', target: 'node' }, problems);
  const podContexts = new Map(pods.map((p) => [p.uid, `${report.cluster_name}/${namespaceNames.get(p.namespace_uid)}`]));
  checkReferences(containers, (c) => c.pod_uid, new Set(podContexts.keys()), { list: 'containers', field: 'pod_uid', target: 'pod' }, problems);
  if (problems.length > 0) throw invalidReport(problems);

  const seen = containers.map((c) => ({ context: podContexts.get(c.pod_uid)!, image_tag: c.image_tag, image_digest: c.image_digest }));
  const images = new Map(containers.map((c) => [`${c.image_tag}\n${c.image_digest}`, { image_tag: c.image_tag, image_digest: c.image_digest }]));
  return {
    namespaces: namespaces.map((n) => ({ uid: n.uid, name: n.name, labels: json(n.labels), annotations: json(n.annotations) })),
    nodes: nodes.map((n) => ({
      uid: n.uid,
      name: n.name,
      labels: json(n.labels),
      annotations: json(n.annotations),
      kernel_version: n.kernel_version ?? null,
      kubernetes_version: n.kubernetes_version ?? null,
      arch: n.arch ?? null,
      container_runtime_version: n.container_runtime_version ?? null,
      kube_proxy_version: n.kube_proxy_version ?? null,
      kubelet_version: n.kubelet_version ?? null,
      operating_system: n.operating_system ?? null,
    })),
    pods: pods.map((p) => ({
      uid: p.uid,
      name: p.name,
      namespace_uid: p.namespace_uid,
      context: podContexts.get(p.uid)!,
      node_uid: p.node_uid ?? null,
      labels: json(p.labels),
      annotations: json(p.annotations),
    })),
    containers: containers.map((c) => ({
      id: c.id,
      name: c.name,
      pod_uid: c.pod_uid,
      context: podContexts.get(c.pod_uid)!,
      image_tag: c.image_tag,
      image_digest: c.image_digest,
    })),
    seen,
    images: [...images.values()],
  };
}
