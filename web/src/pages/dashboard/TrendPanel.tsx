/** Vulnerabilities of current tags by severity over time, from the reporting metrics, as a line chart. */
import { SegmentedControl, Table, VisuallyHidden } from '@mantine/core';
import { useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useApiCall } from '../../api/use-api-call';
import { SEVERITIES, severityTrend, type TrendRow } from './metrics';
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

function TrendChart({ rows }: { rows: TrendRow[] }) {
  const shown = SEVERITIES.filter((s) => rows.some((r) => (r[s] ?? 0) > 0));
  return (
    <>
      <div role="img" aria-label={`Line chart of vulnerabilities by severity over ${rows.length} collections; the same figures are in the table that follows.`} style={{ width: '100%', height: 260 }}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="collectedAt" tickFormatter={(t: string) => t.slice(5, 16).replace('T', ' ')} minTickGap={24} />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            {(shown.length ? shown : SEVERITIES.slice(0, 2)).map((s) => (
              <Line key={s} type="monotone" dataKey={s} stroke={LINE_COLORS[s]} strokeWidth={2} dot={rows.length < 30} isAnimationActive={false} />
            ))}
          </LineChart>
        </ResponsiveContainer>
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
          {rows.length === 0 ? 'No metrics collected in this period.' : <TrendChart rows={rows} />}
        </>
      )}
    </Panel>
  );
}
