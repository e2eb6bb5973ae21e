/** Folding a project's lock-file entries into the installed packages they describe (npm, Composer). */
import type { CatalogedPackage } from '../model.js';

/**
 * A lock file lists what its project installed: a lock entry for a package also found installed (same `key`) adds
 * its lock file to that package's locations instead of counting the package twice. Lock-only entries stay.
 */
export function mergeLockedIntoInstalled(
  packages: CatalogedPackage[],
  isLockLocation: (path: string) => boolean,
  key: (p: CatalogedPackage) => string,
): CatalogedPackage[] {
  // Decided before merging: a merge adds a lock file to an installed package's locations.
  const fromLock = new Set(packages.filter((p) => p.locations.some(isLockLocation)));
  const installed = new Map<string, CatalogedPackage>();
  for (const p of packages) if (!fromLock.has(p)) installed.set(key(p), p);
  const kept: CatalogedPackage[] = [];
  for (const p of packages) {
    const twin = fromLock.has(p) ? installed.get(key(p)) : undefined;
    if (!twin) kept.push(p);
    else for (const location of p.locations) if (!twin.locations.includes(location)) twin.locations.push(location);
  }
  return kept;
}
