/**
 * Runs a stored query and stores its full result: the query (rewritten by ./paged-document.ts) is executed
 * page after page against the report schema in its owner's scope until the report's nextToken is null, and the
 * result elements are written in pages as they arrive. Any failure — the query no longer validates, a report
 * error, a page larger than VIGIL_GRAPHQL_MAX_RESPONSE_BYTES, the database — ends the execution as failed with the
 * reason, and without pages.
 */
import { execute, type GraphQLSchema } from 'graphql';
import type { Services } from '../../service.js';
import { validateReportDocument } from '../graphql/limits.js';
import { boundedResult } from '../graphql/response-size.js';
import { createReportSchema } from '../graphql/schema.js';
import { completeExecution, failExecution, getExecution, markRunning, type ExecutionRecord } from './executions.js';
import { ownerContext } from './owner-context.js';
import { pagedDocument, type PagedDocument } from './paged-document.js';
import { ResultPageWriter } from './result-pages.js';
import type { ScheduledQueryRecord } from './store.js';
import { checkReportQuery, NEXT_TOKEN_VARIABLE } from './validation.js';

/** A report page as the rewritten query selects it. */
interface ReportPage {
  results: unknown[];
  pageInfo: { nextToken: string | null };
}

let reportSchema: GraphQLSchema | null = null;
/** Built once, on the first run (building it reads and compiles the SDL). */
const schema = () => (reportSchema ??= createReportSchema());

/** The query rewritten for paging, re-checked against the current schema (it may have changed since it was stored). */
function prepare(query: ScheduledQueryRecord): PagedDocument & { reportKind: string } {
  const checked = checkReportQuery(schema(), query.query);
  const paged = pagedDocument(checked);
  const errors = validateReportDocument(schema(), paged.document);
  if (errors.length) throw new Error(`the query cannot be paged: ${errors.map((e) => e.message).join('; ')}`);
  return { ...paged, reportKind: checked.reportKind };
}

async function storePages(services: Services, query: ScheduledQueryRecord, paged: PagedDocument, writer: ResultPageWriter): Promise<void> {
  const context = await ownerContext(services, query);
  let nextToken: string | null = null;
  do {
    const executed = await execute({
      schema: schema(),
      document: paged.document,
      variableValues: { ...query.variables, [NEXT_TOKEN_VARIABLE]: nextToken },
      // A fresh memo per page: loaders cache per request, and each page is one.
      contextValue: { ...context, memo: new Map() },
    });
    // A page is held in memory as an answer is: the same bound.
    const result = boundedResult(executed, services.config.reports.maxResponseBytes);
    if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
    const page = result.data?.[paged.responseKey] as ReportPage | null | undefined;
    if (!page) throw new Error(`the query returned no ${paged.responseKey}`);
    await writer.add(page.results);
    nextToken = page.pageInfo.nextToken;
  } while (nextToken !== null);
}

/** Runs `execution` of `query` to its end and answers the execution as it finished (complete or failed). */
export async function executeStoredQuery(services: Services, query: ScheduledQueryRecord, execution: ExecutionRecord): Promise<ExecutionRecord> {
  const log = services.log.child({ component: 'scheduled-queries', query: query.uuid, execution: execution.uuid });
  try {
    const paged = prepare(query);
    await markRunning(services.db, execution.uuid, paged.reportKind);
    const writer = new ResultPageWriter(services.db, execution.uuid);
    await storePages(services, query, paged, writer);
    await completeExecution(services.db, execution.uuid, await writer.finish());
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    log.warn({ err }, 'scheduled query run failed');
    await failExecution(services.db, execution.uuid, reason);
  }
  return (await getExecution(services.db, execution.uuid)) ?? { ...execution, status: 'failed', error: 'the execution was deleted while it ran' };
}
