/**
 * Rendering command results. `json` and `yaml` print the API's own answer unchanged (stable for scripts: the
 * fields are the API's, documented in its spec); `table` and `csv` print the columns a command chose. Colour
 * only on a terminal and never when NO_COLOR is set (https://no-color.org).
 */
import { styleText } from 'node:util';
import yaml from 'js-yaml';
import { CliError } from './exit-codes.js';
import type { Env } from './connection.js';

export const FORMATS = ['table', 'json', 'yaml', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export type Style = Parameters<typeof styleText>[0];

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** A colour for a cell, chosen from its text (tables on a terminal only). */
  style?: (text: string) => Style | undefined;
}

/** What a command answers: the API's answer as is, and the rows and columns a table or CSV shows of it. */
export interface View<T> {
  data: unknown;
  rows: T[];
  columns: Column<T>[];
}

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export function parseFormat(value: string): Format {
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new CliError(`error: unknown output format ${value} (one of ${FORMATS.join(', ')})`);
}

export function colourEnabled(stream: OutputStream, env: Env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Display width: one column per code point (good enough for the ASCII the API answers with). */
const width = (text: string) => [...text].length;

function cellsOf<T>(columns: Column<T>[], rows: T[]): string[][] {
  return rows.map((row) => columns.map((c) => cellText(c.value(row)).replace(/\s*\n\s*/g, ' ')));
}

function tableLines<T>(columns: Column<T>[], cells: string[][], widths: number[], colour: boolean, header: boolean): string {
  const paint = (text: string, style: Style | undefined) => (colour && style ? styleText(style, text, { validateStream: false }) : text);
  const line = (parts: string[], styles: (Style | undefined)[]) =>
    parts
      .map((p, i) => {
        // The last column is not padded, so lines carry no trailing blanks.
        const padded = i === parts.length - 1 ? p : p + ' '.repeat(Math.max(0, widths[i]! - width(p)));
        return paint(padded, styles[i]);
      })
      .join('  ')
      .trimEnd() + '\n';
  const head = header ? line(columns.map((c) => c.header.toUpperCase()), columns.map(() => 'bold' as Style)) : '';
  return head + cells.map((r) => line(r, columns.map((c, i) => c.style?.(r[i]!)))).join('');
}

export function renderTable<T>(view: View<T>, colour: boolean): string {
  const cells = cellsOf(view.columns, view.rows);
  const widths = view.columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i]!))));
  return tableLines(view.columns, cells, widths, colour, true);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLines = (rows: string[][]) => rows.map((r) => r.map(csvField).join(',') + '\r\n').join('');

export function renderCsv<T>(view: View<T>): string {
  return csvLines([view.columns.map((c) => c.header), ...view.rows.map((row) => view.columns.map((c) => cellText(c.value(row))))]);
}

export function render<T>(view: View<T>, format: Format, colour: boolean): string {
  switch (format) {
    case 'json':
      return JSON.stringify(view.data, null, 2) + '\n';
    case 'yaml':
      return yaml.dump(view.data, { lineWidth: -1, noRefs: true });
    case 'csv':
      return renderCsv(view);
    case 'table':
      return renderTable(view, colour);
  }
}

/**
 * Output for records that arrive over time (`events list --follow`), printed as each batch arrives: JSON as one
 * compact object per line (JSON Lines), YAML as one document per record, CSV and tables with one header row;
 * table columns keep the widest cell seen so far, so they only ever widen.
 */
export function rowStream<T>(columns: Column<T>[], format: Format, colour: boolean, write: (text: string) => void): (batch: { data: unknown; row: T }[]) => void {
  let started = false;
  let widths = columns.map((c) => width(c.header));
  return (batch) => {
    if (batch.length === 0) return;
    const first = !started;
    started = true;
    if (format === 'json') return write(batch.map((b) => JSON.stringify(b.data) + '\n').join(''));
    if (format === 'yaml') return write(batch.map((b) => '---\n' + yaml.dump(b.data, { lineWidth: -1, noRefs: true })).join(''));
    const rows = batch.map((b) => b.row);
    if (format === 'csv') return write(csvLines([...(first ? [columns.map((c) => c.header)] : []), ...rows.map((row) => columns.map((c) => cellText(c.value(row))))]));
    const cells = cellsOf(columns, rows);
    widths = widths.map((w, i) => Math.max(w, ...cells.map((r) => width(r[i]!))));
    write(tableLines(columns, cells, widths, colour, first));
  };
}

/** A single record as a two-column FIELD/VALUE table. */
export function fieldsView(data: unknown, fields: [string, unknown][]): View<[string, unknown]> {
  return {
    data,
    rows: fields,
    columns: [
      { header: 'field', value: (r) => r[0] },
      { header: 'value', value: (r) => r[1], style: statusStyle },
    ],
  };
}

const STATUS_STYLES: Record<string, Style> = {
  pass: 'green',
  analyzed: 'green',
  active: 'green',
  ok: 'green',
  done: 'green',
  fail: 'red',
  analysis_failed: 'red',
  failed: 'red',
  down: 'red',
  analyzing: 'yellow',
  not_analyzed: 'yellow',
  warn: 'yellow',
  stop: 'red',
  go: 'green',
};

export function statusStyle(text: string): Style | undefined {
  return STATUS_STYLES[text];
}
