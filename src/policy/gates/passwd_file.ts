import type { EvaluationContext, Fired, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { anyString, commaDelimitedNumbers, commaDelimitedStrings, listOf } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';

const GATE = 'passwd_file';
const PASSWD = '/etc/passwd';

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

/** One line of /etc/passwd: `name:password:uid:gid:gecos:home:shell`. */
export interface PasswdEntry {
  line: string;
  name: string;
  uid: string;
  gid: string;
  shell: string;
}

/** The entries of an /etc/passwd file; comments, blank and malformed lines are skipped. */
export function parsePasswdFile(text: string): PasswdEntry[] {
  const entries: PasswdEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) continue;
    const fields = line.split(':');
    if (fields.length < 7) continue;
    entries.push({ line, name: fields[0], uid: fields[2], gid: fields[3], shell: fields.slice(6).join(':') });
  }
  return entries;
}

/** The image's /etc/passwd entries, or undefined when analysis did not retrieve the file. */
async function passwdEntries(ctx: EvaluationContext): Promise<PasswdEntry[] | undefined> {
  const content = (await ctx.retrievedFiles())?.get(PASSWD);
  return content && parsePasswdFile(content.toString('utf8'));
}

async function evaluateContentNotAvailable(ctx: EvaluationContext): Promise<Fired[]> {
  if (await passwdEntries(ctx)) return [];
  return [fired('content_not_available', `${PASSWD} was not found in the image, or analysis did not retrieve it`)];
}

/** A trigger firing once per entry whose `field` is one of the listed values. */
function listedField(trigger: string, param: string, field: 'name' | 'uid' | 'gid' | 'shell', what: string) {
  return async (ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> => {
    const listed = new Set(listOf(params[param] ?? ''));
    const entries = (await passwdEntries(ctx)) ?? [];
    return entries
      .filter((e) => listed.has(e[field]))
      .map((e) => fired(trigger, `${what} ${e[field]} is listed in ${PASSWD}: ${e.line}`));
  };
}

async function evaluateFullEntry(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const entry = (params.entry ?? '').trim();
  const entries = (await passwdEntries(ctx)) ?? [];
  return entries.some((e) => e.line.trim() === entry) ? [fired('blacklist_full_entry', `The entry ${entry} is in ${PASSWD}`)] : [];
}

export const passwdFileGate: GateDefinition = {
  name: GATE,
  description:
    "Checks the content of the image's /etc/passwd: user names, user and group ids, login shells or whole entries.",
  state: 'active',
  // The triggers read the copy of /etc/passwd that analysis retrieves (VIGIL_RETRIEVE_FILES includes it by default).
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
      evaluate: listedField('blacklist_usernames', 'user_names', 'name', 'User name'),
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
      evaluate: listedField('blacklist_userids', 'user_ids', 'uid', 'User id'),
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
      evaluate: listedField('blacklist_groupids', 'group_ids', 'gid', 'Group id'),
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
      evaluate: listedField('blacklist_shells', 'shells', 'shell', 'Login shell'),
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
      evaluate: evaluateFullEntry,
    },
  ],
};
