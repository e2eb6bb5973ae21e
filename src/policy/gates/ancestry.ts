import type { GateDefinition } from '../gate-types.js';
import { commaDelimitedStrings } from '../params.js';

export const ancestryGate: GateDefinition = {
  name: 'ancestry',
  description:
    "Checks the digests of the image's base and ancestor images, to the extent the analysis recorded them.",
  state: 'active',
  // No evaluate on these triggers: the analysis does not record base-image ancestry yet, so they cannot fire; the
  // engine reports rules using them as not evaluable.
  triggers: [
    {
      name: 'allowed_base_image_digest',
      description: "Fires when the image's base image digest is not one of the approved digests.",
      params: [
        {
          name: 'base_digest',
          description: 'Digests (sha256:...) of the approved base images.',
          required: true,
          validator: commaDelimitedStrings,
        },
      ],
    },
    {
      name: 'denylist_ancestor_image_digest',
      description: 'Fires when any of the listed digests appears among the image\'s ancestor images.',
      params: [
        {
          name: 'ancestor_digest',
          description: 'Digests (sha256:...) of ancestor images that are not allowed.',
          required: true,
          validator: commaDelimitedStrings,
        },
      ],
    },
  ],
};
