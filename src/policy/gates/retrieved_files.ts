import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString, enumString, regexString } from '../params.js';

const path: ParamDefinition = {
  name: 'path',
  description: 'Path of the file, in the image, that analysis should have retrieved.',
  required: true,
  example: '/etc/httpd.conf',
  validator: anyString,
};

export const retrievedFilesGate: GateDefinition = {
  name: 'retrieved_files',
  description:
    'Checks the presence and content of files that analysis copied out of the image (as configured for the analyser).',
  state: 'active',
  triggers: [
    {
      name: 'content_not_available',
      description: 'Fires when the given file was not retrieved from the image during analysis.',
      params: [path],
    },
    {
      name: 'content_regex',
      description: 'Applies a regular expression to the content of a retrieved file and fires on a match or on no match.',
      params: [
        path,
        {
          name: 'check',
          description: 'Fire when the expression matches the content (match) or when it does not (no_match).',
          required: true,
          example: 'match',
          validator: enumString(['match', 'no_match']),
        },
        {
          name: 'regex',
          description: "Regular expression applied to the file's content.",
          required: true,
          example: '.*SSlEnabled.*',
          validator: regexString,
        },
      ],
    },
  ],
};
