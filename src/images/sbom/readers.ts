/**
 * SBOM import: which format a document is, and the packages (and distro) it lists, as Vigil's catalogers would
 * have reported them. Malformed documents raise SbomReadError naming the field; packages Vigil cannot represent
 * are skipped with a warning.
 */
import type { CatalogedPackage, DistroInfo } from '../../ecosystems/model.js';
import { CYCLONEDX_SPEC_VERSIONS, detectSbomFormat, isCycloneDxShaped, isSpdxShaped, SPDX_VERSIONS } from './detect.js';
import { readCycloneDx } from './read-cyclonedx.js';
import { SbomReadError, type SbomFormat } from './read-errors.js';
import { describeJson, isObject, type JsonObject } from './read-fields.js';
import { readSpdx } from './read-spdx.js';
import { readSyft } from './read-syft.js';

export { detectSbomFormat } from './detect.js';
export { SbomReadError, type SbomFormat } from './read-errors.js';

export interface SbomReadResult {
  format: SbomFormat;
  packages: CatalogedPackage[];
  distro?: DistroInfo;
  warnings: string[];
}

/** JSON text -> document, with a syntax error reported as an SbomReadError rather than a bare SyntaxError. */
export function parseSbomJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new SbomReadError(`SBOM is not valid JSON: ${(err as Error).message}`, null, '');
  }
}

function versionProblem(field: string, value: unknown, supported: readonly string[]): string {
  const got = value === undefined ? 'is missing' : typeof value === 'string' ? `'${value}' is not supported` : `must be a string, got ${describeJson(value)}`;
  return `${field} ${got} (supported: ${supported.join(', ')})`;
}

/** Why a document that is not a supported SBOM is not one, as precisely as its content allows. */
function unsupported(doc: JsonObject): never {
  if (isCycloneDxShaped(doc))
    throw new SbomReadError(
      `CycloneDX SBOM: ${versionProblem('specVersion', doc['specVersion'], CYCLONEDX_SPEC_VERSIONS)}`,
      'cyclonedx',
      'specVersion',
    );
  if (isSpdxShaped(doc))
    throw new SbomReadError(
      `SPDX SBOM: ${versionProblem('spdxVersion', doc['spdxVersion'], SPDX_VERSIONS)}`,
      'spdx',
      'spdxVersion',
    );
  if ('artifacts' in doc && !Array.isArray(doc['artifacts']) && 'descriptor' in doc)
    throw new SbomReadError(`syft JSON SBOM: artifacts must be an array, got ${describeJson(doc['artifacts'])}`, 'syft', 'artifacts');
  throw new SbomReadError(
    'not a recognised SBOM: expected CycloneDX JSON (bomFormat "CycloneDX"), SPDX JSON (spdxVersion) or syft JSON (artifacts, with a syft schema)',
    null,
    '',
  );
}

export function readSbomPackages(doc: unknown): SbomReadResult {
  if (!isObject(doc)) throw new SbomReadError(`SBOM must be a JSON object, got ${describeJson(doc)}`, null, '');
  const format = detectSbomFormat(doc);
  switch (format) {
    case 'cyclonedx':
      return { format, ...readCycloneDx(doc) };
    case 'spdx':
      return { format, ...readSpdx(doc) };
    case 'syft':
      return { format, ...readSyft(doc) };
    case null:
      return unsupported(doc);
  }
}
