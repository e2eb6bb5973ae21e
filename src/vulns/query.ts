/**
 * Looking up vulnerability records (GET /v2/query/vulnerabilities): by id or alias, by affected package (and
 * version, evaluated with the ecosystem's own ordering), by namespace, paginated by record id. Only the matching
 * records' keys are held at once; their entries and records are read, enriched and answered a chunk at a time, so
 * `limit=0` (everything) costs one chunk of memory however many records match.
 */
import type { Db } from '../db/index.js';
import { InvalidError } from '../errors.js';
import { comparatorForEcosystem, indexNamesOf, typeOfFeed } from '../ecosystems/registry.js';
import { isAffected } from './osv/ranges.js';
import type { OsvAffected } from './osv/types.js';
import { detailsKey, epssOf, isKev, loadEnrichment, loadVulnerabilityDetails } from './vuln-details.js';
import { published } from './vulnerability-repository.js';

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

/** Records read, enriched and written per chunk of the answer: memory holds one chunk, whatever the result size. */
const CHUNK_RECORDS = 200;

interface RecordKey {
  feed: string;
  id: string;
}

interface MatchedRecord extends RecordKey {
  rows: AffectedRow[];
}

/**
 * The (feed, id) keys of the records the filters select, in (id, feed) order: small strings, read in one query (the
 * affected entries' JSON and the records themselves are read chunk by chunk later).
 */
async function candidateKeys(db: Db, q: VulnerabilityQuery): Promise<RecordKey[]> {
  const sel = db('vulnerability_affected as a')
    .join('vulnerabilities as v', function joinRecord() {
      this.on('v.feed', '=', 'a.feed').andOn('v.id', '=', 'a.vuln_id');
    })
    .whereRaw(published('a'))
    .distinct('a.vuln_id', 'a.feed');
  if (q.ids?.length)
    sel.where((w) => {
      w.whereIn('v.id', q.ids!);
      // Aliases are stored as a JSON array of strings: a quoted match is exact.
      for (const id of q.ids!) w.orWhere('v.aliases', 'like', `%${JSON.stringify(id).replace(/[%_]/g, '')}%`);
    });
  if (q.affectedPackage) sel.whereIn('a.package_name', indexNamesOf(q.affectedPackage));
  if (q.namespaces?.length) sel.whereIn('a.grp', q.namespaces);
  const rows: { vuln_id: string; feed: string }[] = await sel.orderBy(['a.vuln_id', 'a.feed']);
  return rows.map((r) => ({ feed: r.feed, id: r.vuln_id }));
}

/** The keys' affected entries that pass the package, namespace and version filters; records with none drop out. */
async function matchKeys(db: Db, q: VulnerabilityQuery, keys: RecordKey[]): Promise<MatchedRecord[]> {
  const sel = db('vulnerability_affected as a')
    .whereIn('a.vuln_id', [...new Set(keys.map((k) => k.id))])
    .whereRaw(published('a'))
    .select('a.feed', 'a.vuln_id', 'a.grp', 'a.ecosystem', 'a.package_name', 'a.affected');
  if (q.affectedPackage) sel.whereIn('a.package_name', indexNamesOf(q.affectedPackage));
  if (q.namespaces?.length) sel.whereIn('a.grp', q.namespaces);
  const byKey = new Map<string, MatchedRecord>(keys.map((k) => [detailsKey(k.feed, k.id), { ...k, rows: [] }]));
  for (const row of (await sel.orderBy('a.row_id')) as AffectedRow[]) {
    const entry = byKey.get(detailsKey(row.feed, row.vuln_id));
    if (!entry) continue; // the same id in a feed the filters did not select
    if (q.affectedPackageVersion !== undefined) {
      const comparator = comparatorForEcosystem(row.ecosystem);
      if (!comparator || !isAffected(q.affectedPackageVersion, JSON.parse(row.affected) as OsvAffected, comparator).affected) continue;
    }
    entry.rows.push(row);
  }
  return [...byKey.values()].filter((m) => m.rows.length > 0);
}

/** Matching records in (id, feed) order, a chunk at a time (never an empty one). */
async function* matchingRecords(db: Db, q: VulnerabilityQuery): AsyncGenerator<MatchedRecord[]> {
  const keys = await candidateKeys(db, q);
  for (let i = 0; i < keys.length; i += CHUNK_RECORDS) {
    const matched = await matchKeys(db, q, keys.slice(i, i + CHUNK_RECORDS));
    if (matched.length) yield matched;
  }
}

function affectedPackage(row: AffectedRow) {
  const affected = JSON.parse(row.affected) as OsvAffected;
  const fixed = affected.ranges.flatMap((r) => r.events.filter((e) => e.kind === 'fixed').map((e) => e.version));
  return {
    name: affected.package?.name ?? row.package_name,
    version: fixed[0] ?? null,
    type: typeOfFeed(row.ecosystem) ?? row.ecosystem,
    namespace: row.grp,
    will_not_fix: false,
  };
}

async function describeRecords(db: Db, matched: MatchedRecord[]) {
  const details = await loadVulnerabilityDetails(db, matched);
  const enrichment = await loadEnrichment(db, [...details.values()].flatMap((d) => d.cveIds));
  return matched.flatMap((m) => {
    const d = details.get(detailsKey(m.feed, m.id));
    if (!d) return []; // removed by a feed sync since its key was read
    return [
      {
        id: d.id,
        namespace: m.rows[0]!.grp,
        feed: d.feed,
        aliases: d.aliases,
        affected_packages: m.rows.map(affectedPackage),
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
      },
    ];
  });
}

export type StandaloneVulnerability = Awaited<ReturnType<typeof describeRecords>>[number];

export interface VulnerabilityPage {
  page: string;
  /** The page's records, a chunk at a time. */
  vulnerabilities: AsyncIterable<StandaloneVulnerability[]>;
  /** Known once `vulnerabilities` has been read to the end. */
  summary(): { next_page: string; returned_count: number };
}

/**
 * One page of the matching records (`limit` 0: all of them), produced while it is written: the count and whether a
 * next page exists are known at the end.
 */
export function queryVulnerabilities(db: Db, q: VulnerabilityQuery): VulnerabilityPage {
  // The API checks this too (x-one-of-required); without either filter the query would read every record.
  if (!q.ids?.length && !q.affectedPackage)
    throw new InvalidError('give at least one of id and affected_package', { errors: [{ location: 'query', message: 'needs at least one of id, affected_package' }] });
  const skip = q.limit === 0 ? 0 : (q.page - 1) * q.limit;
  let selected = 0;
  let returned = 0;
  let more = false;
  async function* chunks(): AsyncGenerator<StandaloneVulnerability[]> {
    let seen = 0;
    for await (const matched of matchingRecords(db, q)) {
      // The page is full and another matching record exists: there is a next page.
      if (q.limit !== 0 && selected >= q.limit) {
        more = true;
        return;
      }
      const from = Math.max(0, skip - seen);
      seen += matched.length;
      const room = q.limit === 0 ? matched.length : q.limit - selected;
      const page = matched.slice(from, from + room);
      selected += page.length;
      if (from + room < matched.length) more = true;
      if (page.length) {
        const described = await describeRecords(db, page);
        returned += described.length;
        yield described;
      }
      if (more) return;
    }
  }
  return { page: String(q.page), vulnerabilities: chunks(), summary: () => ({ next_page: more ? String(q.page + 1) : '', returned_count: returned }) };
}
