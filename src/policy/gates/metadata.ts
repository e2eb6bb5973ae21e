import type { GateDefinition } from '../gate-types.js';
import { anyString, enumString } from '../params.js';

export const metadataGate: GateDefinition = {
  name: 'metadata',
  description: 'Checks image metadata such as its size, operating system, distribution, architecture and layer count.',
  state: 'active',
  triggers: [
    {
      name: 'attribute',
      description: 'Fires when the chosen metadata attribute of the image satisfies the given condition.',
      params: [
        {
          name: 'attribute',
          description: 'Which metadata attribute to test.',
          required: true,
          example: 'size',
          validator: enumString(['size', 'architecture', 'os_type', 'distro', 'distro_version', 'like_distro', 'layer_count']),
        },
        {
          name: 'check',
          description: 'The comparison applied between the attribute and the value.',
          required: true,
          example: '>',
          validator: enumString(['=', '!=', '>', '<', '>=', '<=', 'exists', 'not_exists', 'like', 'not_like', 'in', 'not_in']),
        },
        {
          name: 'value',
          description:
            'What the attribute is compared with; its expected form depends on the attribute (for example bytes for size). Not needed for exists/not_exists.',
          required: false,
          example: '1073741824',
          validator: anyString,
        },
      ],
    },
  ],
};
