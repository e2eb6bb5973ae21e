/**
 * How feed records are stored and named: the compressed record column, feed group (namespace) names, and the
 * (ecosystem, release, name) keys the affected-package index is looked up by.
 */
import { createHash, hash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { OsvRecord } from './osv/types.js';

/** Records above this size are deflated; below it zlib's per-call cost dominates an import and saves little. */
const DEFLATE_ABOVE_BYTES = 4096;
/** The format byte that starts a plain stored form: the record's JSON as UTF-8 follows it. */
export const PLAIN_FORMAT = 0;
const DEFLATED = 1;

/** The stored form: a format byte, then the record's JSON, raw-deflated when large. */
export function encodeRecord(record: OsvRecord): Buffer {
  return encodeRecordJson(JSON.stringify(record));
}

/** The stored form of a record given as its JSON. */
export function encodeRecordJson(json: string): Buffer {
  const plain = Buffer.allocUnsafe(1 + Buffer.byteLength(json));
  plain[0] = PLAIN_FORMAT;
  plain.write(json, 1, 'utf8');
  return storedForm(plain);
}

/**
 * The stored form of a record given in its plain form (PLAIN_FORMAT, then the JSON as UTF-8; what the feed reader
 * thread hands over): that form itself, or deflated when large.
 */
export function storedForm(plain: Buffer): Buffer {
  return plain.length - 1 <= DEFLATE_ABOVE_BYTES ? plain : Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(plain.subarray(1), { level: 1 })]);
}

/**
 * The stored form of a record, and the digest feed syncs compare to find changed records: the sha256 of the
 * record's JSON without `modified`, which some feeds never bump and others bump without a change. One
 * JSON.stringify serves both: parseOsvRecord puts `modified` right after `id`, so the digested bytes are the stored
 * JSON with that member skipped (a record built in another key order is serialised again without it).
 */
export function encodeRecordWithDigest(record: OsvRecord): { stored: Buffer; digest: string } {
  const json = JSON.stringify(record);
  return { stored: encodeRecordJson(json), digest: recordJsonDigest(json, record.id, record.modified, contentJsonUnlessCanonical(record)) };
}

/** The member the digest leaves out, and what precedes it in a record serialised in parseOsvRecord's key order. */
function digestSkip(id: string, modified: string): { head: string; member: string } {
  return { head: `{"id":${JSON.stringify(id)}`, member: `,"modified":${JSON.stringify(modified)}` };
}

/**
 * The JSON the digest is taken over when the record's own JSON does not start with `id` and `modified` (a record
 * built in another key order): the record serialised again without `modified`. Undefined for parsed records.
 * JSON.stringify writes members in key order, so looking at the first two keys is enough (and cheaper than
 * comparing the JSON: this runs once per record on the feed reader thread).
 */
export function contentJsonUnlessCanonical(record: OsvRecord): string | undefined {
  let position = 0;
  for (const key in record) {
    if (key !== (position === 0 ? 'id' : 'modified')) break;
    if (++position === 2) return undefined;
  }
  const { modified: _modified, ...content } = record;
  return JSON.stringify(content);
}

/**
 * The content digest of a record given as its JSON, with the `contentJson` that contentJsonUnlessCanonical gave
 * for it; apart from the stored form, which most records of an update sync, being unchanged, never need.
 */
export function recordJsonDigest(json: string, id: string, modified: string, contentJson: string | undefined): string {
  if (contentJson !== undefined) return createHash('sha256').update(contentJson).digest('hex');
  const { head, member } = digestSkip(id, modified);
  // Slices of a string share its characters; the hash encodes them as UTF-8, as the stored form does.
  return createHash('sha256').update(json.slice(0, head.length)).update(json.slice(head.length + member.length)).digest('hex');
}

/**
 * recordJsonDigest over a record's plain stored form (storedForm), without decoding it: the same digest. The
 * digested bytes are copied together into one scratch buffer and hashed in one call: a Hash object per record
 * (createHash, two updates) cost a feed import about twice as much on the thread that writes.
 */
export function plainRecordDigest(plain: Buffer, id: string, modified: string, contentJson: string | undefined): string {
  if (contentJson !== undefined) return hash('sha256', contentJson, 'hex');
  const { head, member } = digestSkip(id, modified);
  const headEnd = 1 + Buffer.byteLength(head);
  const restStart = headEnd + Buffer.byteLength(member);
  const length = headEnd - 1 + plain.length - restStart;
  if (digestScratch.length < length) digestScratch = Buffer.allocUnsafeSlow(Math.max(length, digestScratch.length * 2));
  plain.copy(digestScratch, 0, 1, headEnd);
  plain.copy(digestScratch, headEnd - 1, restStart);
  return hash('sha256', digestScratch.subarray(0, length), 'hex');
}

/** plainRecordDigest's scratch buffer: reused, as every call overwrites what it hashes. */
let digestScratch = Buffer.allocUnsafeSlow(16 * 1024);

export function decodeRecord(stored: Buffer | Uint8Array): OsvRecord {
  const buf = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const body = buf.subarray(1);
  return JSON.parse((buf[0] === DEFLATED ? inflateRawSync(body) : body).toString('utf8')) as OsvRecord;
}

/** Namespace names as upstream uses them (`rhel:9`, not OSV's `Red Hat`). */
const GROUP_PREFIX: Record<string, string> = {
  'red hat': 'rhel',
  'rocky linux': 'rocky',
  suse: 'sles',
};

/** The feed group an affected entry belongs to: `debian:12`, `alpine:3.18`, `rhel:9`, `sles:15.5`, `wolfi`, or the language ecosystem (`pypi`). */
export function feedGroupName(ecosystem: string, release: string | null | undefined): string {
  const base = GROUP_PREFIX[ecosystem] ?? ecosystem.replace(/\s+/g, '-');
  return release ? `${base}:${release}` : base;
}

/** One entry of the affected-package index: what a package is looked up by. */
export interface MatchKey {
  ecosystem: string;
  release: string | null;
  packageName: string;
}

export function matchKeyId(key: MatchKey): string {
  return `${key.ecosystem}\u0000${key.release ?? ''}\u0000${key.packageName}`;
}
