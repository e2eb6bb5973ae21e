/**
 * Lifecycle policies in the database (tables `artifact_lifecycle_policies` and `..._policy_versions`), and the
 * image reads a run makes: candidates by analysis age, their current tags, and which of them runtime inventory
 * reports.
 */
import { databaseKind, type Db } from '../db/index.js';
import type { LifecycleAction, LifecyclePolicy, PolicyConditions, VersionedConditions } from './model.js';

interface PolicyRow {
  uuid: string;
  name: string;
  description: string | null;
  action: LifecycleAction;
  enabled: boolean | number;
  current_version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

const POLICIES = 'artifact_lifecycle_policies';
const VERSIONS = 'artifact_lifecycle_policy_versions';

function policyOf(r: PolicyRow): LifecyclePolicy {
  return {
    uuid: r.uuid,
    name: r.name,
    ...(r.description !== null ? { description: r.description } : {}),
    action: r.action,
    enabled: Boolean(r.enabled),
    current_version: Number(r.current_version),
    created_at: r.created_at,
    updated_at: r.updated_at,
    ...(r.deleted_at !== null ? { deleted_at: r.deleted_at } : {}),
  };
}

function rowOf(p: LifecyclePolicy): PolicyRow {
  return { ...p, description: p.description ?? null, deleted_at: p.deleted_at ?? null };
}

/** The policies that are not deleted (optionally only the enabled ones), oldest first. */
export async function listLivePolicies(db: Db, onlyEnabled = false): Promise<LifecyclePolicy[]> {
  const q = db<PolicyRow>(POLICIES).whereNull('deleted_at').orderBy([{ column: 'created_at' }, { column: 'uuid' }]);
  if (onlyEnabled) q.andWhere('enabled', true);
  return (await q.select('*')).map(policyOf);
}

export async function countLivePolicies(db: Db): Promise<number> {
  return Number((await db(POLICIES).whereNull('deleted_at').count({ n: '*' }).first())?.n ?? 0);
}

/** A policy that is not deleted; `forUpdate` locks its row (PostgreSQL) so concurrent updates add versions in turn. */
export async function findLivePolicy(db: Db, uuid: string, forUpdate = false): Promise<LifecyclePolicy | undefined> {
  const q = db<PolicyRow>(POLICIES).where({ uuid }).whereNull('deleted_at');
  if (forUpdate && databaseKind(db) === 'postgres') q.forUpdate();
  const row = await q.first();
  return row ? policyOf(row) : undefined;
}

/** Whether another policy that is not deleted has the name. */
export async function nameTaken(db: Db, name: string, exceptUuid?: string): Promise<boolean> {
  const q = db(POLICIES).where({ name }).whereNull('deleted_at');
  if (exceptUuid) q.andWhereNot({ uuid: exceptUuid });
  return (await q.first('uuid')) !== undefined;
}

export async function insertPolicy(db: Db, p: LifecyclePolicy): Promise<void> {
  await db(POLICIES).insert(rowOf(p));
}

export async function updatePolicyRow(db: Db, p: LifecyclePolicy): Promise<void> {
  const { uuid, created_at: _created, ...rest } = rowOf(p);
  await db(POLICIES).where({ uuid }).update(rest);
}

export async function insertVersion(db: Db, uuid: string, version: number, conditions: PolicyConditions, createdAt: string): Promise<void> {
  await db(VERSIONS).insert({ policy_uuid: uuid, version, conditions_json: JSON.stringify(conditions), created_at: createdAt });
}

/** The policies' conditions of the given versions (every version of a policy when `versions` is 'all'), oldest first. */
export async function versionsOf(db: Db, uuids: string[], versions: number[] | 'all'): Promise<Map<string, VersionedConditions[]>> {
  const byPolicy = new Map<string, VersionedConditions[]>();
  if (uuids.length === 0) return byPolicy;
  const q = db(VERSIONS).whereIn('policy_uuid', uuids).orderBy([{ column: 'policy_uuid' }, { column: 'version' }]);
  if (versions !== 'all') q.whereIn('version', versions);
  for (const r of (await q.select('policy_uuid', 'version', 'conditions_json')) as { policy_uuid: string; version: number; conditions_json: string }[]) {
    const list = byPolicy.get(r.policy_uuid) ?? [];
    list.push({ version: Number(r.version), ...(JSON.parse(r.conditions_json) as PolicyConditions) });
    byPolicy.set(r.policy_uuid, list);
  }
  return byPolicy;
}

export interface CandidateImage {
  account_name: string;
  image_digest: string;
}

/**
 * One page of analysed images of every account, analysed before `analyzedBefore` (any time when null), in
 * (account, digest) order after `after`.
 */
export async function candidatePage(db: Db, analyzedBefore: string | null, after: CandidateImage | null, limit: number): Promise<CandidateImage[]> {
  const q = db('images').whereNotNull('analyzed_at').orderBy([{ column: 'account_name' }, { column: 'image_digest' }]).limit(limit);
  if (analyzedBefore) q.andWhere('analyzed_at', '<', analyzedBefore);
  if (after)
    q.andWhere((w) => w.where('account_name', '>', after.account_name).orWhere((same) => same.where('account_name', after.account_name).andWhere('image_digest', '>', after.image_digest)));
  return q.select('account_name', 'image_digest');
}

const keyOf = (i: CandidateImage) => `${i.account_name}\n${i.image_digest}`;

/** The current tags of the images, by `account\ndigest`. */
export async function currentTagsOf(db: Db, images: CandidateImage[]): Promise<Map<string, { registry: string; repo: string; tag: string; full_tag: string }[]>> {
  const byImage = new Map<string, { registry: string; repo: string; tag: string; full_tag: string }[]>();
  for (const account of new Set(images.map((i) => i.account_name))) {
    const digests = images.filter((i) => i.account_name === account).map((i) => i.image_digest);
    const rows = await db('image_tags').where({ account_name: account, current: true }).whereIn('image_digest', digests).select('image_digest', 'registry', 'repo', 'tag', 'full_tag');
    for (const r of rows) {
      const key = keyOf({ account_name: account, image_digest: r.image_digest });
      byImage.set(key, [...(byImage.get(key) ?? []), r]);
    }
  }
  return byImage;
}

/** Which of the images runtime inventory reports running, by digest or by one of their current tags (`account\ndigest` keys). */
export async function inInventory(db: Db, images: CandidateImage[], tags: Map<string, { full_tag: string }[]>): Promise<Set<string>> {
  const running = new Set<string>();
  for (const account of new Set(images.map((i) => i.account_name))) {
    const mine = images.filter((i) => i.account_name === account);
    const fullTags = mine.flatMap((i) => (tags.get(keyOf(i)) ?? []).map((t) => t.full_tag));
    const rows = (await db('inventory_items')
      .where({ account_name: account })
      .andWhere((w) => w.whereIn('image_digest', mine.map((i) => i.image_digest)).orWhereIn('image_tag', fullTags))
      .select('image_digest', 'image_tag')) as { image_digest: string; image_tag: string }[];
    for (const i of mine) {
      const own = new Set((tags.get(keyOf(i)) ?? []).map((t) => t.full_tag));
      if (rows.some((r) => r.image_digest === i.image_digest || own.has(r.image_tag))) running.add(keyOf(i));
    }
  }
  return running;
}

export { keyOf as imageKey };
