/**
 * Language packages installed by the OS package manager. A Python distribution, gem, npm module or Java archive
 * whose metadata file belongs to an rpm or dpkg package is the distribution's build, patched by the distribution
 * under the OS package's version: it is listed with that owner, and matched through the owner against the distro's
 * data, not against its language feed (which would report what the distribution fixed).
 *
 * Ownership is decided by the package's metadata location (the `.dist-info`/`.egg-info` entry, the gemspec, the
 * module's package.json or the lock file listing it, the archive file itself for Java, nested archives included),
 * not by its module files:
 * `pip install -U` over a distro package writes a new, differently versioned dist-info that no OS package lists,
 * so the upgraded copy is unowned and matched again.
 *
 * Memory: OS file lists name every file of the system (10^5 paths in a full image). The rpm and dpkg catalogers
 * reduce them while reading to the keys `ownershipKey` (ecosystems/registry.ts) gives: the few paths that can be a
 * language package's metadata location. What is held is one entry per owned package or archive, never the lists.
 */
import { OWNABLE_TYPES, ownershipKey } from '../ecosystems/registry.js';
import { OS_PACKAGE_TYPES, type CatalogedPackage, type PackageOwner } from '../ecosystems/model.js';

export function ownerOf(pkg: Pick<CatalogedPackage, 'type' | 'name' | 'version'>): PackageOwner {
  return { type: pkg.type, name: pkg.name, version: pkg.version };
}

/**
 * Records an imported SBOM's statement that `parent` installed `child` (sbom/read-*.ts): only an OS package owns,
 * only a language package is owned, and the first statement about a child wins, as in `assignOwners`.
 */
export function linkOwner(parent: CatalogedPackage | undefined, child: CatalogedPackage | undefined): void {
  if (!parent || !child || child.owner || !OS_PACKAGE_TYPES.includes(parent.type) || !OWNABLE_TYPES.has(child.type)) return;
  child.owner = ownerOf(parent);
}

/**
 * Gives each language package whose location an OS package's file list names that package as `owner`, and drops
 * the OS packages' `ownedPaths` and `ownershipMs` (they are not stored). When two OS packages list one location
 * (a broken install), the first in catalog order wins. `ms`: the ownership step's time, the file lists' reduction
 * during the walk plus this assignment.
 */
export function assignOwners(found: readonly CatalogedPackage[]): { packages: CatalogedPackage[]; ms: number } {
  const started = performance.now();
  let walkMs = 0;
  const owners = new Map<string, PackageOwner>();
  for (const pkg of found) {
    walkMs += pkg.ownershipMs ?? 0;
    for (const key of pkg.ownedPaths ?? []) if (!owners.has(key)) owners.set(key, ownerOf(pkg));
  }
  const packages = found.map(({ ownedPaths: _paths, ownershipMs: _ms, ...pkg }) => {
    if (owners.size === 0 || pkg.owner || !OWNABLE_TYPES.has(pkg.type)) return pkg;
    for (const location of pkg.locations) {
      const key = ownershipKey(location);
      const owner = key === undefined ? undefined : owners.get(key);
      if (owner) return { ...pkg, owner };
    }
    return pkg;
  });
  return { packages, ms: walkMs + performance.now() - started };
}
