import type { GateDefinition } from '../gate-types.js';
import { anyString, commaDelimitedNumbers, commaDelimitedStrings } from '../params.js';

export const passwdFileGate: GateDefinition = {
  name: 'passwd_file',
  description:
    "Checks the content of the image's /etc/passwd: user names, user and group ids, login shells or whole entries.",
  state: 'active',
  triggers: [
    {
      name: 'content_not_available',
      description: 'Fires when no /etc/passwd file was found in, or stored from, the image.',
      params: [],
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
