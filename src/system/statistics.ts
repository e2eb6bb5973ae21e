/**
 * Deployment-wide statistics under upstream's names (SystemStatistics), counted from the database at the time
 * of the request, over every account. Only the names Vigil can count from what it stores are reported: no
 * creation counters (Vigil keeps no count of records since deleted), nothing about source repositories, SBOM
 * groups, STIG evaluations or stateless scans (those store nothing).
 *
 * `value_type` says how to read a value: `gauge` is how many exist now; `counter` is how many times something
 * happened, over the records still held (an image's analyses and evaluations go when the image is deleted).
 */
import type { Knex } from 'knex';
import type { Db } from '../db/index.js';
import { expiryCutoff } from '../inventory/expiry.js';

export type StatisticName =
  | 'account_inventory'
  | 'user_inventory'
  | 'image_inventory'
  | 'image_analysis'
  | 'sbom_imported_inventory'
  | 'sbom_imported_analysis'
  | 'policy_inventory'
  | 'policy_evaluation'
  | 'report_inventory'
  | 'report_execution_inventory'
  | 'kubernetes_namespace_inventory'
  | 'kubernetes_node_inventory'
  | 'kubernetes_pod_inventory'
  | 'kubernetes_container_inventory'
  | 'kubernetes_image_inventory'
  | 'ecs_service_inventory'
  | 'ecs_task_inventory'
  | 'ecs_container_inventory'
  | 'ecs_image_inventory';

export interface SystemStatistic {
  name: StatisticName;
  description: string;
  value_type: 'gauge' | 'counter';
  value: number;
}

/** Images added from an SBOM import: their source is `{"kind":"import", ...}` (images/add-import.ts). */
const IMPORTED = (q: Knex.QueryBuilder) => q.where('images.source', 'like', '{"kind":"import"%');

interface Definition {
  name: StatisticName;
  description: string;
  value_type: SystemStatistic['value_type'];
  /** A query answering one row with a `value` column. */
  query(db: Db, inventoryCutoff: string): Knex.QueryBuilder;
}

const count = (db: Db, table: string) => db(table).count({ value: '*' });
const seen = (db: Db, table: string, cutoff: string) => count(db, table).where('last_seen', '>=', cutoff);
/** Distinct images running, by digest when the reporter knew it, else by tag (as the reports count them). */
const runningImages = (db: Db, type: 'kubernetes' | 'ecs', cutoff: string) =>
  db
    .from(
      db('inventory_items')
        .where({ inventory_type: type })
        .andWhere('last_seen', '>=', cutoff)
        .distinct('account_name', db.raw("CASE WHEN image_digest = '' THEN image_tag ELSE image_digest END AS image"))
        .as('running'),
    )
    .count({ value: '*' });
const analyses = (db: Db) =>
  db('image_status_history')
    .join('images', (j) => j.on('images.account_name', 'image_status_history.account_name').andOn('images.image_digest', 'image_status_history.image_digest'))
    .where('image_status_history.to_status', 'analyzed')
    .count({ value: '*' });

const DEFINITIONS: readonly Definition[] = [
  { name: 'account_inventory', value_type: 'gauge', description: 'Accounts', query: (db) => count(db, 'accounts') },
  { name: 'user_inventory', value_type: 'gauge', description: 'Users, in every account', query: (db) => count(db, 'users') },
  { name: 'image_inventory', value_type: 'gauge', description: 'Images, in any analysis state', query: (db) => count(db, 'images') },
  { name: 'image_analysis', value_type: 'counter', description: 'Completed analyses of the images held (a re-analysis counts again)', query: (db) => analyses(db) },
  { name: 'sbom_imported_inventory', value_type: 'gauge', description: 'Images added from an imported SBOM', query: (db) => IMPORTED(count(db, 'images')) },
  { name: 'sbom_imported_analysis', value_type: 'counter', description: 'Completed analyses of images added from an imported SBOM', query: (db) => IMPORTED(analyses(db)) },
  { name: 'policy_inventory', value_type: 'gauge', description: 'Policies, in every account', query: (db) => count(db, 'policies') },
  { name: 'policy_evaluation', value_type: 'counter', description: 'Stored policy evaluations (latest results and their history)', query: (db) => count(db, 'policy_evaluations') },
  { name: 'report_inventory', value_type: 'gauge', description: 'Scheduled report queries', query: (db) => count(db, 'scheduled_queries') },
  { name: 'report_execution_inventory', value_type: 'gauge', description: 'Runs of scheduled report queries kept (queued, running, complete or failed)', query: (db) => count(db, 'scheduled_query_executions') },
  { name: 'kubernetes_namespace_inventory', value_type: 'gauge', description: 'Kubernetes namespaces in the runtime inventory', query: (db, c) => seen(db, 'k8s_namespaces', c) },
  { name: 'kubernetes_node_inventory', value_type: 'gauge', description: 'Kubernetes nodes in the runtime inventory', query: (db, c) => seen(db, 'k8s_nodes', c) },
  { name: 'kubernetes_pod_inventory', value_type: 'gauge', description: 'Kubernetes pods in the runtime inventory', query: (db, c) => seen(db, 'k8s_pods', c) },
  { name: 'kubernetes_container_inventory', value_type: 'gauge', description: 'Kubernetes containers in the runtime inventory', query: (db, c) => seen(db, 'k8s_containers', c) },
  { name: 'kubernetes_image_inventory', value_type: 'gauge', description: 'Distinct images running in Kubernetes, per account', query: (db, c) => runningImages(db, 'kubernetes', c) },
  { name: 'ecs_service_inventory', value_type: 'gauge', description: 'ECS services in the runtime inventory', query: (db, c) => seen(db, 'ecs_services', c) },
  { name: 'ecs_task_inventory', value_type: 'gauge', description: 'ECS tasks in the runtime inventory', query: (db, c) => seen(db, 'ecs_tasks', c) },
  { name: 'ecs_container_inventory', value_type: 'gauge', description: 'ECS containers in the runtime inventory', query: (db, c) => seen(db, 'ecs_containers', c) },
  { name: 'ecs_image_inventory', value_type: 'gauge', description: 'Distinct images running in ECS, per account', query: (db, c) => runningImages(db, 'ecs', c) },
];

/** Every statistic, counted now; runtime inventory rows older than the TTL (not swept yet) are not counted. */
export async function systemStatistics(db: Db, inventoryTtlSeconds: number): Promise<SystemStatistic[]> {
  const cutoff = expiryCutoff(inventoryTtlSeconds);
  return Promise.all(
    DEFINITIONS.map(async (d) => {
      const row = (await d.query(db, cutoff).first()) as { value: number | string } | undefined;
      return { name: d.name, description: d.description, value_type: d.value_type, value: Number(row?.value ?? 0) };
    }),
  );
}
