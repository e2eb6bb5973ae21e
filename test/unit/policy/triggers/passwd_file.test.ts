import { describe, expect, it } from 'vitest';
import { parsePasswdFile, passwdFileGate } from '../../../../src/policy/gates/passwd_file.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  '# a comment',
  '',
  'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
  'ftp:x:14:50:FTP User:/var/ftp:/sbin/nologin',
  'app:x:1000:1000::/home/app:/bin/sh',
  'broken-line-without-fields',
].join('\n');

const withPasswd = () => fakeContext({ retrieved: { '/etc/passwd': PASSWD } });
const messages = async (trigger: string, params: Record<string, string> = {}) =>
  (await run(passwdFileGate, trigger, withPasswd(), params)).map((f) => f.message);

describe('parsePasswdFile', () => {
  it('reads name, ids and shell, skipping comments, blank and malformed lines', () => {
    expect(parsePasswdFile(PASSWD).map((e) => [e.name, e.uid, e.gid, e.shell])).toEqual([
      ['root', '0', '0', '/bin/bash'],
      ['daemon', '1', '1', '/usr/sbin/nologin'],
      ['ftp', '14', '50', '/sbin/nologin'],
      ['app', '1000', '1000', '/bin/sh'],
    ]);
  });

  it('accepts CRLF line ends', () => {
    expect(parsePasswdFile('root:x:0:0:root:/root:/bin/bash\r\n')[0]).toMatchObject({ shell: '/bin/bash', line: 'root:x:0:0:root:/root:/bin/bash' });
  });
});

describe('passwd_file', () => {
  it('content_not_available fires only when /etc/passwd was not retrieved', async () => {
    const message = '/etc/passwd was not found in the image, or analysis did not retrieve it';
    expect(await run(passwdFileGate, 'content_not_available', fakeContext())).toEqual([
      { message, triggerId: defaultTriggerId('passwd_file', 'content_not_available', message) },
    ]);
    expect(await run(passwdFileGate, 'content_not_available', fakeContext({ retrieved: { '/etc/group': 'root:x:0:' } }))).toHaveLength(1);
    expect(await run(passwdFileGate, 'content_not_available', withPasswd())).toEqual([]);
  });

  it('blacklist_usernames fires once per listed user present', async () => {
    expect(await messages('blacklist_usernames', { user_names: 'ftp, nobody,daemon' })).toEqual([
      'User name daemon is listed in /etc/passwd: daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
      'User name ftp is listed in /etc/passwd: ftp:x:14:50:FTP User:/var/ftp:/sbin/nologin',
    ]);
    expect(await messages('blacklist_usernames', { user_names: 'nobody,games' })).toEqual([]);
  });

  it('blacklist_userids and blacklist_groupids compare the numeric fields', async () => {
    expect(await messages('blacklist_userids', { user_ids: '0,14' })).toHaveLength(2);
    expect(await messages('blacklist_userids', { user_ids: '50' })).toEqual([]);
    expect(await messages('blacklist_groupids', { group_ids: '50' })).toEqual(['Group id 50 is listed in /etc/passwd: ftp:x:14:50:FTP User:/var/ftp:/sbin/nologin']);
    expect(await messages('blacklist_groupids', { group_ids: '14' })).toEqual([]);
  });

  it('blacklist_shells fires per user with a listed shell', async () => {
    expect(await messages('blacklist_shells', { shells: '/bin/bash,/bin/sh' })).toHaveLength(2);
    expect(await messages('blacklist_shells', { shells: '/bin/zsh' })).toEqual([]);
  });

  it('blacklist_full_entry needs the whole line', async () => {
    expect(await messages('blacklist_full_entry', { entry: 'ftp:x:14:50:FTP User:/var/ftp:/sbin/nologin' })).toHaveLength(1);
    expect(await messages('blacklist_full_entry', { entry: 'ftp:x:14:50:FTP User:/var/ftp:/bin/bash' })).toEqual([]);
  });

  it('the content triggers fire nothing when /etc/passwd was not retrieved', async () => {
    expect(await run(passwdFileGate, 'blacklist_usernames', fakeContext(), { user_names: 'root' })).toEqual([]);
  });
});
