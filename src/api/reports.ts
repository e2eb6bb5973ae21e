/** Handlers of the Reports tag: stored results of scheduled reporting queries (the queries are GraphQL's). */
import type { components } from '../../generated/openapi-types.js';
import { ForbiddenError } from '../errors.js';
import { storedResultPage, type StoredResultPage } from '../reports/scheduled/result-view.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ReportOps = 'get_query_result' | 'get_global_query_result';

/** The REST body: the paging fields and the results under their report kind. */
function resultBody({ report, ...paging }: StoredResultPage): components['schemas']['ScheduledQueryResult'] {
  return { ...paging, [report.kind]: { results: report.results } };
}

export const reportHandlers: HandlerGroup<ReportOps> = {
  async get_query_result(ctx, { params, query }) {
    const page = await storedResultPage(ctx.db, { kind: 'account', accountName: ctx.account.name }, params.result_uuid, query.page ?? 1);
    return { status: 200, body: resultBody(page) };
  },
  async get_global_query_result(ctx, { params, query }) {
    if (!ctx.caller.isAdmin) throw new ForbiddenError('global scheduled query results are for administrators; use /v2/reporting/scheduled-query-results/{result_uuid}');
    const page = await storedResultPage(ctx.db, { kind: 'global' }, params.result_uuid, query.page ?? 1);
    return { status: 200, body: resultBody(page) };
  },
};
