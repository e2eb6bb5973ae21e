/**
 * Qualitative severity ratings. CVSS v3.x and v4.0 share one scale (v3.1 specification section 5, and
 * the same scale in v4.0). CVSS v2 defines none, so v2 uses NVD's three-band scale: that is what a v2
 * severity in a vulnerability feed means.
 */
export type CvssSeverity = 'None' | 'Low' | 'Medium' | 'High' | 'Critical';

/** v3.x / v4.0 rating scale: 0.0 None, 0.1-3.9 Low, 4.0-6.9 Medium, 7.0-8.9 High, 9.0-10.0 Critical. */
export function qualitativeSeverity(score: number): CvssSeverity {
  if (score <= 0) return 'None';
  if (score < 4.0) return 'Low';
  if (score < 7.0) return 'Medium';
  if (score < 9.0) return 'High';
  return 'Critical';
}

/** NVD's v2 scale: 0.0-3.9 Low, 4.0-6.9 Medium, 7.0-10.0 High (v2 has no None and no Critical). */
export function v2Severity(score: number): CvssSeverity {
  if (score < 4.0) return 'Low';
  if (score < 7.0) return 'Medium';
  return 'High';
}
