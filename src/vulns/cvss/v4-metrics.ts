/**
 * The metric values CVSS v4.0 scoring reads. The equations are defined over "effective" values: base
 * metrics, Exploit Maturity and the Security Requirements (CR/IR/AR). For a base score (CVSS-B) the latter
 * take the worst case the spec prescribes for Not Defined: E:A and CR/IR/AR:H.
 */
export type V4ScoringMetric =
  | 'AV' | 'AC' | 'AT' | 'PR' | 'UI'
  | 'VC' | 'VI' | 'VA' | 'SC' | 'SI' | 'SA'
  | 'E' | 'CR' | 'IR' | 'AR';

export type V4EffectiveMetrics = Readonly<Record<V4ScoringMetric, string>>;
