/**
 * Managing artifact lifecycle policies: create, read (current, one version, every version), update (a new
 * version of the conditions, all or nothing), delete (soft: the versions stay for the run events naming them).
 */
import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Db } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import { checkName, MAX_POLICIES, MAX_VERSIONS, normalisedConditions, type LifecyclePolicy, type PolicyInput, type VersionedConditions } from './model.js';
import { countLivePolicies, findLivePolicy, insertPolicy, insertVersion, listLivePolicies, nameTaken, updatePolicyRow, versionsOf } from './store.js';

/** A policy with the conditions of the versions asked for. */
export interface PolicyWithConditions extends LifecyclePolicy {
  policy_conditions: VersionedConditions[];
}

const nameConflict = (name: string) => new ConflictError(`an artifact lifecycle policy named '${name}' exists already`, { name });

/** Runs the write, answering 409 when the name was taken meanwhile (the unique index decides). */
async function writing<T>(db: Db, name: string, write: (trx: Db) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(write);
  } catch (err) {
    if (isUniqueViolation(err)) throw nameConflict(name);
    throw err;
  }
}

export async function getLivePolicy(db: Db, uuid: string, forUpdate = false): Promise<LifecyclePolicy> {
  const found = await findLivePolicy(db, uuid, forUpdate);
  if (!found) throw new NotFoundError(`artifact lifecycle policy '${uuid}' does not exist`, { policy_uuid: uuid });
  return found;
}

async function withConditions(db: Db, policies: LifecyclePolicy[], which: 'current' | 'all' | number): Promise<PolicyWithConditions[]> {
  const versions = which === 'all' ? 'all' : which === 'current' ? [...new Set(policies.map((p) => p.current_version))] : [which];
  const byPolicy = await versionsOf(db, policies.map((p) => p.uuid), versions);
  return policies.map((p) => ({
    ...p,
    policy_conditions: (byPolicy.get(p.uuid) ?? []).filter((c) => which !== 'current' || c.version === p.current_version),
  }));
}

export async function listPolicies(db: Db): Promise<PolicyWithConditions[]> {
  return withConditions(db, await listLivePolicies(db), 'current');
}

export async function getPolicy(db: Db, uuid: string): Promise<PolicyWithConditions> {
  const [policy] = await withConditions(db, [await getLivePolicy(db, uuid)], 'current');
  return policy!;
}

/** The policy with one version's conditions, the latest's, or (neither given) every version's. */
export async function getPolicyVersions(db: Db, uuid: string, q: { version?: number; latest?: boolean }): Promise<PolicyWithConditions> {
  if (q.version !== undefined && q.latest)
    throw new InvalidError('give either version or latest=true, not both', { errors: [{ location: 'query.latest', message: 'not with version' }] });
  const policy = await getLivePolicy(db, uuid);
  const [answer] = await withConditions(db, [policy], q.latest ? 'current' : (q.version ?? 'all'));
  if (q.version !== undefined && answer!.policy_conditions.length === 0)
    throw new NotFoundError(`artifact lifecycle policy '${uuid}' has no version ${q.version}`, { policy_uuid: uuid, version: q.version });
  return answer!;
}

export async function createPolicy(db: Db, input: PolicyInput): Promise<PolicyWithConditions> {
  const conditions = normalisedConditions(input);
  const name = checkName(input.name);
  const now = nowIso();
  const policy: LifecyclePolicy = {
    uuid: randomUUID(),
    name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    action: input.action,
    enabled: input.enabled ?? false,
    current_version: 1,
    created_at: now,
    updated_at: now,
  };
  await writing(db, name, async (trx) => {
    if ((await countLivePolicies(trx)) >= MAX_POLICIES)
      throw new InvalidError(`at most ${MAX_POLICIES} artifact lifecycle policies can exist; delete one first`, { max_policies: MAX_POLICIES });
    if (await nameTaken(trx, name)) throw nameConflict(name);
    await insertPolicy(trx, policy);
    await insertVersion(trx, policy.uuid, 1, conditions, now);
  });
  return { ...policy, policy_conditions: [{ version: 1, ...conditions }] };
}

/** Replaces the policy's fields; its conditions become the next version (the earlier ones stay). */
export async function updatePolicy(db: Db, uuid: string, input: PolicyInput): Promise<PolicyWithConditions> {
  const conditions = normalisedConditions(input);
  const name = checkName(input.name);
  return writing(db, name, async (trx) => {
    const before = await getLivePolicy(trx, uuid, true);
    if (before.current_version >= MAX_VERSIONS)
      throw new InvalidError(`the policy has ${MAX_VERSIONS} versions, the most kept; create a new policy instead`, { max_versions: MAX_VERSIONS });
    if (await nameTaken(trx, name, uuid)) throw nameConflict(name);
    const now = nowIso();
    const { description: _old, ...kept } = before;
    const after: LifecyclePolicy = {
      ...kept,
      name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      action: input.action,
      enabled: input.enabled ?? false,
      current_version: before.current_version + 1,
      updated_at: now,
    };
    await insertVersion(trx, uuid, after.current_version, conditions, now);
    await updatePolicyRow(trx, after);
    return { ...after, policy_conditions: [{ version: after.current_version, ...conditions }] };
  });
}

export async function deletePolicy(db: Db, uuid: string): Promise<void> {
  await db.transaction(async (trx) => {
    const before = await getLivePolicy(trx, uuid, true);
    const now = nowIso();
    await updatePolicyRow(trx, { ...before, enabled: false, updated_at: now, deleted_at: now });
  });
}
