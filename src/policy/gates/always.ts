import type { GateDefinition } from '../gate-types.js';

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
    },
  ],
};
