/** Resolvers of the metrics catalog and the collected metric data. */
import type { Resolvers } from '../../../../generated/graphql-types.js';
import { metricDataPage, metricsPage } from '../../metrics/queries.js';
import { pageSize } from '../../paging.js';
import type { ReportContext } from '../context.js';

export const metricResolvers: Resolvers<ReportContext> = {
  Query: {
    metrics(_parent, args, ctx) {
      return metricsPage(ctx.services.reports.tokens, { scope: ctx.scope, limit: pageSize(args.limit), nextToken: args.nextToken });
    },
    metricData(_parent, args, ctx) {
      return metricDataPage(ctx.services.db, ctx.services.reports.tokens, {
        scope: ctx.scope,
        criteria: args.filter ?? {},
        limit: pageSize(args.limit),
        nextToken: args.nextToken,
      });
    },
  },
};
