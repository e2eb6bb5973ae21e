import type { Fired } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';

/** Fires once, under the fixed trigger id `always` (the engine's `__trigger_id__`) and the engine's message. */
async function evaluateAlways(): Promise<Fired[]> {
  return [{ triggerId: 'always', message: 'Unconditional trigger match' }];
}

export const alwaysGate: GateDefinition = {
  name: 'always',
  description:
    'Unconditional triggers: a rule on this gate fires whenever it is part of the evaluated policy, which is handy for testing policies or for blocking images outright.',
  state: 'active',
  triggers: [
    {
      name: 'always',
      description: 'Fires every time the policy containing it is evaluated.',
      params: [],
      evaluate: evaluateAlways,
    },
  ],
};
