import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString, commaDelimitedStrings, enumString } from '../params.js';
import { orderComparison } from './common.js';

const denyParams: ParamDefinition[] = [
  {
    name: 'name',
    description: 'Name of the package that must not be installed.',
    required: true,
    example: 'openssh-server',
    validator: anyString,
  },
  {
    name: 'version',
    description: 'Only this exact version of the package is forbidden; without it every version is.',
    required: false,
    example: '1.0.1',
    validator: anyString,
  },
];

const DENY_DESCRIPTION =
  'Fires when the image has an installed package with the given name and, if one is given, the given version.';

export const packagesGate: GateDefinition = {
  name: 'packages',
  description: 'Checks the distribution packages installed in the image.',
  state: 'active',
  triggers: [
    {
      name: 'required_package',
      description: 'Fires when the named package (optionally at a particular version) is missing from the image.',
      params: [
        {
          name: 'name',
          description: 'Name of the package the image must have installed.',
          required: true,
          example: 'libssl',
          validator: anyString,
        },
        {
          name: 'version',
          description: 'Version the installed package must have (or at least have, see version_match_type).',
          required: false,
          example: '1.10.3rc3',
          validator: anyString,
        },
        {
          name: 'version_match_type',
          description: 'When a version is given: require exactly that version, or that version or newer.',
          required: false,
          example: 'exact',
          validator: enumString(['exact', 'minimum']),
        },
      ],
    },
    {
      name: 'verify',
      description: "Checks installed files against the image's own package database and fires on discrepancies.",
      params: [
        {
          name: 'only_packages',
          description: 'Verify only these packages instead of all of them.',
          required: false,
          example: 'libssl,openssl',
          validator: commaDelimitedStrings,
        },
        {
          name: 'only_directories',
          description: 'Verify only files under these directories instead of everywhere.',
          required: false,
          example: '/usr,/var/lib',
          validator: commaDelimitedStrings,
        },
        {
          name: 'check',
          description: 'Look for only one kind of discrepancy (changed or missing files) rather than all kinds.',
          required: false,
          example: 'changed',
          validator: enumString(['changed', 'missing']),
        },
      ],
    },
    {
      name: 'blacklist',
      description: `${DENY_DESCRIPTION} Older name of denylist.`,
      params: denyParams,
      state: 'deprecated',
      supersededBy: 'denylist',
    },
    {
      name: 'denylist',
      description: DENY_DESCRIPTION,
      params: denyParams,
    },
    {
      name: 'metadata',
      description:
        'Fires for each installed package whose name and version satisfy the given comparisons.',
      params: [
        {
          name: 'name',
          description: 'Package name to compare installed package names with.',
          required: true,
          validator: anyString,
        },
        {
          name: 'name_comparison',
          description: 'How package names are compared with name: equality or a like/not_like pattern.',
          required: false,
          validator: enumString(['=', '!=', 'like', 'not_like']),
        },
        {
          name: 'version',
          description: 'Version to compare the matching packages\' versions with.',
          required: false,
          validator: anyString,
        },
        {
          name: 'version_comparison',
          description: 'How package versions are compared with version.',
          required: false,
          validator: orderComparison,
        },
      ],
    },
  ],
};
