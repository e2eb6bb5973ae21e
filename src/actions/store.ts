/** SQL of the action plans (action_plans). */
import type { Db } from '../db/index.js';

export interface ActionPlanRow {
  uuid: string;
  account_name: string;
  type: string | null;
  image_digest: string;
  image_tag: string | null;
  policy_id: string | null;
  /** JSON: [{trigger_ids, content}]. */
  resolutions: string;
  endpoint: string | null;
  configuration_id: string | null;
  subject: string | null;
  message: string | null;
  created_at: string;
  last_updated: string;
}

export interface ActionPlanFilter {
  imageDigest?: string;
  imageTag?: string;
  createdAfter?: string;
}

export async function insertActionPlan(db: Db, row: ActionPlanRow): Promise<void> {
  await db('action_plans').insert(row);
}

/** The account's plans that match, newest first, at most `limit`. */
export async function selectActionPlans(db: Db, accountName: string, f: ActionPlanFilter, limit: number): Promise<ActionPlanRow[]> {
  const q = db<ActionPlanRow>('action_plans').where({ account_name: accountName });
  if (f.imageDigest) q.andWhere('image_digest', f.imageDigest);
  if (f.imageTag) q.andWhere('image_tag', f.imageTag);
  if (f.createdAfter) q.andWhere('created_at', '>', f.createdAfter);
  return q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'uuid' }]).limit(limit);
}

/** The digest a tag of the account maps to now, or (with `digest`) whether it ever mapped to that digest. */
export async function tagDigest(db: Db, accountName: string, fullTag: string, digest?: string): Promise<string | undefined> {
  const q = db('image_tags').where({ account_name: accountName, full_tag: fullTag });
  if (digest) q.andWhere({ image_digest: digest });
  else q.andWhere({ current: true });
  const row = await q.first<{ image_digest: string } | undefined>('image_digest');
  return row?.image_digest;
}
