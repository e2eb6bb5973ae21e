/**
 * Feed records made ready to write. `serialiseRecord` turns a parsed record into strings: its JSON, the other
 * columns and its index entries. It runs in the feed reader thread (feed-reader-worker.ts); the thread that writes
 * then takes the content digest of the JSON (`recordDigest`), and makes the stored form of the records that changed
 * (`stagedRecord`) to write them.
 * The split balances the two threads (bench:match): the reader parses, validates and serialises, about twice the
 * writer's work per record before the stored form and digest moved to the writer.
 * A `SerialisedRecord` holds only strings, which structured cloning copies cheaply; posting parsed records instead
 * would cost the receiving thread about what parsing them did.
 *
 * Sources read on the main thread (Alpine secdb, records handed to syncFeedRecords) are serialised there, through
 * `serialiseInProcess`: one implementation, whichever thread does the reading. Nothing here touches the database.
 */
import type { OsvReadResult, OsvReadStats } from './osv/archive.js';
import type { OsvRecord } from './osv/types.js';
import { normalizePackageName } from '../ecosystems/registry.js';
import { contentJsonUnlessCanonical, encodeRecordJson, feedGroupName, recordJsonDigest } from './records.js';

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

/** A parsed record as strings: what the reader thread posts. */
export interface SerialisedRecord {
  id: string;
  modified: string;
  /** The record's JSON, which the stored form holds. */
  json: string;
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
}

/** Records per batch: one message from the reader thread. Small, so the staging thread waits little for the first one and the last. */
export const SERIALISED_BATCH_RECORDS = 250;

export function serialiseRecord(r: OsvRecord): SerialisedRecord {
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
  return { id: r.id, modified: r.modified, json: recordJson(r, entries), contentJson: contentJsonUnlessCanonical(r) ?? null, columns, affected };
}

/** Stands in for `affected` while the rest of a record is serialised; it cannot occur in a feed's JSON unescaped. */
const AFFECTED_SLOT = '\u0000affected\u0000';
const AFFECTED_MEMBER = `"affected":${JSON.stringify(AFFECTED_SLOT)}`;

/**
 * JSON.stringify(r), byte for byte, with the affected entries' JSON (most of a record) spliced in rather than
 * serialised a second time. The slot keeps `affected` at its key's place; should a record carry the slot's text
 * as a member of its own (two matches), it is serialised whole.
 */
export function recordJson(r: OsvRecord, entries: string[]): string {
  const shell = JSON.stringify({ ...r, affected: AFFECTED_SLOT });
  const at = shell.indexOf(AFFECTED_MEMBER);
  if (at < 0 || shell.indexOf(AFFECTED_MEMBER, at + 1) >= 0) return JSON.stringify(r);
  const start = at + '"affected":'.length;
  return `${shell.slice(0, start)}[${entries.join(',')}]${shell.slice(start + JSON.stringify(AFFECTED_SLOT).length)}`;
}

/** The content digest of a serialised record (records.ts): equal digests mean the stored record would not change. */
export function recordDigest(s: SerialisedRecord): string {
  return recordJsonDigest(s.json, s.id, s.modified, s.contentJson ?? undefined);
}

/** A serialised record as it is staged, its stored form made here: only records that changed get one. */
export function stagedRecord(s: SerialisedRecord, digest: string): StagedRecord {
  return { row: [s.id, s.modified, ...s.columns, digest, encodeRecordJson(s.json)], affected: s.affected };
}

/**
 * A batch as the reader thread posts it: every record's strings in one flat list. Cloning 250 small objects cost
 * the two threads about twice as much as cloning one list, and made garbage on both sides.
 */
export interface PackedBatch {
  /** Per record: id, modified, json, contentJson, the columns, then each index entry's values. */
  values: (string | null)[];
  /** Per record: the number of columns, of index entries, and each entry's number of values. */
  counts: number[];
}

export function packBatch(records: SerialisedRecord[]): PackedBatch {
  const values: (string | null)[] = [];
  const counts: number[] = [];
  for (const r of records) {
    values.push(r.id, r.modified, r.json, r.contentJson, ...r.columns);
    counts.push(r.columns.length, r.affected.length);
    for (const entry of r.affected) {
      counts.push(entry.length);
      values.push(...entry);
    }
  }
  return { values, counts };
}

export function unpackBatch({ values, counts }: PackedBatch): SerialisedRecord[] {
  const records: SerialisedRecord[] = [];
  let v = 0;
  for (let c = 0; c < counts.length; ) {
    const id = values[v++]!;
    const modified = values[v++]!;
    const json = values[v++]!;
    const contentJson = values[v++]!;
    const columns = values.slice(v, (v += counts[c++]!));
    const affected: (string | null)[][] = [];
    for (let n = counts[c++]!; n > 0; n--) affected.push(values.slice(v, (v += counts[c++]!)));
    records.push({ id, modified, json, contentJson, columns, affected });
  }
  return records;
}

/** The records of a read, serialised, `size` at a time (the last batch may be shorter; none is empty). */
export async function* serialisedBatches(records: AsyncIterable<OsvRecord>, size = SERIALISED_BATCH_RECORDS): AsyncGenerator<SerialisedRecord[]> {
  let batch: SerialisedRecord[] = [];
  for await (const record of records) {
    batch.push(serialiseRecord(record));
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** A read done in this thread, serialised here too (sources the reader thread does not read). */
export function serialiseInProcess(read: OsvReadResult): SerialisedSource {
  return { batches: serialisedBatches(read.records), stats: read.stats };
}
