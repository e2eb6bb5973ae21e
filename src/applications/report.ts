/**
 * What an application version reports: the stored findings of its artifacts, grouped by vulnerability with one
 * match per affected package and artifact, and one SBOM of every artifact's packages. Both read what the images'
 * and sources' own reports read (vulns/image-report.ts, sources/report.ts); nothing is matched again here.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import { packagesOf } from '../images/store.js';
import type { SbomInput } from '../images/sbom/input.js';
import { sourcePackages } from '../sources/store.js';
import { sourceVulnerabilities } from '../sources/report.js';
import { imageVulnerabilities, type PackageVulnerabilityItem } from '../vulns/image-report.js';
import type { VersionArtifacts } from './artifacts.js';
import type { ApplicationVersionRecord, ArtifactType } from './store.js';

export interface VersionVulnerabilityMatch {
  fix: string;
  location: {
    artifact_type: ArtifactType;
    artifact_id: string;
    package_name: string;
    package_version: string;
    package_type: string;
    package_path: string | null;
  };
}

export interface VersionVulnerability {
  id: string;
  severity: PackageVulnerabilityItem['severity'];
  url: string;
  nvd: PackageVulnerabilityItem['nvd_data'];
  vendor_data: PackageVulnerabilityItem['vendor_data'];
  matches: VersionVulnerabilityMatch[];
}

const SELECTION = { vulnType: 'all', vendorOnly: true, includeDescription: false } as const;

/** The version's vulnerabilities, by id, each with its matches in every associated artifact. */
export async function versionVulnerabilities(db: Db, artifacts: VersionArtifacts): Promise<VersionVulnerability[]> {
  const found: { type: ArtifactType; id: string; items: PackageVulnerabilityItem[] }[] = [];
  for (const { image } of artifacts.images)
    found.push({ type: 'image', id: image.image_digest, items: await imageVulnerabilities(db, image.account_name, image.image_digest, SELECTION) });
  for (const { source } of artifacts.sources) found.push({ type: 'source', id: source.source_id, items: await sourceVulnerabilities(db, source, SELECTION) });
  const byId = new Map<string, VersionVulnerability>();
  for (const { type, id, items } of found) {
    for (const v of items) {
      const entry = byId.get(v.vuln) ?? { id: v.vuln, severity: v.severity, url: v.url, nvd: v.nvd_data, vendor_data: v.vendor_data, matches: [] };
      entry.matches.push({
        fix: v.fix,
        location: { artifact_type: type, artifact_id: id, package_name: v.package_name, package_version: v.package_version, package_type: v.package_type, package_path: v.package_path },
      });
      byId.set(v.vuln, entry);
    }
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The SBOM writers' input for the version: every package of the chosen artifact types, under a stand-in image
 * named `<application>:<version>` whose digest is derived from the version id (the same version, the same ids).
 */
export async function versionSbomInput(
  db: Db,
  applicationName: string,
  version: ApplicationVersionRecord,
  artifacts: VersionArtifacts,
  types: ReadonlySet<ArtifactType>,
  toolVersion: string,
): Promise<SbomInput> {
  const packages = [
    ...(types.has('image') ? await Promise.all(artifacts.images.map(({ image }) => packagesOf(db, image.account_name, image.image_digest))) : []),
    ...(types.has('source') ? await Promise.all(artifacts.sources.map(({ source }) => sourcePackages(db, source))) : []),
  ].flat();
  const digest = `sha256:${createHash('sha256').update(`application-version\u0000${version.application_version_id}`).digest('hex')}`;
  return {
    image: { digest, tags: [`${applicationName}:${version.version_name}`], layers: [] },
    packages: packages.map((p) => ({ ...p, sourceVersion: p.source_version })),
    toolVersion,
    analyzedAt: version.last_updated,
  };
}
