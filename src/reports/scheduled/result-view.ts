/**
 * The stored result of an execution as the REST result routes serve it: one page, keyed by the report kind,
 * with paging fields and the execution's metadata. Where each execution's result is served is decided here too.
 */
import type { Db } from '../../db/index.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { ReportScope } from '../scope.js';
import { findOwnedExecution, type ExecutionRecord } from './executions.js';
import { readResultPage } from './result-pages.js';
import type { ReportKind } from './validation.js';

export interface StoredResultPage {
  execution: { uuid: string; query_uuid: string; created_at: string; finished_at: string; status: 'complete' };
  page: number;
  next_page: boolean;
  returned_count: number;
  total_count: number;
  /** The report kind, holding the page's result elements as GraphQL returned them. */
  report: { kind: ReportKind; results: Record<string, unknown>[] };
}

/** The REST path of an execution's result: account queries' and global queries' results have their own routes. */
export function resultPath(execution: Pick<ExecutionRecord, 'uuid' | 'scope'>): string {
  return execution.scope === 'global'
    ? `/v2/reporting/reports/global/scheduled-query-results/${execution.uuid}`
    : `/v2/reporting/scheduled-query-results/${execution.uuid}`;
}

/**
 * Page `page` of the result of execution `uuid` as seen from `scope`. Unknown, or owned by another account or
 * scope: NotFoundError. Not complete (queued, running, failed): ConflictError, as there is no result (yet).
 * A page beyond the last: no results and next_page false.
 */
export async function storedResultPage(db: Db, scope: ReportScope, uuid: string, page: number): Promise<StoredResultPage> {
  const execution = await findOwnedExecution(db, scope, uuid);
  if (!execution) throw new NotFoundError(`scheduled query result '${uuid}' does not exist`, { result_uuid: uuid });
  if (execution.status !== 'complete' || !execution.reportKind || !execution.finishedAt)
    throw new ConflictError(
      execution.status === 'failed'
        ? `execution '${uuid}' failed and has no result: ${execution.error ?? 'no reason recorded'}`
        : `execution '${uuid}' is ${execution.status}; its result is available once it is complete`,
      { result_uuid: uuid, status: execution.status },
    );
  const results = (await readResultPage(db, uuid, page)) as Record<string, unknown>[];
  return {
    execution: { uuid, query_uuid: execution.queryUuid, created_at: execution.createdAt, finished_at: execution.finishedAt, status: 'complete' },
    page,
    next_page: page < execution.pageCount,
    returned_count: results.length,
    total_count: execution.resultCount,
    report: { kind: execution.reportKind as ReportKind, results },
  };
}
