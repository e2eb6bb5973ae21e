/**
 * The rounding rules the CVSS versions use. They differ on purpose, and scores only match the official
 * calculators (and NVD) when each version uses its own rule.
 */

/**
 * Round half up to one decimal: CVSS v2's round_to_1_decimal, the subscores the v3 calculators display,
 * and the v4.0 final score. Returns +0 for -0 (v2's no-impact score computes as -0).
 */
export function roundToOneDecimal(value: number): number {
  return Math.round(value * 10) / 10 + 0;
}

/**
 * CVSS v3.1 Roundup (spec Appendix A): the smallest one-decimal number >= input, computed on an integer
 * so that floating-point noise (4.000000000000001) does not push a score up a tenth.
 */
export function roundUpV31(value: number): number {
  const scaled = Math.round(value * 100_000);
  if (scaled % 10_000 === 0) return scaled / 100_000;
  return (Math.floor(scaled / 10_000) + 1) / 10;
}

/**
 * CVSS v3.0 round up: the plain ceil to one decimal the v3.0 spec and calculator used, floating-point
 * noise included (v3.1 fixed that; v3.0 scores keep it to stay identical to what was published).
 */
export function roundUpV30(value: number): number {
  return Math.ceil(value * 10) / 10;
}
