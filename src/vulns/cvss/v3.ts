/**
 * CVSS v3.0 and v3.1 base score (v3.1 specification section 7.1; v3.0 section 8.1). The two versions
 * share the base equations; they differ only in how the result is rounded up (see rounding.ts).
 * Temporal and environmental metrics are accepted but do not change the base score.
 */
import { parseMetrics, type MetricDefinitions } from './metric-parser.js';
import { roundToOneDecimal, roundUpV30, roundUpV31 } from './rounding.js';
import type { CvssScore } from './score.js';
import { qualitativeSeverity } from './severity.js';

const BASE_METRICS = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'] as const;

const DEFINITIONS: MetricDefinitions = {
  AV: ['N', 'A', 'L', 'P'],
  AC: ['L', 'H'],
  PR: ['N', 'L', 'H'],
  UI: ['N', 'R'],
  S: ['U', 'C'],
  C: ['H', 'L', 'N'],
  I: ['H', 'L', 'N'],
  A: ['H', 'L', 'N'],
  E: ['X', 'U', 'P', 'F', 'H'],
  RL: ['X', 'O', 'T', 'W', 'U'],
  RC: ['X', 'U', 'R', 'C'],
  CR: ['X', 'L', 'M', 'H'],
  IR: ['X', 'L', 'M', 'H'],
  AR: ['X', 'L', 'M', 'H'],
  MAV: ['X', 'N', 'A', 'L', 'P'],
  MAC: ['X', 'L', 'H'],
  MPR: ['X', 'N', 'L', 'H'],
  MUI: ['X', 'N', 'R'],
  MS: ['X', 'U', 'C'],
  MC: ['X', 'N', 'L', 'H'],
  MI: ['X', 'N', 'L', 'H'],
  MA: ['X', 'N', 'L', 'H'],
};

const ATTACK_VECTOR: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
const ATTACK_COMPLEXITY: Record<string, number> = { L: 0.77, H: 0.44 };
// Privileges weigh more when the scope changes: the attacker's privileges then reach beyond the component.
const PRIVILEGES_SCOPE_UNCHANGED: Record<string, number> = { N: 0.85, L: 0.62, H: 0.27 };
const PRIVILEGES_SCOPE_CHANGED: Record<string, number> = { N: 0.85, L: 0.68, H: 0.5 };
const USER_INTERACTION: Record<string, number> = { N: 0.85, R: 0.62 };
const CIA_IMPACT: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };

/**
 * Scores the metric part of a v3 vector (everything after "CVSS:3.x/"); throws CvssError when it is
 * malformed. `vector` is the full string, used in error messages and returned as is.
 */
export function scoreV3(version: '3.0' | '3.1', vector: string, body: string): CvssScore {
  const m = parseMetrics(vector, body, DEFINITIONS, BASE_METRICS);
  const value = (metric: string, weights: Record<string, number>): number => weights[m.get(metric)!]!;
  const scopeChanged = m.get('S') === 'C';

  const iss = 1 - (1 - value('C', CIA_IMPACT)) * (1 - value('I', CIA_IMPACT)) * (1 - value('A', CIA_IMPACT));
  const impact = scopeChanged ? 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15) : 6.42 * iss;
  const exploitability =
    8.22 *
    value('AV', ATTACK_VECTOR) *
    value('AC', ATTACK_COMPLEXITY) *
    value('PR', scopeChanged ? PRIVILEGES_SCOPE_CHANGED : PRIVILEGES_SCOPE_UNCHANGED) *
    value('UI', USER_INTERACTION);

  const roundUp = version === '3.1' ? roundUpV31 : roundUpV30;
  let baseScore = 0;
  if (impact > 0) {
    const sum = scopeChanged ? 1.08 * (impact + exploitability) : impact + exploitability;
    baseScore = roundUp(Math.min(sum, 10));
  }

  return {
    version,
    baseScore,
    exploitabilityScore: roundToOneDecimal(exploitability),
    // The scope-changed equation dips below zero when C, I and A are all None; the spec treats that as 0.
    impactScore: roundToOneDecimal(Math.max(impact, 0)),
    severity: qualitativeSeverity(baseScore),
    vector,
  };
}
