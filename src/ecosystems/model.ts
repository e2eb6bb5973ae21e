/**
 * The package vocabulary every ecosystem shares: what a cataloger yields, the distro it is told about, and the
 * cataloger contract the layer walker drives. Nothing here knows about HTTP or the database.
 */
import type { GoSymbolIndex } from './go/symbols.js';

/** Package types as the API names them (content types `os` covers dpkg, apk and rpm). */
export type PackageType = 'dpkg' | 'apk' | 'rpm' | 'npm' | 'python' | 'gem' | 'java' | 'go' | 'rust' | 'nuget' | 'composer';

export const OS_PACKAGE_TYPES: readonly PackageType[] = ['dpkg', 'apk', 'rpm'];

/** Whether a type (a Vigil type name, or any string a document gives) is an OS package manager's. */
export function isOsPackageType(type: string): boolean {
  return (OS_PACKAGE_TYPES as readonly string[]).includes(type);
}

export interface CatalogedPackage {
  name: string;
  version: string;
  type: PackageType;
  /** Paths (absolute, inside the image) where the package was found: its database, manifest or archive. */
  locations: string[];
  /** SPDX identifiers or expressions where known, otherwise the license strings as declared. */
  licenses: string[];
  /** Source package (dpkg Source:, rpm source rpm, apk origin), Maven groupId, or Go module path. */
  origin?: string;
  /** Version of the source package when it differs from the binary version (dpkg `Source: name (version)`). */
  sourceVersion?: string;
  /** Installed size in bytes when the package database records it. */
  size?: number;
  /** Package URL (https://github.com/package-url/purl-spec). */
  purl: string;
  /** CPE 2.3 strings a vulnerability matcher may use. */
  cpes: string[];
  /** Ecosystem-specific facts (architecture, maintainer, files owned, ...), JSON-serialisable. */
  metadata: Record<string, unknown>;
  /**
   * Language packages only: the OS package whose file list holds this package's metadata location (the distro
   * built and patches it). Such a package is listed, but matched through its owner's distro data, not its
   * language feed (ownership.ts).
   */
  owner?: PackageOwner;
  /**
   * OS packages only, during analysis: the language-package locations their file list names, reduced to
   * ownership keys (ownership.ts#ownershipKey). Not stored.
   */
  ownedPaths?: string[];
  /**
   * Go module packages only: the functions the binary holds under the module (ecosystems/go/symbols.ts),
   * for checking an advisory's affected symbols. Stored in its own column, not in metadata.
   */
  goSymbols?: GoSymbolIndex;
  /**
   * OS packages only, during analysis: the milliseconds spent reducing the package's file list to ownership keys,
   * summed into the ownership step's reported cost (ownership.ts#assignOwners). Not stored.
   */
  ownershipMs?: number;
}

/** The OS package that installed a language package. */
/** How many packages there are of each type, e.g. { dpkg: 92, npm: 310 } (for log lines). */
export function packageCountsByType(packages: readonly Pick<CatalogedPackage, 'type'>[]): Partial<Record<PackageType, number>> {
  const counts: Partial<Record<PackageType, number>> = {};
  for (const p of packages) counts[p.type] = (counts[p.type] ?? 0) + 1;
  return counts;
}

export interface PackageOwner {
  type: PackageType;
  name: string;
  version: string;
}

/** Distribution facts read from /etc/os-release (or fallbacks). */
export interface DistroInfo {
  /** os-release ID, e.g. debian, ubuntu, alpine, rhel, centos, rocky, amzn. */
  name: string;
  /** os-release VERSION_ID, e.g. 12, 22.04, 3.18.4. */
  version: string;
  /** os-release ID_LIKE entries, e.g. ['rhel', 'fedora']. */
  like: string[];
  prettyName?: string;
}

/**
 * A cataloger finds packages of one ecosystem. The layer walker shows it every regular file whose path it
 * `matches`, with the file's content (up to `maxFileBytes`; larger files are skipped and reported). Results are
 * kept per path: when a later layer replaces or deletes the path, the earlier result is dropped, so what
 * remains describes the final filesystem.
 */
export interface Cataloger {
  /** Short name used in logs and errors, e.g. 'dpkg'. */
  readonly name: string;
  readonly maxFileBytes: number;
  matches(path: string): boolean;
  /** Packages found in one file. Must not throw on malformed content: return what can be read (or nothing). */
  parse(path: string, content: Buffer): CatalogedPackage[] | Promise<CatalogedPackage[]>;
  /**
   * Called once after the walk with this cataloger's surviving packages and the detected distro, to fill in what
   * depends on the distro (e.g. the purl namespace and `distro=` qualifier of OS packages).
   */
  finalize?(packages: CatalogedPackage[], distro: DistroInfo | undefined): CatalogedPackage[];
}
