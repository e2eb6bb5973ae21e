import { describe, expect, it } from 'vitest';
import { parseCvss } from '../../../../src/vulns/cvss/index.js';
import { macroVector } from '../../../../src/vulns/cvss/v4-macro-vector.js';
import { MACRO_VECTOR_SCORES } from '../../../../src/vulns/cvss/v4-lookup.js';
import type { V4EffectiveMetrics } from '../../../../src/vulns/cvss/v4-metrics.js';
import { scoreV4Metrics } from '../../../../src/vulns/cvss/v4-score.js';

const P = 'CVSS:4.0/';

// [vector without prefix, CVSS-B score]. The first three follow from the specification alone (its worked
// example, a table maximum, the no-impact rule); the rest are the reference calculator's scores as
// published in the test vectors of the FIRST/Red Hat reference implementations (RedHatProductSecurity/cvss
// tests/vectors_simple4), chosen to cover all three EQ1 levels, both EQ2 levels, EQ3 x EQ6 and EQ4.
const V4: [string, number][] = [
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 9.3],
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H', 10.0],
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', 0.0],
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:H/VA:L/SC:N/SI:H/SA:L', 9.2],
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:L/VA:L/SC:H/SI:N/SA:L', 7.8],
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:L/VA:N/SC:N/SI:L/SA:N', 6.9],
  ['AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:H/SI:L/SA:H', 7.9],
  ['AV:N/AC:L/AT:N/PR:N/UI:P/VC:H/VI:N/VA:L/SC:N/SI:H/SA:N', 8.3],
  ['AV:N/AC:L/AT:N/PR:N/UI:P/VC:L/VI:N/VA:N/SC:L/SI:N/SA:L', 5.3],
  ['AV:N/AC:L/AT:N/PR:N/UI:A/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 8.6],
  ['AV:N/AC:L/AT:N/PR:N/UI:A/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N', 5.1],
  ['AV:N/AC:L/AT:N/PR:L/UI:N/VC:H/VI:N/VA:N/SC:H/SI:N/SA:N', 8.3],
  ['AV:N/AC:L/AT:N/PR:L/UI:N/VC:L/VI:N/VA:N/SC:N/SI:N/SA:H', 6.3],
  ['AV:N/AC:L/AT:N/PR:L/UI:A/VC:H/VI:H/VA:H/SC:H/SI:N/SA:H', 9.3],
  ['AV:N/AC:L/AT:N/PR:H/UI:N/VC:L/VI:L/VA:L/SC:L/SI:L/SA:N', 5.1],
  ['AV:N/AC:L/AT:N/PR:H/UI:P/VC:L/VI:L/VA:N/SC:L/SI:N/SA:N', 4.8],
  ['AV:N/AC:L/AT:N/PR:H/UI:A/VC:L/VI:N/VA:N/SC:H/SI:N/SA:H', 6.0],
  ['AV:N/AC:L/AT:P/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:N/SA:H', 9.5],
  ['AV:N/AC:L/AT:P/PR:N/UI:P/VC:L/VI:L/VA:N/SC:H/SI:N/SA:N', 4.9],
  ['AV:N/AC:L/AT:P/PR:N/UI:A/VC:N/VI:N/VA:N/SC:L/SI:N/SA:N', 2.1],
  ['AV:N/AC:L/AT:P/PR:L/UI:N/VC:N/VI:N/VA:N/SC:N/SI:L/SA:N', 2.3],
  ['AV:N/AC:H/AT:N/PR:N/UI:N/VC:H/VI:H/VA:N/SC:L/SI:H/SA:L', 9.4],
  ['AV:N/AC:H/AT:N/PR:L/UI:P/VC:H/VI:H/VA:H/SC:H/SI:L/SA:H', 8.8],
  ['AV:N/AC:H/AT:N/PR:L/UI:A/VC:N/VI:L/VA:L/SC:H/SI:H/SA:L', 5.0],
  ['AV:N/AC:H/AT:N/PR:H/UI:N/VC:L/VI:N/VA:L/SC:N/SI:L/SA:N', 2.1],
  ['AV:N/AC:H/AT:P/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:L/SA:N', 9.5],
  ['AV:N/AC:H/AT:P/PR:N/UI:N/VC:N/VI:L/VA:N/SC:L/SI:H/SA:L', 7.0],
  ['AV:P/AC:L/AT:P/PR:N/UI:P/VC:L/VI:N/VA:H/SC:H/SI:N/SA:L', 5.7],
  ['AV:P/AC:L/AT:P/PR:N/UI:A/VC:L/VI:N/VA:L/SC:H/SI:N/SA:N', 1.8],
  ['AV:P/AC:L/AT:P/PR:L/UI:N/VC:H/VI:H/VA:L/SC:N/SI:N/SA:H', 6.7],
  ['AV:P/AC:L/AT:P/PR:L/UI:P/VC:N/VI:N/VA:N/SC:L/SI:N/SA:L', 1.0],
  ['AV:P/AC:L/AT:P/PR:L/UI:A/VC:H/VI:H/VA:H/SC:H/SI:H/SA:N', 7.0],
  ['AV:P/AC:L/AT:P/PR:H/UI:N/VC:H/VI:H/VA:H/SC:H/SI:L/SA:H', 7.2],
  ['AV:P/AC:H/AT:N/PR:N/UI:N/VC:H/VI:H/VA:N/SC:H/SI:H/SA:N', 6.9],
  ['AV:P/AC:H/AT:N/PR:N/UI:A/VC:H/VI:H/VA:H/SC:L/SI:L/SA:L', 5.4],
  ['AV:P/AC:H/AT:N/PR:H/UI:P/VC:L/VI:N/VA:N/SC:H/SI:H/SA:H', 2.4],
  ['AV:P/AC:H/AT:N/PR:H/UI:A/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', 0.0],
  ['AV:P/AC:H/AT:P/PR:N/UI:A/VC:H/VI:L/VA:H/SC:N/SI:L/SA:N', 4.6],
  ['AV:P/AC:H/AT:P/PR:L/UI:N/VC:H/VI:H/VA:L/SC:H/SI:H/SA:L', 7.1],
  ['AV:P/AC:H/AT:P/PR:H/UI:A/VC:L/VI:L/VA:L/SC:L/SI:H/SA:H', 2.3],
];

// Severity boundaries, scores from the same published vectors.
const BOUNDARIES: [string, number, string][] = [
  ['AV:N/AC:H/AT:N/PR:H/UI:A/VC:N/VI:N/VA:N/SC:N/SI:H/SA:N', 4.0, 'Medium'],
  ['AV:N/AC:H/AT:N/PR:H/UI:P/VC:N/VI:L/VA:H/SC:H/SI:L/SA:N', 6.9, 'Medium'],
  ['AV:N/AC:L/AT:N/PR:L/UI:P/VC:H/VI:L/VA:L/SC:L/SI:L/SA:L', 7.0, 'High'],
  ['AV:N/AC:L/AT:P/PR:N/UI:N/VC:H/VI:N/VA:N/SC:L/SI:L/SA:H', 9.0, 'Critical'],
  ['AV:N/AC:L/AT:P/PR:H/UI:A/VC:N/VI:L/VA:L/SC:L/SI:N/SA:N', 1.8, 'Low'],
  ['AV:P/AC:H/AT:N/PR:H/UI:A/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', 0.0, 'None'],
];

describe('CVSS v4.0 base score (CVSS-B)', () => {
  it.each(V4)(`${P}%s = %d`, (body, score) => {
    const result = parseCvss(P + body);
    expect(result.version).toBe('4.0');
    expect(result.baseScore).toBe(score);
    // v4.0 defines no exploitability/impact subscores.
    expect(result).not.toHaveProperty('exploitabilityScore');
    expect(result).not.toHaveProperty('impactScore');
  });

  it.each(BOUNDARIES)(`${P}%s = %d (%s)`, (body, score, severity) => {
    expect(parseCvss(P + body)).toEqual({ version: '4.0', baseScore: score, severity, vector: P + body });
  });

  it('rounds exact x.x5 results half up, where float arithmetic lands just below the tie', () => {
    // Exactly 8.55 and 5.65; the reference calculator's float arithmetic gave 8.549999... and 5.649999...
    // and showed 8.5 and 5.6 until its late-2024 rounding fix (RedHatProductSecurity/cvss-v4-calculator#66).
    expect(parseCvss(`${P}AV:N/AC:L/AT:N/PR:N/UI:P/VC:H/VI:L/VA:N/SC:H/SI:H/SA:H`).baseScore).toBe(8.6);
    expect(parseCvss(`${P}AV:N/AC:L/AT:P/PR:H/UI:A/VC:N/VI:H/VA:L/SC:N/SI:N/SA:L`).baseScore).toBe(5.7);
  });

  it('leaves threat, environmental and supplemental metrics out of the base score', () => {
    const base = 'AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
    const full = `${P}${base}/E:U/CR:L/IR:L/AR:L/MAV:P/MAC:H/MAT:P/MPR:H/MUI:A/MVC:N/MVI:N/MVA:N/MSC:N/MSI:S/MSA:S/S:P/AU:Y/R:I/V:C/RE:H/U:Amber`;
    expect(parseCvss(full)).toEqual({ version: '4.0', baseScore: 9.3, severity: 'Critical', vector: full });
  });

  it('does not depend on metric order', () => {
    expect(parseCvss(`${P}SA:N/SI:N/SC:N/VA:H/VI:H/VC:H/UI:N/PR:N/AT:N/AC:L/AV:N`).baseScore).toBe(9.3);
  });
});

describe('CVSS v4.0 macro vectors', () => {
  const base = (overrides: Partial<V4EffectiveMetrics>): V4EffectiveMetrics => ({
    AV: 'N', AC: 'L', AT: 'N', PR: 'N', UI: 'N', VC: 'H', VI: 'H', VA: 'H', SC: 'N', SI: 'N', SA: 'N',
    E: 'A', CR: 'H', IR: 'H', AR: 'H', ...overrides,
  });

  it('assigns the EQ levels of the specification', () => {
    expect(macroVector(base({})).join('')).toBe('000200');
    // EQ1: one of AV/PR/UI not N -> 1; AV:P or none of them N -> 2.
    expect(macroVector(base({ PR: 'L' }))[0]).toBe(1);
    expect(macroVector(base({ AV: 'P' }))[0]).toBe(2);
    expect(macroVector(base({ AV: 'L', PR: 'L', UI: 'P' }))[0]).toBe(2);
    // EQ2: AC:H or AT:P -> 1.
    expect(macroVector(base({ AT: 'P' }))[1]).toBe(1);
    // EQ3: VC and VI High -> 0; any High -> 1; none High -> 2 (and then EQ6 is 1).
    expect(macroVector(base({ VI: 'L' }))[2]).toBe(1);
    expect(macroVector(base({ VC: 'L', VI: 'L', VA: 'L' })).join('')).toBe('002201');
    // EQ4: a High subsequent impact -> 1; Safety (via MSI/MSA) -> 0.
    expect(macroVector(base({ SI: 'H' }))[3]).toBe(1);
    expect(macroVector(base({ SA: 'S' }))[3]).toBe(0);
    // EQ5 follows Exploit Maturity; EQ6 needs a High requirement on a High impact.
    expect(macroVector(base({ E: 'U' }))[4]).toBe(2);
    expect(macroVector(base({ CR: 'M', IR: 'M', AR: 'L' }))[5]).toBe(1);
  });

  it('has a table entry for each of the 270 macro vectors and nothing else', () => {
    const expected: string[] = [];
    for (const eq1 of [0, 1, 2]) for (const eq2 of [0, 1]) for (const eq3eq6 of ['00', '01', '10', '11', '21'])
      for (const eq4 of [0, 1, 2]) for (const eq5 of [0, 1, 2])
        expected.push(`${eq1}${eq2}${eq3eq6[0]}${eq4}${eq5}${eq3eq6[1]}`);
    expect(Object.keys(MACRO_VECTOR_SCORES).sort()).toEqual(expected.sort());
    for (const score of Object.values(MACRO_VECTOR_SCORES)) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(10);
      expect(Math.round(score * 10)).toBeCloseTo(score * 10, 9);
    }
  });

  it('never scores a macro vector above a more severe neighbour (a guard against table typos)', () => {
    const more = (key: string, index: number): string | undefined => {
      const levels = [...key].map(Number);
      if (levels[index] === 0) return undefined;
      levels[index]! -= 1;
      return levels.join('');
    };
    for (const [key, score] of Object.entries(MACRO_VECTOR_SCORES)) {
      for (const index of [0, 1, 3, 4]) {
        const neighbour = more(key, index);
        if (neighbour !== undefined) expect(MACRO_VECTOR_SCORES[neighbour]).toBeGreaterThanOrEqual(score);
      }
    }
  });

  it('scores every one of the 104,976 base vectors within 0.0-10.0 in tenths', () => {
    const values: [keyof V4EffectiveMetrics, string[]][] = [
      ['AV', ['N', 'A', 'L', 'P']], ['AC', ['L', 'H']], ['AT', ['N', 'P']], ['PR', ['N', 'L', 'H']], ['UI', ['N', 'P', 'A']],
      ['VC', ['H', 'L', 'N']], ['VI', ['H', 'L', 'N']], ['VA', ['H', 'L', 'N']],
      ['SC', ['H', 'L', 'N']], ['SI', ['H', 'L', 'N']], ['SA', ['H', 'L', 'N']],
    ];
    const metrics: Record<string, string> = { E: 'A', CR: 'H', IR: 'H', AR: 'H' };
    const histogram = new Map<number, number>();
    const bad: string[] = [];
    let count = 0;
    const visit = (index: number): void => {
      if (index === values.length) {
        count++;
        const score = scoreV4Metrics(metrics as unknown as V4EffectiveMetrics);
        if (!(Number(score.toFixed(1)) === score && score >= 0 && score <= 10)) bad.push(JSON.stringify(metrics));
        histogram.set(score, (histogram.get(score) ?? 0) + 1);
        return;
      }
      const [metric, options] = values[index]!;
      for (const option of options) {
        metrics[metric] = option;
        visit(index + 1);
      }
    };
    visit(0);
    expect(count).toBe(104_976);
    expect(bad).toEqual([]);
    // Only the no-impact vectors score 0 (all six impacts None, times 144 exploitability combinations).
    expect(histogram.get(0)).toBe(144);
    expect(histogram.get(10)).toBeGreaterThan(0);
  }, 60_000);
});
