/**
 * Filters of the report queries as SQL over the read model: findings (alias f) by vulnerability, artifact and
 * image, and the tag mappings (alias t) an image must have to be reported.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/index.js';
import { SEVERITY_ORDER } from '../../vulns/vuln-details.js';
import { inScope, type ReportScope } from '../scope.js';

export interface VulnerabilityCriteria {
  id?: string | null;
  severity?: string | null;
  /** ISO timestamps (the GraphQL scalar has already checked and converted them). */
  after?: string | null;
  before?: string | null;
}

export interface TagCriteria {
  name?: string | null;
  /** Default true: current mappings only. */
  currentOnly?: boolean | null;
}

export interface ArtifactCriteria {
  name?: string | null;
  version?: string | null;
  type?: string | null;
}

export interface FindingCriteria {
  vulnerability?: VulnerabilityCriteria | null;
  tag?: TagCriteria | null;
  registry?: { name?: string | null } | null;
  repository?: { name?: string | null } | null;
  artifact?: ArtifactCriteria | null;
  image?: { digest?: string | null } | null;
}

/** Conditions on findings (alias `f`) other than the tag mappings. */
export function whereFinding(q: Knex.QueryBuilder, scope: ReportScope, c: FindingCriteria): Knex.QueryBuilder {
  inScope(q, scope, 'f.account_name');
  const v = c.vulnerability ?? {};
  if (v.id) q.where('f.vuln_id', v.id);
  if (v.severity) q.where('f.severity', v.severity);
  if (v.after) q.where('f.detected_at', '>=', v.after);
  if (v.before) q.where('f.detected_at', '<', v.before);
  const a = c.artifact ?? {};
  if (a.name) q.where('f.package_name', a.name);
  if (a.version) q.where('f.package_version', a.version);
  if (a.type) q.where('f.package_type', a.type);
  if (c.image?.digest) q.where('f.image_digest', c.image.digest);
  return q;
}

/** Conditions on tag mappings (alias `t`): current only unless asked otherwise, then name, registry, repository. */
export function whereTag(q: Knex.QueryBuilder, c: Pick<FindingCriteria, 'tag' | 'registry' | 'repository'>): Knex.QueryBuilder {
  if (c.tag?.currentOnly !== false) q.where('t.current', true);
  if (c.tag?.name) q.where('t.tag', c.tag.name);
  if (c.registry?.name) q.where('t.registry', c.registry.name);
  if (c.repository?.name) q.where('t.repository', c.repository.name);
  return q;
}

/** Findings of images that have at least one tag mapping passing the tag filters. */
export function whereTaggedFinding(db: Db, q: Knex.QueryBuilder, scope: ReportScope, c: FindingCriteria): Knex.QueryBuilder {
  whereFinding(q, scope, c);
  // Without name filters only currency matters, and the finding carries its image's tag state.
  if (!c.tag?.name && !c.registry?.name && !c.repository?.name) return q.where('f.tag_state', '>=', c.tag?.currentOnly === false ? 1 : 2);
  return q.whereExists(
    whereTag(db('report_tags as t').select(db.raw('1')).whereRaw('t.account_name = f.account_name').whereRaw('t.image_digest = f.image_digest'), c),
  );
}

export function worstSeverity(severities: Iterable<string>): string {
  let worst = 0;
  for (const s of severities) worst = Math.max(worst, SEVERITY_ORDER.indexOf(s as (typeof SEVERITY_ORDER)[number]));
  return SEVERITY_ORDER[worst];
}

/** CVE id and links of vulnerabilities (merged across the feeds that carry them). */
export async function vulnerabilityInfo(db: Db, ids: string[]): Promise<Map<string, { cve: string | null; links: string[] }>> {
  const out = new Map<string, { cve: string | null; links: string[] }>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows: { vuln_id: string; cve: string | null; links: string }[] = await db('report_vulnerabilities')
      .whereIn('vuln_id', ids.slice(i, i + 500))
      .orderBy(['vuln_id', 'feed'])
      .select('vuln_id', 'cve', 'links');
    for (const r of rows) {
      const seen = out.get(r.vuln_id) ?? { cve: null, links: [] };
      seen.cve ??= r.cve;
      for (const link of JSON.parse(r.links) as string[]) if (!seen.links.includes(link)) seen.links.push(link);
      out.set(r.vuln_id, seen);
    }
  }
  for (const id of ids)
    if (!out.has(id)) out.set(id, { cve: /^CVE-\d{4}-\d{4,}$/.test(id) ? id : null, links: [`https://osv.dev/vulnerability/${encodeURIComponent(id)}`] });
  return out;
}
