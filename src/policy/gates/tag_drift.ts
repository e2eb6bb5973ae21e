import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString } from '../params.js';

const packageType: ParamDefinition = {
  name: 'package_type',
  description: 'Comma-separated package types (for example apk,npm) to consider; without it all types count.',
  required: false,
  validator: anyString,
};

export const tagDriftGate: GateDefinition = {
  name: 'tag_drift',
  description:
    'Compares the image with the image previously analysed under the same tag and checks how its packages changed.',
  state: 'active',
  triggers: [
    {
      name: 'packages_added',
      description: 'Fires for each package present in this image but not in the previous image of the same tag.',
      params: [packageType],
    },
    {
      name: 'packages_removed',
      description: 'Fires for each package present in the previous image of the same tag but no longer in this one.',
      params: [packageType],
    },
    {
      name: 'packages_modified',
      description: 'Fires for each package whose version differs from the one in the previous image of the same tag.',
      params: [packageType],
    },
  ],
};
