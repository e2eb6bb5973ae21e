/**
 * Result elements (nested as the GraphQL query selected them) as flat rows for a table and a CSV file: nested
 * objects become dotted columns, lists of values are joined, and a list of objects gives one row per item (so a
 * vulnerability with three tags is three rows, each repeating the vulnerability's fields).
 */
export type FlatRow = Record<string, string | number | boolean | null>;

/** Beyond this many rows from one element the rest are cut (a query selecting several nested lists multiplies). */
const MAX_ROWS_PER_ELEMENT = 10_000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function flattenValue(value: unknown, prefix: string): FlatRow[] {
  if (isPlainObject(value)) {
    let rows: FlatRow[] = [{}];
    for (const [key, child] of Object.entries(value)) {
      const childRows = flattenValue(child, prefix ? `${prefix}.${key}` : key);
      // The cross product of what the keys so far gave and what this key gives.
      const next: FlatRow[] = [];
      for (const row of rows) for (const childRow of childRows) if (next.length < MAX_ROWS_PER_ELEMENT) next.push({ ...row, ...childRow });
      rows = next;
    }
    return rows;
  }
  if (Array.isArray(value)) {
    if (value.every((v) => !isPlainObject(v) && !Array.isArray(v))) return [{ [prefix]: value.join('; ') }];
    // An empty list of objects still gives the row its parent's fields.
    if (value.length === 0) return [{}];
    return value.flatMap((item) => flattenValue(item, prefix)).slice(0, MAX_ROWS_PER_ELEMENT);
  }
  if (value === undefined) return [{}];
  return [{ [prefix]: value as string | number | boolean | null }];
}

export function flattenElements(elements: unknown[]): FlatRow[] {
  return elements.flatMap((element) => flattenValue(element, ''));
}

/** The columns of the rows, in first-seen order. */
export function columnsOf(rows: FlatRow[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) columns.add(key);
  return [...columns];
}

function csvCell(value: FlatRow[string] | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // A cell a spreadsheet would run as a formula is prefixed with a quote (CSV injection).
  const safe = typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(rows: FlatRow[]): string {
  const columns = columnsOf(rows);
  const lines = [columns.map(csvCell).join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
