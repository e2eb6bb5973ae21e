/**
 * The SBOM diff of a relationship: the packages of its source artifact against those of its target, paired by
 * package type and name. A version on both sides is unmodified; the other versions of a name pair up in version
 * order as modified, and what is left over is on one side only. Each changed package carries the findings stored
 * for it on its own side, so the diff shows which vulnerabilities a change brings or removes.
 */
import type { Db } from '../db/index.js';
import { getAnalyzedImage, packagesIn, type PackageRow } from '../images/store.js';
import { getSource, sourcePackages } from '../sources/store.js';
import { IMAGE_FINDINGS, SOURCE_FINDINGS, storedSubjectFindings, type FindingRow } from '../vulns/findings.js';
import { describeMatches, fromFinding, type PackageVulnerabilityItem } from '../vulns/image-report.js';
import type { ArtifactReference, Relationship } from './relationships.js';

/** One side's packages, with the findings stored for each (keyed by packageKey). */
interface ArtifactSbom {
  packages: PackageRow[];
  findings: Map<string, PackageVulnerabilityItem[]>;
}

export interface DiffPackage {
  package: PackageRow;
  vulnerabilities?: PackageVulnerabilityItem[];
}

export interface SbomDiff {
  source_only: DiffPackage[];
  target_only: DiffPackage[];
  source_modified: { source: DiffPackage; target: DiffPackage }[];
  both_unmodified: DiffPackage[];
}

const nameKey = (p: { type: string; name: string }) => `${p.type}\u0000${p.name}`;
const packageKey = (type: string, name: string, version: string) => `${type}\u0000${name}\u0000${version}`;
const byPackage = (a: PackageRow, b: PackageRow) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name) || a.version.localeCompare(b.version);

async function findingsByPackage(db: Db, findings: FindingRow[]): Promise<Map<string, PackageVulnerabilityItem[]>> {
  const items = await describeMatches(db, findings.map(fromFinding), { includeDescription: false });
  const out = new Map<string, PackageVulnerabilityItem[]>();
  for (const item of items) {
    const key = packageKey(item.package_type, item.package_name, item.package_version);
    out.set(key, [...(out.get(key) ?? []), item]);
  }
  return out;
}

/** The artifact's packages and findings; an image must be analyzed (409 otherwise), a missing artifact is a 404. */
async function artifactSbom(db: Db, accountName: string, ref: ArtifactReference): Promise<ArtifactSbom> {
  if (ref.artifact_type === 'image') {
    const image = await getAnalyzedImage(db, accountName, ref.artifact_id);
    return {
      packages: await packagesIn(db, 'image_packages', { account_name: accountName, image_digest: image.image_digest }),
      findings: await findingsByPackage(db, await storedSubjectFindings(db, IMAGE_FINDINGS, accountName, image.image_digest)),
    };
  }
  const source = await getSource(db, accountName, ref.artifact_id);
  return {
    packages: await sourcePackages(db, source),
    findings: await findingsByPackage(db, await storedSubjectFindings(db, SOURCE_FINDINGS, accountName, source.source_id)),
  };
}

/** Each name's packages, one per version (a package found at several locations counts once), in version order. */
function versionsByName(packages: PackageRow[]): Map<string, PackageRow[]> {
  const out = new Map<string, PackageRow[]>();
  for (const p of [...packages].sort(byPackage)) {
    const versions = out.get(nameKey(p)) ?? [];
    if (!versions.some((v) => v.version === p.version)) versions.push(p);
    out.set(nameKey(p), versions);
  }
  return out;
}

function withFindings(sbom: ArtifactSbom, p: PackageRow): DiffPackage {
  return { package: p, vulnerabilities: sbom.findings.get(packageKey(p.type, p.name, p.version)) ?? [] };
}

export function diffSboms(source: ArtifactSbom, target: ArtifactSbom): SbomDiff {
  const diff: SbomDiff = { source_only: [], target_only: [], source_modified: [], both_unmodified: [] };
  const sourceNames = versionsByName(source.packages);
  const targetNames = versionsByName(target.packages);
  const names = [...new Set([...sourceNames.keys(), ...targetNames.keys()])].sort();
  for (const name of names) {
    const ours = sourceNames.get(name) ?? [];
    const theirs = targetNames.get(name) ?? [];
    const common = new Set(ours.filter((p) => theirs.some((t) => t.version === p.version)).map((p) => p.version));
    diff.both_unmodified.push(...ours.filter((p) => common.has(p.version)).map((p) => ({ package: p })));
    const ourRest = ours.filter((p) => !common.has(p.version));
    const theirRest = theirs.filter((p) => !common.has(p.version));
    const paired = Math.min(ourRest.length, theirRest.length);
    for (let i = 0; i < paired; i++) diff.source_modified.push({ source: withFindings(source, ourRest[i]!), target: withFindings(target, theirRest[i]!) });
    diff.source_only.push(...ourRest.slice(paired).map((p) => withFindings(source, p)));
    diff.target_only.push(...theirRest.slice(paired).map((p) => withFindings(target, p)));
  }
  return diff;
}

export async function relationshipSbomDiff(db: Db, accountName: string, relationship: Relationship): Promise<SbomDiff> {
  return diffSboms(await artifactSbom(db, accountName, relationship.source), await artifactSbom(db, accountName, relationship.target));
}
