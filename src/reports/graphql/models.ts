/** Shapes resolvers hand to nested resolvers where they differ from the GraphQL object (see codegen.yml mappers). */
import type { FindingCriteria } from '../queries/criteria.js';
import type { RuntimeImage } from '../queries/runtime-inventory.js';
import type { ScheduledQueryRecord } from '../scheduled/store.js';

export interface AffectedImageModel {
  digest: string;
  account: string;
  /** The query's tag filters, which the `tags` field applies. */
  tagCriteria: Pick<FindingCriteria, 'tag' | 'registry' | 'repository'>;
}

export interface RuntimeVulnerabilityModel {
  vulnerabilityId: string;
  cve: string | null;
  severity: string;
  links: string[];
  imagesCount: number;
  account: string;
  runtimeImages: RuntimeImage[];
}

export type ScheduledQueryModel = ScheduledQueryRecord;
