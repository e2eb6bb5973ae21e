/** Storing a Kubernetes report: the cluster's snapshot replaced and its images recorded, in one transaction. */
import type { Services } from '../service.js';
import { nowIso } from '../util/time.js';
import { queueUnanalyzedImages } from './analysis-queue.js';
import { acceptReport } from './clusters.js';
import { recordItems } from './items.js';
import { kubernetesSnapshot } from './kubernetes-snapshot.js';
import type { KubernetesReport } from './model.js';
import { reportTime } from './report-checks.js';
import { replaceClusterRows } from './snapshot.js';

export async function syncKubernetesInventory(services: Services, accountName: string, report: KubernetesReport): Promise<void> {
  const seenAt = reportTime(report.timestamp, await services.settings.get('inventory.ttl_seconds'));
  const snapshot = kubernetesSnapshot(report);
  const times = { now: nowIso(), seenAt };
  const cluster = { accountName, type: 'kubernetes' as const, cluster: report.cluster_name };
  await services.db.transaction(async (trx) => {
    await acceptReport(trx, cluster, seenAt, times.now);
    const scope = { account_name: accountName, cluster_name: report.cluster_name };
    await replaceClusterRows(trx, 'k8s_namespaces', scope, 'uid', snapshot.namespaces, times);
    await replaceClusterRows(trx, 'k8s_nodes', scope, 'uid', snapshot.nodes, times);
    await replaceClusterRows(trx, 'k8s_pods', scope, 'uid', snapshot.pods, times);
    await replaceClusterRows(trx, 'k8s_containers', scope, 'id', snapshot.containers, times);
    await recordItems(trx, cluster, snapshot.seen, times);
  });
  await queueUnanalyzedImages(services, accountName, snapshot.images);
}
