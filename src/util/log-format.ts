/**
 * pino's JSON lines as one readable line each, for a person watching a terminal:
 *
 *   08:35:12.345 INFO  listening on http://127.0.0.1:8228 url=http://127.0.0.1:8228 storage="SQLite at ./data"
 *
 * time (local, to the millisecond), level, message, then the other fields as key=value (nested objects with dotted
 * keys; a request and its answer as `req="GET /v2/images" status=200`; an error as its type and message and
 * the first frame of its stack). Values are quoted when they hold spaces, quotes or control characters, which are
 * escaped, so a message can never break the line. Every line is bounded (long values and the line itself are cut,
 * saying how much was left out), so a huge field costs the terminal one line. A line that is not pino's JSON is
 * shown as it is, bounded the same way.
 */

export interface LogFormatOptions {
  /** ANSI colour for the level (a terminal that wants it; never when NO_COLOR is set). */
  color?: boolean;
  /** Longest line written, newline excluded. */
  maxLineChars?: number;
  /** Longest value of one field. */
  maxValueChars?: number;
}

export const DEFAULT_MAX_LINE_CHARS = 4000;
const DEFAULT_MAX_VALUE_CHARS = 500;
/** Lines longer than this are not parsed at all: shown cut, like a line that is not JSON. */
const MAX_PARSED_CHARS = 1 << 20;
/** Fields shown per line and levels of nesting followed; what lies beyond is counted, not shown. */
const MAX_FIELDS = 60;
const MAX_DEPTH = 3;

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '\x1b[90m' },
  20: { name: 'DEBUG', color: '\x1b[36m' },
  30: { name: 'INFO', color: '\x1b[32m' },
  40: { name: 'WARN', color: '\x1b[33m' },
  50: { name: 'ERROR', color: '\x1b[31m' },
  60: { name: 'FATAL', color: '\x1b[35m' },
};
const RESET = '\x1b[0m';

/** Fields every line carries that say nothing to a person at the terminal of one process. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

/** Formats one serialized pino line (trailing newline optional) and answers it with a newline. */
export function formatLogLine(line: string, options: LogFormatOptions = {}): string {
  const maxLine = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const text = line.endsWith('\n') ? line.slice(0, -1) : line;
  const entry = text.length <= MAX_PARSED_CHARS ? parseEntry(text) : null;
  if (!entry) return `${cutEscaped(text, maxLine)}\n`;

  const maxValue = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  const level = LEVELS[entry.level as number] ?? { name: String(entry.level ?? '?').toUpperCase(), color: '' };
  const levelText = level.name.padEnd(5);
  const parts = [clock(entry.time), options.color && level.color ? `${level.color}${levelText}${RESET}` : levelText];
  if (typeof entry.msg === 'string' && entry.msg !== '') parts.push(cutEscaped(entry.msg, maxValue));

  const fields: string[] = [];
  let hidden = 0;
  const add = (key: string, value: unknown) => {
    if (fields.length < MAX_FIELDS) fields.push(`${key}=${renderValue(value, maxValue)}`);
    else hidden++;
  };
  for (const [key, value] of Object.entries(entry)) {
    if (OMITTED.has(key) || value === undefined) continue;
    if (key === 'req' && isObject(value)) add('req', `${String(value.method ?? '')} ${String(value.url ?? '')}`.trim());
    else if (key === 'res' && isObject(value)) add('status', value.statusCode);
    else if (key === 'err' && isObject(value)) addError(value, add);
    else flatten(key, value, 1, add);
  }
  if (hidden > 0) fields.push(`(${hidden} more fields)`);
  return `${cut([...parts, ...fields].join(' '), maxLine)}\n`;
}

function parseEntry(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Nested objects as dotted keys, down to MAX_DEPTH; deeper ones (and arrays) as compact JSON. */
function flatten(key: string, value: unknown, depth: number, add: (key: string, value: unknown) => void): void {
  if (!isObject(value) || depth >= MAX_DEPTH) return add(key, value);
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return add(key, value);
  for (const [k, v] of entries) flatten(`${key}.${k}`, v, depth + 1, add);
}

/** An error as `err="Type: message"` and where it was thrown (the stack's first frame), not the whole stack. */
function addError(err: Record<string, unknown>, add: (key: string, value: unknown) => void): void {
  const type = typeof err.type === 'string' ? err.type : 'Error';
  add('err', `${type}: ${String(err.message ?? '')}`);
  const frame = typeof err.stack === 'string' ? /\n\s*at (.+)/.exec(err.stack)?.[1] : undefined;
  if (frame) add('err.at', frame);
  for (const [k, v] of Object.entries(err)) if (!['type', 'message', 'stack'].includes(k) && v !== undefined) add(`err.${k}`, v);
}

function renderValue(value: unknown, maxChars: number): string {
  const raw = typeof value === 'string' ? value : stringifyBounded(value, maxChars);
  const shown = cut(raw, maxChars);
  // Bare when unambiguous; otherwise JSON-quoted, which also escapes quotes and control characters.
  return shown !== '' && /^[\w.,:/@+\-[\]{}()*#%&!?^~]+$/.test(shown) ? shown : JSON.stringify(shown);
}

/** JSON of a field, never longer than needed to show `maxChars` of it (an array of a million items is not walked). */
function stringifyBounded(value: unknown, maxChars: number): string {
  if (Array.isArray(value) && value.length > maxChars) return `[${value.length} items]`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** At most `maxChars`; a longer text is cut and says how long it was. */
function cut(text: string, maxChars: number, fullLength = text.length): string {
  if (text.length <= maxChars && fullLength === text.length) return text;
  const note = `… (cut: ${fullLength} characters)`;
  return text.slice(0, Math.max(0, maxChars - note.length)) + note;
}

/** Control characters escaped, then cut: only the part that can be shown is escaped (a huge text costs nothing). */
function cutEscaped(text: string, maxChars: number): string {
  return cut(escapeControls(text.length > maxChars ? text.slice(0, maxChars) : text), maxChars, text.length > maxChars ? text.length : undefined);
}

/** Control characters (newlines, escapes of a terminal) shown as escapes, so nothing in a value acts on the terminal. */
function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

function clock(time: unknown): string {
  if (typeof time !== 'number' || !Number.isFinite(time)) return '--:--:--.---';
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}
