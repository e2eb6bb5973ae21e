/**
 * Character classes and number comparison for the ports of the distro package managers' C comparators
 * (dpkg, rpm, apk). Those use the C locale's isdigit/isalpha, i.e. ASCII only, so a non-ASCII character must
 * never count as a letter or digit here (a Unicode-aware test like /\p{L}/ would change their results).
 */

export const CHAR_0 = 0x30;

/** ASCII '0'-'9' by character code; 0 (the C string terminator stand-in) is not a digit. */
export function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** ASCII 'A'-'Z' or 'a'-'z' by character code. */
export function isAsciiAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

export function isAsciiAlnum(code: number): boolean {
  return isAsciiDigit(code) || isAsciiAlpha(code);
}

/**
 * Compares two runs of ASCII digits by numeric value, ignoring leading zeros, at any length. The C tools read
 * such runs into fixed-width integers or compare them digit by digit; comparing the strings keeps exact results
 * for values beyond Number.MAX_SAFE_INTEGER (dates and build stamps such as 20240101123456789).
 */
export function compareDecimalDigits(a: string, b: string): number {
  const x = stripLeadingZeros(a);
  const y = stripLeadingZeros(b);
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length && digits.charCodeAt(i) === CHAR_0) i++;
  return digits.slice(i);
}

/** Byte-wise lexical order of ASCII text (memcmp, then the shorter prefix first), as a -1/0/1 sign. */
export function compareLexically(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
