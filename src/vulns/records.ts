/**
 * How feed records are stored and named: the compressed record column, feed group (namespace) names, and the
 * (ecosystem, release, name) keys the affected-package index is looked up by.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { OsvRecord } from './osv/types.js';

/** Raw deflate at a fast level: records are written once per change and read a few at a time. */
export function encodeRecord(record: OsvRecord): Buffer {
  return deflateRawSync(JSON.stringify(record), { level: 1 });
}

export function decodeRecord(stored: Buffer | Uint8Array): OsvRecord {
  return JSON.parse(inflateRawSync(stored).toString('utf8')) as OsvRecord;
}

/** Namespace names as upstream uses them (`rhel:9`, not OSV's `Red Hat`). */
const GROUP_PREFIX: Record<string, string> = {
  'red hat': 'rhel',
  'rocky linux': 'rocky',
};

/** The feed group an affected entry belongs to: `debian:12`, `alpine:3.18`, `rhel:9`, or the language ecosystem (`pypi`). */
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
