/**
 * Reads OSV records from the places feeds publish them: an ecosystem's `all.zip`, a directory tree of `*.json`
 * files (a git checkout of an advisory database), or one JSON file; any of these documents may hold one record or
 * an array of them. Records are yielded one at a time so a feed of hundreds of thousands of advisories never sits
 * in memory as parsed JSON, and a large document (a single-entry archive, a big array file) is split into records
 * as it streams, never held whole: memory is bounded by the record size limit, not by the source. A malformed or
 * oversized record is skipped and counted (with the first few reasons kept) rather than failing the whole feed.
 * Failures of the source itself (not a zip, truncated archive, broken document structure, unreadable path) are
 * thrown, since a partial feed must not pass for a complete one.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OsvRecordError } from './errors.js';
import { splitJsonDocument } from './json-split.js';
import { parseOsvRecord } from './record.js';
import type { OsvRecord } from './types.js';
import { zipEntries } from '../../formats/zip.js';

export interface OsvReadError {
  /** Archive entry name, file path, or `path[index]` for an element of a JSON array file. */
  source: string;
  message: string;
  /** The record field at fault, when the record parsed as JSON but failed validation. */
  field?: string;
}

export interface OsvReadStats {
  /** Records yielded. */
  read: number;
  /** Entries that were not valid UTF-8 JSON or not a valid OSV record. */
  skipped: number;
  /** Why entries were skipped, up to `maxErrors` of them. */
  errors: OsvReadError[];
  /** The OSV readers: the largest buffer held of the source at once (a read window, a document, a record), in bytes. */
  largestBuffer?: number;
}

/** `records` can be iterated once; `stats` fills in as it is consumed and is final once the iteration ends. */
export interface OsvReadResult {
  records: AsyncIterable<OsvRecord>;
  stats: OsvReadStats;
}

export interface OsvReadOptions {
  /** How many skip reasons to keep; the count in `skipped` is always complete. Default 100. */
  maxErrors?: number;
  /** A record larger than this (its JSON, in bytes) is skipped. Default 16 MiB, as VIGIL_FEED_MAX_RECORD_BYTES. */
  maxRecordBytes?: number;
}

const DEFAULT_MAX_ERRORS = 100;
const DEFAULT_MAX_RECORD_BYTES = 16 << 20;
/** Documents (archive entries, files) up to this size are read whole; larger ones are split as they stream. */
const WHOLE_DOCUMENT_BYTES = 1 << 20;
const FILE_READ_BYTES = 1 << 20;

/** Records of a zip archive (OSV's per-ecosystem `all.zip`), given as bytes or a file path. Non-JSON entries are ignored. */
export function readOsvArchive(zip: Uint8Array | string, options: OsvReadOptions = {}): OsvReadResult {
  return withTally(options, (tally) => zipRecords(zip, tally));
}

/** Records of every `*.json` file below a directory, in a stable (sorted) order. */
export function readOsvDirectory(dir: string, options: OsvReadOptions = {}): OsvReadResult {
  return withTally(options, (tally) => directoryRecords(dir, tally));
}

/** Records of one JSON file holding a record, or an array of records. */
export function readOsvFile(path: string, options: OsvReadOptions = {}): OsvReadResult {
  return withTally(options, (tally) => fileRecords(path, tally));
}

/** Picks the reader by what the path is: a directory, a `.zip` archive, or a JSON file. */
export function readOsvPath(path: string, options: OsvReadOptions = {}): OsvReadResult {
  return withTally(options, async function* (tally) {
    if ((await stat(path)).isDirectory()) yield* directoryRecords(path, tally);
    else if (path.toLowerCase().endsWith('.zip')) yield* zipRecords(path, tally);
    else yield* fileRecords(path, tally);
  });
}

/** Counts what one read produced and turns documents into records or skip reasons. */
class Tally {
  readonly stats: OsvReadStats = { read: 0, skipped: 0, errors: [], largestBuffer: 0 };
  readonly wholeDocumentBytes: number;
  readonly noteBuffer = (bytes: number): void => {
    if (bytes > (this.stats.largestBuffer ?? 0)) this.stats.largestBuffer = bytes;
  };
  constructor(
    private readonly maxErrors: number,
    readonly maxRecordBytes: number,
  ) {
    this.wholeDocumentBytes = Math.min(WHOLE_DOCUMENT_BYTES, maxRecordBytes);
  }

  /** The records of a document held whole: one record, or an array of them. */
  *fromDocument(bytes: Uint8Array, source: string): Generator<OsvRecord> {
    this.noteBuffer(bytes.length);
    const json = this.parseJson(bytes, source);
    if (json === undefined) return;
    if (!Array.isArray(json.value)) {
      const record = this.fromJson(json.value, source);
      if (record) yield record;
      return;
    }
    for (const [i, item] of json.value.entries()) {
      const record = this.fromJson(item, `${source}[${i}]`);
      if (record) yield record;
    }
  }

  /** The records of a document read piece by piece: split into values, each parsed on its own. */
  async *fromStream(chunks: AsyncIterable<Uint8Array>, source: string): AsyncGenerator<OsvRecord> {
    for await (const piece of splitJsonDocument(chunks, source, { maxValueBytes: this.maxRecordBytes, onBuffer: this.noteBuffer })) {
      const name = piece.index === undefined ? source : `${source}[${piece.index}]`;
      if ('oversized' in piece) {
        this.skip(name, `record of ${piece.oversized} bytes is larger than the limit of ${this.maxRecordBytes}`);
        continue;
      }
      const record = this.fromBytes(piece.bytes, name);
      if (record) yield record;
    }
  }

  /** The record in these bytes, or undefined after counting why there is none. */
  fromBytes(bytes: Uint8Array, source: string): OsvRecord | undefined {
    const json = this.parseJson(bytes, source);
    return json === undefined ? undefined : this.fromJson(json.value, source);
  }

  fromJson(value: unknown, source: string): OsvRecord | undefined {
    try {
      const record = parseOsvRecord(value);
      this.stats.read += 1;
      return record;
    } catch (err) {
      if (!(err instanceof OsvRecordError)) throw err;
      this.skip(source, err.message, err.field);
      return undefined;
    }
  }

  parseJson(bytes: Uint8Array, source: string): { value: unknown } | undefined {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      this.skip(source, 'not valid UTF-8');
      return undefined;
    }
    try {
      return { value: JSON.parse(text) as unknown };
    } catch (err) {
      this.skip(source, `invalid JSON: ${(err as Error).message}`);
      return undefined;
    }
  }

  skip(source: string, message: string, field?: string): void {
    this.stats.skipped += 1;
    if (this.stats.errors.length < this.maxErrors) this.stats.errors.push({ source, message, ...(field ? { field } : {}) });
  }
}

function withTally(options: OsvReadOptions, produce: (tally: Tally) => AsyncGenerator<OsvRecord>): OsvReadResult {
  const tally = new Tally(options.maxErrors ?? DEFAULT_MAX_ERRORS, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES);
  // A generator does nothing until first pulled, and can be consumed once, so the stats describe one pass.
  return { records: produce(tally), stats: tally.stats };
}

async function* zipRecords(zip: Uint8Array | string, tally: Tally): AsyncGenerator<OsvRecord> {
  const entries = zipEntries(zip, (name) => name.toLowerCase().endsWith('.json'), { wholeEntryBytes: tally.wholeDocumentBytes, onBuffer: tally.noteBuffer });
  for await (const entry of entries) {
    if ('error' in entry) tally.skip(entry.name, entry.error);
    else if ('stream' in entry) yield* tally.fromStream(entry.stream, entry.name);
    else yield* tally.fromDocument(entry.bytes, entry.name);
  }
}

async function* directoryRecords(dir: string, tally: Tally): AsyncGenerator<OsvRecord> {
  for await (const path of jsonFilesBelow(dir)) yield* fileRecords(path, tally);
}

/** `*.json` files below dir, depth first in name order. Symlinked directories are not entered, so a loop cannot trap the walk. */
async function* jsonFilesBelow(dir: string): AsyncGenerator<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFilesBelow(path);
    else if (entry.name.toLowerCase().endsWith('.json') && (entry.isFile() || (entry.isSymbolicLink() && (await stat(path)).isFile()))) {
      yield path;
    }
  }
}

async function* fileRecords(path: string, tally: Tally): AsyncGenerator<OsvRecord> {
  if ((await stat(path)).size <= tally.wholeDocumentBytes) yield* tally.fromDocument(await readFile(path), path);
  else yield* tally.fromStream(createReadStream(path, { highWaterMark: FILE_READ_BYTES }), path);
}
