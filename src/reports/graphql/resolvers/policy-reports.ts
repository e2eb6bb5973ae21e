/** Resolvers of policyEvaluationsByTag and the reporting status. */
import type { Resolvers } from '../../../../generated/graphql-types.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageSize } from '../../paging.js';
import { policyEvaluationsByTag, type PolicyEvaluationCriteria } from '../../queries/policy-evaluations.js';
import { refreshStatus } from '../../refresh.js';
import type { ReportContext } from '../context.js';

export const policyReportResolvers: Resolvers<ReportContext> = {
  Query: {
    async policyEvaluationsByTag(_parent, args, ctx) {
      const page = await policyEvaluationsByTag(ctx.services.db, ctx.services.reports.tokens, {
        scope: ctx.scope,
        criteria: (args.filter ?? {}) as PolicyEvaluationCriteria,
        limit: pageSize(args.limit),
        nextToken: args.nextToken,
      });
      return page as never;
    },
    async reportingStatus(_parent, _args, ctx) {
      const status = await refreshStatus(ctx.services.db);
      return {
        ...status,
        refreshIntervalSeconds: ctx.services.config.reports.refreshIntervalSeconds,
        defaultPageSize: DEFAULT_PAGE_SIZE,
        maxPageSize: MAX_PAGE_SIZE,
      };
    },
  },
};
