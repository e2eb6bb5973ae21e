/**
 * Feed records made ready to stage, in two steps so that a sync can split the work between two threads:
 *
 * 1. `serialiseRecord` (the feed reader thread, feed-reader-worker.ts): a parsed record becomes strings — its
 *    JSON, its row's columns and its index entries. A `SerialisedRecord` holds only strings, which structured
 *    cloning copies cheaply; posting parsed records instead would cost the receiving thread about what parsing
 *    them did.
 * 2. `prepareRecord` (the thread that stages): the stored form and the content digest, from the JSON.
 *
 * Sources read on the main thread (Alpine secdb, records handed to syncFeedRecords) run both steps there, through
 * `prepareInProcess`: one implementation, whichever thread does the reading. Nothing here touches the database.
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

/** A record ready to stage, with what a sync compares before staging it. */
export interface PreparedRecord {
  id: string;
  /** The content digest (records.ts): equal digests mean the stored record would not change. */
  digest: string;
  staged: StagedRecord;
}

/** A parsed record as strings: what the reader thread posts. */
export interface SerialisedRecord {
  id: string;
  modified: string;
  /** The record's JSON, as stored. */
  json: string;
  /** What the digest is taken over when it is not `json` without `modified` (records.ts). */
  contentJson?: string;
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
  const json = JSON.stringify(r);
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
  const contentJson = contentJsonUnlessCanonical(r);
  return { id: r.id, modified: r.modified, json, ...(contentJson === undefined ? {} : { contentJson }), columns, affected };
}

export function prepareRecord(s: SerialisedRecord): PreparedRecord {
  const { stored, digest } = storeRecordJson(s.json, s.id, s.modified, s.contentJson);
  return { id: s.id, digest, staged: { row: [s.id, s.modified, ...s.columns, digest, stored], affected: s.affected } };
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
