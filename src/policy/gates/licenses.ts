import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { commaDelimitedStrings } from '../params.js';

const exactLicenses: ParamDefinition = {
  name: 'licenses',
  description: 'License names that are not allowed; a package matches only if one of its licenses is identical to an entry.',
  required: true,
  example: 'GPLv2+,GPL-3+,BSD-2-clause',
  validator: commaDelimitedStrings,
};

const partialLicenses: ParamDefinition = {
  name: 'licenses',
  description: "Substrings that are not allowed; a package matches if any of its license names contains an entry.",
  required: true,
  example: 'LGPL,BSD',
  validator: commaDelimitedStrings,
};

const EXACT_DESCRIPTION =
  'Fires when an installed package is distributed under a license whose name exactly equals one in the list.';
const PARTIAL_DESCRIPTION =
  'Fires when an installed package is distributed under a license whose name contains one of the listed strings.';

export const licensesGate: GateDefinition = {
  name: 'licenses',
  description: 'Checks the software licenses of the packages found in the image.',
  state: 'active',
  triggers: [
    {
      name: 'blacklist_exact_match',
      description: `${EXACT_DESCRIPTION} Older name of denylist_exact_match.`,
      params: [exactLicenses],
      state: 'deprecated',
      supersededBy: 'denylist_exact_match',
    },
    {
      name: 'blacklist_partial_match',
      description: `${PARTIAL_DESCRIPTION} Older name of denylist_partial_match.`,
      params: [partialLicenses],
      state: 'deprecated',
      supersededBy: 'denylist_partial_match',
    },
    {
      name: 'denylist_exact_match',
      description: EXACT_DESCRIPTION,
      params: [exactLicenses],
    },
    {
      name: 'denylist_partial_match',
      description: PARTIAL_DESCRIPTION,
      params: [partialLicenses],
    },
  ],
};
