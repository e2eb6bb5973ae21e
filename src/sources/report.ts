/**
 * What the API reports about a source: its stored findings in upstream's PackageVulnerability shape (the image
 * report's items, without image annotations, which name images), and the input of the SBOM writers, which
 * describe an image: a source stands in as one named `host/repository:revision` with no layers.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import type { SbomInput } from '../images/sbom/input.js';
import { SOURCE_FINDINGS, storedSubjectFindings } from '../vulns/findings.js';
import { describeMatches, fromFinding, selectFindings, type FindingSelection, type PackageVulnerabilityItem } from '../vulns/image-report.js';
import { sourcePackages, type SourceRecord } from './store.js';

export async function sourceVulnerabilities(db: Db, source: SourceRecord, options: FindingSelection & { includeDescription: boolean }): Promise<PackageVulnerabilityItem[]> {
  const findings = selectFindings(await storedSubjectFindings(db, SOURCE_FINDINGS, source.account_name, source.source_id), options);
  return describeMatches(db, findings.map(fromFinding), options);
}

/** How documents name the source. */
export function sourceDisplayName(source: SourceRecord): string {
  return `${source.host}/${source.repository_name}:${source.revision}`;
}

export async function sourceSbomInput(db: Db, source: SourceRecord, toolVersion: string): Promise<SbomInput> {
  const packages = await sourcePackages(db, source);
  // A stable stand-in for the image digest that seeds the documents' ids: the same revision, the same ids.
  const digest = `sha256:${createHash('sha256').update(`${source.host}\u0000${source.repository_name}\u0000${source.revision}`).digest('hex')}`;
  return {
    image: {
      digest,
      tags: [sourceDisplayName(source)],
      ...(source.distro ? { distro: { name: source.distro, version: source.distro_version ?? '', like: source.distro_like ? source.distro_like.split(',') : [] } } : {}),
      layers: [],
    },
    packages: packages.map((p) => ({ ...p, sourceVersion: p.source_version })),
    toolVersion,
    analyzedAt: source.analyzed_at,
  };
}

/** syft's description of a scanned directory, in place of the image source the native writer describes. */
export function nativeSourceDescription(source: SourceRecord, id: string) {
  return {
    id,
    name: `${source.host}/${source.repository_name}`,
    version: source.revision,
    type: 'directory',
    metadata: { path: '.', host: source.host, repository_name: source.repository_name, revision: source.revision },
  };
}
