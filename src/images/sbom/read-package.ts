/**
 * Turning what an imported SBOM says about one package into a CatalogedPackage, the same for every format:
 * resolving the type, keeping the given purl (or building the one Vigil's cataloger would have), and filling in
 * the origin from purl conventions when the document has no better source.
 */
import { PackageURL } from 'packageurl-js';
import { sourceRpmName } from '../../ecosystems/rpm/cataloger.js';
import { normalizePythonName } from '../../ecosystems/python/cataloger.js';
import { distroQualifier } from '../../ecosystems/distro.js';
import { purl as buildPurl } from '../../ecosystems/shared/identifiers.js';
import type { CatalogedPackage, DistroInfo, PackageType } from '../model.js';
import { isOsPackageType, typeFromPurlType } from './package-types.js';

/** What a reader gathered about one package; `typeHints` are Vigil types in the format's order of trust. */
export interface PackageFacts {
  /** Where the package is in the document, for warnings (`components[3]`). */
  where: string;
  name: string;
  /**
   * A namespace the document keeps apart from the name (CycloneDX `group`): Maven's group is Vigil's origin, while
   * npm scopes, Go module paths and Composer vendors belong in the name (cyclonedx-npm and cdxgen split them off).
   */
  group?: string;
  version: string;
  typeHints: (PackageType | undefined)[];
  /** The type as the document names it, for the warning when it cannot be imported. */
  declaredType?: string;
  purl?: string;
  cpes: string[];
  licenses: string[];
  locations: string[];
  origin?: string;
  sourceVersion?: string;
  size?: number;
  metadata: Record<string, unknown>;
}

export function parsePurl(value: string | undefined): PackageURL | undefined {
  if (!value) return undefined;
  try {
    return PackageURL.fromString(value);
  } catch {
    return undefined;
  }
}

const unique = (values: string[]) => [...new Set(values.map((v) => v.trim()).filter(Boolean))];

/** rpm versions are `[epoch:]version-release`; the purl carries the epoch as a qualifier. */
function splitEpoch(version: string): { epoch?: string; rest: string } {
  const match = /^(\d+):(.+)$/.exec(version);
  return match ? { epoch: match[1], rest: match[2]! } : { rest: version };
}

/** The purl Vigil's own cataloger would have written, for documents that carry none. */
function purlFor(type: PackageType, name: string, version: string, origin: string | undefined, distro: DistroInfo | undefined, arch?: string): string {
  const qualifiers = { arch, distro: distroQualifier(distro) };
  try {
    switch (type) {
      case 'dpkg':
        return buildPurl('deb', distro?.name ?? 'debian', name, version, qualifiers);
      case 'apk':
        return buildPurl('apk', distro?.name ?? 'alpine', name, version, qualifiers);
      case 'rpm': {
        const { epoch, rest } = splitEpoch(version);
        return buildPurl('rpm', distro?.name, name, rest, { ...qualifiers, epoch });
      }
      case 'npm': {
        const scoped = /^(@[^/]+)\/(.+)$/.exec(name);
        return buildPurl('npm', scoped?.[1], scoped?.[2] ?? name, version);
      }
      case 'python':
        return buildPurl('pypi', undefined, normalizePythonName(name), version);
      case 'gem':
        return buildPurl('gem', undefined, name, version);
      case 'java':
        return buildPurl('maven', origin ?? name, name, version);
      case 'go': {
        const slash = name.lastIndexOf('/');
        // `(devel)` is Go's word for "no version" (a main module built from a checkout), as the cataloger treats it.
        const moduleVersion = version === '(devel)' ? undefined : version;
        return buildPurl('golang', slash > 0 ? name.slice(0, slash) : undefined, slash > 0 ? name.slice(slash + 1) : name, moduleVersion);
      }
      case 'rust':
        return buildPurl('cargo', undefined, name, version);
      case 'nuget':
        return buildPurl('nuget', undefined, name, version);
      case 'composer': {
        const [vendor, project] = name.split('/', 2);
        return project ? buildPurl('composer', vendor, project, version) : buildPurl('composer', undefined, name, version);
      }
    }
  } catch {
    return ''; // a name purl cannot hold: the package is still worth importing
  }
}

/**
 * Origin as Vigil means it (source package, Maven group, Go module path), from purl conventions: syft writes the
 * source package of deb/rpm/apk as an `upstream` qualifier (`glibc`, `glibc@2.36-9`, or an rpm's source rpm file).
 */
function originFromPurl(type: PackageType, purl: PackageURL | undefined, name: string): { origin?: string; sourceVersion?: string } {
  if (type === 'go') return { origin: name };
  if (!purl) return {};
  if (type === 'java') return purl.namespace ? { origin: purl.namespace } : {};
  const upstream = purl.qualifiers?.['upstream'];
  if (!upstream || !isOsPackageType(type)) return {};
  if (type === 'rpm') return { origin: sourceRpmName(upstream) ?? upstream };
  const match = /^([^@\s(]+)(?:@([^\s]+)|\s*\(([^)]+)\))?$/.exec(upstream.trim());
  if (!match) return { origin: upstream };
  const sourceVersion = match[2] ?? match[3];
  return { origin: match[1], ...(sourceVersion ? { sourceVersion } : {}) };
}

function withGroup(type: PackageType, name: string, group: string | undefined): string {
  if (!group || !(type === 'npm' || type === 'go' || type === 'composer') || name.startsWith(`${group}/`)) return name;
  return `${group}/${name}`;
}

/** The CatalogedPackage, or undefined (with a warning) when its type is not one Vigil can import. */
export function toCatalogedPackage(facts: PackageFacts, distro: DistroInfo | undefined, warnings: string[]): CatalogedPackage | undefined {
  let purl = facts.purl?.trim() || undefined;
  let parsed = parsePurl(purl);
  if (purl && !parsed) {
    warnings.push(`${facts.where}: ignored the invalid purl '${purl}' of '${facts.name}'`);
    purl = undefined;
  }
  const type = [...facts.typeHints, parsed ? typeFromPurlType(parsed.type) : undefined].find((t) => t !== undefined);
  if (!type) {
    const declared = facts.declaredType ?? parsed?.type;
    warnings.push(
      declared
        ? `${facts.where}: skipped '${facts.name}': unsupported package type '${declared}'`
        : `${facts.where}: skipped '${facts.name}': neither a purl nor a package type says which ecosystem it is from`,
    );
    return undefined;
  }
  const grouped = withGroup(type, facts.name, facts.group);
  // Composer names are lower-case (Composer lower-cases them on install), as the cataloger lists them.
  const name = type === 'composer' ? grouped.toLowerCase() : grouped;
  const fromPurl = originFromPurl(type, parsed, name);
  const origin = facts.origin || (type === 'java' ? facts.group : undefined) || fromPurl.origin;
  const sourceVersion = facts.sourceVersion || (facts.origin ? undefined : fromPurl.sourceVersion);
  const metadata = { ...facts.metadata };
  const arch = parsed?.qualifiers?.['arch'];
  // OS catalogers keep the architecture in metadata (their purls are rebuilt from it); imported packages match.
  if (arch && isOsPackageType(type) && metadata['architecture'] === undefined) metadata['architecture'] = arch;
  if (!purl) {
    purl = purlFor(type, name, facts.version, origin, isOsPackageType(type) ? distro : undefined, arch);
    parsed = undefined;
  }
  return {
    name,
    version: facts.version,
    type,
    locations: unique(facts.locations),
    licenses: unique(facts.licenses),
    ...(origin ? { origin } : {}),
    ...(sourceVersion ? { sourceVersion } : {}),
    ...(facts.size !== undefined ? { size: facts.size } : {}),
    purl,
    cpes: unique(facts.cpes),
    metadata,
  };
}

/**
 * A distro from an OS package purl's `distro` qualifier (`debian-12`, `alpine-3.18.4`, `opensuse-leap-15.5`), for
 * documents with no operating-system element of their own (SPDX 2.2 has no package purposes).
 */
export function distroFromPackages(packages: CatalogedPackage[]): DistroInfo | undefined {
  for (const p of packages) {
    if (!isOsPackageType(p.type)) continue;
    const qualifier = parsePurl(p.purl)?.qualifiers?.['distro'];
    if (!qualifier) continue;
    const match = /^(.+?)-(\d[^-]*)$/.exec(qualifier);
    return match ? { name: match[1]!.toLowerCase(), version: match[2]!, like: [] } : { name: qualifier.toLowerCase(), version: '', like: [] };
  }
  return undefined;
}
