import type { GateDefinition } from '../gate-types.js';
import { anyString } from '../params.js';
import { orderComparison } from './common.js';

export const distroGate: GateDefinition = {
  name: 'distro',
  description: "Checks the image's operating-system distribution and its version.",
  state: 'active',
  triggers: [
    {
      name: 'deny',
      description:
        "Fires when the image's distribution is the named one and, if a version is given, its version satisfies the check.",
      params: [
        {
          name: 'distro',
          description: 'Distribution identifier to match, as the analysis reports it (e.g. debian, alpine, rhel).',
          required: true,
          example: 'debian',
          validator: anyString,
        },
        {
          name: 'version',
          description: "Distribution version the image's version is compared with.",
          required: false,
          validator: anyString,
        },
        {
          name: 'check',
          description: "Operator used to compare the image's distribution version with version.",
          required: false,
          validator: orderComparison,
        },
      ],
    },
  ],
};
