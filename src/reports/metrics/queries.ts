/**
 * The `metrics` and `metricData` queries. The catalog is static and pages by id. Data points page newest
 * first, keyset on (collected_at desc, metric_id asc); on the global scope a point is the sum over accounts
 * of one metric at one collection time.
 */
import type { Db } from '../../db/index.js';
import { ReportInputError } from '../errors.js';
import type { Page, PageTokens } from '../paging.js';
import { inScope, scopeKey, type ReportScope } from '../scope.js';
import { isMetricId, metricIdsInBrief, METRICS, type MetricDefinition } from './definitions.js';

export interface PageRequest {
  scope: ReportScope;
  limit: number;
  nextToken?: string | null;
}

export interface MetricDataCriteria {
  metricId?: string | null;
  /** ISO timestamps (the GraphQL scalar has already checked and converted them). */
  start?: string | null;
  end?: string | null;
}

export interface MetricDataPoint {
  metricId: string;
  collectedAt: string;
  value: number;
}

export function metricsPage(tokens: PageTokens, req: PageRequest): Page<MetricDefinition> {
  const query = { kind: 'metrics', scope: scopeKey(req.scope) };
  const after = tokens.decode(query, req.nextToken);
  const rows = METRICS.filter((m) => !after || m.id > String(after[0])).slice(0, req.limit + 1);
  return tokens.page(query, rows, req.limit, (m) => [m.id], (shown) => shown.map(({ id, name, description, metricType }) => ({ id, name, description, metricType })));
}

function checkCriteria(c: MetricDataCriteria): void {
  if (c.metricId !== undefined && c.metricId !== null && !isMetricId(c.metricId))
    throw new ReportInputError(`unknown metric id "${c.metricId}"; the metrics are ${metricIdsInBrief()}`, 'filter.metricId');
  if (c.start && c.end && c.start > c.end)
    throw new ReportInputError(`filter.start (${c.start.slice(0, 19)}) is after filter.end (${c.end.slice(0, 19)})`, 'filter.start');
}

export async function metricDataPage(db: Db, tokens: PageTokens, req: PageRequest & { criteria: MetricDataCriteria }): Promise<Page<MetricDataPoint>> {
  const c = req.criteria;
  checkCriteria(c);
  const criteria = { metricId: c.metricId ?? null, start: c.start ?? null, end: c.end ?? null };
  const query = { kind: 'metricData', criteria, scope: scopeKey(req.scope) };
  const after = tokens.decode(query, req.nextToken);

  const q = inScope(db('report_metric_data as d'), req.scope, 'd.account_name')
    .orderBy([{ column: 'd.collected_at', order: 'desc' }, { column: 'd.metric_id', order: 'asc' }])
    .limit(req.limit + 1);
  if (criteria.metricId) q.where('d.metric_id', criteria.metricId);
  if (criteria.start) q.where('d.collected_at', '>=', criteria.start);
  if (criteria.end) q.where('d.collected_at', '<', criteria.end);
  if (after) {
    const [collectedAt, metricId] = after.map(String);
    q.where((w) => w.where('d.collected_at', '<', collectedAt).orWhere((same) => same.where('d.collected_at', collectedAt).andWhere('d.metric_id', '>', metricId)));
  }
  // One account holds one row per (metric, time); across accounts the rows of a (metric, time) are summed.
  if (req.scope.kind === 'global') q.groupBy('d.metric_id', 'd.collected_at').select('d.metric_id', 'd.collected_at', db.raw('SUM(d.value) as value'));
  else q.select('d.metric_id', 'd.collected_at', 'd.value');

  const rows: { metric_id: string; collected_at: string; value: unknown }[] = await q;
  return tokens.page(
    query,
    rows,
    req.limit,
    (r) => [r.collected_at, r.metric_id],
    (shown) => shown.map((r) => ({ metricId: r.metric_id, collectedAt: r.collected_at, value: Number(r.value) })),
  );
}
