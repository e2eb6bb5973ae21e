/**
 * Feed records made ready to write. `packRecords` turns parsed records into a packed batch: each record's JSON as
 * UTF-8 bytes, already in its plain stored form (records.ts), in one buffer for the whole batch, and its other
 * columns and index entries as strings. It runs in the feed reader thread (feed-reader-worker.ts), which posts the
 * buffer by transfer (no copy) and the strings by structured clone; the thread that writes (`unpackBatch`) views
 * each record's bytes in place, digests them (`recordDigest`) and binds them as the stored form of the records
 * that changed (`stagedRecord`). So the JSON, most of a record, is never a string on the writing thread and is
 * never copied between threads; bench:match measured the two threads' CPU time down by that.
 *
 * Sources read on the main thread (Alpine secdb, records handed to syncFeedRecords) are packed and unpacked there,
 * through `serialiseInProcess`: one implementation, whichever thread does the reading. Nothing here touches the
 * database.
 */
import type { OsvReadResult, OsvReadStats } from './osv/archive.js';
import type { OsvRecord } from './osv/types.js';
import { normalizePackageName } from '../ecosystems/registry.js';
import { contentJsonUnlessCanonical, feedGroupName, PLAIN_FORMAT, plainRecordDigest, storedForm } from './records.js';

export type StagedValue = string | Buffer | null;

/**
 * A record in the form it is staged in: its row, in feed-staging's RECORD_COLUMNS order without the first and
 * last (feed and updated_at, the same for a whole sync); and its index entries, each in AFFECTED_COLUMNS order
 * without the first (feed).
 */
export interface StagedRecord {
  row: StagedValue[];
  affected: (string | null)[][];
}

/** A parsed record made ready to write: what a packed batch holds per record. */
export interface SerialisedRecord {
  id: string;
  modified: string;
  /** The plain stored form: PLAIN_FORMAT, then the record's JSON as UTF-8 (a view into its batch's buffer). */
  plain: Buffer;
  /** What the content digest is taken over, when it is not the JSON without `modified` (records.ts). */
  contentJson: string | null;
  /** published, withdrawn, summary, severity_label, severity and aliases (JSON), as the row holds them. */
  columns: (string | null)[];
  affected: (string | null)[][];
}

/** Records of a source in batches, and the reader's counts (final once the batches end). */
export interface SerialisedSource {
  batches: AsyncIterable<SerialisedRecord[]>;
  stats: OsvReadStats;
  /** Whether the next batch has already arrived (sources read in another thread); undefined when unknown. */
  batchWaiting?(): boolean;
}

/** Records per batch: one message from the reader thread. Small, so the staging thread waits little for the first one and the last. */
export const SERIALISED_BATCH_RECORDS = 250;

/**
 * A batch as the reader thread posts it. The strings are in one flat list: cloning 250 small objects cost the two
 * threads about twice as much as cloning one list, and made garbage on both sides.
 */
export interface PackedBatch {
  /** Per record: id, modified, contentJson, the columns, then each index entry's values. */
  values: (string | null)[];
  /** Per record: the number of columns, of index entries, and each entry's number of values. */
  counts: number[];
  /** Every record's plain stored form, one after another: posted by transfer. */
  bytes: ArrayBuffer;
  /** Per record: where its plain stored form ends in `bytes`. */
  ends: number[];
}

/** The strings of one record: its row's columns, and its index entries with their JSON. */
function recordStrings(r: OsvRecord): { columns: (string | null)[]; entries: string[]; affected: (string | null)[][] } {
  const columns = [
    r.published ?? null,
    r.withdrawn ?? null,
    r.summary ?? null,
    r.severityLabel ?? null,
    JSON.stringify(r.severity),
    JSON.stringify(r.aliases),
  ];
  // Each affected entry is serialised once: for its index entry and, spliced in, for the record's JSON.
  const entries = r.affected.map((a) => JSON.stringify(a));
  // A withdrawn record gets no index entries, so the matcher never needs to look at the record.
  const affected: (string | null)[][] = [];
  if (r.withdrawn === undefined) {
    r.affected.forEach((a, i) => {
      if (!a.package) return;
      const ecosystem = a.package.ecosystem.ecosystem.toLowerCase();
      const release = a.package.ecosystem.release ?? null;
      affected.push([r.id, feedGroupName(ecosystem, release), ecosystem, release, normalizePackageName(ecosystem, a.package.name), entries[i]!]);
    });
  }
  return { columns, entries, affected };
}

export function packRecords(records: readonly OsvRecord[]): PackedBatch {
  const values: (string | null)[] = [];
  const counts: number[] = [];
  const bytes = new ByteWriter(records.length * 2048);
  const ends: number[] = [];
  for (const r of records) {
    const { columns, entries, affected } = recordStrings(r);
    values.push(r.id, r.modified, contentJsonUnlessCanonical(r) ?? null, ...columns);
    counts.push(columns.length, affected.length);
    for (const entry of affected) {
      counts.push(entry.length);
      values.push(...entry);
    }
    bytes.byte(PLAIN_FORMAT);
    writeRecordJson(bytes, r, entries);
    ends.push(bytes.length);
  }
  return { values, counts, bytes: bytes.buffer(), ends };
}

/**
 * Bytes appended to a buffer that grows as needed: strings are encoded straight into it, with no pass to measure
 * them first (taking their UTF-8 length cost about what encoding them did).
 */
class ByteWriter {
  private data: Buffer;
  length = 0;

  constructor(capacity: number) {
    // A buffer of its own (not a slice of Node's pool), so that it can be transferred.
    this.data = Buffer.allocUnsafeSlow(capacity);
  }

  byte(value: number): void {
    this.reserve(1);
    this.data[this.length++] = value;
  }

  text(value: string): void {
    // A UTF-16 code unit takes at most three bytes in UTF-8.
    this.reserve(value.length * 3);
    this.length += this.data.write(value, this.length);
  }

  /** The buffer the bytes are in (it may be longer than `length`). */
  buffer(): ArrayBuffer {
    return this.data.buffer as ArrayBuffer;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.data.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.data.length * 2, this.length + bytes));
    this.data.copy(grown, 0, 0, this.length);
    this.data = grown;
  }
}

export function unpackBatch({ values, counts, bytes, ends }: PackedBatch): SerialisedRecord[] {
  const records: SerialisedRecord[] = [];
  let v = 0;
  let start = 0;
  for (let c = 0, i = 0; c < counts.length; i++) {
    const id = values[v++]!;
    const modified = values[v++]!;
    const contentJson = values[v++]!;
    const columns = values.slice(v, (v += counts[c++]!));
    const affected: (string | null)[][] = [];
    for (let n = counts[c++]!; n > 0; n--) affected.push(values.slice(v, (v += counts[c++]!)));
    const plain = Buffer.from(bytes, start, ends[i]! - start);
    start = ends[i]!;
    records.push({ id, modified, plain, contentJson, columns, affected });
  }
  return records;
}

/** One record made ready to write, as a packed batch of one would give it. */
export function serialiseRecord(r: OsvRecord): SerialisedRecord {
  return unpackBatch(packRecords([r]))[0]!;
}

/**
 * Stands in for `affected` while the rest of a record is serialised. An empty array, not a marker string: a string
 * in a field that holds an array generalises the record's hidden class, and a marker with characters to escape
 * leaves JSON.stringify's fast path; together they made the shell cost more to serialise than the whole record.
 */
const NO_AFFECTED: never[] = [];
const AFFECTED_MEMBER = '"affected":[]';
const AFFECTED_OPEN = '"affected":['.length;

/**
 * JSON.stringify(r), byte for byte, with the affected entries' JSON (most of a record) spliced in rather than
 * serialised a second time, as the pieces to concatenate: the text before the entries, and the text after them.
 * An empty `affected` keeps its key's place; should the record's JSON hold `"affected":[]` a second time (in a
 * member of its own), there is no telling which is the record's, and the record is serialised whole (`after`
 * undefined).
 */
export function recordJsonShell(r: OsvRecord): { before: string; after?: string } {
  // The record's own `affected` is swapped out while it is serialised: a copy of the record without it (an object
  // spread) took about half as long again to serialise.
  const affected = r.affected;
  let shell: string;
  r.affected = NO_AFFECTED;
  try {
    shell = JSON.stringify(r);
  } finally {
    r.affected = affected;
  }
  const at = shell.indexOf(AFFECTED_MEMBER);
  if (at < 0 || shell.indexOf(AFFECTED_MEMBER, at + 1) >= 0) return { before: JSON.stringify(r) };
  const split = at + AFFECTED_OPEN;
  return { before: shell.slice(0, split), after: shell.slice(split) };
}

/** JSON.stringify(r) from its shell (recordJsonShell) and its affected entries' JSON. */
export function recordJson(r: OsvRecord, entries: readonly string[]): string {
  const { before, after } = recordJsonShell(r);
  return after === undefined ? before : before + entries.join(',') + after;
}

/** Writes JSON.stringify(r) as UTF-8, piece by piece: joining the pieces would make a string only to encode it. */
function writeRecordJson(bytes: ByteWriter, r: OsvRecord, entries: readonly string[]): void {
  const { before, after } = recordJsonShell(r);
  bytes.text(before);
  if (after === undefined) return;
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) bytes.byte(COMMA);
    bytes.text(entries[i]!);
  }
  bytes.text(after);
}

const COMMA = 0x2c;

/** The content digest of a serialised record (records.ts): equal digests mean the stored record would not change. */
export function recordDigest(s: SerialisedRecord): string {
  return plainRecordDigest(s.plain, s.id, s.modified, s.contentJson ?? undefined);
}

/** A serialised record as it is staged, its stored form made here: only records that changed get one. */
export function stagedRecord(s: SerialisedRecord, digest: string): StagedRecord {
  return { row: [s.id, s.modified, ...s.columns, digest, storedForm(s.plain)], affected: s.affected };
}

/** The records of a read, packed `size` at a time (the last batch may be shorter; none is empty). */
export async function* packedBatches(records: AsyncIterable<OsvRecord>, size = SERIALISED_BATCH_RECORDS): AsyncGenerator<PackedBatch> {
  let batch: OsvRecord[] = [];
  for await (const record of records) {
    batch.push(record);
    if (batch.length >= size) {
      yield packRecords(batch);
      batch = [];
    }
  }
  if (batch.length) yield packRecords(batch);
}

async function* unpackedBatches(batches: AsyncIterable<PackedBatch>): AsyncGenerator<SerialisedRecord[]> {
  for await (const batch of batches) yield unpackBatch(batch);
}

/** A read done in this thread, packed here too (sources the reader thread does not read). */
export function serialiseInProcess(read: OsvReadResult): SerialisedSource {
  return { batches: unpackedBatches(packedBatches(read.records)), stats: read.stats };
}
