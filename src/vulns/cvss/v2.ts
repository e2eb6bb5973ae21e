/**
 * CVSS v2 base score, per "A Complete Guide to the Common Vulnerability Scoring System Version 2.0"
 * section 3.2.1. Temporal and environmental metrics are accepted (feeds include them) but do not change
 * the base score.
 */
import { parseMetrics, type MetricDefinitions } from './metric-parser.js';
import { roundToOneDecimal } from './rounding.js';
import type { CvssScore } from './score.js';
import { v2Severity } from './severity.js';

const BASE_METRICS = ['AV', 'AC', 'Au', 'C', 'I', 'A'] as const;

const DEFINITIONS: MetricDefinitions = {
  AV: ['L', 'A', 'N'],
  AC: ['H', 'M', 'L'],
  Au: ['M', 'S', 'N'],
  C: ['N', 'P', 'C'],
  I: ['N', 'P', 'C'],
  A: ['N', 'P', 'C'],
  E: ['U', 'POC', 'F', 'H', 'ND'],
  RL: ['OF', 'TF', 'W', 'U', 'ND'],
  RC: ['UC', 'UR', 'C', 'ND'],
  CDP: ['N', 'L', 'LM', 'MH', 'H', 'ND'],
  TD: ['N', 'L', 'M', 'H', 'ND'],
  CR: ['L', 'M', 'H', 'ND'],
  IR: ['L', 'M', 'H', 'ND'],
  AR: ['L', 'M', 'H', 'ND'],
};

const ACCESS_VECTOR: Record<string, number> = { L: 0.395, A: 0.646, N: 1.0 };
const ACCESS_COMPLEXITY: Record<string, number> = { H: 0.35, M: 0.61, L: 0.71 };
const AUTHENTICATION: Record<string, number> = { M: 0.45, S: 0.56, N: 0.704 };
const CIA_IMPACT: Record<string, number> = { N: 0.0, P: 0.275, C: 0.66 };

/** Scores a bare v2 vector ("AV:N/AC:L/Au:N/C:P/I:P/A:P"); throws CvssError when it is malformed. */
export function scoreV2(vector: string): CvssScore {
  const m = parseMetrics(vector, vector, DEFINITIONS, BASE_METRICS);
  const value = (metric: string, weights: Record<string, number>): number => weights[m.get(metric)!]!;

  const impact =
    10.41 *
    (1 - (1 - value('C', CIA_IMPACT)) * (1 - value('I', CIA_IMPACT)) * (1 - value('A', CIA_IMPACT)));
  const exploitability =
    20 * value('AV', ACCESS_VECTOR) * value('AC', ACCESS_COMPLEXITY) * value('Au', AUTHENTICATION);
  // f(Impact) zeroes the score when there is no impact at all.
  const fImpact = impact === 0 ? 0 : 1.176;
  const baseScore = roundToOneDecimal((0.6 * impact + 0.4 * exploitability - 1.5) * fImpact);

  return {
    version: '2.0',
    baseScore,
    exploitabilityScore: roundToOneDecimal(exploitability),
    impactScore: roundToOneDecimal(impact),
    severity: v2Severity(baseScore),
    vector,
  };
}
