/**
 * Ordering primitives shared by the version comparators: numbers kept as digit strings (version components
 * can exceed Number.MAX_SAFE_INTEGER, e.g. Go pseudo-version timestamps or Maven build numbers), plain
 * code-unit string order (what the specifications mean by "lexical"; localeCompare would vary by locale),
 * and the policy for strings a format cannot parse.
 */

/** -1, 0 or 1 from any number, so comparators return a tidy sign. */
export function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** Compares two strings of ASCII digits by numeric value, ignoring leading zeros; any length. */
export function compareDigitStrings(a: string, b: string): number {
  const x = stripLeadingZeros(a);
  const y = stripLeadingZeros(b);
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether a digit string is numerically zero ('', '0', '000'). */
export function isZeroDigits(digits: string): boolean {
  return /^0*$/.test(digits);
}

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return digits.slice(i);
}

/** Lexical order by UTF-16 code unit: Java's String.compareTo, Ruby's <=> on ASCII, SemVer's "ASCII sort order". */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares through a format's parser, keeping the comparator total and throw-free on garbage: a string the
 * parser rejects sorts before every version it accepts (as golang.org/x/mod/semver does), and two rejected
 * strings order by their raw text, so sorting mixed input is still deterministic.
 */
export function compareParsedOrInvalidFirst<T>(
  a: string,
  b: string,
  parse: (version: string) => T | null,
  compareParsed: (x: T, y: T) => number,
): number {
  const x = parse(a);
  const y = parse(b);
  if (x !== null && y !== null) return sign(compareParsed(x, y));
  if (x === null && y === null) return compareCodeUnits(a, b);
  return x === null ? -1 : 1;
}
