/**
 * How feed records are stored and named: the compressed record column, feed group (namespace) names, and the
 * (ecosystem, release, name) keys the affected-package index is looked up by.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { OsvRecord } from './osv/types.js';

/** Records above this size are deflated; below it zlib's per-call cost dominates an import and saves little. */
const DEFLATE_ABOVE_BYTES = 4096;
const PLAIN = 0;
const DEFLATED = 1;

/** The stored form: a format byte, then the record's JSON, raw-deflated when large. */
export function encodeRecord(record: OsvRecord): Buffer {
  return encodeRecordJson(JSON.stringify(record));
}

/** The stored form of a record already serialised. */
export function encodeRecordJson(text: string): Buffer {
  const json = Buffer.from(text);
  if (json.length <= DEFLATE_ABOVE_BYTES) return Buffer.concat([Buffer.of(PLAIN), json]);
  return Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(json, { level: 1 })]);
}

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
