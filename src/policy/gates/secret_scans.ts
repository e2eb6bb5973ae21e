import type { GateDefinition } from '../gate-types.js';
import { anyString, enumString, regexString } from '../params.js';

export const secretScansGate: GateDefinition = {
  name: 'secret_scans',
  description:
    "Checks for secrets and other sensitive content the analyser's secret search found in the image, using its configured expressions.",
  state: 'active',
  // No evaluate: the analysis does not store file contents or run a secret search yet, so content_regex_checks
  // cannot be evaluated; the engine reports rules using it as not evaluable.
  triggers: [
    {
      name: 'content_regex_checks',
      description:
        'Fires depending on whether the secret search found matches for the configured expressions, optionally narrowed by expression name and file name.',
      params: [
        {
          name: 'content_regex_name',
          description:
            'Name of one of the expressions configured for the secret search; only its matches count. Without it, all configured expressions count.',
          required: false,
          example: 'AWS_ACCESS_KEY',
          validator: anyString,
        },
        {
          name: 'filename_regex',
          description: 'Regular expression on file paths; only matches in files whose path fits it count.',
          required: false,
          example: '/etc/.*',
          validator: regexString,
        },
        {
          name: 'match_type',
          description: 'Fire when a match is found (found, the default) or when none is (notfound).',
          required: false,
          example: 'found',
          validator: enumString(['notfound', 'found']),
        },
      ],
    },
  ],
};
