/**
 * Resolvers of scheduled queries: listing and reading them (viewReports, which the endpoint checked), and the
 * mutations that create, change, delete and run them (manageScheduledQueries). Queries belong to the endpoint's
 * scope — the account's own, or the global ones on the global endpoint — and a query of another scope is
 * treated exactly like one that does not exist.
 */
import type { Resolvers, ScheduledQueryExecution } from '../../../../generated/graphql-types.js';
import { MANAGE_SCHEDULED_QUERIES } from '../../actions.js';
import { ReportInputError } from '../../errors.js';
import { pageSize } from '../../paging.js';
import { EXECUTIONS_KEPT_PER_QUERY, listExecutions, type ExecutionRecord } from '../../scheduled/executions.js';
import { resultPath } from '../../scheduled/result-view.js';
import {
  createScheduledQuery,
  deleteScheduledQuery,
  findScheduledQuery,
  getScheduledQuery,
  listScheduledQueries,
  updateScheduledQuery,
  type ScheduledQueryInput,
} from '../../scheduled/store.js';
import { checkScheduledQueryArguments } from '../../scheduled/validation.js';
import type { ReportContext } from '../context.js';

const DEFAULT_EXECUTIONS = 20;

function executionShape(e: ExecutionRecord): ScheduledQueryExecution {
  return {
    uuid: e.uuid,
    queryUuid: e.queryUuid,
    createdAt: e.createdAt,
    startedAt: e.startedAt,
    finishedAt: e.finishedAt,
    status: e.status,
    trigger: e.trigger,
    reportKind: e.reportKind,
    resultCount: e.resultCount,
    error: e.error,
    resultPath: resultPath(e),
  };
}

function executionsLimit(limit: number | null | undefined): number {
  if (limit === undefined || limit === null) return DEFAULT_EXECUTIONS;
  if (!Number.isInteger(limit) || limit < 1 || limit > EXECUTIONS_KEPT_PER_QUERY)
    throw new ReportInputError(`executions(limit) must be between 1 and ${EXECUTIONS_KEPT_PER_QUERY} (the executions kept per query); got ${limit}`, 'limit');
  return limit;
}

/** Applies checked changes and tells the scheduler, whose next wake-up may have moved. */
async function change(ctx: ReportContext, uuid: string, changes: Partial<ScheduledQueryInput>) {
  const updated = await updateScheduledQuery(ctx.services.db, ctx.scope, uuid, changes);
  ctx.services.reports.scheduler.wake();
  return { ok: true, scheduledQuery: updated };
}

export const scheduledQueryResolvers: Resolvers<ReportContext> = {
  Query: {
    scheduledQueries(_parent, args, ctx) {
      return listScheduledQueries(ctx.services.db, ctx.services.reports.tokens, ctx.scope, { limit: pageSize(args.limit), nextToken: args.nextToken });
    },
    async scheduledQuery(_parent, args, ctx) {
      return (await findScheduledQuery(ctx.services.db, ctx.scope, args.uuid)) ?? null;
    },
  },
  Mutation: {
    async createScheduledQuery(_parent, args, ctx, info) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      // Every attribute is given (or defaulted) on create, so the checked set is a complete input.
      const checked = checkScheduledQueryArguments(info.schema, { ...args, variables: args.variables ?? {}, description: args.description ?? null });
      const created = await createScheduledQuery(
        ctx.services.db,
        ctx.scope,
        { accountName: ctx.accountName, createdBy: ctx.principal.username },
        { enabled: true, ...checked } as ScheduledQueryInput,
      );
      ctx.services.reports.scheduler.wake();
      return { ok: true, scheduledQuery: created };
    },
    async updateScheduledQuery(_parent, { uuid, ...args }, ctx, info) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      const current = await getScheduledQuery(ctx.services.db, ctx.scope, uuid);
      return change(ctx, uuid, checkScheduledQueryArguments(info.schema, args, current));
    },
    async enableScheduledQuery(_parent, { uuid }, ctx) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      return change(ctx, uuid, { enabled: true });
    },
    async disableScheduledQuery(_parent, { uuid }, ctx) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      return change(ctx, uuid, { enabled: false });
    },
    async deleteScheduledQuery(_parent, { uuid }, ctx) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      await deleteScheduledQuery(ctx.services.db, ctx.scope, uuid);
      ctx.services.reports.scheduler.wake();
      return { ok: true, uuid };
    },
    async executeScheduledQuery(_parent, { uuid }, ctx) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      const query = await getScheduledQuery(ctx.services.db, ctx.scope, uuid);
      return executionShape(await ctx.services.reports.scheduler.executeNow(query));
    },
    async executeScheduledQueryAsync(_parent, { uuid }, ctx) {
      await ctx.authorize(MANAGE_SCHEDULED_QUERIES);
      const query = await getScheduledQuery(ctx.services.db, ctx.scope, uuid);
      return executionShape(await ctx.services.reports.scheduler.enqueue(query));
    },
  },
  ScheduledQuery: {
    async executions(query, args, ctx) {
      return (await listExecutions(ctx.services.db, query.uuid, executionsLimit(args.limit))).map(executionShape);
    },
  },
};
