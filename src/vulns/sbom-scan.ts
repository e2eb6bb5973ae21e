/**
 * Scanning an SBOM without storing it (POST /v2/vulnerability-scan, and the vulnerability half of POST /v2/scan):
 * read its packages and distro with the same readers as SBOM imports, match them exactly as an analyzed image's
 * packages are matched, and report.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import { readSbomPackages, type SbomReadResult } from '../images/sbom/index.js';
import { describeMatches, type MatchedVulnerability, type PackageVulnerabilityItem } from './image-report.js';
import { matchPackages } from './match-package.js';
import { refineGoMatches } from './go-reachability.js';
import { knexVulnerabilityProvider } from './vulnerability-repository.js';

export interface SbomScanResult {
  sbom_id: string;
  distro: string | null;
  vulnerabilities: PackageVulnerabilityItem[];
}

/** The id of a submitted SBOM: the sha256 of its JSON text as parsed. */
export function sbomId(document: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(document)).digest('hex')}`;
}

/** The findings of packages already read from an SBOM; `vendorOnly` leaves out what the distribution will not fix. */
export async function scanSbomPackages(db: Db, read: SbomReadResult, options: { includeDescription: boolean; vendorOnly: boolean }): Promise<PackageVulnerabilityItem[]> {
  const packages = read.packages;
  // An SBOM carries no symbol table: Go findings get their confidence, reachability stays unknown.
  const provider = knexVulnerabilityProvider(db);
  const { matches } = await refineGoMatches(provider, packages, await matchPackages(provider, packages, read.distro), async () => undefined);
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
        matchedBy: m.matchedBy,
        confidence: m.confidence,
      });
    }
  });
  found.sort((a, b) => (a.vulnId < b.vulnId ? -1 : a.vulnId > b.vulnId ? 1 : a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));
  return describeMatches(db, found, options);
}

export async function scanSbom(db: Db, document: unknown, options: { includeDescription: boolean; vendorOnly: boolean }): Promise<SbomScanResult> {
  const read = readSbomPackages(document);
  return {
    sbom_id: sbomId(document),
    distro: read.distro ? `${read.distro.name}:${read.distro.version}` : null,
    vulnerabilities: await scanSbomPackages(db, read, options),
  };
}
