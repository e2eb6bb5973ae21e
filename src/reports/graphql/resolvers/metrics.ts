/** Resolvers of the metrics catalog and the collected metric data. */
import type { Resolvers } from '../../../../generated/graphql-types.js';
import { ForbiddenError } from '../../../errors.js';
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
  Mutation: {
    async collectMetricData(_parent, _args, ctx) {
      if (!ctx.principal.isAdmin) throw new ForbiddenError('collecting metric data is for administrators: a collection samples every account');
      // The read model first, so the samples count what was analyzed until now, not until the last refresh.
      await ctx.services.reports.refresher.refreshNow();
      const outcome = await ctx.services.reports.metrics.collectOnDemand();
      ctx.log.info({ slot: outcome.slot, collected: outcome.collected, points: outcome.points, by: ctx.principal.username }, 'metric data collected on demand');
      return { ok: true, collectedAt: outcome.slot, collected: outcome.collected, accounts: outcome.accounts, points: outcome.points };
    },
  },
};
