/**
 * CVSS v4.0 macro vector: the six equivalence-set levels (EQ1-EQ6 of the specification) a vector falls into.
 * Level 0 is the most severe. The macro vector selects the row of the lookup table the score starts from.
 */
import type { V4EffectiveMetrics } from './v4-metrics.js';

/** EQ levels in order EQ1..EQ6. */
export type MacroVector = readonly [number, number, number, number, number, number];

export function macroVector(m: V4EffectiveMetrics): MacroVector {
  return [eq1(m), eq2(m), eq3(m), eq4(m), eq5(m), eq6(m)];
}

/** The lookup-table key, e.g. "001100". */
export function macroVectorKey(levels: readonly number[]): string {
  return levels.join('');
}

/** EQ1 (exploitability reach): 0 AV:N+PR:N+UI:N; 1 any one of them N but not all, and not AV:P; 2 otherwise. */
function eq1(m: V4EffectiveMetrics): number {
  if (m.AV === 'N' && m.PR === 'N' && m.UI === 'N') return 0;
  if ((m.AV === 'N' || m.PR === 'N' || m.UI === 'N') && m.AV !== 'P') return 1;
  return 2;
}

/** EQ2 (complexity): 0 AC:L+AT:N; 1 otherwise. */
function eq2(m: V4EffectiveMetrics): number {
  return m.AC === 'L' && m.AT === 'N' ? 0 : 1;
}

/** EQ3 (vulnerable-system impact): 0 VC:H+VI:H; 1 any of VC/VI/VA High; 2 none High. */
function eq3(m: V4EffectiveMetrics): number {
  if (m.VC === 'H' && m.VI === 'H') return 0;
  if (m.VC === 'H' || m.VI === 'H' || m.VA === 'H') return 1;
  return 2;
}

/** EQ4 (subsequent-system impact): 0 safety impact (SI/SA:S, only reachable via MSI/MSA); 1 any High; 2 otherwise. */
function eq4(m: V4EffectiveMetrics): number {
  if (m.SI === 'S' || m.SA === 'S') return 0;
  if (m.SC === 'H' || m.SI === 'H' || m.SA === 'H') return 1;
  return 2;
}

/** EQ5 (exploit maturity): 0 Attacked, 1 POC, 2 Unreported. */
function eq5(m: V4EffectiveMetrics): number {
  if (m.E === 'A') return 0;
  if (m.E === 'P') return 1;
  return 2;
}

/** EQ6 (requirement-weighted impact): 0 when a High requirement meets a High impact on the same property. */
function eq6(m: V4EffectiveMetrics): number {
  const high = (m.CR === 'H' && m.VC === 'H') || (m.IR === 'H' && m.VI === 'H') || (m.AR === 'H' && m.VA === 'H');
  return high ? 0 : 1;
}
