import type { GateDefinition } from '../gate-types.js';
import { anyString, booleanString, enumString, regexString } from '../params.js';

const equalsOp = enumString(['equals', 'not_equals']);

export const filesGate: GateDefinition = {
  name: 'files',
  description:
    'Checks the files found in the analysed image: their content, names, checksums, modes and set-user/group-id bits.',
  state: 'active',
  triggers: [
    {
      name: 'content_regex_match',
      description:
        "Fires once per file in which the analyser's content search found a match for one of its configured regular expressions.",
      params: [
        {
          name: 'regex_name',
          description:
            'Restrict the check to matches of this expression, which must also be configured for the content-search analyser; without it any configured expression counts.',
          required: false,
          example: '.*password.*',
          validator: regexString,
        },
      ],
    },
    {
      name: 'name_match',
      description: 'Fires when the image contains a file whose name matches the given regular expression.',
      params: [
        {
          name: 'regex',
          description: 'Regular expression matched against the names of files in the image.',
          required: true,
          example: '.*\\.pem',
          validator: regexString,
        },
      ],
    },
    {
      name: 'attribute_match',
      description:
        'Fires when the named file exists and its attributes (checksum and/or mode) meet the conditions given.',
      params: [
        {
          name: 'filename',
          description: 'Full path of the file whose attributes are checked.',
          required: true,
          example: '/etc/passwd',
          validator: anyString,
        },
        {
          name: 'checksum_algorithm',
          description: 'Hash algorithm the checksum is given in.',
          required: false,
          example: 'sha256',
          validator: enumString(['sha256']),
        },
        {
          name: 'checksum',
          description: "Expected checksum of the file's content.",
          required: false,
          example: '832cd0f75b227d13aac82b1f70b7f90191a4186c151f9db50851d209c45ede11',
          validator: anyString,
        },
        {
          name: 'checksum_match',
          description: "Whether the file's checksum must equal or differ from the given one for the trigger to fire.",
          required: false,
          example: 'equals',
          validator: equalsOp,
        },
        {
          name: 'mode',
          description: 'File mode (permission bits, octal) to compare with.',
          required: false,
          example: '00644',
          validator: anyString,
        },
        {
          name: 'mode_op',
          description: "Whether the file's mode must equal or differ from the given one for the trigger to fire.",
          required: false,
          example: 'equals',
          validator: equalsOp,
        },
        {
          name: 'skip_missing',
          description: 'When true, the trigger stays silent if the file is absent from the image.',
          required: false,
          example: 'true',
          validator: booleanString,
        },
      ],
    },
    {
      name: 'suid_or_guid_set',
      description: 'Fires once for every file that has the setuid or setgid bit set.',
      params: [],
    },
  ],
};
