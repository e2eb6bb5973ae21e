/**
 * Every ecosystem Vigil knows, in the order their packages are listed. Adding one is a folder under
 * src/ecosystems/ exporting an Ecosystem, its type in model.ts's PackageType, and a line here; the catalogers,
 * SBOM type names, content listings, version ordering, feed names and lookups below all derive from this list.
 */
import { createApkEcosystem } from './apk/index.js';
import { composerEcosystem } from './composer/index.js';
import { createDpkgEcosystem } from './dpkg/index.js';
import type { Ecosystem } from './ecosystem.js';
import { gemEcosystem } from './gem/index.js';
import { goEcosystem } from './go/index.js';
import { javaEcosystem } from './java/index.js';
import type { Cataloger, DistroInfo, PackageType } from './model.js';
import { npmEcosystem } from './npm/index.js';
import { nugetEcosystem } from './nuget/index.js';
import { pythonEcosystem } from './python/index.js';
import { createRpmEcosystem } from './rpm/index.js';
import { rustEcosystem } from './rust/index.js';
import type { VersionComparator } from './shared/comparator.js';
import { findDistroFeed, type DistroFeed, type FeedEcosystem } from './shared/lookup.js';

/** Language ecosystems, in listing order; those with an `ownershipKey` can be installed by an OS package. */
const LANGUAGE: readonly Ecosystem[] = [npmEcosystem, gemEcosystem, pythonEcosystem, javaEcosystem, goEcosystem, rustEcosystem, nugetEcosystem, composerEcosystem];

/**
 * The key under which a path counts for ownership (images/ownership.ts), or undefined when the path cannot be (or
 * be inside) a language package's metadata location. OS catalogers reduce their file lists with it, and package
 * locations are reduced the same way, so a package is owned when a key of its locations is one of an OS package's.
 */
export function ownershipKey(path: string): string | undefined {
  for (const ecosystem of LANGUAGE) {
    const key = ecosystem.ownershipKey?.(path);
    if (key !== undefined) return key;
  }
  return undefined;
}

export const ECOSYSTEMS: readonly Ecosystem[] = [createDpkgEcosystem(ownershipKey), createApkEcosystem(ownershipKey), createRpmEcosystem(ownershipKey), ...LANGUAGE];

const BY_TYPE = new Map<string, Ecosystem>(ECOSYSTEMS.map((e) => [e.type, e]));

/** The ecosystem of a Vigil package type, or undefined for a type Vigil does not know. */
export function ecosystemOf(type: string): Ecosystem | undefined {
  return BY_TYPE.get(type);
}

/** Every cataloger, in listing order. */
export const ALL_CATALOGERS: readonly Cataloger[] = ECOSYSTEMS.flatMap((e) => e.catalogers);

/** The cataloger of that name (tests and tools use it to run one cataloger alone). */
export function catalogerNamed(name: string): Cataloger {
  const found = ALL_CATALOGERS.find((c) => c.name === name);
  if (!found) throw new Error(`no cataloger is named "${name}"`);
  return found;
}

/** Language package types an OS package can install (their ecosystem has an ownership key). */
export const OWNABLE_TYPES: ReadonlySet<PackageType> = new Set(LANGUAGE.filter((e) => e.ownershipKey).map((e) => e.type));

// --- Names in other formats ----------------------------------------------------------------------------------------

const BY_PURL_TYPE = new Map(ECOSYSTEMS.map((e) => [e.names.purl, e.type]));
// syft's artifact types and aliases, plus Vigil's own type names (what a `vigil:package:type` property carries).
const BY_SYFT_TYPE = new Map<string, PackageType>(
  ECOSYSTEMS.flatMap((e) => [e.names.syft, ...(e.names.syftAliases ?? []), e.type].map((name) => [name, e.type] as const)),
);

/** Vigil's type for a purl type (`deb` -> dpkg, `pypi` -> python, `maven` -> java, `golang` -> go). */
export function typeFromPurlType(purlType: string): PackageType | undefined {
  return BY_PURL_TYPE.get(purlType.toLowerCase());
}

/** Vigil's type for a syft artifact type (`deb`, `java-archive`, `go-module`...) or a Vigil type name. */
export function typeFromSyftType(syftType: string): PackageType | undefined {
  return BY_SYFT_TYPE.get(syftType.toLowerCase());
}

// --- Content listings ----------------------------------------------------------------------------------------------

export interface ContentType {
  type: string;
  display: string;
  packageTypes: PackageType[];
}

/** `GET /images/{digest}/content/{type}` listings, each with the package types it shows, in listing order. */
export const CONTENT_TYPES: readonly ContentType[] = ECOSYSTEMS.reduce<ContentType[]>((out, e) => {
  const listing = out.find((c) => c.type === e.content.type);
  if (listing) listing.packageTypes.push(e.type);
  else out.push({ type: e.content.type, display: e.content.display, packageTypes: [e.type] });
  return out;
}, []);

// --- Vulnerability feeds -------------------------------------------------------------------------------------------

const BY_FEED = new Map<string, { feed: FeedEcosystem; ecosystem: Ecosystem }>(
  ECOSYSTEMS.flatMap((ecosystem) => ecosystem.feeds.map((feed) => [feed.key, { feed, ecosystem }] as const)),
);

/** Every OSV ecosystem (lower-cased) a cataloged package can be looked up in. */
export const MATCHED_ECOSYSTEMS: readonly string[] = [...BY_FEED.keys()];

/** OSV's own spelling of a matched ecosystem (`pypi` -> `PyPI`), the name of its export folder. */
export function osvNameOf(feedKey: string): string | undefined {
  return BY_FEED.get(feedKey.toLowerCase())?.feed.osv;
}

/** The Vigil package type an OSV ecosystem's packages are (`pypi` -> python, `red hat` -> rpm). */
export function typeOfFeed(feedKey: string): PackageType | undefined {
  return BY_FEED.get(feedKey.toLowerCase())?.ecosystem.type;
}

/** The comparator for versions in an OSV ecosystem's records (lower-cased base name), if Vigil orders them. */
export function comparatorForEcosystem(feedKey: string): VersionComparator | undefined {
  return BY_FEED.get(feedKey.toLowerCase())?.ecosystem.comparator;
}

/** The key a package is indexed and looked up under in an OSV ecosystem; names of other ecosystems are kept as given. */
export function normalizePackageName(feedKey: string, name: string): string {
  const entry = BY_FEED.get(feedKey.toLowerCase());
  return entry ? entry.ecosystem.normalizeName(name) : name;
}

/** Every key a name may be indexed under in some ecosystem (as given, lower-cased, PEP 503), for searches by name. */
export function indexNamesOf(name: string): string[] {
  return [...new Set([name, ...LANGUAGE.map((e) => e.normalizeName(name))])];
}

const DISTRO_FEEDS: readonly DistroFeed[] = ECOSYSTEMS.flatMap((e) => e.distros ?? []);

const DISTRO_BY_KEY = new Map(DISTRO_FEEDS.map((f) => [f.key, f]));

/** The distribution an OSV ecosystem name (`Ubuntu`, `Red Hat`) stands for, if it is one Vigil matches. */
export function distroFeedNamed(osvName: string): DistroFeed | undefined {
  return DISTRO_BY_KEY.get(osvName.toLowerCase());
}

/** The image's distribution feed and release, or undefined when no feed covers the distribution. */
export function distroFeedOf(distro: DistroInfo | undefined): { ecosystem: string; release?: string } | undefined {
  const feed = distro && findDistroFeed(DISTRO_FEEDS, distro);
  if (!feed) return undefined;
  const release = feed.release(distro);
  return { ecosystem: feed.key, ...(release !== undefined ? { release } : {}) };
}
