/**
 * CVSS v4.0 scoring data besides the lookup table, copied from the specification's reference calculator
 * (max_composed.js, max_severity.js, and the metric levels in cvss_score.js):
 * - the highest-severity vectors of each EQ level, which a scored vector is measured against;
 * - each EQ level's depth, the number of severity steps from its highest to its lowest vector (+1);
 * - each metric value's severity level.
 */
import type { V4ScoringMetric } from './v4-metrics.js';

type PartialVector = Readonly<Partial<Record<V4ScoringMetric, string>>>;

/** Highest-severity vectors per EQ1 level; tried in this order (the first that dominates the vector wins). */
export const EQ1_MAX: Readonly<Record<number, readonly PartialVector[]>> = {
  0: [{ AV: 'N', PR: 'N', UI: 'N' }],
  1: [{ AV: 'A', PR: 'N', UI: 'N' }, { AV: 'N', PR: 'L', UI: 'N' }, { AV: 'N', PR: 'N', UI: 'P' }],
  2: [{ AV: 'P', PR: 'N', UI: 'N' }, { AV: 'A', PR: 'L', UI: 'P' }],
};

export const EQ2_MAX: Readonly<Record<number, readonly PartialVector[]>> = {
  0: [{ AC: 'L', AT: 'N' }],
  1: [{ AC: 'H', AT: 'N' }, { AC: 'L', AT: 'P' }],
};

/** EQ3 and EQ6 are scored jointly (both concern the vulnerable system's C/I/A), keyed "<eq3><eq6>". */
export const EQ3_EQ6_MAX: Readonly<Record<string, readonly PartialVector[]>> = {
  '00': [{ VC: 'H', VI: 'H', VA: 'H', CR: 'H', IR: 'H', AR: 'H' }],
  '01': [
    { VC: 'H', VI: 'H', VA: 'L', CR: 'M', IR: 'M', AR: 'H' },
    { VC: 'H', VI: 'H', VA: 'H', CR: 'M', IR: 'M', AR: 'M' },
  ],
  '10': [
    { VC: 'L', VI: 'H', VA: 'H', CR: 'H', IR: 'H', AR: 'H' },
    { VC: 'H', VI: 'L', VA: 'H', CR: 'H', IR: 'H', AR: 'H' },
  ],
  '11': [
    { VC: 'L', VI: 'H', VA: 'L', CR: 'H', IR: 'M', AR: 'H' },
    { VC: 'L', VI: 'H', VA: 'H', CR: 'H', IR: 'M', AR: 'M' },
    { VC: 'H', VI: 'L', VA: 'H', CR: 'M', IR: 'H', AR: 'M' },
    { VC: 'H', VI: 'L', VA: 'L', CR: 'M', IR: 'H', AR: 'H' },
    { VC: 'L', VI: 'L', VA: 'H', CR: 'H', IR: 'H', AR: 'M' },
  ],
  '21': [{ VC: 'L', VI: 'L', VA: 'L', CR: 'H', IR: 'H', AR: 'H' }],
};

export const EQ4_MAX: Readonly<Record<number, readonly PartialVector[]>> = {
  0: [{ SC: 'H', SI: 'S', SA: 'S' }],
  1: [{ SC: 'H', SI: 'H', SA: 'H' }],
  2: [{ SC: 'L', SI: 'L', SA: 'L' }],
};

export const EQ5_MAX: Readonly<Record<number, readonly PartialVector[]>> = {
  0: [{ E: 'A' }],
  1: [{ E: 'P' }],
  2: [{ E: 'U' }],
};

/** Depth of each EQ level in severity steps (the reference's MAX_SEVERITY); EQ5 has no depth (always 0 distance). */
export const EQ1_DEPTH: Readonly<Record<number, number>> = { 0: 1, 1: 4, 2: 5 };
export const EQ2_DEPTH: Readonly<Record<number, number>> = { 0: 1, 1: 2 };
export const EQ3_EQ6_DEPTH: Readonly<Record<string, number>> = { '00': 7, '01': 6, '10': 8, '11': 8, '21': 10 };
export const EQ4_DEPTH: Readonly<Record<number, number>> = { 0: 6, 1: 5, 2: 4 };

/**
 * Severity level of each value in steps from the most severe value (the reference calculator writes
 * them as tenths: 0.0, 0.1, ...). Whole steps keep the interpolation in exact integer arithmetic.
 */
export const METRIC_LEVELS: Readonly<Record<Exclude<V4ScoringMetric, 'E'>, Readonly<Record<string, number>>>> = {
  AV: { N: 0, A: 1, L: 2, P: 3 },
  PR: { N: 0, L: 1, H: 2 },
  UI: { N: 0, P: 1, A: 2 },
  AC: { L: 0, H: 1 },
  AT: { N: 0, P: 1 },
  VC: { H: 0, L: 1, N: 2 },
  VI: { H: 0, L: 1, N: 2 },
  VA: { H: 0, L: 1, N: 2 },
  // Subsequent-system confidentiality has no Safety value, so its High starts one step down.
  SC: { H: 1, L: 2, N: 3 },
  SI: { S: 0, H: 1, L: 2, N: 3 },
  SA: { S: 0, H: 1, L: 2, N: 3 },
  CR: { H: 0, M: 1, L: 2 },
  IR: { H: 0, M: 1, L: 2 },
  AR: { H: 0, M: 1, L: 2 },
};
