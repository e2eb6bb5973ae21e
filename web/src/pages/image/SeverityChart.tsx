/** A bar chart of the image's vulnerabilities by severity (uPlot), with the counts also given as text. */
import { useMemo } from 'react';
import uPlot from 'uplot';
import { Chart, type ChartOptions } from '../../components/Chart';
import { SEVERITIES, type Vulnerability } from './types';
import { SEVERITY_COLORS } from './vulnerability-facts';

/** uPlot's "colour" unit for a per-bar display facet (a const enum in its types, so spelled out here). */
const COLOR_UNIT = 3 as uPlot.Series.BarsPathBuilderFacetUnit;
const BAR_COLORS = SEVERITIES.map((s) => SEVERITY_COLORS[s]);

const OPTIONS: ChartOptions = {
  legend: { show: false },
  cursor: { show: false },
  scales: { x: { time: false, range: [-0.5, SEVERITIES.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
  axes: [
    { splits: () => SEVERITIES.map((_, i) => i), values: (_u, ticks) => ticks.map((i) => SEVERITIES[i] ?? ''), grid: { show: false } },
    { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
  ],
  series: [
    {},
    {
      label: 'Vulnerabilities',
      // uPlot fills a series only when it has a fill, and takes per-bar colours only for bars without an outline.
      fill: BAR_COLORS[0],
      width: 0,
      paths: uPlot.paths.bars!({ size: [0.6, 64], disp: { fill: { unit: COLOR_UNIT, values: () => BAR_COLORS } } }),
      points: { show: false },
    },
  ],
};

export function SeverityChart({ vulnerabilities }: { vulnerabilities: Vulnerability[] }) {
  const counts = useMemo(() => SEVERITIES.map((severity) => ({ severity, count: vulnerabilities.filter((v) => v.severity === severity).length })), [vulnerabilities]);
  const data = useMemo<uPlot.AlignedData>(() => [SEVERITIES.map((_, i) => i), counts.map((c) => c.count)], [counts]);
  const summary = counts.map((c) => `${c.severity}: ${c.count}`).join(', ');
  return (
    <figure style={{ margin: 0 }} aria-label={`Vulnerabilities by severity. ${summary}`}>
      <Chart options={OPTIONS} data={data} height={180} />
      <figcaption>
        <small>{summary}</small>
      </figcaption>
    </figure>
  );
}
