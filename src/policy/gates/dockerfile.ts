import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { booleanString, commaDelimitedNumbers, commaDelimitedStrings, enumString, anyString } from '../params.js';
import { listTypeString } from './common.js';

const DOCKERFILE_INSTRUCTIONS = [
  'ADD',
  'ARG',
  'COPY',
  'CMD',
  'ENTRYPOINT',
  'ENV',
  'EXPOSE',
  'FROM',
  'HEALTHCHECK',
  'LABEL',
  'MAINTAINER',
  'ONBUILD',
  'USER',
  'RUN',
  'SHELL',
  'STOPSIGNAL',
  'VOLUME',
  'WORKDIR',
] as const;

const actualDockerfileOnly: ParamDefinition = {
  name: 'actual_dockerfile_only',
  description:
    'When true, evaluate only a Dockerfile supplied by the user and skip images whose Dockerfile was inferred from the image history.',
  required: false,
  example: 'true',
  validator: booleanString,
};

export const dockerfileGate: GateDefinition = {
  name: 'dockerfile',
  description:
    "Checks the image's Dockerfile: the one supplied at analysis time if there was one, otherwise one reconstructed from the image history.",
  state: 'active',
  triggers: [
    {
      name: 'instruction',
      description:
        'Fires when a Dockerfile instruction of the given kind satisfies the given check against the given value.',
      params: [
        {
          name: 'instruction',
          description: 'Which Dockerfile instruction to examine (upper case, as written in a Dockerfile).',
          required: true,
          // The upstream example is lower case ("from"), which its own case-sensitive enum rejects.
          example: 'FROM',
          validator: enumString(DOCKERFILE_INSTRUCTIONS),
        },
        {
          name: 'check',
          description: 'How the instruction is tested (equality, presence, pattern or list membership).',
          required: true,
          example: '=',
          validator: enumString(['=', '!=', 'exists', 'not_exists', 'like', 'not_like', 'in', 'not_in']),
        },
        {
          name: 'value',
          description: "What the instruction's arguments are compared with; not needed for exists/not_exists.",
          required: false,
          example: 'scratch',
          validator: anyString,
        },
        actualDockerfileOnly,
      ],
    },
    {
      name: 'effective_user',
      description:
        'Fires depending on whether the user the image runs as (the last USER in its history) is in an allowed or a forbidden list of names.',
      params: [
        {
          name: 'users',
          description: 'User names compared with the effective user, i.e. the final USER entry in the image history.',
          required: true,
          example: 'root,docker',
          validator: commaDelimitedStrings,
        },
        {
          name: 'type',
          description: 'Whether the listed users are the only ones allowed (whitelist) or are forbidden (blacklist).',
          required: true,
          example: 'blacklist',
          validator: listTypeString,
        },
      ],
    },
    {
      name: 'exposed_ports',
      description: 'Fires on ports the image exposes, checked against an allowed or a forbidden list.',
      params: [
        {
          name: 'ports',
          description: 'Port numbers to check the exposed ports against.',
          required: true,
          example: '80,8080,8088',
          validator: commaDelimitedNumbers,
        },
        {
          name: 'type',
          description: 'Whether the listed ports are the only ones allowed (whitelist) or are forbidden (blacklist).',
          required: true,
          example: 'blacklist',
          validator: listTypeString,
        },
        actualDockerfileOnly,
      ],
    },
    {
      name: 'no_dockerfile_provided',
      description: 'Fires when the image was analysed without the user supplying its actual Dockerfile.',
      params: [],
    },
  ],
};
