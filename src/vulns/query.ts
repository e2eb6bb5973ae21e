/**
 * Looking up vulnerability records (GET /v2/query/vulnerabilities): by id or alias, by affected package (and
 * version, evaluated with the ecosystem's own ordering), by namespace, paginated by record id.
 */
import type { Db } from '../db/index.js';
import { InvalidError } from '../errors.js';
import { comparatorForEcosystem } from './ecosystems.js';
import { isAffected } from './osv/ranges.js';
import type { OsvAffected } from './osv/types.js';
import { normalizePythonName } from './package-names.js';
import { decodeRecord } from './records.js';
import { detailsOf, epssOf, isKev, loadEnrichment } from './vuln-details.js';

export interface VulnerabilityQuery {
  ids?: string[];
  affectedPackage?: string;
  affectedPackageVersion?: string;
  namespaces?: string[];
  page: number;
  /** 0 means everything. */
  limit: number;
}

interface AffectedRow {
  feed: string;
  vuln_id: string;
  grp: string;
  ecosystem: string;
  package_name: string;
  affected: string;
}

/** Package types as the API names them, per OSV ecosystem. */
const PACKAGE_TYPES: Record<string, string> = {
  debian: 'dpkg',
  ubuntu: 'dpkg',
  alpine: 'apk',
  wolfi: 'apk',
  'red hat': 'rpm',
  'rocky linux': 'rpm',
  almalinux: 'rpm',
  pypi: 'python',
  npm: 'npm',
  go: 'go',
  maven: 'java',
  rubygems: 'gem',
  'crates.io': 'rust',
};

/** Candidate index names: the package as given, lower-cased (npm, gems) and PEP 503-normalised (PyPI). */
function candidateNames(name: string): string[] {
  return [...new Set([name, name.toLowerCase(), normalizePythonName(name)])];
}

async function matchingIds(db: Db, q: VulnerabilityQuery): Promise<{ feed: string; id: string; rows: AffectedRow[] }[]> {
  const sel = db<AffectedRow>('vulnerability_affected as a')
    .join('vulnerabilities as v', function joinRecord() {
      this.on('v.feed', '=', 'a.feed').andOn('v.id', '=', 'a.vuln_id');
    })
    .select('a.feed', 'a.vuln_id', 'a.grp', 'a.ecosystem', 'a.package_name', 'a.affected');
  if (q.ids?.length)
    sel.where((w) => {
      w.whereIn('v.id', q.ids!);
      // Aliases are stored as a JSON array of strings: a quoted match is exact.
      for (const id of q.ids!) w.orWhere('v.aliases', 'like', `%${JSON.stringify(id).replace(/[%_]/g, '')}%`);
    });
  if (q.affectedPackage) sel.whereIn('a.package_name', candidateNames(q.affectedPackage));
  if (q.namespaces?.length) sel.whereIn('a.grp', q.namespaces);
  const byRecord = new Map<string, { feed: string; id: string; rows: AffectedRow[] }>();
  const rows = (await sel.orderBy(['a.vuln_id', 'a.feed'])) as AffectedRow[];
  for (const row of rows) {
    if (q.affectedPackageVersion !== undefined) {
      const comparator = comparatorForEcosystem(row.ecosystem);
      if (!comparator || !isAffected(q.affectedPackageVersion, JSON.parse(row.affected) as OsvAffected, comparator).affected) continue;
    }
    const key = `${row.feed}\u0000${row.vuln_id}`;
    const entry = byRecord.get(key) ?? { feed: row.feed, id: row.vuln_id, rows: [] };
    entry.rows.push(row);
    byRecord.set(key, entry);
  }
  return [...byRecord.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.feed < b.feed ? -1 : 1));
}

function affectedPackage(row: AffectedRow) {
  const affected = JSON.parse(row.affected) as OsvAffected;
  const fixed = affected.ranges.flatMap((r) => r.events.filter((e) => e.kind === 'fixed').map((e) => e.version));
  return {
    name: affected.package?.name ?? row.package_name,
    version: fixed[0] ?? null,
    type: PACKAGE_TYPES[row.ecosystem] ?? row.ecosystem,
    namespace: row.grp,
    will_not_fix: false,
  };
}

export async function queryVulnerabilities(db: Db, q: VulnerabilityQuery) {
  if (!q.ids?.length && !q.affectedPackage)
    throw new InvalidError('give at least one of id and affected_package', { parameters: ['id', 'affected_package'] });
  const all = await matchingIds(db, q);
  const slice = q.limit === 0 ? all : all.slice((q.page - 1) * q.limit, q.page * q.limit);
  const more = q.limit !== 0 && q.page * q.limit < all.length;
  const records = new Map<string, ReturnType<typeof detailsOf>>();
  for (const s of slice) {
    const row = await db('vulnerabilities').where({ feed: s.feed, id: s.id }).first('record');
    records.set(`${s.feed}\u0000${s.id}`, detailsOf(s.feed, decodeRecord(row.record)));
  }
  const enrichment = await loadEnrichment(db, [...records.values()].flatMap((d) => d.cveIds));
  const vulnerabilities = slice.map((s) => {
    const d = records.get(`${s.feed}\u0000${s.id}`)!;
    return {
      id: d.id,
      namespace: s.rows[0]!.grp,
      feed: d.feed,
      aliases: d.aliases,
      affected_packages: s.rows.map(affectedPackage),
      severity: d.severity,
      link: d.url,
      nvd_data: d.nvdData,
      vendor_data: d.vendorData,
      description: d.description ?? '',
      references: d.references.map((r) => ({ source: d.feed, tags: [r.type], url: r.url })),
      published: d.published ?? null,
      modified: d.modified,
      withdrawn: d.withdrawn ?? null,
      is_kev: isKev(d, enrichment),
      epss: epssOf(d, enrichment),
    };
  });
  return { page: String(q.page), next_page: more ? String(q.page + 1) : '', returned_count: vulnerabilities.length, vulnerabilities };
}
