/** Vulnerabilities of current tags by severity over time, from the reporting metrics, as a line chart. */
import { SegmentedControl, Table, VisuallyHidden } from '@mantine/core';
import { useMemo, useState } from 'react';
import uPlot from 'uplot';
import { useApiCall } from '../../api/use-api-call';
import { Chart, type ChartOptions } from '../../components/Chart';
import { SEVERITIES, severityTrend, type SeverityName, type TrendRow } from './metrics';
import { Panel } from './Panel';

/** Line colours, dark enough against white (3:1 for graphics). */
const LINE_COLORS: Record<(typeof SEVERITIES)[number], string> = {
  Critical: '#c92a2a',
  High: '#d9480f',
  Medium: '#9c6d00',
  Low: '#1864ab',
  Negligible: '#495057',
  Unknown: '#862e9c',
};

const PERIODS = [
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
];

/** Times on the axis and in the legend in UTC, as the table gives them. */
const utc = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');

/** The period's whole width on the time axis (a single collection would otherwise be stretched over years). */
function trendOptions(shown: SeverityName[], withPoints: boolean, days: number): ChartOptions {
  const end = Date.now() / 1000;
  return {
    tzDate: utc,
    scales: { x: { range: () => [end - days * 86_400, end] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [{}, { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
    series: [{ label: 'Collected (UTC)' }, ...shown.map((s) => ({ label: s, stroke: LINE_COLORS[s], width: 2, points: { show: withPoints } }))],
  };
}

function TrendChart({ rows, days }: { rows: TrendRow[]; days: number }) {
  const shown = useMemo(() => {
    const withFindings = SEVERITIES.filter((s) => rows.some((r) => (r[s] ?? 0) > 0));
    return withFindings.length ? withFindings : SEVERITIES.slice(0, 2);
  }, [rows]);
  const withPoints = rows.length < 30;
  const options = useMemo(() => trendOptions(shown, withPoints, days), [shown, withPoints, days]);
  const data = useMemo<uPlot.AlignedData>(
    () => [rows.map((r) => Date.parse(`${r.collectedAt}Z`) / 1000), ...shown.map((s) => rows.map((r) => r[s] ?? null))],
    [rows, shown],
  );
  return (
    <>
      <div role="img" aria-label={`Line chart of vulnerabilities by severity over ${rows.length} collections; the same figures are in the table that follows.`}>
        <Chart options={options} data={data} height={260} />
      </div>
      {/* The chart's figures for screen readers (the newest ten collections). */}
      <VisuallyHidden>
        <Table>
          <caption>Vulnerabilities by severity, newest collections</caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Collected (UTC)</Table.Th>
              {SEVERITIES.map((s) => (
                <Table.Th key={s} scope="col">
                  {s}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.slice(-10).map((r) => (
              <Table.Tr key={r.collectedAt}>
                <Table.Td>{r.collectedAt}</Table.Td>
                {SEVERITIES.map((s) => (
                  <Table.Td key={s}>{r[s] ?? ''}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </VisuallyHidden>
    </>
  );
}

export function TrendPanel() {
  const [days, setDays] = useState('7');
  const call = useApiCall((api) => severityTrend(api, Number(days)), [days]);
  return (
    <Panel title="Trend" action="load the vulnerability trend" call={call} note="Vulnerabilities of current tags by severity, at each metrics collection.">
      {(rows) => (
        <>
          <SegmentedControl aria-label="Period" data={PERIODS} value={days} onChange={setDays} size="xs" w="fit-content" />
          {rows.length === 0 ? 'No metrics collected in this period.' : <TrendChart rows={rows} days={Number(days)} />}
        </>
      )}
    </Panel>
  );
}
