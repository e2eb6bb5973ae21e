import { describe, expect, it } from 'vitest';
import { parseCvss } from '../../../../src/vulns/cvss/index.js';
import { roundUpV30, roundUpV31 } from '../../../../src/vulns/cvss/rounding.js';

// [vector, base, exploitability, impact, severity]. Base scores as NVD / the FIRST v3 calculators publish
// them; every row was also recomputed from the spec equations in exact decimal arithmetic.
const V31: [string, number, number, number, string][] = [
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 3.9, 5.9, 'Critical'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10.0, 3.9, 6.0, 'Critical'],
  ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8, 1.8, 5.9, 'High'],
  ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', 5.9, 2.2, 3.6, 'Medium'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 2.8, 2.7, 'Medium'],
  ['CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:N/I:N/A:L', 1.6, 0.1, 1.4, 'Low'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5, 3.9, 3.6, 'High'],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 8.8, 2.8, 5.9, 'High'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', 8.8, 2.8, 5.9, 'High'],
  ['CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.8, 2.8, 5.9, 'High'],
  ['CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', 7.2, 1.2, 5.9, 'High'],
  ['CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.0, 1.0, 5.9, 'High'],
  ['CVSS:3.1/AV:L/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N', 3.3, 1.8, 1.4, 'Low'],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N', 6.4, 3.1, 2.7, 'Medium'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:L/A:L', 9.9, 3.9, 5.3, 'Critical'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:N/A:N', 5.8, 3.9, 1.4, 'Medium'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:H/I:H/A:H', 9.6, 2.8, 6.0, 'Critical'],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:U/C:L/I:N/A:N', 3.5, 2.1, 1.4, 'Low'],
  ['CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:L/A:L', 6.0, 1.2, 4.7, 'Medium'],
  // Severity boundaries: 3.9 Low / 4.0 Medium, 6.9 Medium / 7.0 High, 8.9 High / 9.0 Critical.
  ['CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:L/A:L', 3.9, 0.5, 3.4, 'Low'],
  ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:C/C:L/I:N/A:N', 4.0, 2.2, 1.4, 'Medium'],
  ['CVSS:3.1/AV:N/AC:L/PR:H/UI:R/S:C/C:H/I:L/A:N', 6.9, 1.7, 4.7, 'Medium'],
  ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:L/A:L', 7.0, 2.2, 4.7, 'High'],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:H/A:L', 8.9, 2.3, 6.0, 'High'],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:H/A:H', 9.0, 2.3, 6.0, 'Critical'],
  // No impact: 0.0 None in either scope (the scope-changed impact equation goes negative; reported as 0).
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0.0, 3.9, 0.0, 'None'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:N/I:N/A:N', 0.0, 3.9, 0.0, 'None'],
];

const V30: [string, number, number, number, string][] = [
  ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 3.9, 5.9, 'Critical'],
  ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5, 3.9, 3.6, 'High'],
  ['CVSS:3.0/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8, 1.8, 5.9, 'High'],
  ['CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 2.8, 2.7, 'Medium'],
  ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10.0, 3.9, 6.0, 'Critical'],
];

describe('CVSS v3.1 base score', () => {
  it.each(V31)('%s = %d (exploitability %d, impact %d, %s)', (vector, base, exploitability, impact, severity) => {
    expect(parseCvss(vector)).toEqual({
      version: '3.1',
      baseScore: base,
      exploitabilityScore: exploitability,
      impactScore: impact,
      severity,
      vector,
    });
  });
});

describe('CVSS v3.0 base score', () => {
  it.each(V30)('%s = %d (exploitability %d, impact %d, %s)', (vector, base, exploitability, impact, severity) => {
    expect(parseCvss(vector)).toEqual({
      version: '3.0',
      baseScore: base,
      exploitabilityScore: exploitability,
      impactScore: impact,
      severity,
      vector,
    });
  });
});

describe('CVSS v3 vectors with temporal and environmental metrics', () => {
  it('accepts them and keeps the base score', () => {
    const vector =
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P/RL:O/RC:C/CR:H/IR:X/AR:L/MAV:A/MAC:H/MPR:L/MUI:R/MS:C/MC:N/MI:L/MA:X';
    expect(parseCvss(vector).baseScore).toBe(9.8);
  });

  it('does not depend on metric order', () => {
    expect(parseCvss('CVSS:3.1/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:L/AV:N').baseScore).toBe(9.8);
  });
});

describe('v3 rounding', () => {
  it('Roundup (3.1) is the smallest one-decimal number >= its input', () => {
    expect(roundUpV31(4.02)).toBe(4.1);
    expect(roundUpV31(4.0)).toBe(4.0);
    expect(roundUpV31(4.1)).toBe(4.1);
    expect(roundUpV31(4.00001)).toBe(4.1);
    expect(roundUpV31(9.9999)).toBe(10.0);
    expect(roundUpV31(0)).toBe(0);
  });

  it('Roundup (3.1) absorbs floating-point noise that a plain ceil turns into an extra tenth', () => {
    // 4.000000000000001 is what float arithmetic makes of an exact 4.0 (the 3.1 spec's Appendix A case).
    expect(roundUpV31(4.000000000000001)).toBe(4.0);
    expect(roundUpV31(0.1 + 0.2)).toBe(0.3);
    expect(roundUpV31(0.9999999)).toBe(1.0);
    // v3.0 keeps the simple ceil, noise included, as its calculator did.
    expect(roundUpV30(4.000000000000001)).toBe(4.1);
    expect(roundUpV30(0.1 + 0.2)).toBe(0.4);
    expect(roundUpV30(4.02)).toBe(4.1);
    expect(roundUpV30(4.0)).toBe(4.0);
  });

  it('gives the same base score for 3.0 and 3.1 across all 2,592 base vectors', () => {
    // The two rounding rules only diverge on float noise; no base vector produces any (checked against
    // exact decimal arithmetic), so a v3.0 and v3.1 vector with the same metrics score alike.
    const values = { AV: 'NALP', AC: 'LH', PR: 'NLH', UI: 'NR', S: 'UC', C: 'HLN', I: 'HLN', A: 'HLN' };
    let bodies = [''];
    for (const [metric, letters] of Object.entries(values)) {
      bodies = bodies.flatMap((body) => [...letters].map((v) => `${body}${body ? '/' : ''}${metric}:${v}`));
    }
    expect(bodies).toHaveLength(2592);
    for (const body of bodies) {
      expect(parseCvss(`CVSS:3.0/${body}`).baseScore).toBe(parseCvss(`CVSS:3.1/${body}`).baseScore);
    }
  });
});
