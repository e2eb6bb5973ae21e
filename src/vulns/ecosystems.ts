/**
 * Where a cataloged package is looked up in the vulnerability index: the OSV ecosystem (and, for distro packages,
 * the release) its advisories are filed under, the names to look up, and the comparator for its versions.
 * Language packages match only their own ecosystem by normalised name: no CPE guessing, precision first.
 */
import type { DistroInfo } from '../images/model.js';
import { normalizePackageName } from './package-names.js';
import { apkComparator } from '../ecosystems/apk/versions.js';
import { composerComparator } from '../ecosystems/composer/versions.js';
import type { VersionComparator } from '../ecosystems/shared/comparator.js';
import { dpkgComparator } from '../ecosystems/dpkg/versions.js';
import { gemComparator } from '../ecosystems/gem/versions.js';
import { goComparator } from '../ecosystems/go/versions.js';
import { mavenComparator } from '../ecosystems/java/versions.js';
import { nugetComparator } from '../ecosystems/nuget/versions.js';
import { pep440Comparator } from '../ecosystems/python/versions.js';
import { rpmComparator } from '../ecosystems/rpm/versions.js';
import { semverComparator } from '../ecosystems/shared/semver.js';

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

const OS_TYPES = new Set(['dpkg', 'apk', 'rpm']);

/** OSV's names for distributions (os-release ID, or an ID_LIKE entry -> lower-cased OSV ecosystem). */
const DISTRO_ECOSYSTEMS: Record<string, string> = {
  debian: 'debian',
  ubuntu: 'ubuntu',
  alpine: 'alpine',
  wolfi: 'wolfi',
  chainguard: 'chainguard',
  rhel: 'red hat',
  rocky: 'rocky linux',
  almalinux: 'almalinux',
  sles: 'suse',
  sles_sap: 'suse',
  sled: 'suse',
  'sle-micro': 'suse',
  'sl-micro': 'suse',
  opensuse: 'opensuse',
  'opensuse-leap': 'opensuse',
  'opensuse-leap-micro': 'opensuse',
  'opensuse-tumbleweed': 'opensuse',
  mageia: 'mageia',
};

/** Language ecosystems lookupTarget looks packages up in (lower-cased OSV names), by package type. */
const LANGUAGE_ECOSYSTEMS = { npm: 'npm', python: 'pypi', gem: 'rubygems', java: 'maven', go: 'go', rust: 'crates.io', nuget: 'nuget', composer: 'packagist' } as const;

/**
 * Every OSV ecosystem (lower-cased) a cataloged package can be looked up in: the distributions and the language
 * ecosystems above. The default feed set (sources/default-feeds.ts) downloads an export for each.
 */
export const MATCHED_ECOSYSTEMS: readonly string[] = [...new Set([...Object.values(DISTRO_ECOSYSTEMS), ...Object.values(LANGUAGE_ECOSYSTEMS)])];

/**
 * The release as advisories name it (osv/ecosystem.ts gives the feed's side): Debian, RHEL-family and Mageia by
 * major version, Alpine by major.minor, Ubuntu as YY.MM, SLE by VERSION_ID (`15.5` is 15 SP5), openSUSE by line
 * (`leap-15.5`, `tumbleweed`); none for the rolling Wolfi and Chainguard, whose records carry no release.
 */
function releaseOf(distro: DistroInfo, ecosystem: string): string | undefined {
  const parts = distro.version.split('.');
  switch (ecosystem) {
    case 'wolfi':
    case 'chainguard':
      return undefined;
    case 'alpine':
      return parts.slice(0, 2).join('.');
    case 'ubuntu':
      return distro.version;
    case 'suse':
      return distro.name === 'sle-micro' || distro.name === 'sl-micro' ? `micro-${distro.version}` : parts.slice(0, 2).join('.');
    case 'opensuse':
      if (distro.name === 'opensuse-tumbleweed') return 'tumbleweed';
      return `${distro.name === 'opensuse-leap-micro' ? 'leap-micro' : 'leap'}-${parts.slice(0, 2).join('.')}`;
    default:
      return parts[0];
  }
}

function distroTarget(pkg: MatchablePackage, distro: DistroInfo | undefined, comparator: VersionComparator): LookupTarget | undefined {
  if (!distro) return undefined;
  const ecosystem = DISTRO_ECOSYSTEMS[distro.name] ?? DISTRO_ECOSYSTEMS[distro.like.find((l) => DISTRO_ECOSYSTEMS[l]) ?? ''];
  if (!ecosystem) return undefined;
  const names = [...new Set([pkg.name, pkg.origin].filter((n): n is string => !!n))];
  const release = releaseOf(distro, ecosystem);
  return { ecosystem, ...(release !== undefined ? { release } : {}), names, comparator };
}

function languageTarget(ecosystem: string, name: string, comparator: VersionComparator): LookupTarget {
  return { ecosystem, names: [normalizePackageName(ecosystem, name)], comparator };
}

/** The lookup for a package, or undefined when no feed covers it (an unknown distro, say). */
export function lookupTarget(pkg: MatchablePackage, distro: DistroInfo | undefined): LookupTarget | undefined {
  // Owned language packages are matched through their owner, which is listed (and matched) as an OS package.
  if (pkg.owner && !OS_TYPES.has(pkg.type)) return undefined;
  switch (pkg.type) {
    case 'dpkg':
      return distroTarget(pkg, distro, dpkgComparator);
    case 'apk':
      return distroTarget(pkg, distro, apkComparator);
    case 'rpm':
      return distroTarget(pkg, distro, rpmComparator);
    case 'npm':
      return languageTarget(LANGUAGE_ECOSYSTEMS.npm, pkg.name, semverComparator);
    case 'python':
      return languageTarget(LANGUAGE_ECOSYSTEMS.python, pkg.name, pep440Comparator);
    case 'gem':
      return languageTarget(LANGUAGE_ECOSYSTEMS.gem, pkg.name, gemComparator);
    case 'java':
      // Maven advisories name group:artifact; without a group the artifact alone cannot be matched precisely.
      return pkg.origin ? languageTarget(LANGUAGE_ECOSYSTEMS.java, `${pkg.origin}:${pkg.name}`, mavenComparator) : undefined;
    case 'go':
      return languageTarget(LANGUAGE_ECOSYSTEMS.go, pkg.name, goComparator);
    case 'rust':
      return languageTarget(LANGUAGE_ECOSYSTEMS.rust, pkg.name, semverComparator);
    case 'nuget':
      return languageTarget(LANGUAGE_ECOSYSTEMS.nuget, pkg.name, nugetComparator);
    case 'composer':
      // A branch install (`dev-main`) names no release: every range would call it older than any version.
      return composerComparator.isValid(pkg.version) ? languageTarget(LANGUAGE_ECOSYSTEMS.composer, pkg.name, composerComparator) : undefined;
    default:
      return undefined;
  }
}

/** The comparator for versions in an OSV ecosystem's records (lower-cased base name), if Vigil orders them. */
const ECOSYSTEM_COMPARATORS: Record<string, VersionComparator> = {
  debian: dpkgComparator,
  ubuntu: dpkgComparator,
  alpine: apkComparator,
  wolfi: apkComparator,
  chainguard: apkComparator,
  'red hat': rpmComparator,
  'rocky linux': rpmComparator,
  almalinux: rpmComparator,
  suse: rpmComparator,
  opensuse: rpmComparator,
  mageia: rpmComparator,
  pypi: pep440Comparator,
  npm: semverComparator,
  'crates.io': semverComparator,
  go: goComparator,
  maven: mavenComparator,
  rubygems: gemComparator,
  nuget: nugetComparator,
  packagist: composerComparator,
};

export function comparatorForEcosystem(ecosystem: string): VersionComparator | undefined {
  return ECOSYSTEM_COMPARATORS[ecosystem.toLowerCase()];
}
