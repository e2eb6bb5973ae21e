/**
 * The correction step of matching: before an image's packages are looked up, each package a correction applies to
 * is replaced by its corrected view (another name, version or purl), so it meets the advisories its true identity
 * has. Findings stay about the package as analysed (its stored name, version and path); only what is looked up
 * changes. Corrections come from a CorrectionProvider (the database: ./store.ts; a list in unit tests), so this
 * step holds no SQL.
 */
import type { PackageType } from '../../ecosystems/model.js';
import type { MatchablePackage } from '../../ecosystems/shared/lookup.js';
import { parsePurl, toCatalogedPackage } from '../../images/sbom/read-package.js';
import { correctionApplies, type CorrectablePackage, type Correction, type CorrectionFieldMatch } from './model.js';

export interface CorrectionProvider {
  /** Every correction, oldest first (a later one's replacements win over an earlier one's). */
  corrections(): Promise<readonly Correction[]>;
}

/** A provider over a list read before (a re-match run reads it once for all its images; unit tests). */
export function listedCorrections(list: readonly Correction[]): CorrectionProvider {
  return { corrections: async () => list };
}

/**
 * A purl stands for a name and version in its ecosystem's conventions: read as an imported SBOM's purl is (Maven
 * namespace as origin, npm scope and Go module path in the name, a Debian purl's `upstream` as the source package).
 */
function identityFromPurl<P extends MatchablePackage>(pkg: P, purl: string): Partial<MatchablePackage> {
  const parsed = parsePurl(purl);
  if (!parsed) return {};
  const read = toCatalogedPackage(
    { where: 'correction', name: parsed.name, group: parsed.namespace ?? undefined, version: parsed.version ?? pkg.version, typeHints: [pkg.type as PackageType], purl, cpes: [], licenses: [], locations: [], metadata: {} },
    undefined,
    [],
  );
  if (!read) return {};
  return { name: read.name, version: read.version, origin: read.origin ?? null, sourceVersion: read.sourceVersion ?? null };
}

function replaced<P extends MatchablePackage & CorrectablePackage>(pkg: P, replace: readonly CorrectionFieldMatch[]): P {
  let out: P = { ...pkg };
  for (const r of replace) {
    if (r.field_name === 'name' || r.field_name === 'package') out = { ...out, name: r.field_value };
    else if (r.field_name === 'version') out = { ...out, version: r.field_value };
    else if (r.field_name === 'purl') out = { ...out, ...identityFromPurl(out, r.field_value), purl: r.field_value };
    // `cpes`: Vigil looks packages up by name, never by CPE, so a CPE replacement changes no match.
  }
  return out;
}

/**
 * Each package as matching should see it: unchanged when no correction applies (the same object), else a copy with
 * the replacements of every correction whose match holds for the package as analysed, in the provider's order.
 */
export function applyCorrections<P extends MatchablePackage & CorrectablePackage>(packages: readonly P[], corrections: readonly Correction[]): P[] {
  if (corrections.length === 0) return [...packages];
  return packages.map((pkg) => {
    let out = pkg;
    for (const c of corrections) if (correctionApplies(c.match, pkg)) out = replaced(out, c.replace);
    return out;
  });
}

/** The correction step: the packages with the provider's corrections applied. */
export async function correctPackages<P extends MatchablePackage & CorrectablePackage>(provider: CorrectionProvider, packages: readonly P[]): Promise<P[]> {
  return applyCorrections(packages, await provider.corrections());
}

/**
 * The corrections that change what a package is looked up under (a name or purl replacement), each loosened to its
 * name matches: a feed change under a corrected name concerns every package such a correction may apply to
 * (rematch.ts), whatever its version or other fields, so this errs towards more packages, never fewer.
 */
export function renamingCorrections(corrections: readonly Correction[]): Correction[] {
  return corrections
    .filter((c) => c.replace.some((r) => r.field_name === 'name' || r.field_name === 'package' || r.field_name === 'purl'))
    .map((c) => ({ ...c, match: { type: c.match.type, field_matches: (c.match.field_matches ?? []).filter((m) => m.field_name === 'name' || m.field_name === 'package') } }));
}
