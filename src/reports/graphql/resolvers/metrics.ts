import type { Resolvers } from '../../../../generated/graphql-types.js';
import type { ReportContext } from '../context.js';

export const metricResolvers: Resolvers<ReportContext> = {};
