/**
 * CVSS v4.0 score from effective metric values (the specification's scoring algorithm, as in its
 * reference calculator). The macro vector's table score is the score of its most severe vector; a less
 * severe vector inside the same macro vector is moved down towards the next lower macro vectors in
 * proportion to how far it sits from the most severe one, and the result is rounded half up.
 *
 * The arithmetic is exact (integers in tenths of a point and in severity steps): the reference
 * calculator originally computed in binary floating point, where some exact x.x5 results came out as
 * x.x4999... and rounded down; its 2024 fix (an epsilon before rounding) restored round-half-up of the
 * exact value, which is what exact arithmetic gives by construction.
 */
import { macroVector, macroVectorKey, type MacroVector } from './v4-macro-vector.js';
import { MACRO_VECTOR_SCORES } from './v4-lookup.js';
import {
  EQ1_DEPTH, EQ1_MAX, EQ2_DEPTH, EQ2_MAX, EQ3_EQ6_DEPTH, EQ3_EQ6_MAX, EQ4_DEPTH, EQ4_MAX, EQ5_MAX, METRIC_LEVELS,
} from './v4-max-vectors.js';
import type { V4EffectiveMetrics, V4ScoringMetric } from './v4-metrics.js';

const IMPACT_METRICS = ['VC', 'VI', 'VA', 'SC', 'SI', 'SA'] as const;
const DISTANCE_METRICS = Object.keys(METRIC_LEVELS) as (keyof typeof METRIC_LEVELS)[];

type Distances = Record<keyof typeof METRIC_LEVELS, number>;

/** One EQ's pull on the score: a fraction (steps / depth) of the score lost to its next lower macro vector. */
interface Pull {
  /** Table score minus the next lower macro vector's score, in tenths of a point. */
  scoreDifference: number;
  /** Severity steps between the vector and its macro vector's most severe vector. */
  steps: number;
  /** Severity steps the EQ level spans. */
  depth: number;
}

export function scoreV4Metrics(m: V4EffectiveMetrics): number {
  // No impact on any system scores 0 whatever the exploitability (spec: "no impact" exception).
  if (IMPACT_METRICS.every((metric) => m[metric] === 'N')) return 0;

  const levels = macroVector(m);
  const [eq1, eq2, eq3, eq4, eq5, eq6] = levels;
  const value = tenths(levels)!;
  const d = distancesFromMaxVector(m, levels);

  // Per EQ: the score difference to the next lower macro vector (absent when there is none, in which case
  // the EQ is left out of the mean) and the vector's distance from the most severe vector of its level.
  const candidates: (Pull | undefined)[] = [
    pull(value, tenths(withLevel(levels, 0, eq1 + 1)), d.AV + d.PR + d.UI, EQ1_DEPTH[eq1]!),
    pull(value, tenths(withLevel(levels, 1, eq2 + 1)), d.AC + d.AT, EQ2_DEPTH[eq2]!),
    pull(value, nextLowerEq3Eq6(levels), d.VC + d.VI + d.VA + d.CR + d.IR + d.AR, EQ3_EQ6_DEPTH[`${eq3}${eq6}`]!),
    pull(value, tenths(withLevel(levels, 3, eq4 + 1)), d.SC + d.SI + d.SA, EQ4_DEPTH[eq4]!),
    // EQ5 (exploit maturity) always sits on its most severe vector: it only counts towards the mean.
    pull(value, tenths(withLevel(levels, 4, eq5 + 1)), 0, 1),
  ];
  const pulls = candidates.filter((p): p is Pull => p !== undefined);
  if (pulls.length === 0) return value / 10;

  // score = value - mean(scoreDifference * steps / depth), as one fraction over a common denominator.
  const denominator = pulls.length * pulls.reduce((product, p) => product * p.depth, 1);
  const meanNumerator = pulls.reduce(
    (sum, p) => sum + p.scoreDifference * p.steps * (denominator / pulls.length / p.depth),
    0,
  );
  const scoreNumerator = Math.min(100 * denominator, Math.max(0, value * denominator - meanNumerator));
  // Round half up to whole tenths: floor(x / D + 1/2) = floor((2x + D) / 2D), all integers.
  return Math.floor((2 * scoreNumerator + denominator) / (2 * denominator)) / 10;
}

function pull(value: number, lower: number | undefined, steps: number, depth: number): Pull | undefined {
  return lower === undefined ? undefined : { scoreDifference: value - lower, steps, depth };
}

/** A macro vector's table score in tenths of a point, or undefined when there is no such macro vector. */
function tenths(levels: readonly number[]): number | undefined {
  const score = MACRO_VECTOR_SCORES[macroVectorKey(levels)];
  return score === undefined ? undefined : Math.round(score * 10);
}

function withLevel(levels: MacroVector, index: number, level: number): number[] {
  const next = [...levels];
  next[index] = level;
  return next;
}

/**
 * EQ3 and EQ6 step down together: 11 -> 21, 01 -> 11, 10 -> 11, and 00 has two lower neighbours (01 and
 * 10) of which the higher-scoring one counts; 21 has none.
 */
function nextLowerEq3Eq6(levels: MacroVector): number | undefined {
  const [, , eq3, , , eq6] = levels;
  const with3And6 = (three: number, six: number): number | undefined => {
    const next = [...levels];
    next[2] = three;
    next[5] = six;
    return tenths(next);
  };
  if (eq3 === 0 && eq6 === 0) return Math.max(with3And6(0, 1)!, with3And6(1, 0)!);
  if (eq3 === 1 && eq6 === 0) return with3And6(1, 1);
  if (eq3 === 2) return undefined;
  return with3And6(eq3 + 1, eq6);
}

/**
 * Steps between the vector and the first of its macro vector's most severe vectors that dominates it (is
 * at least as severe on every metric), trying them in the reference calculator's order.
 */
function distancesFromMaxVector(m: V4EffectiveMetrics, levels: MacroVector): Distances {
  let distances: Distances | undefined;
  for (const max of maxVectors(levels)) {
    distances = distancesTo(m, max);
    if (DISTANCE_METRICS.every((metric) => distances![metric] >= 0)) return distances;
  }
  // Every vector is dominated by one of its macro vector's maxima (a unit test checks all base vectors);
  // should that ever fail, use the last candidate as the reference calculator does.
  return distances!;
}

type MaxVector = Readonly<Record<V4ScoringMetric, string>>;
const maxVectorsByMacroVector = new Map<string, readonly MaxVector[]>();

/** The most severe vectors of a macro vector: every combination of its EQ levels' maxima, in order. */
function maxVectors(levels: MacroVector): readonly MaxVector[] {
  const key = macroVectorKey(levels);
  let vectors = maxVectorsByMacroVector.get(key);
  if (vectors === undefined) {
    const [eq1, eq2, eq3, eq4, eq5, eq6] = levels;
    const combined: MaxVector[] = [];
    for (const a of EQ1_MAX[eq1]!)
      for (const b of EQ2_MAX[eq2]!)
        for (const c of EQ3_EQ6_MAX[`${eq3}${eq6}`]!)
          for (const e of EQ4_MAX[eq4]!)
            for (const f of EQ5_MAX[eq5]!) combined.push({ ...a, ...b, ...c, ...e, ...f } as MaxVector);
    vectors = combined;
    maxVectorsByMacroVector.set(key, vectors);
  }
  return vectors;
}

function distancesTo(m: V4EffectiveMetrics, max: MaxVector): Distances {
  const distances = {} as Distances;
  for (const metric of DISTANCE_METRICS) {
    const scale = METRIC_LEVELS[metric];
    distances[metric] = scale[m[metric]]! - scale[max[metric]]!;
  }
  return distances;
}
