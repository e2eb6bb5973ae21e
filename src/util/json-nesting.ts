/**
 * How deep JSON text nests, measured on the raw bytes before anything parses it. JSON.parse copes with any depth,
 * but JSON.stringify, structuredClone and recursive readers exhaust the stack at a few thousand levels, so deep
 * documents are refused at the door instead of failing later as a RangeError.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The byte offset at which UTF-8 JSON text opens its (maxDepth+1)th nested array or object, or -1 when it never
 * nests that deep. Brackets inside strings do not count; the scan stops at the first level too many. Malformed
 * text is left for the parser to reject (UTF-8 never uses these ASCII bytes inside a multi-byte character).
 */
export function jsonNestingExceeds(bytes: Uint8Array, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > maxDepth) return i;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--;
    }
  }
  return -1;
}
