/** Storing an ECS report: the cluster's snapshot replaced and its images recorded, in one transaction. */
import type { Services } from '../service.js';
import { nowIso } from '../util/time.js';
import { queueUnanalyzedImages } from './analysis-queue.js';
import { acceptReport } from './clusters.js';
import { ecsSnapshot } from './ecs-snapshot.js';
import { recordItems } from './items.js';
import type { EcsReport } from './model.js';
import { reportTime } from './report-checks.js';
import { replaceClusterRows } from './snapshot.js';

export async function syncEcsInventory(services: Services, accountName: string, report: EcsReport): Promise<void> {
  const seenAt = reportTime(report.timestamp, await services.settings.get('inventory.ttl_seconds'));
  const snapshot = ecsSnapshot(report);
  const times = { now: nowIso(), seenAt };
  const cluster = { accountName, type: 'ecs' as const, cluster: report.cluster_arn };
  await services.db.transaction(async (trx) => {
    await acceptReport(trx, cluster, seenAt, times.now);
    const scope = { account_name: accountName, cluster_arn: report.cluster_arn };
    await replaceClusterRows(trx, 'ecs_services', scope, 'arn', snapshot.services, times);
    await replaceClusterRows(trx, 'ecs_tasks', scope, 'arn', snapshot.tasks, times);
    await replaceClusterRows(trx, 'ecs_containers', scope, 'arn', snapshot.containers, times);
    await recordItems(trx, cluster, snapshot.seen, times);
  });
  await queueUnanalyzedImages(services, accountName, snapshot.images);
}
