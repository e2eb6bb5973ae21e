import { describe, expect, it } from 'vitest';
import { parseCvss } from '../../../../src/vulns/cvss/index.js';

// [vector, base, exploitability, impact, severity]: NVD's published v2 scores, each also recomputed from
// the v2 guide's equations in exact decimal arithmetic. Severity is NVD's v2 scale (Low/Medium/High).
const V2: [string, number, number, number, string][] = [
  ['AV:N/AC:L/Au:N/C:C/I:C/A:C', 10.0, 10.0, 10.0, 'High'],
  ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 7.5, 10.0, 6.4, 'High'],
  ['AV:N/AC:M/Au:N/C:N/I:P/A:N', 4.3, 8.6, 2.9, 'Medium'],
  ['AV:N/AC:L/Au:N/C:N/I:N/A:P', 5.0, 10.0, 2.9, 'Medium'],
  ['AV:N/AC:L/Au:S/C:P/I:P/A:P', 6.5, 8.0, 6.4, 'Medium'],
  ['AV:L/AC:L/Au:N/C:C/I:C/A:C', 7.2, 3.9, 10.0, 'High'],
  ['AV:N/AC:M/Au:N/C:P/I:P/A:P', 6.8, 8.6, 6.4, 'Medium'],
  ['AV:N/AC:H/Au:N/C:P/I:N/A:N', 2.6, 4.9, 2.9, 'Low'],
  ['AV:L/AC:L/Au:N/C:P/I:N/A:N', 2.1, 3.9, 2.9, 'Low'],
  ['AV:A/AC:L/Au:N/C:N/I:N/A:C', 6.1, 6.5, 6.9, 'Medium'],
  ['AV:N/AC:L/Au:S/C:C/I:C/A:C', 9.0, 8.0, 10.0, 'High'],
  ['AV:L/AC:M/Au:N/C:C/I:C/A:C', 6.9, 3.4, 10.0, 'Medium'],
  ['AV:L/AC:H/Au:M/C:N/I:N/A:P', 0.8, 1.2, 2.9, 'Low'],
  ['AV:L/AC:H/Au:S/C:N/I:N/A:P', 1.0, 1.5, 2.9, 'Low'],
  ['AV:L/AC:H/Au:N/C:N/I:N/A:C', 4.0, 1.9, 6.9, 'Medium'],
  ['AV:A/AC:M/Au:M/C:C/I:C/A:C', 7.0, 3.5, 10.0, 'High'],
  ['AV:A/AC:M/Au:M/C:P/I:P/A:P', 4.5, 3.5, 6.4, 'Medium'],
  // No impact: f(Impact) = 0 zeroes the score (computed as -0.0, reported as 0).
  ['AV:N/AC:L/Au:N/C:N/I:N/A:N', 0.0, 10.0, 0.0, 'Low'],
];

describe('CVSS v2 base score', () => {
  it.each(V2)('%s = %d (exploitability %d, impact %d, %s)', (vector, base, exploitability, impact, severity) => {
    expect(parseCvss(vector)).toEqual({
      version: '2.0',
      baseScore: base,
      exploitabilityScore: exploitability,
      impactScore: impact,
      severity,
      vector,
    });
  });

  it('reports the no-impact score as +0, not -0', () => {
    expect(Object.is(parseCvss('AV:L/AC:H/Au:M/C:N/I:N/A:N').baseScore, 0)).toBe(true);
  });

  it('accepts temporal and environmental metrics and keeps the base score', () => {
    const vector = 'AV:N/AC:L/Au:N/C:P/I:P/A:P/E:POC/RL:OF/RC:C/CDP:H/TD:M/CR:H/IR:ND/AR:L';
    expect(parseCvss(vector).baseScore).toBe(7.5);
  });

  it('does not depend on metric order', () => {
    expect(parseCvss('C:P/I:P/A:P/AV:N/AC:L/Au:N').baseScore).toBe(7.5);
  });
});
