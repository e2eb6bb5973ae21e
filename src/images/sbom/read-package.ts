/**
 * Turning what an imported SBOM says about one package into a CatalogedPackage, the same for every format:
 * resolving the type, keeping the given purl (or building the one Vigil's cataloger would have), and filling in
 * the origin from purl conventions when the document has no better source.
 */
import { PackageURL } from 'packageurl-js';
import type { Ecosystem, ImportedIdentity } from '../../ecosystems/ecosystem.js';
import { ecosystemOf } from '../../ecosystems/registry.js';
import { isOsPackageType, type CatalogedPackage, type DistroInfo, type PackageType } from '../../ecosystems/model.js';
import { typeFromPurlType } from './package-types.js';

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

/** The purl Vigil's own cataloger would have written, for documents that carry none. */
function purlFor(ecosystem: Ecosystem, identity: ImportedIdentity): string {
  try {
    return ecosystem.purlFor(identity);
  } catch {
    return ''; // a name purl cannot hold: the package is still worth importing
  }
}

function withGroup(ecosystem: Ecosystem, name: string, group: string | undefined): string {
  if (!group || !ecosystem.groupInName || name.startsWith(`${group}/`)) return name;
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
  const ecosystem = ecosystemOf(type)!;
  const grouped = withGroup(ecosystem, facts.name, facts.group);
  const name = ecosystem.canonicalName?.(grouped) ?? grouped;
  const fromPurl = ecosystem.originFromPurl?.(parsed, name) ?? {};
  const origin = facts.origin || (type === 'java' ? facts.group : undefined) || fromPurl.origin;
  const sourceVersion = facts.sourceVersion || (facts.origin ? undefined : fromPurl.sourceVersion);
  const metadata = { ...facts.metadata };
  const arch = parsed?.qualifiers?.['arch'];
  // OS catalogers keep the architecture in metadata (their purls are rebuilt from it); imported packages match.
  if (arch && isOsPackageType(type) && metadata['architecture'] === undefined) metadata['architecture'] = arch;
  if (!purl) {
    purl = purlFor(ecosystem, { name, version: facts.version, origin, ...(isOsPackageType(type) && distro ? { distro } : {}), arch });
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
