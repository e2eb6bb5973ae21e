/**
 * An ECS report turned into the rows it stores: ARNs unique per list, a container's task and a task's service
 * resolving within the report. The context of everything is the cluster ARN. Pure: no database.
 */
import type { SeenImage } from './items.js';
import type { EcsReport, ReportProblem, RunningImage } from './model.js';
import { checkReferences, invalidReport, keysOf } from './report-checks.js';

export interface EcsSnapshot {
  services: Record<string, unknown>[];
  tasks: Record<string, unknown>[];
  containers: Record<string, unknown>[];
  seen: SeenImage[];
  images: RunningImage[];
}

const json = (m: Record<string, string> | undefined) => JSON.stringify(m ?? {});

/** Throws InvalidError listing every duplicate ARN and unresolved reference. */
export function ecsSnapshot(report: EcsReport): EcsSnapshot {
  const services = report.services ?? [];
  const tasks = report.tasks ?? [];
  const containers = (report.containers ?? []).map((c) => ({ ...c, image_digest: c.image_digest ?? '' }));

  const problems: ReportProblem[] = [];
  const serviceArns = keysOf(services, (s) => s.arn, { list: 'services', field: 'arn' }, problems);
  const taskArns = keysOf(tasks, (t) => t.arn, { list: 'tasks', field: 'arn' }, problems);
  keysOf(containers, (c) => c.arn, { list: 'containers', field: 'arn' }, problems);
  checkReferences(tasks, (t) => t.service_arn, serviceArns, { list: 'tasks', field: 'service_arn', target: 'service' }, problems);
  checkReferences(containers, (c) => c.task_arn, taskArns, { list: 'containers', field: 'task_arn', target: 'task' }, problems);
  if (problems.length > 0) throw invalidReport(problems);

  const context = report.cluster_arn;
  const images = new Map(containers.map((c) => [`${c.image_tag}\n${c.image_digest}`, { image_tag: c.image_tag, image_digest: c.image_digest }]));
  return {
    services: services.map((s) => ({ arn: s.arn, tags: json(s.tags) })),
    tasks: tasks.map((t) => ({ arn: t.arn, service_arn: t.service_arn ?? null, task_definition_arn: t.task_definition_arn ?? null, tags: json(t.tags) })),
    containers: containers.map((c) => ({ arn: c.arn, task_arn: c.task_arn ?? null, image_tag: c.image_tag, image_digest: c.image_digest })),
    seen: containers.map((c) => ({ context, image_tag: c.image_tag, image_digest: c.image_digest })),
    images: [...images.values()],
  };
}
