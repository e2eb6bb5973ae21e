/** Identifiers derived from content, never from clocks or randomness, so re-exports of one image are identical. */
import { createHash } from 'node:crypto';

/** The first 16 hex digits of the SHA-256 of the parts (joined unambiguously): syft's id length. */
export function contentId(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

/** Namespace of Vigil's name-based UUIDs: arbitrary but fixed forever, since changing it changes every serial number. */
const VIGIL_UUID_NAMESPACE = '5e1f1c5e-3a4b-5d2e-9c1a-7b2f0e6d4a10';

/**
 * RFC 4122 version-5 (name-based, SHA-1) UUID of `name`. Version 5 rather than a random v4 so an image digest
 * always maps to the same serial number; CycloneDX's schema only admits versions 1-5, ruling out v8.
 */
export function nameBasedUuid(name: string): string {
  const namespace = Buffer.from(VIGIL_UUID_NAMESPACE.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
