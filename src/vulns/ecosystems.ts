/**
 * Where a cataloged package is looked up in the vulnerability index: the OSV ecosystem (and, for distro packages,
 * the release) its advisories are filed under, the names to look up, and the comparator for its versions. Each
 * ecosystem says so itself (src/ecosystems/<name>/, through registry.ts); this adds the rule that spans them.
 * Language packages match only their own ecosystem by normalised name: no CPE guessing, precision first.
 */
import { ecosystemOf } from '../ecosystems/registry.js';
import { isOsPackageType, type DistroInfo } from '../ecosystems/model.js';
import type { LookupTarget, MatchablePackage } from '../ecosystems/shared/lookup.js';

/** The lookup for a package, or undefined when no feed covers it (an unknown distro, say). */
export function lookupTarget(pkg: MatchablePackage, distro: DistroInfo | undefined): LookupTarget | undefined {
  // Owned language packages are matched through their owner, which is listed (and matched) as an OS package.
  if (pkg.owner && !isOsPackageType(pkg.type)) return undefined;
  return ecosystemOf(pkg.type)?.lookup(pkg, distro);
}
