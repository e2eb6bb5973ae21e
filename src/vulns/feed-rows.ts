/**
 * Feed records made ready to write: `serialiseRecord` turns a parsed record into its row — the stored form and
 * content digest (records.ts), the other columns as strings — and its index entries. It runs in the feed reader
 * thread (feed-reader-worker.ts), so the thread that writes to the database only compares digests and writes.
 * A `SerialisedRecord` holds only strings and bytes, which structured cloning copies cheaply; posting parsed
 * records instead would cost the receiving thread about what parsing them did.
 *
 * Sources read on the main thread (Alpine secdb, records handed to syncFeedRecords) are serialised there, through
 * `serialiseInProcess`: one implementation, whichever thread does the reading. Nothing here touches the database.
 */
import type { OsvReadResult, OsvReadStats } from './osv/archive.js';
import type { OsvRecord } from './osv/types.js';
import { normalizePackageName } from '../ecosystems/registry.js';
import { contentJsonUnlessCanonical, feedGroupName, storeRecordJson } from './records.js';

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

/** A parsed record as its row and index entries: what the reader thread posts. */
export interface SerialisedRecord {
  id: string;
  /** The content digest (records.ts): equal digests mean the stored record would not change. */
  digest: string;
  /** The stored form of the record (records.ts). */
  stored: Uint8Array;
  /** published, withdrawn, summary, severity_label, severity and aliases (JSON), as the row holds them. */
  columns: (string | null)[];
  modified: string;
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
  // A withdrawn record gets no index entries, so the matcher never needs to look at the record.
  const affected: (string | null)[][] = [];
  if (r.withdrawn === undefined) {
    for (const a of r.affected) {
      if (!a.package) continue;
      const ecosystem = a.package.ecosystem.ecosystem.toLowerCase();
      const release = a.package.ecosystem.release ?? null;
      affected.push([r.id, feedGroupName(ecosystem, release), ecosystem, release, normalizePackageName(ecosystem, a.package.name), JSON.stringify(a)]);
    }
  }
  const { stored, digest } = storeRecordJson(JSON.stringify(r), r.id, r.modified, contentJsonUnlessCanonical(r));
  return { id: r.id, digest, stored, modified: r.modified, columns, affected };
}

/** The record as it is staged (a posted record's bytes arrive as a Uint8Array; the database drivers want a Buffer). */
export function stagedRecord(s: SerialisedRecord): StagedRecord {
  const stored = Buffer.isBuffer(s.stored) ? s.stored : Buffer.from(s.stored.buffer, s.stored.byteOffset, s.stored.byteLength);
  return { row: [s.id, s.modified, ...s.columns, s.digest, stored], affected: s.affected };
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
