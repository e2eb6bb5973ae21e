/**
 * Splits a JSON document that arrives in pieces (a large archive entry or file) into its top-level values without
 * holding the document: the elements of a top-level array one by one, or the whole document when it is not an
 * array. Only the value being assembled is kept, up to a byte limit; a larger value is reported as oversized and
 * its bytes are dropped as they pass, so memory stays bounded whatever the document's size. Values are only
 * delimited here (strings, escapes and nesting tracked byte by byte); JSON.parse judges each one. A document whose
 * structure breaks (an array cut short, text after its end) throws InvalidError: the caller must not take part of
 * a feed for all of it.
 */
import { InvalidError } from '../../errors.js';

export type JsonValuePiece =
  /** `index` is the element's position in the top-level array, or undefined for a document that is not an array. */
  | { index: number | undefined; bytes: Uint8Array }
  | { index: number | undefined; oversized: number };

export interface JsonSplitOptions {
  /** The largest value kept; a larger one comes out as `oversized` with its size. */
  maxValueBytes: number;
  /** Told the size of every buffer the splitter holds (for callers that bound or measure memory). */
  onBuffer?: (bytes: number) => void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

function indexOrEnd(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The bytes of the value being assembled: pieces of successive chunks, dropped once they exceed the limit. */
class ValueBuffer {
  private pieces: Uint8Array[] = [];
  /** Bytes seen of the value, kept or not. */
  size = 0;
  constructor(private readonly options: JsonSplitOptions) {}

  add(bytes: Uint8Array): void {
    this.size += bytes.length;
    if (this.size > this.options.maxValueBytes) {
      this.pieces = [];
      return;
    }
    // A copy: the chunk the piece lies in may be large and is not ours to keep alive.
    this.pieces.push(Buffer.from(bytes));
    this.options.onBuffer?.(this.size);
  }

  take(index: number | undefined): JsonValuePiece {
    const size = this.size;
    const pieces = this.pieces;
    this.pieces = [];
    this.size = 0;
    if (size > this.options.maxValueBytes) return { index, oversized: size };
    return { index, bytes: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size) };
  }
}

/** Top-level values of the document in `chunks`; see the module comment. */
export async function* splitJsonDocument(chunks: AsyncIterable<Uint8Array>, source: string, options: JsonSplitOptions): AsyncGenerator<JsonValuePiece> {
  const value = new ValueBuffer(options);
  const broken = (reason: string) => new InvalidError(`${source}: malformed JSON document: ${reason}`, { source });
  /** 'start': before the first byte that is not space; 'single': a document that is not an array; 'array': between
   * or inside its elements; 'end': after the array's closing bracket. */
  let mode: 'start' | 'single' | 'array' | 'end' = 'start';
  let index = 0;
  /** In 'array': whether a value must come next (after `[` or `,`), and whether one was read since the last `,`. */
  let wantValue = true;
  let inValue = false;
  /** Inside an element: nesting depth, and string state; `scalar` for a number, true, false or null. */
  let depth = 0;
  let inString = false;
  let escaped = false;
  let scalar = false;
  /** In 'start': bytes passed so far, and how many of them were a byte order mark. */
  let leading = 0;
  let bom = 0;

  for await (const chunk of chunks) {
    options.onBuffer?.(chunk.length);
    let i = 0;
    if (mode === 'start') {
      for (; i < chunk.length; i++, leading++) {
        const c = chunk[i]!;
        if (bom === leading && bom < 3 && c === UTF8_BOM[bom]) bom++;
        else if (!isSpace(c)) break;
      }
      if (i === chunk.length) continue;
      if (chunk[i] === OPEN_BRACKET) {
        mode = 'array';
        i++;
      } else mode = 'single';
    }
    if (mode === 'single') {
      value.add(i === 0 ? chunk : chunk.subarray(i));
      continue;
    }
    /** Where the current element starts in this chunk, while one is open. */
    let start = inValue ? 0 : -1;
    /** The next backslash at or after the scan position, once looked for (the chunk's length for none). */
    let nextBackslash = -1;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inValue) {
        if (inString) {
          if (escaped) {
            escaped = false;
            continue;
          }
          // Strings (a record's details) are most of a feed's bytes: jump to the next quote or backslash natively.
          if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, BACKSLASH, i);
          const quote = indexOrEnd(chunk, QUOTE, i);
          if (nextBackslash < quote) {
            i = nextBackslash;
            escaped = true;
            continue;
          }
          i = quote;
          if (i === chunk.length) continue;
          inString = false;
          if (depth === 0) {
            // A top-level string element ends with its closing quote.
            value.add(chunk.subarray(start, i + 1));
            yield value.take(index++);
            inValue = false;
          }
          continue;
        }
        if (scalar) {
          if (c !== COMMA && c !== CLOSE_BRACKET && !isSpace(c)) continue;
          value.add(chunk.subarray(start, i));
          yield value.take(index++);
          inValue = false;
          scalar = false;
          // The delimiter is read below as the space between elements.
        } else {
          if (c === QUOTE) inString = true;
          else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
          else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
            depth--;
            if (depth === 0) {
              value.add(chunk.subarray(start, i + 1));
              yield value.take(index++);
              inValue = false;
            }
          }
          continue;
        }
      }
      if (isSpace(c)) continue;
      if (mode === 'end') throw broken('text after the end of the top-level array');
      if (c === CLOSE_BRACKET) {
        if (wantValue && index > 0) throw broken(`a comma with no element after it (after element ${index - 1})`);
        mode = 'end';
      } else if (c === COMMA) {
        if (wantValue) throw broken(`a comma with no element before it (at element ${index})`);
        wantValue = true;
      } else {
        if (!wantValue) throw broken(`no comma before element ${index}`);
        wantValue = false;
        inValue = true;
        start = i;
        depth = 0;
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth = 1;
        else scalar = true;
      }
    }
    if (inValue) value.add(chunk.subarray(start));
  }

  if (mode === 'single') yield value.take(undefined);
  else if (mode === 'start') yield { index: undefined, bytes: new Uint8Array(0) };
  else if (mode !== 'end') throw broken(inValue ? `the document ends inside element ${index}` : 'the top-level array is not closed');
}
