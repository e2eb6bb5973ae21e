/**
 * The paged list of tag mappings with their image (GET /summaries/image-tags): upstream's filters, and Vigil's
 * filters by policy result and findings and its sort orders, which the web interface's image list pages with.
 */
import type { Knex } from 'knex';
import type { Db } from '../db/index.js';
import { SEVERITY_ORDER, type SeverityLabel } from '../vulns/vuln-details.js';
import type { AnalysisStatus, ImageStatus } from './store.js';

export interface TagSummaryFilter {
  imageStatus?: 'all' | ImageStatus;
  analysisStatus?: AnalysisStatus;
  analyzedSince?: string;
  registry?: string;
  repository?: string;
  tag?: string;
  filter?: string;
  currentOnly: boolean;
  policyStatus?: 'pass' | 'fail';
  hasKev?: boolean;
  /** At least one finding of this severity or above. */
  severity?: SeverityLabel;
  sort?: TagSummarySort;
  order?: 'asc' | 'desc';
}

export type TagSummarySort = 'tag_detected_at' | 'full_tag' | 'analyzed_at' | 'analysis_status';
const TAG_SUMMARY_SORT: Record<TagSummarySort, string> = {
  tag_detected_at: 't.tag_detected_at',
  full_tag: 't.full_tag',
  analyzed_at: 'i.analyzed_at',
  analysis_status: 'i.analysis_status',
};

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Tag mappings joined with their image, newest first, one page at a time. */
export async function tagSummaries(db: Db, accountName: string, f: TagSummaryFilter, page: number, limit: number) {
  const base = db('image_tags as t')
    .join('images as i', function () {
      this.on('i.account_name', '=', 't.account_name').andOn('i.image_digest', '=', 't.image_digest');
    })
    .where('t.account_name', accountName);
  if (f.currentOnly) base.andWhere('t.current', true);
  if (f.imageStatus && f.imageStatus !== 'all') base.andWhere('i.image_status', f.imageStatus);
  if (f.analysisStatus) base.andWhere('i.analysis_status', f.analysisStatus);
  if (f.analyzedSince) base.andWhere('i.analyzed_at', '>=', new Date(f.analyzedSince).toISOString());
  if (f.registry) base.andWhere('t.registry', f.registry);
  if (f.repository) base.andWhere('t.repo', f.repository);
  if (f.tag) base.andWhere('t.tag', f.tag);
  if (f.filter) {
    const pattern = `%${escapeLike(f.filter)}%`;
    base.andWhere((q) => q.whereRaw("t.full_tag like ? escape '\\'", [pattern]).orWhereRaw("t.image_digest like ? escape '\\'", [pattern]));
  }
  filterByFindingsAndPolicy(db, base, f);
  const total = await base.clone().count({ n: '*' }).first();
  const order = f.order ?? 'desc';
  const rows = await base
    .clone()
    .select('t.full_tag', 't.current', 't.tag_detected_at', 'i.image_digest', 'i.parent_digest', 'i.image_id', 'i.analysis_status', 'i.image_status', 'i.created_at', 'i.analyzed_at')
    .orderBy([{ column: TAG_SUMMARY_SORT[f.sort ?? 'tag_detected_at'], order }, { column: 't.id', order }])
    .offset((page - 1) * limit)
    .limit(limit);
  return { rows, total: Number(total?.n ?? 0) };
}

/**
 * The filters that look past the image row: the tag's latest result under the active policy, and the image's
 * findings as the reporting data holds them (report_findings, indexed by image; severity kept in step there).
 */
function filterByFindingsAndPolicy(db: Db, base: Knex.QueryBuilder, f: TagSummaryFilter): void {
  if (f.policyStatus) {
    base.whereExists(
      db('policy_evaluations as pe')
        .join('policies as p', function () {
          this.on('p.account_name', '=', 'pe.account_name').andOn('p.policy_id', '=', 'pe.policy_id');
        })
        .whereRaw('pe.account_name = t.account_name and pe.image_digest = t.image_digest and pe.tag = t.full_tag')
        .andWhere({ 'pe.latest': true, 'p.active': true, 'pe.status': f.policyStatus })
        .select(db.raw('1')),
    );
  }
  const findings = () => db('report_findings as rf').whereRaw('rf.account_name = t.account_name and rf.image_digest = t.image_digest').select(db.raw('1'));
  if (f.hasKev !== undefined) {
    // A finding is known-exploited when its record's CVE (or its own id, for CVE records) is in the catalog.
    const kev = findings()
      .join('report_vulnerabilities as rv', function () {
        this.on('rv.feed', '=', 'rf.feed').andOn('rv.vuln_id', '=', 'rf.vuln_id');
      })
      .join('vuln_kev as k', function () {
        this.on('k.cve_id', '=', 'rv.cve').orOn('k.cve_id', '=', 'rf.vuln_id');
      });
    if (f.hasKev) base.whereExists(kev);
    else base.whereNotExists(kev);
  }
  if (f.severity) base.whereExists(findings().whereIn('rf.severity', SEVERITY_ORDER.slice(SEVERITY_ORDER.indexOf(f.severity))));
}

