/**
 * The executable reporting schema: the SDL of record (specs/reports.graphql) with the resolvers of each part.
 * Resolver maps are merged per type, so each file owns a set of fields.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import type { Resolvers } from '../../../generated/graphql-types.js';
import { projectRoot } from '../../util/project.js';
import type { ReportContext } from './context.js';
import { metricResolvers } from './resolvers/metrics.js';
import { policyReportResolvers } from './resolvers/policy-reports.js';
import { scheduledQueryResolvers } from './resolvers/scheduled-queries.js';
import { vulnerabilityReportResolvers } from './resolvers/vulnerability-reports.js';
import { JSONScalar, UtcTimestamp } from './scalars.js';

export function reportsSdl(): string {
  return readFileSync(join(projectRoot, 'specs', 'reports.graphql'), 'utf8');
}

export function createReportSchema(): GraphQLSchema {
  const parts: Resolvers<ReportContext>[] = [
    { UtcTimestamp, JSON: JSONScalar },
    vulnerabilityReportResolvers,
    policyReportResolvers,
    metricResolvers,
    scheduledQueryResolvers,
  ];
  return makeExecutableSchema({ typeDefs: reportsSdl(), resolvers: parts as never[], resolverValidationOptions: { requireResolversToMatchSchema: 'error' } });
}
