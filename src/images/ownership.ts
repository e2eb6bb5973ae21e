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
 * Memory: OS file lists name every file of the system (10^5 paths in a full image). They are reduced while they are
 * read (rpm.ts, dpkg.ts) to the paths `ownershipKey` accepts — the few that can be a language package's metadata
 * location — so what is held is one entry per owned language package or archive, never the file lists themselves.
 */
import { isGemSpecificationPath } from '../ecosystems/gem/cataloger.js';
import { JAVA_ARCHIVE_EXTENSION } from '../ecosystems/java/archive.js';
import { isInstalledPackageJson, isProjectPackageLock } from '../ecosystems/npm/cataloger.js';
import { OS_PACKAGE_TYPES, type CatalogedPackage, type PackageOwner, type PackageType } from './model.js';

/** The path up to and including the first `*.dist-info` or `*.egg-info` component (directory or single file). */
const PYTHON_METADATA_ENTRY = /^(.*?\/[^/]+\.(?:dist-info|egg-info))(?:\/|$)/;

/**
 * The Java archive a path is or lies in: the archive itself (`/usr/share/java/x.jar`) or, for a package found in a
 * nested archive, the top-level archive before the first `:` (`/opt/app.war:WEB-INF/lib/y.jar`, the cataloger's
 * virtual path), since an OS package ships the outer file whole.
 */
function javaArchiveOf(path: string): string | undefined {
  const colon = path.indexOf(':');
  if (colon > 0 && JAVA_ARCHIVE_EXTENSION.test(path.slice(0, colon))) return path.slice(0, colon);
  return JAVA_ARCHIVE_EXTENSION.test(path) ? path : undefined;
}

/** Language package types whose location an OS package can own. */
export const OWNABLE_TYPES: ReadonlySet<PackageType> = new Set<PackageType>(['python', 'gem', 'npm', 'java']);

/**
 * The key under which a path counts for ownership, or undefined when the path cannot be (or be inside) a language
 * package's metadata location. The same function reduces OS file lists and language packages' locations, so a
 * package is owned when a key of its locations is a key of some OS package's files.
 */
export function ownershipKey(path: string): string | undefined {
  const python = PYTHON_METADATA_ENTRY.exec(path);
  if (python) return python[1];
  // A package-lock.json an OS package ships (Debian's libruby3.1 has one inside a bundled gem) lists what its
  // authors developed with, not what is installed; its entries are the OS package's, like its installed modules.
  if (isGemSpecificationPath(path) || isInstalledPackageJson(path) || isProjectPackageLock(path)) return path;
  return javaArchiveOf(path);
}

/** Adds the ownership keys of `paths` to `into` (deduplicated). */
export function collectOwnershipKeys(paths: Iterable<string>, into: Set<string> = new Set()): Set<string> {
  for (const path of paths) {
    const key = ownershipKey(path);
    if (key !== undefined) into.add(key);
  }
  return into;
}

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
