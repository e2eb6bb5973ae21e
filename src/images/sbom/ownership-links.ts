/**
 * Ownership (images/ownership.ts) in SBOM documents, shared by the readers and writers so an exported document
 * imports with the same owners:
 *  - syft JSON: an `ownership-by-file-overlap` relationship, parent the OS package, child the language package;
 *  - SPDX: the same pair as an `OTHER` relationship whose comment starts with that type name (syft's encoding,
 *    which syft's own SPDX reader recognises by the prefix);
 *  - CycloneDX: the language component nested in the OS component's `components`. CycloneDX has no ownership
 *    relation; nesting is its assembly ("included in the parent"), which is what an OS package shipping a
 *    language package's files is. `dependencies` say what a component needs, not what installed it, so they are
 *    not read as ownership.
 */
import type { IdentifiedPackage } from './package-ids.js';

export const OWNERSHIP_RELATIONSHIP = 'ownership-by-file-overlap';

export const SPDX_OWNERSHIP_COMMENT = `${OWNERSHIP_RELATIONSHIP}: the parent OS package's file list holds the location the child package was found at`;

/** Whether an SPDX relationship comment marks syft's ownership relationship. */
export const isSpdxOwnershipComment = (comment: unknown): boolean => typeof comment === 'string' && comment.startsWith(OWNERSHIP_RELATIONSHIP);

export interface OwnerLink {
  ownerId: string;
  child: IdentifiedPackage;
}

const OS_TYPES = new Set(['dpkg', 'apk', 'rpm']);
const ownerKey = (type: string, name: string, version: string) => JSON.stringify([type, name, version]);

/**
 * The owned packages with the id of their owner among `packages`. A stored owner is its OS package's type, name
 * and version; when two packages share those (dpkg multiarch), the first in id order stands for them. An owner
 * not in the list (cannot happen for an analysis, can for a hand-edited import) links nothing.
 */
export function ownerLinks(packages: readonly IdentifiedPackage[]): OwnerLink[] {
  const ids = new Map<string, string>();
  for (const { id, pkg } of packages) {
    const key = ownerKey(pkg.type, pkg.name, pkg.version);
    if (OS_TYPES.has(pkg.type) && !ids.has(key)) ids.set(key, id);
  }
  const links: OwnerLink[] = [];
  for (const child of packages) {
    const owner = child.pkg.owner;
    const ownerId = owner ? ids.get(ownerKey(owner.type, owner.name, owner.version)) : undefined;
    if (ownerId) links.push({ ownerId, child });
  }
  return links;
}
