/**
 * What Vigil knows about one package ecosystem, in one place: how its packages are found (catalogers), named in
 * other formats (syft, purl, CycloneDX/SPDX), listed by the API, ordered by version, and looked up in the
 * vulnerability data. Each ecosystem's folder exports one of these; registry.ts lists them and every table that
 * used to spell out ecosystems reads it.
 */
import type { PackageURL } from 'packageurl-js';
import type { Cataloger, DistroInfo, PackageType } from './model.js';
import type { VersionComparator } from './shared/comparator.js';
import { distroLookup, feedEcosystem, languageLookup, type DistroFeed, type FeedEcosystem, type Lookup } from './shared/lookup.js';

/** How other tools and formats name the type. */
export interface EcosystemNames {
  /** syft's artifact type (`deb`, `java-archive`, `go-module`). */
  readonly syft: string;
  /** Other syft types read as this one (`jenkins-plugin` is a Java archive). */
  readonly syftAliases?: readonly string[];
  /** The purl type (`deb`, `pypi`, `maven`, `golang`). */
  readonly purl: string;
  /** syft's `language`: empty for OS packages. */
  readonly language: string;
  /** The cataloger name written as syft's `foundBy`. */
  readonly foundBy: string;
}

/** The `GET /images/{digest}/content/{type}` listing the packages appear in. */
export interface ContentListing {
  readonly type: string;
  readonly display: string;
}

/** What an imported SBOM says about a package, for building what the cataloger would have recorded. */
export interface ImportedIdentity {
  name: string;
  version: string;
  origin?: string;
  /** The image's distribution: given to OS package types only. */
  distro?: DistroInfo;
  /** The purl's `arch` qualifier. */
  arch?: string;
}

export interface Ecosystem {
  readonly type: PackageType;
  readonly names: EcosystemNames;
  readonly content: ContentListing;
  /** Catalogers, in the order their packages are listed. */
  readonly catalogers: readonly Cataloger[];
  /** How the ecosystem orders versions (the packages gate and the matcher use it). */
  readonly comparator: VersionComparator;
  /**
   * The OSV ecosystems whose records describe this type's packages: the one language ecosystem, or the
   * distributions whose package manager this is.
   */
  readonly feeds: readonly FeedEcosystem[];
  /** For OS package types: the same feeds, with the release each image gets. */
  readonly distros?: readonly DistroFeed[];
  /** Where a package is looked up (a strategy of shared/lookup.ts); undefined: no feed covers it. */
  readonly lookup: Lookup;
  /** The key a name is indexed and looked up under in this type's feeds (PEP 503 for PyPI, lower case for npm). */
  normalizeName(name: string): string;
  /**
   * Ownership (images/ownership.ts), language types an OS package can install only: the key of a path that is or
   * lies in one of this type's metadata locations, so an OS file list and a package location meet on it.
   */
  ownershipKey?(path: string): string | undefined;
  /** The purl Vigil's cataloger would write, for an imported package that has none. Throws on a name purl cannot hold. */
  purlFor(identity: ImportedIdentity): string;
  /** Vigil's origin (source package, Maven group, module path) from purl conventions, for imports. */
  originFromPurl?(purl: PackageURL | undefined, name: string): { origin?: string; sourceVersion?: string };
  /** Whether a separate namespace (CycloneDX `group`) belongs in the name, as npm scopes and Go module paths do. */
  readonly groupInName?: boolean;
  /** The name as the cataloger lists it (Composer lower-cases), for imports. */
  canonicalName?(name: string): string;
  /**
   * The package's id in allowlists and trigger ids of the vulnerabilities gate, from its path parts (a jar or
   * gem file name, an npm module's directory); undefined falls back to `name-version`.
   */
  allowlistKey?(pathParts: readonly string[]): string | undefined;
}

type Derived = 'feeds' | 'distros' | 'lookup';

/** A language ecosystem: its packages are looked up by normalised name in its one OSV ecosystem. */
export interface LanguageEcosystemSpec extends Omit<Ecosystem, Derived> {
  /** OSV's name of the ecosystem (`PyPI`, `crates.io`). */
  readonly osv: string;
  /** A narrower lookup built on the by-name one (Maven's group:artifact, Composer's branch installs). */
  readonly lookup?: (byName: Lookup) => Lookup;
}

export function languageEcosystem({ osv, lookup, ...rest }: LanguageEcosystemSpec): Ecosystem {
  const feed = feedEcosystem(osv);
  const byName = languageLookup(feed, rest.normalizeName, rest.comparator);
  return { ...rest, feeds: [feed], lookup: lookup ? lookup(byName) : byName };
}

/** An OS package manager: its packages are looked up in the image's distribution, one of `distros`. */
export interface OsEcosystemSpec extends Omit<Ecosystem, Derived | 'content' | 'normalizeName'> {
  readonly distros: readonly DistroFeed[];
}

export function osEcosystem(spec: OsEcosystemSpec): Ecosystem {
  return {
    ...spec,
    content: { type: 'os', display: 'OS Packages' },
    feeds: spec.distros,
    lookup: distroLookup(spec.distros, spec.comparator),
    // Distro package names are case-sensitive as given.
    normalizeName: (name) => name,
  };
}

/** Name normalisation of the ecosystems whose names are case-insensitive (npm, RubyGems, crates.io, ...). */
export const lowerCaseName = (name: string): string => name.toLowerCase();
