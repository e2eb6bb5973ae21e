/**
 * Reading Prometheus' text exposition in tests: `promtool check metrics` (package prometheus) checks the format and
 * its conventions; `samples` reads the sample lines for assertions on values.
 */
import { spawnSync } from 'node:child_process';
import { requireTool } from './tools.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/y;

/** The problems promtool reports (empty when the text is valid). */
export function promtoolProblems(text: string): string[] {
  const run = spawnSync(requireTool('promtool'), ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return run.status === 0 ? [] : `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.trim() !== '');
}

/** Every sample line; throws on a line that is neither a sample, a comment nor blank. */
export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < m[2].length) {
        const l = LABEL.exec(m[2]);
        if (!l) throw new Error(`bad labels in: ${line}`);
        labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      }
    }
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name whose labels include `labels`; 0 when there is none. */
export function valueOf(list: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = list.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
