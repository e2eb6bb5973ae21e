/**
 * Matching one package against the vulnerability index: a lookup by (ecosystem, name) — never a scan of the
 * feed — then OSV range evaluation with the ecosystem's comparator. Withdrawn advisories never match.
 */
import type { Db } from '../db/index.js';
import type { DistroInfo } from '../images/model.js';
import { lookupTarget, type MatchablePackage } from './ecosystems.js';
import { isAffected } from './osv/ranges.js';
import type { OsvAffected } from './osv/types.js';

export interface PackageMatch {
  vulnId: string;
  /** The advisory's ecosystem group, e.g. debian:12 or pypi. */
  group: string;
  /** The name the advisory used: the package itself or its source package. */
  matchedName: string;
  fixState: 'fixed' | 'not-fixed';
  fixedIn: string[];
}

interface AffectedRow {
  vuln_id: string;
  ecosystem: string;
  release: string | null;
  package_name: string;
  affected: string;
}

export async function matchPackage(db: Db, pkg: MatchablePackage, distro: DistroInfo | undefined): Promise<PackageMatch[]> {
  const target = lookupTarget(pkg, distro);
  if (!target) return [];
  const q = db<AffectedRow>('vulnerability_affected as a')
    .join('vulnerabilities as v', 'v.id', 'a.vuln_id')
    .whereNull('v.withdrawn')
    .where('a.ecosystem', target.ecosystem)
    .whereIn('a.package_name', target.names)
    .select('a.vuln_id', 'a.ecosystem', 'a.release', 'a.package_name', 'a.affected');
  // Distro advisories apply to their release only; language advisories carry no release.
  if (target.release !== undefined) q.andWhere('a.release', target.release);
  const matches = new Map<string, PackageMatch>();
  for (const row of await q) {
    const verdict = isAffected(pkg.version, JSON.parse(row.affected) as OsvAffected, target.comparator);
    if (!verdict.affected || matches.has(row.vuln_id)) continue;
    const fixedIn = verdict.fixedIn ?? [];
    matches.set(row.vuln_id, {
      vulnId: row.vuln_id,
      group: row.release ? `${row.ecosystem}:${row.release}` : row.ecosystem,
      matchedName: row.package_name,
      fixState: fixedIn.length ? 'fixed' : 'not-fixed',
      fixedIn,
    });
  }
  return [...matches.values()].sort((a, b) => (a.vulnId < b.vulnId ? -1 : a.vulnId > b.vulnId ? 1 : 0));
}
