/**
 * The stable order and ids of an image's packages, shared by every writer so one package carries the same id in
 * each format (syft artifact id, CycloneDX bom-ref, SPDX SPDXID suffix).
 */
import type { SbomPackage } from './input.js';
import { contentId } from './stable-ids.js';

export interface IdentifiedPackage {
  id: string;
  pkg: SbomPackage;
}

/** Plain code-unit comparison: unlike localeCompare it cannot differ between machines with different locales. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortKey(p: SbomPackage): string[] {
  return [p.type, p.name, p.version, p.purl, ...[...p.locations].sort(compareStrings)];
}

function compareKeys(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * Packages sorted by type, name, version, purl and locations, each with an id hashed from those same fields. The
 * purl is part of the identity because one database can hold a package twice, differing only in architecture
 * (dpkg multiarch: libc6:amd64 and libc6:i386). Exact duplicates get `-2`, `-3`... in their sorted order.
 */
export function identifyPackages(packages: readonly SbomPackage[]): IdentifiedPackage[] {
  const keyed = packages.map((pkg) => ({ pkg, key: sortKey(pkg) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key) || compareStrings(JSON.stringify(a.pkg), JSON.stringify(b.pkg)));
  const seen = new Map<string, number>();
  return keyed.map(({ pkg, key }) => {
    const base = contentId(key);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { id: n === 1 ? base : `${base}-${n}`, pkg };
  });
}
