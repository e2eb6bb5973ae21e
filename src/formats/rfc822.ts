/**
 * Email-header-style ("RFC 822") field blocks, as used by Python core metadata (METADATA, PKG-INFO).
 * Only the header block is read: the first empty line ends it and everything after is the body (for Python, the
 * long description), which is never looked at.
 */

/** Field values keyed by lower-cased field name (names are case-insensitive), repeated fields in file order. */
export type HeaderFields = Map<string, string[]>;

/** `Name: value`; field names are printable ASCII without colon or space (RFC 5322 §2.2). */
const FIELD_LINE = /^([!-9;-~]+):[ \t]*(.*)$/;
/** Continuation (folded) lines start with a blank. A line of blanks only is a continuation too, not the separator. */
const CONTINUATION = /^[ \t]/;

export function parseHeaderFields(text: string): HeaderFields {
  const fields: HeaderFields = new Map();
  let current: { key: string; lines: string[] } | undefined;
  const finish = (): void => {
    if (!current) return;
    // Folded lines keep their line breaks (minus the indentation): a multi-line value is visibly not a single token.
    const value = current.lines.join('\n').trim();
    const values = fields.get(current.key);
    if (values) values.push(value);
    else fields.set(current.key, [value]);
    current = undefined;
  };
  // Only the header block is split into lines: the body can be megabytes of README.
  const unmarked = text.replace(/^\uFEFF/, '');
  // The separator is an empty line (LF or CRLF). No `m` flag: JS would also split lines at a lone CR or U+2028.
  const separator = /(^|\n)\r?\n/.exec(unmarked);
  const header = separator ? unmarked.slice(0, separator.index + separator[1].length) : unmarked;
  for (const line of header.split(/\r?\n/)) {
    if (CONTINUATION.test(line)) {
      current?.lines.push(line.trim());
      continue;
    }
    finish();
    const match = FIELD_LINE.exec(line);
    // A line that is neither a field nor a continuation is malformed: it and its continuations are dropped.
    if (match) current = { key: match[1].toLowerCase(), lines: [match[2]] };
  }
  finish();
  return fields;
}

/** The first value of a field, or undefined when the field is absent or empty. */
export function firstField(fields: HeaderFields, name: string): string | undefined {
  const value = fields.get(name.toLowerCase())?.[0];
  return value ? value : undefined;
}

/** All non-empty values of a repeated field (Classifier, Requires-Dist, ...). */
export function allFields(fields: HeaderFields, name: string): string[] {
  return (fields.get(name.toLowerCase()) ?? []).filter((v) => v !== '');
}
