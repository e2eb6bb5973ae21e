/** A bar chart of the image's vulnerabilities by severity (recharts), with the counts also given as text. */
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { SEVERITIES, type Vulnerability } from './types';
import { SEVERITY_COLORS } from './vulnerability-facts';

export function SeverityChart({ vulnerabilities }: { vulnerabilities: Vulnerability[] }) {
  const counts = SEVERITIES.map((severity) => ({ severity, count: vulnerabilities.filter((v) => v.severity === severity).length }));
  const summary = counts.map((c) => `${c.severity}: ${c.count}`).join(', ');
  return (
    <figure style={{ margin: 0 }} aria-label={`Vulnerabilities by severity. ${summary}`}>
      <div style={{ width: '100%', height: 180 }} aria-hidden="true">
        <ResponsiveContainer>
          <BarChart data={counts} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="severity" />
            <YAxis allowDecimals={false} width={40} />
            <Tooltip />
            <Bar dataKey="count" name="Vulnerabilities" isAnimationActive={false}>
              {counts.map((c) => (
                <Cell key={c.severity} fill={SEVERITY_COLORS[c.severity]} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        <small>{summary}</small>
      </figcaption>
    </figure>
  );
}
