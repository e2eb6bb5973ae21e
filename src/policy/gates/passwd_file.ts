import type { EvaluationContext, Fired } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { anyString, commaDelimitedNumbers, commaDelimitedStrings } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';

const GATE = 'passwd_file';

/**
 * content_not_available: the analysis does not store file contents, so the content of /etc/passwd is never
 * available and this trigger always fires.
 */
async function evaluateContentNotAvailable(_ctx: EvaluationContext): Promise<Fired[]> {
  const message = 'The content of /etc/passwd is not stored by this analysis';
  return [{ triggerId: defaultTriggerId(GATE, 'content_not_available', message), message }];
}

export const passwdFileGate: GateDefinition = {
  name: GATE,
  description:
    "Checks the content of the image's /etc/passwd: user names, user and group ids, login shells or whole entries.",
  state: 'active',
  // Only content_not_available has an evaluate: the other triggers read the content of /etc/passwd, which the
  // analysis does not store yet, so they cannot be evaluated (the engine reports rules using them as not evaluable).
  triggers: [
    {
      name: 'content_not_available',
      description: 'Fires when no /etc/passwd file was found in, or stored from, the image.',
      params: [],
      evaluate: evaluateContentNotAvailable,
    },
    {
      name: 'blacklist_usernames',
      description: 'Fires when /etc/passwd contains any of the listed user names.',
      params: [
        {
          name: 'user_names',
          description: 'User names that must not appear in /etc/passwd.',
          required: true,
          example: 'daemon,ftp',
          aliases: ['usernameblacklist'],
          validator: commaDelimitedStrings,
        },
      ],
    },
    {
      name: 'blacklist_userids',
      description: 'Fires when /etc/passwd contains any of the listed numeric user ids.',
      params: [
        {
          name: 'user_ids',
          description: 'Numeric user ids that must not appear in /etc/passwd.',
          required: true,
          example: '0,1',
          aliases: ['useridblacklist'],
          validator: commaDelimitedNumbers,
        },
      ],
    },
    {
      name: 'blacklist_groupids',
      description: 'Fires when /etc/passwd contains any of the listed numeric group ids.',
      params: [
        {
          name: 'group_ids',
          description: 'Numeric group ids that must not appear in /etc/passwd.',
          required: true,
          example: '999,20',
          validator: commaDelimitedNumbers,
        },
      ],
    },
    {
      name: 'blacklist_shells',
      description: 'Fires when any user in /etc/passwd has one of the listed login shells.',
      params: [
        {
          name: 'shells',
          description: 'Login shell paths that no user may have.',
          required: true,
          example: '/bin/bash,/bin/zsh',
          validator: commaDelimitedStrings,
        },
      ],
    },
    {
      name: 'blacklist_full_entry',
      description: 'Fires when /etc/passwd contains a line identical to the given entry.',
      params: [
        {
          name: 'entry',
          description: 'A complete /etc/passwd line to look for.',
          required: true,
          example: 'ftp:x:14:50:FTP User:/var/ftp:/sbin/nologin',
          validator: anyString,
        },
      ],
    },
  ],
};
