/**
 * How Vigil's package types are named by the formats it writes and reads: syft artifact types, purl types, the
 * language syft reports, and the cataloger that finds them (syft's `foundBy`). Each ecosystem declares its names
 * (src/ecosystems/<name>/index.ts); this answers for types Vigil does not know as well.
 */
import type { EcosystemNames } from '../../ecosystems/ecosystem.js';
import { ecosystemOf } from '../../ecosystems/registry.js';

export { typeFromPurlType, typeFromSyftType } from '../../ecosystems/registry.js';

/** Names of a Vigil type; a type Vigil does not know passes through as its own name. */
export function typeNames(type: string): EcosystemNames {
  return ecosystemOf(type)?.names ?? { syft: type, purl: type, language: '', foundBy: type };
}
