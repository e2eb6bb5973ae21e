import type { Knex } from 'knex';

/**
 * Runtime inventory objects: what Kubernetes and ECS agents report, per cluster. Each report replaces its
 * cluster's rows (inventory_items, in 011, keeps the images seen). Every row carries last_seen, the timestamp
 * of the report that wrote it, so the TTL sweep expires clusters that stopped reporting.
 */
export async function up(knex: Knex): Promise<void> {
  const account = (t: Knex.CreateTableBuilder) =>
    t.string('account_name', 128).notNullable().references('name').inTable('accounts').onDelete('CASCADE');
  const times = (t: Knex.CreateTableBuilder) => {
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.string('last_seen', 30).notNullable();
    t.index(['last_seen']);
  };

  // One row per reporting cluster: the timestamp of its latest accepted report, so older reports are refused.
  await knex.schema.createTable('inventory_clusters', (t) => {
    account(t);
    /** kubernetes | ecs */
    t.string('inventory_type', 16).notNullable();
    /** The cluster name (Kubernetes) or cluster ARN (ECS). */
    t.string('cluster', 512).notNullable();
    t.string('last_report_at', 30).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_updated', 30).notNullable();
    t.primary(['account_name', 'inventory_type', 'cluster']);
    t.index(['last_report_at']);
  });

  await knex.schema.createTable('k8s_namespaces', (t) => {
    account(t);
    t.string('cluster_name', 256).notNullable();
    t.string('uid', 36).notNullable();
    t.string('name', 63).notNullable();
    /** JSON objects of strings. */
    t.text('labels').notNullable();
    t.text('annotations').notNullable();
    times(t);
    t.primary(['account_name', 'cluster_name', 'uid']);
    t.index(['account_name', 'uid']);
  });
  await knex.schema.createTable('k8s_nodes', (t) => {
    account(t);
    t.string('cluster_name', 256).notNullable();
    t.string('uid', 36).notNullable();
    t.string('name', 253).notNullable();
    t.text('labels').notNullable();
    t.text('annotations').notNullable();
    for (const c of ['kernel_version', 'kubernetes_version', 'arch', 'container_runtime_version', 'kube_proxy_version', 'kubelet_version', 'operating_system'])
      t.string(c, 256).nullable();
    times(t);
    t.primary(['account_name', 'cluster_name', 'uid']);
    t.index(['account_name', 'uid']);
  });
  await knex.schema.createTable('k8s_pods', (t) => {
    account(t);
    t.string('cluster_name', 256).notNullable();
    t.string('uid', 36).notNullable();
    t.string('name', 253).notNullable();
    t.string('namespace_uid', 36).notNullable();
    /** `<cluster_name>/<namespace name>`, as in inventory_items. */
    t.string('context', 320).notNullable();
    t.string('node_uid', 36).nullable();
    t.text('labels').notNullable();
    t.text('annotations').notNullable();
    times(t);
    t.primary(['account_name', 'cluster_name', 'uid']);
    t.index(['account_name', 'uid']);
  });
  await knex.schema.createTable('k8s_containers', (t) => {
    account(t);
    t.string('cluster_name', 256).notNullable();
    t.string('id', 512).notNullable();
    t.string('name', 253).notNullable();
    t.string('pod_uid', 36).notNullable();
    t.string('context', 320).notNullable();
    t.string('image_tag', 1024).notNullable();
    /** Empty when the reporter did not know the digest. */
    t.string('image_digest', 80).notNullable();
    times(t);
    t.primary(['account_name', 'cluster_name', 'id']);
  });

  await knex.schema.createTable('ecs_services', (t) => {
    account(t);
    t.string('cluster_arn', 512).notNullable();
    t.string('arn', 512).notNullable();
    /** JSON object of strings. */
    t.text('tags').notNullable();
    times(t);
    t.primary(['account_name', 'cluster_arn', 'arn']);
  });
  await knex.schema.createTable('ecs_tasks', (t) => {
    account(t);
    t.string('cluster_arn', 512).notNullable();
    t.string('arn', 512).notNullable();
    t.string('service_arn', 512).nullable();
    t.string('task_definition_arn', 512).nullable();
    t.text('tags').notNullable();
    times(t);
    t.primary(['account_name', 'cluster_arn', 'arn']);
  });
  await knex.schema.createTable('ecs_containers', (t) => {
    account(t);
    t.string('cluster_arn', 512).notNullable();
    t.string('arn', 512).notNullable();
    t.string('task_arn', 512).nullable();
    t.string('image_tag', 1024).notNullable();
    t.string('image_digest', 80).notNullable();
    times(t);
    t.primary(['account_name', 'cluster_arn', 'arn']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['ecs_containers', 'ecs_tasks', 'ecs_services', 'k8s_containers', 'k8s_pods', 'k8s_nodes', 'k8s_namespaces', 'inventory_clusters'])
    await knex.schema.dropTableIfExists(table);
}
