/** The saved (scheduled) queries through GraphQL (/v2/reports/graphql) and their stored results through REST. */
import type { components } from '../../../../generated/openapi-types';
import { type Api, data, type Gql } from '../../api/client';

export type Execution = Pick<
  Gql.ScheduledQueryExecution,
  'uuid' | 'createdAt' | 'startedAt' | 'finishedAt' | 'status' | 'trigger' | 'reportKind' | 'resultCount' | 'error'
>;
export type SavedQuerySummary = Pick<Gql.ScheduledQuery, 'uuid' | 'name' | 'description' | 'cronSchedule' | 'enabled' | 'nextRunAt'> & {
  executions: Execution[];
};
export type SavedQuery = SavedQuerySummary & Pick<Gql.ScheduledQuery, 'query' | 'variables' | 'createdAt' | 'updatedAt'>;

const EXECUTION_FIELDS = 'uuid createdAt startedAt finishedAt status trigger reportKind resultCount error';
const SUMMARY_FIELDS = `uuid name description cronSchedule enabled nextRunAt`;

export interface SavedQueryPage {
  results: SavedQuerySummary[];
  nextToken: string | null;
}

export async function listSavedQueries(api: Api, limit: number, nextToken: string | null): Promise<SavedQueryPage> {
  const answer = await api.graphql<{ scheduledQueries: { pageInfo: Pick<Gql.PageInfo, 'nextToken'>; results: SavedQuerySummary[] } }>(
    `query SavedQueries($limit: Int, $nextToken: String) {
      scheduledQueries(limit: $limit, nextToken: $nextToken) {
        pageInfo { nextToken }
        results { ${SUMMARY_FIELDS} executions(limit: 1) { ${EXECUTION_FIELDS} } }
      }
    }`,
    { limit, nextToken },
  );
  return { results: answer.scheduledQueries.results, nextToken: answer.scheduledQueries.pageInfo.nextToken ?? null };
}

/** The saved query with its newest executions; null when there is none with that uuid. */
export async function getSavedQuery(api: Api, uuid: string, executions: number): Promise<SavedQuery | null> {
  const answer = await api.graphql<{ scheduledQuery: SavedQuery | null }>(
    `query SavedQuery($uuid: ID!, $executions: Int) {
      scheduledQuery(uuid: $uuid) { ${SUMMARY_FIELDS} query variables createdAt updatedAt executions(limit: $executions) { ${EXECUTION_FIELDS} } }
    }`,
    { uuid, executions },
  );
  return answer.scheduledQuery;
}

/** Runs the saved query now and waits for it (the server answers once the execution ended). */
export async function runSavedQuery(api: Api, uuid: string): Promise<Execution> {
  const answer = await api.graphql<{ executeScheduledQuery: Execution }>(
    `mutation RunSavedQuery($uuid: ID!) { executeScheduledQuery(uuid: $uuid) { ${EXECUTION_FIELDS} } }`,
    { uuid },
  );
  return answer.executeScheduledQuery;
}

export type ResultPage = components['schemas']['ScheduledQueryResult'];

/** The report kinds a result may be keyed by (exactly one is present). */
const REPORT_KINDS = [
  'tagsByVulnerability',
  'imagesByVulnerability',
  'artifactsByVulnerability',
  'policyEvaluationsByTag',
  'metrics',
  'metricData',
  'runtimeInventoryImagesByVulnerability',
] as const satisfies readonly (keyof ResultPage)[];

/** The result elements of a page, whichever report kind holds them. */
export function resultElements(page: ResultPage): { kind: string; elements: Record<string, unknown>[] } {
  for (const kind of REPORT_KINDS) {
    const part = page[kind];
    if (part) return { kind, elements: part.results as Record<string, unknown>[] };
  }
  return { kind: 'unknown', elements: [] };
}

export function getResultPage(api: Api, executionUuid: string, page: number): Promise<ResultPage> {
  return data(api.rest.GET('/reporting/scheduled-query-results/{result_uuid}', { params: { path: { result_uuid: executionUuid }, query: { page } } }));
}

/** Every page of a result, for the downloads. */
export async function getWholeResult(api: Api, executionUuid: string): Promise<Record<string, unknown>[]> {
  const elements: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const answer = await getResultPage(api, executionUuid, page);
    elements.push(...resultElements(answer).elements);
    if (!answer.next_page) return elements;
  }
}
