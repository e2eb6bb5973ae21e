/** Which SBOM format a parsed JSON document is, judged by content alone (file names and media types lie). */
import { isObject } from './read-fields.js';
import type { SbomFormat } from './read-errors.js';

export const CYCLONEDX_SPEC_VERSIONS = ['1.4', '1.5', '1.6'] as const;
export const SPDX_VERSIONS = ['SPDX-2.2', 'SPDX-2.3'] as const;

export function isCycloneDxShaped(doc: Record<string, unknown>): boolean {
  return doc['bomFormat'] === 'CycloneDX';
}

export function isSpdxShaped(doc: Record<string, unknown>): boolean {
  return 'spdxVersion' in doc;
}

/**
 * syft's JSON has `artifacts` and names itself in `schema.url` or `descriptor.name`. Vigil's native export is the
 * same shape under its own descriptor, so it is read as syft JSON too.
 */
export function isSyftShaped(doc: Record<string, unknown>): boolean {
  if (!('artifacts' in doc)) return false;
  const schema = doc['schema'];
  const descriptor = doc['descriptor'];
  const url = isObject(schema) && typeof schema['url'] === 'string' ? schema['url'] : '';
  const tool = isObject(descriptor) && typeof descriptor['name'] === 'string' ? descriptor['name'] : '';
  return url.includes('syft') || tool === 'syft' || tool === 'vigil';
}

/** The format of a supported version, or null (including for known formats in versions Vigil cannot read). */
export function detectSbomFormat(doc: unknown): SbomFormat | null {
  if (!isObject(doc)) return null;
  if (isCycloneDxShaped(doc)) return (CYCLONEDX_SPEC_VERSIONS as readonly unknown[]).includes(doc['specVersion']) ? 'cyclonedx' : null;
  if (isSpdxShaped(doc)) return (SPDX_VERSIONS as readonly unknown[]).includes(doc['spdxVersion']) ? 'spdx' : null;
  if (isSyftShaped(doc) && Array.isArray(doc['artifacts'])) return 'syft';
  return null;
}
