/** The image list's query: filters, sort and page, and how they become GET /v2/summaries/image-tags parameters. */
import type { operations } from '../../../../generated/openapi-types';

export type TagSummaryQuery = NonNullable<operations['summary_image_tags']['parameters']['query']>;
export type SortColumn = NonNullable<TagSummaryQuery['sort']>;

export interface ImageFilters {
  search: string;
  analysisStatus: TagSummaryQuery['analysis_status'] | null;
  policyStatus: TagSummaryQuery['policy_status'] | null;
  kev: 'yes' | 'no' | null;
  severity: TagSummaryQuery['severity'] | null;
}

export interface ImageListQuery {
  filters: ImageFilters;
  sort: SortColumn;
  order: 'asc' | 'desc';
  page: number;
}

export const PAGE_SIZE = 100;
export const NO_FILTERS: ImageFilters = { search: '', analysisStatus: null, policyStatus: null, kev: null, severity: null };

export function toApiQuery(q: ImageListQuery): TagSummaryQuery {
  const f = q.filters;
  return {
    ...(f.search.trim() ? { filter: f.search.trim() } : {}),
    ...(f.analysisStatus ? { analysis_status: f.analysisStatus } : {}),
    ...(f.policyStatus ? { policy_status: f.policyStatus } : {}),
    ...(f.kev ? { has_kev: f.kev === 'yes' } : {}),
    ...(f.severity ? { severity: f.severity } : {}),
    sort: q.sort,
    order: q.order,
    limit: PAGE_SIZE,
    page: q.page,
  };
}
