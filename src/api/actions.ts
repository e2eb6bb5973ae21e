/** Handlers of the Actions tag: action (remediation) plans recorded per image. */
import { addActionPlan, listActionPlans, type ActionPlan } from '../actions/plans.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ActionOps = 'get_action_plans' | 'add_action_plan';

/** Upstream's ActionPlan: fields without a value are left out. */
function planShape(p: ActionPlan) {
  const present = <T>(v: T | null) => v ?? undefined;
  return {
    uuid: p.uuid,
    type: present(p.type),
    image_digest: p.image_digest,
    image_tag: present(p.image_tag),
    policy_id: present(p.policy_id),
    resolutions: p.resolutions.map((r) => ({ trigger_ids: r.trigger_ids, content: present(r.content) })),
    endpoint: present(p.endpoint),
    configuration_id: present(p.configuration_id),
    subject: present(p.subject),
    message: present(p.message),
    created_at: p.created_at,
    last_updated: p.last_updated,
  };
}

export const actionHandlers: HandlerGroup<ActionOps> = {
  async get_action_plans(ctx, { query }) {
    const plans = await listActionPlans(ctx.db, ctx.account.name, { imageDigest: query.image_digest, imageTag: query.image_tag, createdAfter: query.created_after });
    return { status: 200, body: plans.map(planShape) };
  },
  async add_action_plan(ctx, { body }) {
    return { status: 200, body: planShape(await addActionPlan(ctx.db, ctx.account.name, body)) };
  },
};
