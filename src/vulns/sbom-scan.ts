/**
 * Scanning an SBOM without storing it (POST /v2/vulnerability-scan): read its packages and distro with the same
 * readers as SBOM imports, match them exactly as an analyzed image's packages are matched, and report.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import { readSbomPackages } from '../images/sbom/index.js';
import { describeMatches, type MatchedVulnerability, type PackageVulnerabilityItem } from './image-report.js';
import { matchPackages } from './match-package.js';

export interface SbomScanResult {
  sbom_id: string;
  distro: string | null;
  vulnerabilities: PackageVulnerabilityItem[];
}

export async function scanSbom(db: Db, document: unknown, options: { includeDescription: boolean; vendorOnly: boolean }): Promise<SbomScanResult> {
  const read = readSbomPackages(document);
  const packages = read.packages;
  const matches = await matchPackages(db, packages, read.distro);
  const found: MatchedVulnerability[] = [];
  packages.forEach((p, i) => {
    for (const m of matches[i]!) {
      if (options.vendorOnly && m.fixState === 'wont-fix') continue;
      found.push({
        vulnId: m.vulnId,
        feed: m.feed,
        feedGroup: m.group,
        packageType: p.type,
        packageName: p.name,
        packageVersion: p.version,
        packagePath: p.locations[0] ?? null,
        purl: p.purl || null,
        fixState: m.fixState,
        fixedIn: m.fixedIn,
      });
    }
  });
  found.sort((a, b) => (a.vulnId < b.vulnId ? -1 : a.vulnId > b.vulnId ? 1 : a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));
  return {
    sbom_id: `sha256:${createHash('sha256').update(JSON.stringify(document)).digest('hex')}`,
    distro: read.distro ? `${read.distro.name}:${read.distro.version}` : null,
    vulnerabilities: await describeMatches(db, found, options),
  };
}
