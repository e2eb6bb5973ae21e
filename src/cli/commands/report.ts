/**
 * `vigil report query` (any query or mutation on the reports GraphQL endpoint) and `vigil report scheduled
 * list|run|results` (scheduled queries, run through GraphQL; their stored results read over REST).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { GraphqlAnswer } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { nonNegativeInteger } from '../options.js';
import { fieldsView, statusStyle, type Column, type View } from '../output.js';
import type { Api, Session } from '../session.js';

type Row = Record<string, unknown>;

const isObject = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

/** One column per field the rows hold, in the order they first appear (a query selects what it shows). */
function columnsOf(rows: Row[]): Column<Row>[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  return [...keys].map((key) => ({ header: key, value: (r: Row) => r[key], style: statusStyle }));
}

/**
 * How a GraphQL answer reads as a table: a single report field's `results` (or list) as rows, a single object
 * (a mutation's payload) as FIELD/VALUE; `-o json|yaml` print the whole answer.
 */
function answerView(answer: GraphqlAnswer): View<unknown> {
  const data = answer.data ?? {};
  const fields = Object.entries(data);
  const only = fields.length === 1 ? fields[0]![1] : undefined;
  const list = Array.isArray(only) ? only : isObject(only) && Array.isArray(only.results) ? only.results : undefined;
  if (list) {
    const rows = list.map((r) => (isObject(r) ? r : { value: r }));
    return { data: answer, rows, columns: columnsOf(rows) as Column<unknown>[] };
  }
  const entries = isObject(only) ? Object.entries(only) : fields;
  return fieldsView(answer, entries) as View<unknown>;
}

function nextTokenOf(answer: GraphqlAnswer): string | undefined {
  const fields = Object.values(answer.data ?? {});
  const only = fields.length === 1 && isObject(fields[0]) ? fields[0] : undefined;
  const pageInfo = only?.pageInfo;
  return isObject(pageInfo) && typeof pageInfo.nextToken === 'string' ? pageInfo.nextToken : undefined;
}

function parseVariables(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`error: --variables is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(value)) throw new CliError('error: --variables must be a JSON object ({"name": value, ...})');
  return value;
}

interface Execution {
  uuid: string;
  queryUuid: string;
  status: 'queued' | 'running' | 'complete' | 'failed';
  createdAt: string;
  finishedAt: string | null;
  resultCount: number;
  error: string | null;
  resultPath: string;
}

const EXECUTION_FIELDS = 'uuid queryUuid status createdAt finishedAt resultCount error resultPath';

const executionFields = (e: Execution): [string, unknown][] => [
  ['execution', e.uuid],
  ['query', e.queryUuid],
  ['status', e.status],
  ['created at', e.createdAt],
  ['finished at', e.finishedAt],
  ['results', e.resultCount],
  ['error', e.error],
  ['result path', e.resultPath],
];

/** Scheduled queries are listed in pages of this many; at most this many pages are read. */
const PAGE = 1000;
const MAX_PAGES = 100;

/** Polls the execution (among the query's newest) until it is complete or failed; exit 3 past the timeout. */
async function waitForExecution(session: Session, api: Api, first: Execution, timeoutSeconds: number): Promise<Execution> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const progress = session.progress();
  let execution = first;
  const describe = (e: Execution) => `scheduled query run ${e.uuid}: ${e.status}`;
  while (execution.status === 'queued' || execution.status === 'running') {
    progress.update(describe(execution));
    if (Date.now() >= deadline) {
      progress.done(`timed out after ${timeoutSeconds}s: ${describe(execution)}`);
      throw new CliError(`error: the run ${execution.uuid} did not finish within ${timeoutSeconds}s`, EXIT.timeout);
    }
    await session.sleep(Math.min(session.pollIntervalMs, Math.max(0, deadline - Date.now())));
    const answer = await api.graphql(`query ($uuid: ID!) { scheduledQuery(uuid: $uuid) { executions(limit: 100) { ${EXECUTION_FIELDS} } } }`, { uuid: execution.queryUuid });
    const query = answer.data?.scheduledQuery as { executions: Execution[] } | null;
    const found = query?.executions.find((e) => e.uuid === execution.uuid);
    if (!found) throw new CliError(`error: the run ${execution.uuid} is no longer listed (was its scheduled query deleted?)`);
    execution = found;
  }
  progress.done(describe(execution));
  return execution;
}

export function registerReport(program: Command, session: Session): void {
  const report = program.command('report').description('reports: GraphQL queries over every image, and scheduled queries');

  report
    .command('query')
    .description('run a GraphQL query (or mutation) on /v2/reports/graphql; the schema is specs/reports.graphql')
    .argument('[file]', 'a file holding the query ("-" for stdin)')
    .option('--query <document>', 'the query itself, instead of a file')
    .option('--variables <json>', 'the query\'s variables, a JSON object', parseVariables)
    .action(async (file: string | undefined, opts: { query?: string; variables?: Record<string, unknown> }, cmd: Command) => {
      if ((file === undefined) === (opts.query === undefined)) throw new CliError('error: give the query either as a FILE or with --query, not both');
      const query = opts.query ?? readFileSync(file === '-' ? 0 : file!, 'utf8');
      const api = await session.api(cmd);
      const answer = await api.graphql(query, opts.variables);
      session.print(cmd, answerView(answer));
      const next = nextTokenOf(answer);
      if (next) session.note(`more results: run the query again with nextToken: "${next}"`);
    });

  const scheduled = report.command('scheduled').description('scheduled queries (create them with a createScheduledQuery mutation: vigil report query)');

  scheduled
    .command('list')
    .description('list the account\'s scheduled queries')
    .action(async (_opts: unknown, cmd: Command) => {
      const api = await session.api(cmd);
      const queries: Row[] = [];
      let nextToken: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await api.graphql(
          `query ($limit: Int, $nextToken: String) { scheduledQueries(limit: $limit, nextToken: $nextToken) { pageInfo { nextToken } results { uuid name cronSchedule enabled nextRunAt updatedAt } } }`,
          { limit: PAGE, nextToken },
        );
        const found = answer.data?.scheduledQueries as { pageInfo: { nextToken: string | null }; results: Row[] };
        queries.push(...found.results);
        nextToken = found.pageInfo.nextToken;
        if (!nextToken) break;
      }
      const columns: Column<Row>[] = [
        { header: 'uuid', value: (q) => q.uuid },
        { header: 'name', value: (q) => q.name },
        { header: 'schedule', value: (q) => q.cronSchedule },
        { header: 'enabled', value: (q) => q.enabled },
        { header: 'next run', value: (q) => q.nextRunAt },
      ];
      session.print(cmd, { data: queries, rows: queries, columns });
    });

  scheduled
    .command('run')
    .description('run a scheduled query now; --wait until its result is stored')
    .argument('<uuid>', 'the scheduled query')
    .option('--wait', 'wait until the run is complete (exit 2 when it failed)')
    .option('--timeout <seconds>', 'with --wait, give up after this long (exit code 3)', nonNegativeInteger, 600)
    .action(async (uuid: string, opts: { wait?: boolean; timeout: number }, cmd: Command) => {
      const api = await session.api(cmd);
      const answer = await api.graphql(`mutation ($uuid: ID!) { executeScheduledQueryAsync(uuid: $uuid) { ${EXECUTION_FIELDS} } }`, { uuid });
      const queued = answer.data?.executeScheduledQueryAsync as Execution;
      const execution = opts.wait ? await waitForExecution(session, api, queued, opts.timeout) : queued;
      session.print(cmd, fieldsView(execution, executionFields(execution)));
      if (execution.status === 'failed') {
        session.note(`error: the run failed: ${execution.error ?? 'no reason given'}`);
        session.fail(EXIT.error);
      }
    });

  scheduled
    .command('results')
    .description('one page of the stored result of a completed run')
    .argument('<execution>', 'the run (execution uuid, as `run` printed)')
    .option('--page <n>', 'the page, from 1 (pages hold up to 1000 results)', nonNegativeInteger, 1)
    .action(async (execution: string, opts: { page: number }, cmd: Command) => {
      if (opts.page < 1) throw new CliError('error: --page counts from 1');
      const { client, call } = await session.api(cmd);
      const answer = await call(client.GET('/reporting/scheduled-query-results/{result_uuid}', { params: { path: { result_uuid: execution }, query: { page: opts.page } } }));
      const paging = new Set(['execution', 'page', 'next_page', 'returned_count', 'total_count']);
      const kind = Object.keys(answer).find((k) => !paging.has(k));
      const results = ((kind ? (answer as Record<string, unknown>)[kind] : undefined) as { results?: Row[] } | undefined)?.results ?? [];
      session.print(cmd, { data: answer, rows: results, columns: columnsOf(results) });
      session.note(`${kind ?? 'result'}: page ${answer.page}, ${answer.returned_count} of ${answer.total_count}${answer.next_page ? `; next: --page ${answer.page + 1}` : ''}`);
    });
}
