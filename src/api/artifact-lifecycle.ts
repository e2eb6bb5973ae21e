/** Handlers of the Artifact Lifecycle tag: system-wide policies that delete old images (src/lifecycle/). */
import * as policies from '../lifecycle/policies.js';
import { dryRunCount } from '../lifecycle/run.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ArtifactLifecycleOps =
  | 'list_artifact_lifecycle_policies'
  | 'create_artifact_lifecycle_policy'
  | 'get_artifact_lifecycle_policy'
  | 'update_artifact_lifecycle_policy'
  | 'delete_artifact_lifecycle_policy'
  | 'get_artifact_lifecycle_policy_by_version';

/** The API's form: the version bookkeeping stays inside. */
function policyShape({ current_version: _current, ...policy }: policies.PolicyWithConditions) {
  return policy;
}

export const artifactLifecycleHandlers: HandlerGroup<ArtifactLifecycleOps> = {
  async list_artifact_lifecycle_policies(ctx) {
    return { status: 200, body: { items: (await policies.listPolicies(ctx.db)).map(policyShape) } };
  },
  async create_artifact_lifecycle_policy(ctx, { body }) {
    const created = await policies.createPolicy(ctx.db, body);
    ctx.log.info({ policy: created.uuid, name: created.name, changed_by: ctx.caller.username }, 'artifact lifecycle policy created');
    return { status: 201, body: policyShape(created) };
  },
  async get_artifact_lifecycle_policy(ctx, { params, query }) {
    const policy = policyShape(await policies.getPolicy(ctx.db, params.policy_uuid));
    if (!query.dry_run) return { status: 200, body: policy };
    return { status: 200, body: { ...policy, dry_run: await dryRunCount(ctx.db, params.policy_uuid) } };
  },
  async update_artifact_lifecycle_policy(ctx, { params, body }) {
    const updated = await policies.updatePolicy(ctx.db, params.policy_uuid, body);
    ctx.log.info({ policy: updated.uuid, version: updated.current_version, changed_by: ctx.caller.username }, 'artifact lifecycle policy updated');
    return { status: 200, body: policyShape(updated) };
  },
  async delete_artifact_lifecycle_policy(ctx, { params }) {
    await policies.deletePolicy(ctx.db, params.policy_uuid);
    ctx.log.info({ policy: params.policy_uuid, changed_by: ctx.caller.username }, 'artifact lifecycle policy deleted');
    return { status: 204 };
  },
  async get_artifact_lifecycle_policy_by_version(ctx, { params, query }) {
    return { status: 200, body: policyShape(await policies.getPolicyVersions(ctx.db, params.policy_uuid, query)) };
  },
};
