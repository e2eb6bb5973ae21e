/**
 * CVSS v4.0: parses a vector and computes its base score (CVSS-B). Threat, environmental and
 * supplemental metrics are validated but left out of the score: the base score is what every feed can
 * compare, and a CVSS-BT/BE/BTE score is a different number the caller would have to ask for.
 */
import { parseMetrics, type MetricDefinitions } from './metric-parser.js';
import type { CvssScore } from './score.js';
import { qualitativeSeverity } from './severity.js';
import type { V4EffectiveMetrics } from './v4-metrics.js';
import { scoreV4Metrics } from './v4-score.js';

const BASE_METRICS = ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'] as const;

const IMPACT = ['H', 'L', 'N'];
const DEFINITIONS: MetricDefinitions = {
  // Base
  AV: ['N', 'A', 'L', 'P'],
  AC: ['L', 'H'],
  AT: ['N', 'P'],
  PR: ['N', 'L', 'H'],
  UI: ['N', 'P', 'A'],
  VC: IMPACT, VI: IMPACT, VA: IMPACT, SC: IMPACT, SI: IMPACT, SA: IMPACT,
  // Threat
  E: ['X', 'A', 'P', 'U'],
  // Environmental
  CR: ['X', 'H', 'M', 'L'],
  IR: ['X', 'H', 'M', 'L'],
  AR: ['X', 'H', 'M', 'L'],
  MAV: ['X', 'N', 'A', 'L', 'P'],
  MAC: ['X', 'L', 'H'],
  MAT: ['X', 'N', 'P'],
  MPR: ['X', 'N', 'L', 'H'],
  MUI: ['X', 'N', 'P', 'A'],
  MVC: ['X', 'H', 'L', 'N'],
  MVI: ['X', 'H', 'L', 'N'],
  MVA: ['X', 'H', 'L', 'N'],
  MSC: ['X', 'H', 'L', 'N'],
  MSI: ['X', 'S', 'H', 'L', 'N'],
  MSA: ['X', 'S', 'H', 'L', 'N'],
  // Supplemental (never scored)
  S: ['X', 'N', 'P'],
  AU: ['X', 'N', 'Y'],
  R: ['X', 'A', 'U', 'I'],
  V: ['X', 'D', 'C'],
  RE: ['X', 'L', 'M', 'H'],
  U: ['X', 'Clear', 'Green', 'Amber', 'Red'],
};

/**
 * Scores the metric part of a v4.0 vector (everything after "CVSS:4.0/"); throws CvssError when it is
 * malformed. `vector` is the full string, used in error messages and returned as is.
 */
export function scoreV4(vector: string, body: string): CvssScore {
  const m = parseMetrics(vector, body, DEFINITIONS, BASE_METRICS);
  const baseScore = scoreV4Metrics(baseEffectiveMetrics(m));
  return { version: '4.0', baseScore, severity: qualitativeSeverity(baseScore), vector };
}

/** CVSS-B: base values, with Exploit Maturity and Security Requirements at their Not Defined worst case. */
function baseEffectiveMetrics(m: Map<string, string>): V4EffectiveMetrics {
  const base = (metric: (typeof BASE_METRICS)[number]): string => m.get(metric)!;
  return {
    AV: base('AV'), AC: base('AC'), AT: base('AT'), PR: base('PR'), UI: base('UI'),
    VC: base('VC'), VI: base('VI'), VA: base('VA'), SC: base('SC'), SI: base('SI'), SA: base('SA'),
    E: 'A', CR: 'H', IR: 'H', AR: 'H',
  };
}
