/**
 * The reporting metrics the dashboard reads (GraphQL `metricData`): the latest sample of each current-tag
 * severity count, and their samples over a period for the trend chart.
 */
import type { Api, Gql } from '../../api/client';

export const SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unknown'] as const satisfies readonly Gql.Severity[];
export type SeverityName = (typeof SEVERITIES)[number];

const metricId = (severity: SeverityName) => `vulnerabilities.tags.current.${severity.toLowerCase()}`;

type Point = Pick<Gql.MetricDataPoint, 'collectedAt' | 'value'>;
type Series = Record<SeverityName, { results: Point[] }>;

/** One aliased metricData field per severity, in one request. */
function seriesQuery(limit: number, withStart: boolean): string {
  const fields = SEVERITIES.map(
    (s) => `${s}: metricData(limit: ${limit}, filter: { metricId: "${metricId(s)}"${withStart ? ', start: $start' : ''} }) { results { collectedAt value } }`,
  );
  return `query DashboardSeverities${withStart ? '($start: UtcTimestamp)' : ''} { ${fields.join(' ')} }`;
}

export interface LatestSeverities {
  /** When the newest sample was collected; null before the first collection. */
  collectedAt: string | null;
  counts: Record<SeverityName, number | null>;
}

export async function latestSeverities(api: Api): Promise<LatestSeverities> {
  const series = await api.graphql<Series>(seriesQuery(1, false));
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, series[s].results[0]?.value ?? null])) as Record<SeverityName, number | null>;
  const times = SEVERITIES.map((s) => series[s].results[0]?.collectedAt).filter((t): t is string => !!t);
  return { collectedAt: times.sort().at(-1) ?? null, counts };
}

/** One row per collection time, oldest first, with each severity's count (for the trend chart). */
export type TrendRow = { collectedAt: string } & Partial<Record<SeverityName, number>>;

/** A UTC timestamp in the schema's form (no zone suffix). */
export function utcTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19);
}

export async function severityTrend(api: Api, days: number): Promise<TrendRow[]> {
  const start = utcTimestamp(new Date(Date.now() - days * 86_400_000));
  // 1000 is the schema's page maximum: every 15 minutes (the default schedule) for ten days.
  const series = await api.graphql<Series>(seriesQuery(1000, true), { start });
  const rows = new Map<string, TrendRow>();
  for (const severity of SEVERITIES) {
    for (const point of series[severity].results) {
      const row = rows.get(point.collectedAt) ?? { collectedAt: point.collectedAt };
      row[severity] = point.value;
      rows.set(point.collectedAt, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.collectedAt.localeCompare(b.collectedAt));
}
