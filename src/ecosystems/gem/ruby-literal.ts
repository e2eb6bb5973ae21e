/**
 * Reads the few Ruby literal forms a gemspec assigns — strings and arrays of strings — without running Ruby.
 * Supported: "double" and 'single' quoted strings (with `.freeze`), `[ ... ]` arrays of those (over several
 * lines, with comments), and `%w[...]`/`%W(...)` word arrays with any delimiter. Anything else (constants,
 * method calls, interpolation) is unreadable and yields undefined: guessing would invent names and versions.
 */

export type RubyLiteral = string | string[];

export interface ReadLiteral {
  value: RubyLiteral;
  /** Index just past the literal (and any `.freeze`). */
  end: number;
}

const CLOSING: Record<string, string> = { '[': ']', '(': ')', '{': '}', '<': '>' };

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', s: ' ', e: '\x1b', '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v' };

class Cursor {
  constructor(
    readonly src: string,
    public pos: number,
  ) {}

  peek(offset = 0): string {
    return this.src.charAt(this.pos + offset);
  }

  /** Skips spaces and tabs; inside brackets also line breaks and `#` comments. */
  skipBlanks(acrossLines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || (acrossLines && (c === '\n' || c === '\r'))) this.pos++;
      else if (acrossLines && c === '#') while (this.pos < this.src.length && this.peek() !== '\n') this.pos++;
      else return;
    }
  }

  skipFreeze(): void {
    if (this.src.startsWith('.freeze', this.pos) && !/\w/.test(this.peek(7))) this.pos += 7;
  }
}

function readDoubleQuoted(c: Cursor): string | undefined {
  let out = '';
  c.pos++; // opening quote
  while (c.pos < c.src.length) {
    const ch = c.peek();
    if (ch === '"') {
      c.pos++;
      return out;
    }
    // `#{...}`, `#@ivar` and `#$global` interpolate: the value is not knowable without Ruby.
    if (ch === '#' && /[{@$]/.test(c.peek(1))) return undefined;
    if (ch !== '\\') {
      out += ch;
      c.pos++;
      continue;
    }
    const next = c.peek(1);
    c.pos += 2;
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F ]+)\}/.exec(c.src.slice(c.pos, c.pos + 40));
      const plain = /^[0-9a-fA-F]{4}/.exec(c.src.slice(c.pos, c.pos + 4));
      if (braced) {
        out += String.fromCodePoint(...braced[1].trim().split(/ +/).map((h) => parseInt(h, 16)));
        c.pos += braced[0].length;
      } else if (plain) {
        out += String.fromCharCode(parseInt(plain[0], 16));
        c.pos += 4;
      } else return undefined;
    } else if (next === 'x') {
      const hex = /^[0-9a-fA-F]{1,2}/.exec(c.src.slice(c.pos, c.pos + 2));
      if (!hex) return undefined;
      out += String.fromCharCode(parseInt(hex[0], 16));
      c.pos += hex[0].length;
    } else {
      out += SIMPLE_ESCAPES[next] ?? next;
    }
  }
  return undefined; // unterminated
}

function readSingleQuoted(c: Cursor): string | undefined {
  let out = '';
  c.pos++;
  while (c.pos < c.src.length) {
    const ch = c.peek();
    if (ch === "'") {
      c.pos++;
      return out;
    }
    // Only \\ and \' are escapes in single quotes; any other backslash is literal.
    if (ch === '\\' && (c.peek(1) === '\\' || c.peek(1) === "'")) {
      out += c.peek(1);
      c.pos += 2;
    } else {
      out += ch;
      c.pos++;
    }
  }
  return undefined;
}

function readString(c: Cursor): string | undefined {
  const quote = c.peek();
  const value = quote === '"' ? readDoubleQuoted(c) : quote === "'" ? readSingleQuoted(c) : undefined;
  if (value !== undefined) c.skipFreeze();
  return value;
}

function readWordArray(c: Cursor): string[] | undefined {
  const open = c.peek(2);
  if (open === '' || /[\sA-Za-z0-9]/.test(open)) return undefined;
  const close = CLOSING[open] ?? open;
  const end = c.src.indexOf(close, c.pos + 3);
  if (end < 0) return undefined;
  const words = c.src.slice(c.pos + 3, end).split(/\s+/).filter((w) => w !== '');
  c.pos = end + 1;
  c.skipFreeze();
  return words;
}

function readArray(c: Cursor): string[] | undefined {
  const items: string[] = [];
  c.pos++; // [
  for (;;) {
    c.skipBlanks(true);
    if (c.peek() === ']') {
      c.pos++;
      c.skipFreeze();
      return items;
    }
    const item = readString(c);
    if (item === undefined) return undefined;
    items.push(item);
    c.skipBlanks(true);
    if (c.peek() === ',') c.pos++;
    else if (c.peek() !== ']') return undefined;
  }
}

/** The string or string-array literal starting at `start` (leading spaces allowed), or undefined. */
export function readRubyLiteral(src: string, start: number): ReadLiteral | undefined {
  const c = new Cursor(src, start);
  c.skipBlanks(false);
  const ch = c.peek();
  let value: RubyLiteral | undefined;
  if (ch === '"' || ch === "'") value = readString(c);
  else if (ch === '[') value = readArray(c);
  else if (ch === '%' && (c.peek(1) === 'w' || c.peek(1) === 'W')) value = readWordArray(c);
  return value === undefined ? undefined : { value, end: c.pos };
}
