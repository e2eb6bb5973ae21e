import type { EvaluationContext, Fired, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { commaDelimitedStrings, listOf } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';

const GATE = 'ancestry';

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

/** Fires when the base image is not approved, including when no analyzed ancestor is known (nothing approved it). */
async function evaluateAllowedBaseImageDigest(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const approved = new Set(listOf(params.base_digest ?? ''));
  const base = (await ctx.ancestors()).find((a) => a.chosenBase);
  if (!base) return [fired('allowed_base_image_digest', 'No base image was found among the analyzed images, so it is not one of the approved base images')];
  if (approved.has(base.digest)) return [];
  return [fired('allowed_base_image_digest', `Base image ${base.digest} is not one of the approved base images`)];
}

async function evaluateDenylistAncestor(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const denied = new Set(listOf(params.ancestor_digest ?? ''));
  return (await ctx.ancestors())
    .filter((a) => denied.has(a.digest))
    .map((a) => fired('denylist_ancestor_image_digest', `Ancestor image ${a.digest} is denylisted`));
}

export const ancestryGate: GateDefinition = {
  name: GATE,
  description:
    "Checks the image's base and ancestor images: the analyzed images of the account whose layers are the bottom of its own (GET /v2/images/{digest}/ancestors).",
  state: 'active',
  triggers: [
    {
      name: 'allowed_base_image_digest',
      description: "Fires when the image's base image digest is not one of the approved digests, or no base image is known.",
      params: [
        {
          name: 'base_digest',
          description: 'Digests (sha256:...) of the approved base images.',
          required: true,
          validator: commaDelimitedStrings,
        },
      ],
      evaluate: evaluateAllowedBaseImageDigest,
    },
    {
      name: 'denylist_ancestor_image_digest',
      description: "Fires for each of the listed digests found among the image's ancestor images.",
      params: [
        {
          name: 'ancestor_digest',
          description: 'Digests (sha256:...) of ancestor images that are not allowed.',
          required: true,
          validator: commaDelimitedStrings,
        },
      ],
      evaluate: evaluateDenylistAncestor,
    },
  ],
};
