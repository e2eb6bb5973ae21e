/**
 * The matcher strategies ecosystems share (the way grype has one matcher per ecosystem over a few shared ones): a
 * language package is looked up in its one OSV ecosystem by normalised name; an OS package in its distribution's
 * ecosystem, scoped to the image's release, by its own name and its source package's.
 */
import type { DistroInfo } from '../model.js';
import type { VersionComparator } from './comparator.js';

/** Where a package's advisories are looked up in the vulnerability index. */
export interface LookupTarget {
  /** Lower-case OSV base ecosystem, as vulnerability_affected stores it. */
  ecosystem: string;
  /** Distribution release advisories must be scoped to; undefined for language ecosystems. */
  release?: string;
  /** Normalised names to look up: the package itself and, for distro packages, its source package. */
  names: string[];
  comparator: VersionComparator;
}

export interface MatchablePackage {
  type: string;
  name: string;
  version: string;
  origin?: string | null;
  /** The source package's version (dpkg `Source: name (version)`), used when the match is by source name. */
  sourceVersion?: string | null;
  /**
   * For a language package installed by the OS package manager, the owning OS package (images/ownership.ts): its
   * advisories come through that package's distro data, so the language feed is not consulted.
   */
  owner?: unknown;
}

export type Lookup = (pkg: MatchablePackage, distro: DistroInfo | undefined) => LookupTarget | undefined;

/** An OSV ecosystem a package type's advisories are filed under. */
export interface FeedEcosystem {
  /** OSV's spelling, as in `affected[].package.ecosystem` and the export folder (`PyPI`, `Red Hat`). */
  readonly osv: string;
  /** Lower-cased, as the index stores it. */
  readonly key: string;
}

/** What the suffix of a distribution's OSV ecosystem string (`Ubuntu:22.04:LTS` -> `22.04:LTS`) says. */
export interface FeedRelease {
  /** The release key, as `DistroFeed.release` gives it for an image of that release. */
  release?: string;
  /** Ubuntu's markers. */
  lts?: boolean;
  pro?: boolean;
}

/**
 * A distribution whose OSV ecosystem scopes advisories by release. Both sides of the release key are here, since
 * they must meet: the feed's (`feedRelease`, applied as records are read) and the image's (`release`).
 */
export interface DistroFeed extends FeedEcosystem {
  /** os-release IDs (or ID_LIKE entries) of images built on it. */
  readonly ids: readonly string[];
  /** The release an image's os-release names; undefined for a rolling distribution whose records carry none. */
  release(distro: DistroInfo): string | undefined;
  /** The release a record's ecosystem suffix names (never empty; total: an unknown form is kept as written). */
  feedRelease(suffix: string): FeedRelease;
}

export function feedEcosystem(osv: string): FeedEcosystem {
  return { osv, key: osv.toLowerCase() };
}

export function distroFeed(
  osv: string,
  ids: readonly string[],
  release: (distro: DistroInfo) => string | undefined,
  feedRelease: (suffix: string) => FeedRelease = (suffix) => ({ release: suffix }),
): DistroFeed {
  return { ...feedEcosystem(osv), ids, release, feedRelease };
}

/** Product names are short; longer suffixes are kept as written rather than fed to patterns. */
export const MAX_PRODUCT_CHARS = 200;

/** A suffix scoped by major release (`Rocky Linux:9.3` -> `9`), as images of every minor release share one feed. */
export function majorFeedRelease(suffix: string): FeedRelease {
  return { release: /^\d+(\.\d+)*$/.test(suffix) ? suffix.split('.')[0]! : suffix };
}

/** os-release VERSION_ID's leading parts: `majorRelease` for Debian, RHEL and the like, two for Alpine or SLE. */
export function versionParts(distro: DistroInfo, count: number): string {
  return distro.version.split('.').slice(0, count).join('.');
}

/** The distribution feed an image's os-release names: its ID first, then its ID_LIKE entries in order. */
export function findDistroFeed(feeds: readonly DistroFeed[], distro: DistroInfo): DistroFeed | undefined {
  const byId = (id: string) => feeds.find((f) => f.ids.includes(id));
  return byId(distro.name) ?? distro.like.map(byId).find((f) => f !== undefined);
}

/**
 * OS packages: the image's distribution feed among `feeds` (the package manager's distributions: an rpm in a
 * Debian image has none), by package and source package name.
 */
export function distroLookup(feeds: readonly DistroFeed[], comparator: VersionComparator): Lookup {
  return (pkg, distro) => {
    const feed = distro && findDistroFeed(feeds, distro);
    if (!feed) return undefined;
    const names = [...new Set([pkg.name, pkg.origin].filter((n): n is string => !!n))];
    const release = feed.release(distro);
    return { ecosystem: feed.key, ...(release !== undefined ? { release } : {}), names, comparator };
  };
}

/** Language packages: their one ecosystem, by the name as the ecosystem normalises it. */
export function languageLookup(feed: FeedEcosystem, normalizeName: (name: string) => string, comparator: VersionComparator): Lookup {
  return (pkg) => ({ ecosystem: feed.key, names: [normalizeName(pkg.name)], comparator });
}
