import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../../src/errors.js';
import { CvssError, parseCvss, qualitativeSeverity, v2Severity, type CvssErrorReason } from '../../../../src/vulns/cvss/index.js';

const V31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const V40 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const V2 = 'AV:N/AC:L/Au:N/C:P/I:P/A:P';

function errorOf(input: unknown): CvssError {
  try {
    parseCvss(input as string);
  } catch (error) {
    if (error instanceof CvssError) return error;
    throw new Error(`threw something other than CvssError: ${String(error)}`);
  }
  throw new Error(`did not throw for ${JSON.stringify(input)}`);
}

describe('parseCvss dispatch', () => {
  it('recognises each version by its prefix (v2 has none)', () => {
    expect(parseCvss(V2).version).toBe('2.0');
    expect(parseCvss(V31.replace('3.1', '3.0')).version).toBe('3.0');
    expect(parseCvss(V31).version).toBe('3.1');
    expect(parseCvss(V40).version).toBe('4.0');
  });

  it('ignores surrounding whitespace and returns the trimmed vector', () => {
    expect(parseCvss(`  ${V31}\n`)).toMatchObject({ baseScore: 9.8, vector: V31 });
  });
});

describe('parseCvss on malformed vectors', () => {
  const cases: [string, unknown, CvssErrorReason, string?][] = [
    ['an empty string', '', 'empty'],
    ['only whitespace', '   ', 'empty'],
    ['a number', 9.8, 'not_a_string'],
    ['null', null, 'not_a_string'],
    ['an unknown CVSS version', 'CVSS:3.2/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'unsupported_version'],
    ['CVSS:5.0', 'CVSS:5.0/AV:N', 'unsupported_version'],
    ['a prefix without metrics', 'CVSS:3.1', 'unsupported_version'],
    ['a bad prefix', 'CVSS:x/AV:N', 'unsupported_version'],
    ['a v3 vector missing A', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', 'missing_metric', 'A'],
    ['a v3 vector missing S', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:H/A:H', 'missing_metric', 'S'],
    ['a v4 vector missing SC', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SI:N/SA:N', 'missing_metric', 'SC'],
    ['a v2 vector missing A', 'AV:N/AC:L/Au:N/C:P/I:P', 'missing_metric', 'A'],
    ['a duplicate v3 metric', `${V31}/A:H`, 'duplicate_metric', 'A'],
    ['a duplicate with another value', `${V31}/AV:L`, 'duplicate_metric', 'AV'],
    ['a duplicate v4 metric', `${V40}/E:A/E:P`, 'duplicate_metric', 'E'],
    ['a duplicate v2 metric', `${V2}/Au:N`, 'duplicate_metric', 'Au'],
    ['an unknown v3 metric', `${V31}/XX:N`, 'unknown_metric', 'XX'],
    ['a v4 metric in a v3 vector', `${V31}/AT:N`, 'unknown_metric', 'AT'],
    ['a v3 metric in a v2 vector', 'AV:N/AC:L/PR:N/C:P/I:P/A:P', 'unknown_metric', 'PR'],
    ['a lower-case metric', 'CVSS:3.1/av:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'unknown_metric', 'av'],
    ['an inherited property name', `${V31}/constructor:N`, 'unknown_metric', 'constructor'],
    ['__proto__', `${V31}/__proto__:N`, 'unknown_metric', '__proto__'],
    ['a v2 vector in NVD parentheses', `(${V2})`, 'unknown_metric', '(AV'],
    ['a wrong v3 value', 'CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'invalid_value', 'AV'],
    ['a v2 value in a v3 vector', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:P/I:H/A:H', 'invalid_value', 'C'],
    ['a lower-case value', 'CVSS:3.1/AV:n/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'invalid_value', 'AV'],
    ['a wrong v4 value', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:R/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 'invalid_value', 'UI'],
    ['Safety on a base SI (only MSI may be S)', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:S/SA:N', 'invalid_value', 'SI'],
    ['v3 Scope in a v4 vector (S is Safety there)', `${V40}/S:U`, 'invalid_value', 'S'],
    ['a wrong v4 threat value', `${V40}/E:Z`, 'invalid_value', 'E'],
    ['a wrong v2 value', 'AV:N/AC:L/Au:N/C:H/I:P/A:P', 'invalid_value', 'C'],
    ['a trailing slash', `${V31}/`, 'malformed_metric'],
    ['an empty segment', 'CVSS:3.1/AV:N//AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'malformed_metric'],
    ['a segment without a value', 'CVSS:3.1/AV:N/AC/PR:N/UI:N/S:U/C:H/I:H/A:H', 'malformed_metric'],
    ['a segment with an empty value', 'CVSS:3.1/AV:/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'malformed_metric'],
    ['a segment with two colons', 'CVSS:3.1/AV:N:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'malformed_metric'],
    ['free text', 'HIGH', 'malformed_metric'],
    ['a bare score', '9.8', 'malformed_metric'],
  ];

  it.each(cases)('rejects %s', (_name, input, reason, metric) => {
    const error = errorOf(input);
    expect(error.reason).toBe(reason);
    if (metric !== undefined) expect(error.detail).toMatchObject({ metric });
    expect(error.message).toMatch(/^invalid CVSS vector ".*": .+/s);
  });

  it('throws an InvalidError (400 validation_error) carrying the reason and vector', () => {
    const error = errorOf(`${V31}/A:L`);
    expect(error).toBeInstanceOf(InvalidError);
    expect(error.name).toBe('CvssError');
    expect(error.status).toBe(400);
    expect(error.errorType).toBe('validation_error');
    expect(error.detail).toEqual({ reason: 'duplicate_metric', vector: `${V31}/A:L`, metric: 'A' });
    expect(error.message).toBe(`invalid CVSS vector "${V31}/A:L": metric "A" appears more than once`);
  });

  it('names every missing metric', () => {
    expect(errorOf('CVSS:3.1/AV:N/AC:L').message).toContain('PR, UI, S, C, I, A');
  });

  it('throws nothing but CvssError for arbitrary mutations of valid vectors', () => {
    // A deterministic pseudo-random walk over deletions, insertions and substitutions.
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const alphabet = 'CVS:/.0123456789AHLNPRUXMSTEIOFDZaeilnpx _()';
    for (const valid of [V2, V31, V40]) {
      for (let i = 0; i < 2000; i++) {
        const chars = [...valid];
        const edits = 1 + random(3);
        for (let e = 0; e < edits; e++) {
          const at = random(chars.length + 1);
          const kind = random(3);
          const char = alphabet[random(alphabet.length)]!;
          if (kind === 0) chars.splice(at, 1);
          else if (kind === 1) chars.splice(at, 0, char);
          else chars[at] = char;
        }
        const mutated = chars.join('');
        try {
          const result = parseCvss(mutated);
          expect(result.baseScore).toBeGreaterThanOrEqual(0);
          expect(result.baseScore).toBeLessThanOrEqual(10);
        } catch (error) {
          expect(error, mutated).toBeInstanceOf(CvssError);
        }
      }
    }
  });
});

describe('severity ratings', () => {
  it('uses the v3/v4 qualitative scale, boundaries included', () => {
    expect(qualitativeSeverity(0.0)).toBe('None');
    expect(qualitativeSeverity(0.1)).toBe('Low');
    expect(qualitativeSeverity(3.9)).toBe('Low');
    expect(qualitativeSeverity(4.0)).toBe('Medium');
    expect(qualitativeSeverity(6.9)).toBe('Medium');
    expect(qualitativeSeverity(7.0)).toBe('High');
    expect(qualitativeSeverity(8.9)).toBe('High');
    expect(qualitativeSeverity(9.0)).toBe('Critical');
    expect(qualitativeSeverity(10.0)).toBe('Critical');
  });

  it("uses NVD's three-band scale for v2", () => {
    expect(v2Severity(0.0)).toBe('Low');
    expect(v2Severity(3.9)).toBe('Low');
    expect(v2Severity(4.0)).toBe('Medium');
    expect(v2Severity(6.9)).toBe('Medium');
    expect(v2Severity(7.0)).toBe('High');
    expect(v2Severity(10.0)).toBe('High');
  });
});
