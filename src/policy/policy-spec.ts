/** GET /v2/system/policy-spec: the gate definitions as the upstream GateSpec list. */
import type { GateDefinition } from './gate-types.js';
import { ALL_GATES } from './gates/index.js';

export function describeGates(gates: readonly GateDefinition[] = ALL_GATES) {
  return gates.map((g) => ({
    name: g.name,
    description: g.description,
    supported_artifact_type: 'image' as const,
    state: g.state,
    superseded_by: g.supersededBy ?? null,
    triggers: g.triggers.map((t) => ({
      name: t.name,
      description: t.description,
      state: t.state ?? g.state,
      superseded_by: t.supersededBy ?? null,
      parameters: t.params.map((p) => ({
        name: p.name,
        description: p.description,
        example: p.example ?? null,
        ...(p.aliases?.length ? { aliases: p.aliases } : {}),
        state: p.state ?? t.state ?? g.state,
        superseded_by: null,
        required: p.required,
        validator: { type: p.validator.type, description: p.validator.description, criteria: p.validator.criteria },
      })),
    })),
  }));
}
