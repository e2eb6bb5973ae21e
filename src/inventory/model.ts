/**
 * Runtime inventory reports as agents send them: the spec's request shapes, taken from the generated types so
 * the contract and the domain cannot disagree.
 */
import type { components } from '../../generated/openapi-types.js';

type Schemas = components['schemas'];

export type KubernetesReport = Schemas['KubernetesInventory'];
export type EcsReport = Schemas['ECSInventory'];

export type InventoryType = 'kubernetes' | 'ecs';

/** An image a report names: the tag as the workload wrote it and the digest ('' when not reported). */
export interface RunningImage {
  image_tag: string;
  image_digest: string;
}

/** One problem with a report, located like the pipeline's validation errors (`body.pods.3.namespace_uid`). */
export interface ReportProblem {
  location: string;
  message: string;
}
