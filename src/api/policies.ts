/** Handlers of the Policies tag and the policy spec: thin over src/policy. */
import type { BodyChecks, HandlerGroup } from '../server/handler-types.js';
import type { PolicyDocument } from '../policy/document.js';
import { describeGates } from '../policy/policy-spec.js';
import { dryRunPolicy } from '../policy/dry-run.js';
import { checkImage } from '../policy/evaluations.js';
import { queuePolicyReevaluation } from '../policy/reevaluate.js';
import { addPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy } from '../policy/store.js';
import { policyProblems } from '../policy/validate-policy.js';

type PolicyOps = 'list_policies' | 'add_policy' | 'get_policy' | 'update_policy' | 'delete_policy' | 'describe_policy' | 'get_image_policy_check_by_digest' | 'dry_run_policy';

/** A policy the schema refuses is checked for gates, triggers and references too, so one answer lists everything. */
export const policyBodyChecks: BodyChecks = {
  add_policy: (body) => ({ within: 'body', problems: policyProblems(body) }),
  dry_run_policy: (body) => ({ within: 'body', problems: policyProblems(body) }),
  update_policy: (body) => {
    const doc = body && typeof body === 'object' ? (body as { policy?: unknown }).policy : undefined;
    return { within: 'body.policy', problems: doc === undefined ? [] : policyProblems(doc) };
  },
};

export const policyHandlers: HandlerGroup<PolicyOps> = {
  async list_policies(ctx, { query }) {
    return { status: 200, body: await listPolicies(ctx.db, ctx.account.name, query.detail ?? false) };
  },
  async add_policy(ctx, { body }) {
    return { status: 200, body: await addPolicy(ctx.db, ctx.account.name, body as PolicyDocument) };
  },
  async get_policy(ctx, { params, query }) {
    return { status: 200, body: await getPolicy(ctx.db, ctx.account.name, params.policy_id, query.detail ?? true) };
  },
  async update_policy(ctx, { params, query, body }) {
    const wasActive = (await getPolicy(ctx.db, ctx.account.name, params.policy_id, false)).active;
    // As upstream: the record's `policy` is optional (the stored document stays) and `active: true` in the record
    // activates like the query parameter; the query decides when both are given.
    const activate = query.active ?? (body?.active === true ? true : undefined);
    const record = await updatePolicy(ctx.db, ctx.account.name, params.policy_id, body?.policy as PolicyDocument | undefined, activate);
    // A new active policy, or a change to the active one, changes every result of the account.
    if (record.active || wasActive) await queuePolicyReevaluation(ctx.services, ctx.account.name);
    return { status: 200, body: record };
  },
  async delete_policy(ctx, { params }) {
    await deletePolicy(ctx.db, ctx.account.name, params.policy_id);
    return { status: 204 };
  },
  async dry_run_policy(ctx, { body }) {
    return { status: 200, body: await dryRunPolicy(ctx.db, ctx.account.name, body as PolicyDocument) };
  },
  async describe_policy() {
    return { status: 200, body: describeGates() };
  },
  async get_image_policy_check_by_digest(ctx, { params, query }) {
    const body = await checkImage(ctx.db, ctx.account.name, params.image_digest, {
      tag: query.tag,
      policyId: query.policy_id,
      detail: query.detail ?? true,
      history: query.history ?? false,
      interactive: query.interactive ?? false,
    });
    return { status: 200, body };
  },
};
