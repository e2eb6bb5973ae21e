/**
 * Reads FIRST.org EPSS scores (https://www.first.org/epss/data_stats): a CSV of `cve,epss,percentile` rows after an
 * optional `#model_version:...,score_date:...` comment, plain or gzip-compressed. The daily file has ~300k rows, so
 * it is streamed a line at a time (gzip recognised as feed-stream.ts does). A row that is not a CVE with two
 * probabilities is skipped and counted; a missing column, an empty file or corrupt gzip data throws, since a partial
 * score set must not pass for a full one.
 */
import type { Readable } from 'node:stream';
import type { OsvReadError, OsvReadStats } from '../osv/archive.js';
import { FeedFormatError } from './errors.js';
import { isZlibError, openFeedBytes } from './feed-stream.js';

export interface EpssEntry {
  cveId: string;
  /** Probability of exploitation activity in the next 30 days, 0..1. */
  epss: number;
  /** Rank of this score among all scored CVEs, 0..1. */
  percentile: number;
}

export interface EpssMeta {
  /** `v2025.03.14`, from the leading comment line. */
  modelVersion?: string;
  /** RFC 3339 time the scores were computed for, from the leading comment line. */
  scoreDate?: string;
}

/** `entries` can be iterated once; `meta` is filled once the header was read, `stats` is final when the iteration ends. */
export interface EpssReadResult {
  meta: EpssMeta;
  entries: AsyncIterable<EpssEntry>;
  stats: OsvReadStats;
}

const MAX_ERRORS = 100;
const MAX_LINE_CHARS = 1 << 16;
const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
/** A plain decimal; Number() alone would also take '', '0x1', 'Infinity' and whitespace. */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const REQUIRED_COLUMNS = ['cve', 'epss', 'percentile'] as const;

type Columns = Record<(typeof REQUIRED_COLUMNS)[number], number>;

/** Streams the scores of a CSV file, plain or gzip. Failures of the file itself surface while iterating. */
export function readEpssCsv(path: string): EpssReadResult {
  const meta: EpssMeta = {};
  const stats: OsvReadStats = { read: 0, skipped: 0, errors: [] };
  return { meta, stats, entries: entriesOf(path, meta, stats) };
}

async function* entriesOf(path: string, meta: EpssMeta, stats: OsvReadStats): AsyncGenerator<EpssEntry> {
  const lines = linesOf(await openFeedBytes(path), path);
  const preamble = await readPreamble(lines, meta, path);
  let lineNo = preamble.lines;
  for await (const line of lines) {
    lineNo += 1;
    if (line.trim() === '') continue;
    const entry = parseRow(line, preamble.columns);
    if (typeof entry === 'string') {
      stats.skipped += 1;
      if (stats.errors.length < MAX_ERRORS) stats.errors.push({ source: `${path}:${lineNo}`, message: entry });
      continue;
    }
    stats.read += 1;
    yield entry;
  }
}

/** Lines without their terminator, decoded as UTF-8 a chunk at a time; a damaged gzip stream is a FeedFormatError. */
async function* linesOf(stream: Readable, path: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      pending += decoder.decode(chunk, { stream: true });
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      // Rows are ~40 bytes: a runaway "line" means this is not the CSV, and must not grow without bound.
      if (pending.length > MAX_LINE_CHARS) throw new FeedFormatError('epss', `a line is longer than ${MAX_LINE_CHARS} characters: not an EPSS CSV`, path);
      for (const part of parts) yield stripCr(part);
    }
  } catch (err) {
    throw isZlibError(err) ? new FeedFormatError('epss', `corrupt or truncated gzip data: ${(err as Error).message}`, path) : err;
  } finally {
    stream.destroy();
  }
  pending += decoder.decode();
  if (pending !== '') yield stripCr(pending);
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Consumes the optional comment line and the header: where each required column is, and how many lines that took. */
async function readPreamble(lines: AsyncGenerator<string>, meta: EpssMeta, path: string): Promise<{ columns: Columns; lines: number }> {
  // A byte-order mark is not part of the first line's text, but spreadsheet exports write one.
  let next = await lines.next();
  let line = next.done ? undefined : next.value.replace(/^\uFEFF/, '');
  let count = 1;
  if (line?.startsWith('#')) {
    Object.assign(meta, parseComment(line));
    next = await lines.next();
    line = next.done ? undefined : next.value;
    count += 1;
  }
  if (line === undefined) throw new FeedFormatError('epss', 'no header line (empty file)', path);
  return { columns: headerColumns(line, path), lines: count };
}

/** `#model_version:v2025.03.14,score_date:2025-11-20T12:55:00Z`: comma-separated key:value pairs (values hold colons). */
function parseComment(line: string): EpssMeta {
  const meta: EpssMeta = {};
  for (const pair of line.slice(1).split(',')) {
    const colon = pair.indexOf(':');
    if (colon < 0) continue;
    const key = pair.slice(0, colon).trim().toLowerCase();
    const value = pair.slice(colon + 1).trim();
    if (value === '') continue;
    if (key === 'model_version') meta.modelVersion = value;
    else if (key === 'score_date') meta.scoreDate = value;
  }
  return meta;
}

function headerColumns(line: string, path: string): Columns {
  const names = line.split(',').map((name) => name.trim().toLowerCase());
  const missing = REQUIRED_COLUMNS.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new FeedFormatError('epss', `header ${JSON.stringify(line.slice(0, 100))} lacks column(s) ${missing.join(', ')}`, path);
  }
  return { cve: names.indexOf('cve'), epss: names.indexOf('epss'), percentile: names.indexOf('percentile') };
}

/** The entry, or the reason the row was skipped. */
function parseRow(line: string, columns: Columns): EpssEntry | string {
  const fields = line.split(',');
  const cveId = fields[columns.cve]?.trim().toUpperCase() ?? '';
  if (!CVE_ID.test(cveId)) return `not a CVE id: ${JSON.stringify(cveId.slice(0, 40))}`;
  const epss = probability(fields[columns.epss]);
  if (epss === undefined) return `${cveId}: epss is not a number in [0, 1]: ${JSON.stringify((fields[columns.epss] ?? '').slice(0, 40))}`;
  const percentile = probability(fields[columns.percentile]);
  if (percentile === undefined) {
    return `${cveId}: percentile is not a number in [0, 1]: ${JSON.stringify((fields[columns.percentile] ?? '').slice(0, 40))}`;
  }
  return { cveId, epss, percentile };
}

function probability(field: string | undefined): number | undefined {
  const text = field?.trim() ?? '';
  if (!DECIMAL.test(text)) return undefined;
  const value = Number(text);
  return value >= 0 && value <= 1 ? value : undefined;
}
