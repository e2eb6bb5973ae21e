/**
 * policyEvaluationsByTag: tag mappings (keyset on account, registry, repository, tag, digest) with their policy
 * evaluations, grouped by registry and repository. Defaults: current mappings, latest evaluations, the active
 * policy. A filter on the evaluation's result, reason or policy keeps only tags that have such an evaluation.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/index.js';
import { toBool } from '../../db/index.js';
import type { Page, PageTokens } from '../paging.js';
import { inScope, scopeKey } from '../scope.js';
import { whereTag, type TagCriteria } from './criteria.js';
import type { ReportRequest, TagMapping } from './by-vulnerability.js';

export interface PolicyEvaluationCriteria {
  registry?: { name?: string | null } | null;
  repository?: { name?: string | null } | null;
  tag?: TagCriteria | null;
  image?: { digest?: string | null } | null;
  policyEvaluation?: { latestOnly?: boolean | null; result?: string | null; reason?: string | null } | null;
  policyBundle?: { active?: boolean | null; id?: string | null } | null;
}

interface EvaluationRow {
  account_name: string;
  image_digest: string;
  full_tag: string;
  policy_id: string;
  policy_digest: string;
  result: string;
  reason: string;
  evaluated_at: string;
  latest: unknown;
  active_policy: string | null;
}

/** Evaluation conditions (alias `e`) shared by the existence check and the fetch. */
function whereEvaluation(db: Db, q: Knex.QueryBuilder, c: PolicyEvaluationCriteria): Knex.QueryBuilder {
  const e = c.policyEvaluation ?? {};
  if (e.latestOnly !== false) q.where('e.latest', true);
  if (e.result) q.where('e.result', e.result.toLowerCase());
  if (e.reason) q.where('e.reason', e.reason);
  const bundle = c.policyBundle ?? {};
  if (bundle.id) q.where('e.policy_id', bundle.id);
  if (bundle.active !== false)
    q.whereExists(db('report_active_policies as ap').select(db.raw('1')).whereRaw('ap.account_name = e.account_name').whereRaw('ap.policy_id = e.policy_id'));
  return q;
}

const narrowsToEvaluated = (c: PolicyEvaluationCriteria) => Boolean(c.policyEvaluation?.result || c.policyEvaluation?.reason || c.policyBundle?.id);

export async function policyEvaluationsByTag(db: Db, tokens: PageTokens, req: ReportRequest<PolicyEvaluationCriteria>) {
  const c = req.criteria;
  const query = { kind: 'policyEvaluationsByTag', criteria: c, scope: scopeKey(req.scope) };
  const after = tokens.decode(query, req.nextToken);
  const tagsQuery = whereTag(inScope(db('report_tags as t'), req.scope, 't.account_name'), c)
    .orderBy(['t.account_name', 't.registry', 't.repository', 't.tag', 't.image_digest'])
    .limit(req.limit + 1)
    .select('t.*');
  if (c.image?.digest) tagsQuery.where('t.image_digest', c.image.digest);
  if (after) tagsQuery.whereRaw('(t.account_name, t.registry, t.repository, t.tag, t.image_digest) > (?, ?, ?, ?, ?)', after.map(String));
  if (narrowsToEvaluated(c))
    tagsQuery.whereExists(
      whereEvaluation(
        db,
        db('report_policy_evaluations as e').select(db.raw('1')).whereRaw('e.account_name = t.account_name').whereRaw('e.image_digest = t.image_digest').whereRaw('e.full_tag = t.full_tag'),
        c,
      ),
    );
  const rows = ((await tagsQuery) as TagMapping[]).map((t) => ({ ...t, current: toBool(t.current) }));
  const shown = rows.slice(0, req.limit);
  const evaluations = await evaluationsOf(db, shown, c);
  return tokens.page(
    query,
    rows,
    req.limit,
    (t) => [t.account_name, t.registry, t.repository, t.tag, t.image_digest],
    (page) => groupTags(page, evaluations),
  ) as Page<ReturnType<typeof groupTags>[number]>;
}

async function evaluationsOf(db: Db, tags: TagMapping[], c: PolicyEvaluationCriteria): Promise<Map<string, EvaluationRow[]>> {
  const out = new Map<string, EvaluationRow[]>();
  const byAccount = new Map<string, string[]>();
  for (const t of tags) byAccount.set(t.account_name, [...(byAccount.get(t.account_name) ?? []), t.image_digest]);
  for (const [account, digests] of byAccount) {
    const unique = [...new Set(digests)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows: EvaluationRow[] = await whereEvaluation(
        db,
        db('report_policy_evaluations as e')
          .leftJoin('report_active_policies as ap', 'ap.account_name', 'e.account_name')
          .where('e.account_name', account)
          .whereIn('e.image_digest', unique.slice(i, i + 500))
          .orderBy([{ column: 'e.evaluated_at', order: 'desc' }, { column: 'e.id', order: 'desc' }])
          .select('e.*', 'ap.policy_id as active_policy'),
        c,
      );
      for (const r of rows) {
        const key = `${r.account_name}\u0000${r.image_digest}\u0000${r.full_tag}`;
        out.set(key, [...(out.get(key) ?? []), r]);
      }
    }
  }
  return out;
}

function groupTags(tags: TagMapping[], evaluations: Map<string, EvaluationRow[]>) {
  const results: { registryName: string; repositories: { repositoryName: string; tagsCount: number; tags: unknown[] }[] }[] = [];
  for (const t of tags) {
    let registry = results[results.length - 1];
    if (!registry || registry.registryName !== t.registry) results.push((registry = { registryName: t.registry, repositories: [] }));
    let repository = registry.repositories[registry.repositories.length - 1];
    if (!repository || repository.repositoryName !== t.repository)
      registry.repositories.push((repository = { repositoryName: t.repository, tagsCount: 0, tags: [] }));
    repository.tagsCount++;
    repository.tags.push({
      tagName: t.tag,
      imageDigest: t.image_digest,
      account: t.account_name,
      detectedAt: t.detected_at,
      current: t.current,
      evaluations: (evaluations.get(`${t.account_name}\u0000${t.image_digest}\u0000${t.full_tag}`) ?? []).map((e) => ({
        result: e.result === 'fail' ? 'Fail' : 'Pass',
        reason: e.reason,
        lastEvaluatedAt: e.evaluated_at,
        latest: toBool(e.latest),
        policyBundle: { bundleId: e.policy_id, bundleDigest: e.policy_digest, active: e.active_policy === e.policy_id },
      })),
    });
  }
  return results;
}
