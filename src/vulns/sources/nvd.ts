/**
 * Reads NVD's CVSS scores from an NVD API 2.0 / JSON 2.0 feed file (`nvdcve-2.0-<year>.json[.gz]`, or a saved API
 * answer): `{..., "format": "NVD_CVE", "vulnerabilities": [{"cve": {"id", "metrics": {"cvssMetricV31": [...],
 * "cvssMetricV30": [...], "cvssMetricV2": [...]}}}]}`. A yearly file is hundreds of MB of JSON, so it is streamed:
 * the small head of the top-level object is scanned up to the `vulnerabilities` array, whose elements are split
 * one at a time by the OSV reader's splitter (memory bounded by the largest element, never the file) and parsed
 * one by one, so no single step holds the event loop for long. Only CVSS is kept: per CVE the best v3 metric (NVD's
 * Primary over a CNA's Secondary, v3.1 over v3.0) and the best v2 one; the preferred of them gives the severity.
 * A CVE without usable metrics (awaiting analysis, rejected) is counted and carries nothing. An element that is not
 * a CVE is skipped and counted; a file that is not an NVD feed, ends early or has corrupt gzip data throws
 * FeedFormatError, since a partial score set must not pass for a full one.
 */
import type { Readable } from 'node:stream';
import { InvalidError } from '../../errors.js';
import { parseCvss, qualitativeSeverity, v2Severity } from '../cvss/index.js';
import type { OsvReadStats } from '../osv/archive.js';
import { splitJsonDocument } from '../osv/json-split.js';
import { FeedFormatError } from './errors.js';
import { isZlibError, openFeedBytes } from './feed-stream.js';

export type NvdMetricType = 'Primary' | 'Secondary';
export type NvdSeverity = 'Negligible' | 'Low' | 'Medium' | 'High' | 'Critical';

export interface NvdMetric {
  /** Primary: NVD's own analysis; Secondary: another source's (a CNA), as NVD lists it. */
  type: NvdMetricType;
  /** Who scored it: `nvd@nist.gov`, a CNA's address or id. */
  source: string;
  version: '2.0' | '3.0' | '3.1';
  vector: string;
  baseScore: number;
  exploitabilityScore: number | null;
  impactScore: number | null;
}

export interface NvdEntry {
  cveId: string;
  v3?: NvdMetric;
  v2?: NvdMetric;
  /** The rating of the preferred metric: Primary v3.1, v3.0, v2, then the Secondary ones in that order. */
  severity: NvdSeverity;
}

export interface NvdMeta {
  /** `NVD_CVE` in NVD's files. */
  format?: string;
  /** The feed format's version, `2.0`. */
  version?: string;
  /** When NVD generated the file. */
  timestamp?: string;
}

export interface NvdReadStats extends OsvReadStats {
  /** CVEs read that carry no usable CVSS metric. */
  unscored: number;
}

/** `entries` can be iterated once; `meta` is filled once the head was read, `stats` is final when the iteration ends. */
export interface NvdReadResult {
  meta: NvdMeta;
  entries: AsyncIterable<NvdEntry>;
  stats: NvdReadStats;
}

export interface NvdReadOptions {
  /** The largest `vulnerabilities` element parsed; a larger one is skipped and counted. */
  maxRecordBytes: number;
}

const MAX_ERRORS = 100;
/** NVD's head (counts, format, version, timestamp) is a few hundred bytes; past this it is not an NVD feed. */
const MAX_HEAD_BYTES = 1 << 20;
/** Whitespace held back at the end while looking for the object's closing brace. */
const MAX_TRAILING_SPACE = 1 << 20;
const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const METRIC_KEYS = [
  ['cvssMetricV31', '3.1'],
  ['cvssMetricV30', '3.0'],
  ['cvssMetricV2', '2.0'],
] as const;

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Streams the CVSS of an NVD 2.0 feed file, plain or gzip. Failures of the file itself surface while iterating. */
export function readNvdFeed(path: string, options: NvdReadOptions): NvdReadResult {
  const meta: NvdMeta = {};
  const stats: NvdReadStats = { read: 0, skipped: 0, unscored: 0, errors: [] };
  return { meta, stats, entries: entriesOf(path, options, meta, stats) };
}

async function* entriesOf(path: string, options: NvdReadOptions, meta: NvdMeta, stats: NvdReadStats): AsyncGenerator<NvdEntry> {
  const skip = (where: string, message: string) => {
    stats.skipped += 1;
    if (stats.errors.length < MAX_ERRORS) stats.errors.push({ source: `${path}: ${where}`, message });
  };
  const bytes = await openFeedBytes(path);
  try {
    const elements = splitJsonDocument(vulnerabilitiesArray(bytes, path, meta), path, { maxValueBytes: options.maxRecordBytes });
    for await (const piece of elements) {
      const where = `vulnerabilities[${piece.index ?? 0}]`;
      if ('oversized' in piece) {
        skip(where, `${piece.oversized} bytes, more than the limit of ${options.maxRecordBytes}`);
        continue;
      }
      let item: unknown;
      try {
        item = JSON.parse(Buffer.from(piece.bytes.buffer, piece.bytes.byteOffset, piece.bytes.byteLength).toString('utf8'));
      } catch (err) {
        skip(where, `invalid JSON: ${(err as Error).message}`);
        continue;
      }
      const entry = parseItem(item, (message) => skip(where, message));
      if (entry === 'skipped') continue;
      stats.read += 1;
      if (entry === undefined) stats.unscored += 1;
      else yield entry;
    }
  } catch (err) {
    if (isZlibError(err)) throw new FeedFormatError('nvd', `corrupt or truncated gzip data: ${(err as Error).message}`, path);
    // The splitter names the file in its message already.
    if (err instanceof InvalidError) throw new FeedFormatError('nvd', err.message.replace(`${path}: `, ''), path);
    throw err;
  } finally {
    bytes.destroy();
  }
}

/** The entry, undefined for a CVE without usable metrics, or 'skipped' (reported through `skip`). */
function parseItem(item: unknown, skip: (message: string) => void): NvdEntry | undefined | 'skipped' {
  const cve = isJsonObject(item) ? item.cve : undefined;
  if (!isJsonObject(cve)) {
    skip('expected an object with a "cve" object');
    return 'skipped';
  }
  const cveId = typeof cve.id === 'string' ? cve.id.trim().toUpperCase() : '';
  if (!CVE_ID.test(cveId)) {
    skip(`cve.id: expected a CVE id (CVE-YYYY-NNNN), got ${show(cve.id)}`);
    return 'skipped';
  }
  const metrics = isJsonObject(cve.metrics) ? cve.metrics : {};
  const found: NvdMetric[] = [];
  for (const [key, version] of METRIC_KEYS) {
    const list = metrics[key];
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const metric = parseMetric(raw, version);
      if (metric) found.push(metric);
    }
  }
  const ranked = found.sort(byPreference);
  const preferred = ranked[0];
  if (!preferred) return undefined;
  const v3 = ranked.find((m) => m.version !== '2.0');
  const v2 = ranked.find((m) => m.version === '2.0');
  return { cveId, ...(v3 ? { v3 } : {}), ...(v2 ? { v2 } : {}), severity: severityOf(preferred) };
}

const VERSION_RANK = { '3.1': 0, '3.0': 1, '2.0': 2 } as const;

/** Primary before Secondary, then v3.1, v3.0, v2; the order in the file otherwise (the sort is stable). */
function byPreference(a: NvdMetric, b: NvdMetric): number {
  return (a.type === b.type ? 0 : a.type === 'Primary' ? -1 : 1) || VERSION_RANK[a.version] - VERSION_RANK[b.version];
}

/**
 * A metric with a vector that parses as its version and a base score in [0, 10]; anything else is left out, since
 * a score nobody can check must not set a severity. NVD's own scores are kept as written.
 */
function parseMetric(raw: unknown, version: NvdMetric['version']): NvdMetric | undefined {
  if (!isJsonObject(raw) || !isJsonObject(raw.cvssData)) return undefined;
  const type = raw.type === 'Primary' || raw.type === 'Secondary' ? raw.type : undefined;
  const vector = typeof raw.cvssData.vectorString === 'string' ? raw.cvssData.vectorString.trim() : '';
  const baseScore = raw.cvssData.baseScore;
  if (!type || typeof baseScore !== 'number' || !(baseScore >= 0 && baseScore <= 10)) return undefined;
  try {
    if (parseCvss(vector).version !== version) return undefined;
  } catch {
    return undefined;
  }
  return {
    type,
    source: typeof raw.source === 'string' && raw.source.trim() !== '' ? raw.source.trim() : 'nvd@nist.gov',
    version,
    vector,
    baseScore,
    exploitabilityScore: subscore(raw.exploitabilityScore),
    impactScore: subscore(raw.impactScore),
  };
}

function subscore(value: unknown): number | null {
  return typeof value === 'number' && value >= 0 && value <= 10 ? value : null;
}

/** The rating of the score on its version's scale; a v3 score of 0 (no impact) reads as Negligible. */
function severityOf(metric: NvdMetric): NvdSeverity {
  const rating = metric.version === '2.0' ? v2Severity(metric.baseScore) : qualitativeSeverity(metric.baseScore);
  return rating === 'None' ? 'Negligible' : rating;
}

function show(value: unknown): string {
  const shown = JSON.stringify(value ?? null);
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

/**
 * The bytes of the top-level `vulnerabilities` array, from its `[` to its `]` (and any space after it): the head
 * before it is scanned here (its `format`, `version` and `timestamp` go to `meta`), the closing `}` of the object
 * is checked and dropped at the end. NVD writes `vulnerabilities` last; members after it are not supported (the
 * splitter reports them as text after the array).
 */
async function* vulnerabilitiesArray(stream: Readable, path: string, meta: NvdMeta): AsyncGenerator<Uint8Array> {
  const fail = (message: string) => new FeedFormatError('nvd', message, path);
  let head: Buffer | undefined = Buffer.alloc(0);
  /** From the last byte that is not space to the end of what was read: held back until more arrives. */
  let held: Buffer = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let rest = chunk;
    if (head !== undefined) {
      head = Buffer.concat([head, chunk]);
      const found = scanHead(head, meta);
      if (typeof found === 'string') throw fail(found);
      if (found === undefined) {
        if (head.length > MAX_HEAD_BYTES) throw fail(`no "vulnerabilities" array in the first ${MAX_HEAD_BYTES} bytes: not an NVD 2.0 feed`);
        continue;
      }
      rest = head.subarray(found);
      head = undefined;
    }
    const last = lastNonSpace(rest);
    if (last < 0) {
      held = Buffer.concat([held, rest]);
      if (held.length > MAX_TRAILING_SPACE) throw fail(`more than ${MAX_TRAILING_SPACE} bytes of white space in a row`);
      continue;
    }
    if (held.length) yield held;
    if (last > 0) yield rest.subarray(0, last);
    held = Buffer.from(rest.subarray(last));
  }
  if (head !== undefined) throw fail(head.length === 0 ? 'the file is empty' : 'the file ends before its "vulnerabilities" array: not an NVD 2.0 feed');
  if (held[0] !== 0x7d) throw fail('the file ends before the closing "}" of its top-level object (truncated?)');
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function lastNonSpace(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0; i--) if (!isSpace(bytes[i])) return i;
  return -1;
}

/**
 * Where the `[` of the top-level `vulnerabilities` array is in `head`, undefined when more bytes are needed, or what
 * is wrong. The members before it are skipped (nested values by depth, strings with their escapes); the string
 * values of `format`, `version` and `timestamp` are kept in `meta`.
 */
function scanHead(head: Buffer, meta: NvdMeta): number | string | undefined {
  let i = 0;
  const space = () => {
    while (isSpace(head[i])) i++;
  };
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  space();
  if (i >= head.length) return undefined;
  if (head[i] !== 0x7b) return 'not an NVD 2.0 feed: expected a JSON object';
  i++;
  for (;;) {
    space();
    if (i >= head.length) return undefined;
    if (head[i] === 0x7d) return 'not an NVD 2.0 feed: the object has no "vulnerabilities" array';
    if (head[i] !== 0x22) return `not an NVD 2.0 feed: unexpected ${show(String.fromCharCode(head[i]!))} where a member name should be`;
    const keyEnd = stringEnd(head, i);
    if (keyEnd === undefined) return undefined;
    const key = decodeString(head, i, keyEnd);
    i = keyEnd;
    space();
    if (i >= head.length) return undefined;
    if (head[i] !== 0x3a) return `not an NVD 2.0 feed: no ":" after ${show(key)}`;
    i++;
    space();
    if (i >= head.length) return undefined;
    if (key === 'vulnerabilities') return head[i] === 0x5b ? i : 'not an NVD 2.0 feed: "vulnerabilities" is not an array';
    const valueEnd = head[i] === 0x22 ? stringEnd(head, i) : head[i] === 0x7b || head[i] === 0x5b ? nestedEnd(head, i) : scalarEnd(head, i);
    if (valueEnd === undefined) return undefined;
    if (head[i] === 0x22 && (key === 'format' || key === 'version' || key === 'timestamp')) meta[key] = decodeString(head, i, valueEnd);
    if (key === 'format' && meta.format !== undefined && meta.format !== 'NVD_CVE') return `not an NVD CVE feed: its format is ${show(meta.format)}`;
    i = valueEnd;
    space();
    if (i >= head.length) return undefined;
    if (head[i] === 0x2c) i++;
    else if (head[i] !== 0x7d) return `not an NVD 2.0 feed: unexpected ${show(String.fromCharCode(head[i]!))} after the value of ${show(key)}`;
  }
}

/** The index after the closing quote of the string opening at `start`, or undefined when it is not complete. */
function stringEnd(bytes: Buffer, start: number): number | undefined {
  for (let i = start + 1; i < bytes.length; i++) {
    if (bytes[i] === 0x5c) i++;
    else if (bytes[i] === 0x22) return i + 1;
  }
  return undefined;
}

/** The index after the object or array opening at `start`, or undefined when it is not complete. */
function nestedEnd(bytes: Buffer, start: number): number | undefined {
  let depth = 0;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      const end = stringEnd(bytes, i);
      if (end === undefined) return undefined;
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

/** The index after a number, true, false or null starting at `start`, or undefined when its end is not read yet. */
function scalarEnd(bytes: Buffer, start: number): number | undefined {
  for (let i = start; i < bytes.length; i++) if (bytes[i] === 0x2c || bytes[i] === 0x7d || isSpace(bytes[i])) return i;
  return undefined;
}

function decodeString(bytes: Buffer, start: number, end: number): string {
  try {
    return JSON.parse(bytes.subarray(start, end).toString('utf8')) as string;
  } catch {
    return bytes.subarray(start + 1, end - 1).toString('utf8');
  }
}
