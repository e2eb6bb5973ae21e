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
