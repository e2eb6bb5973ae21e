import { describe, expect, it } from 'vitest';
import type { FileRecord } from '../../../../src/images/model.js';
import { type EvaluationContext, type TriggerParams, TriggerNotEvaluableError } from '../../../../src/policy/evaluation-context.js';
import { filesGate } from '../../../../src/policy/gates/files.js';
import { pythonMatcher } from '../../../../src/util/python-regex.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

const SHA_PASSWD = 'a'.repeat(64);

function file(path: string, mode: number, extra: Partial<FileRecord> = {}): FileRecord {
  return { path, type: 'file', mode, uid: 0, gid: 0, size: 10, ...extra };
}

const FILES: FileRecord[] = [
  file('/etc', 0o755, { type: 'dir', size: 0 }),
  file('/etc/passwd', 0o644, { sha256: SHA_PASSWD }),
  file('/etc/ssl/private/server.pem', 0o600, { sha256: 'b'.repeat(64) }),
  file('/usr/share/doc/key.pem.txt', 0o644, { sha256: 'c'.repeat(64) }),
  file('/usr/bin/passwd', 0o4755, { sha256: 'd'.repeat(64) }),
  file('/usr/bin/wall', 0o2755, { sha256: 'e'.repeat(64) }),
  file('/usr/bin/both', 0o6755, { sha256: 'f'.repeat(64) }),
  file('/usr/bin/passwd-link', 0o4755, { type: 'hardlink', linkTarget: '/usr/bin/passwd', sha256: 'd'.repeat(64) }),
  file('/var/mail', 0o2775, { type: 'dir', size: 0 }),
  file('/usr/bin/chsh', 0o4755, { type: 'symlink', linkTarget: 'passwd', size: 0 }),
];

function withFiles(files: FileRecord[] = FILES): EvaluationContext {
  return { ...fakeContext(), files: async () => files };
}

async function messages(trigger: string, params: TriggerParams = {}, ctx = withFiles()): Promise<string[]> {
  return (await run(filesGate, trigger, ctx, params)).map((f) => f.message);
}

describe('pythonMatcher', () => {
  it('is anchored at the start only, like re.match', () => {
    const m = pythonMatcher('.*\\.pem');
    expect(m('/etc/a.pem')).toBe(true);
    expect(m('/etc/a.pem.txt')).toBe(true);
    expect(pythonMatcher('etc')('/etc/passwd')).toBe(false);
    expect(pythonMatcher('/etc$')('/etc')).toBe(true);
    expect(pythonMatcher('/etc$')('/etc/passwd')).toBe(false);
  });

  it('translates Python named groups and leading flags', () => {
    expect(pythonMatcher('(?P<d>/etc)/(?P=d)')('/etc//etc')).toBe(true);
    expect(pythonMatcher('(?i)/ETC')('/etc')).toBe(true);
    // Multi-line mode does not loosen the anchor.
    expect(pythonMatcher('(?m)b')('a\nb')).toBe(false);
    expect(() => pythonMatcher('(?x) a')).toThrow(/unsupported flag/);
  });
});

describe('files/name_match', () => {
  it('fires per file whose path matches from the start', async () => {
    const fired = await run(filesGate, 'name_match', withFiles(), { regex: '.*\\.pem' });
    expect(fired.map((f) => f.message)).toEqual([
      'File /etc/ssl/private/server.pem matches the name regex .*\\.pem',
      'File /usr/share/doc/key.pem.txt matches the name regex .*\\.pem',
    ]);
    expect(fired[0].triggerId).toBe(defaultTriggerId('files', 'name_match', fired[0].message));
  });

  it('does not search inside the path', async () => {
    expect(await messages('name_match', { regex: 'passwd' })).toEqual([]);
    expect(await messages('name_match', { regex: '.*\\.pem$' })).toEqual(['File /etc/ssl/private/server.pem matches the name regex .*\\.pem$']);
    expect(await messages('name_match', { regex: '/usr/bin/pass' })).toEqual([
      'File /usr/bin/passwd matches the name regex /usr/bin/pass',
      'File /usr/bin/passwd-link matches the name regex /usr/bin/pass',
    ]);
  });
});

describe('files/suid_or_guid_set', () => {
  it('fires per regular file with the setuid or setgid bit, naming the bits and mode', async () => {
    expect(await messages('suid_or_guid_set')).toEqual([
      'File /usr/bin/passwd has the setuid bit set (mode 4755)',
      'File /usr/bin/wall has the setgid bit set (mode 2755)',
      'File /usr/bin/both has the setuid and setgid bit set (mode 6755)',
      'File /usr/bin/passwd-link has the setuid bit set (mode 4755)',
    ]);
  });

  it('finds nothing in an image without such files', async () => {
    expect(await messages('suid_or_guid_set', {}, withFiles([file('/bin/sh', 0o755)]))).toEqual([]);
  });
});

describe('files/attribute_match', () => {
  it('checksum equals / not_equals (case-insensitive hex, default equals)', async () => {
    expect(await messages('attribute_match', { filename: '/etc/passwd', checksum: SHA_PASSWD.toUpperCase() })).toEqual([
      `File /etc/passwd matches: sha256 ${SHA_PASSWD} equals ${SHA_PASSWD.toUpperCase()}`,
    ]);
    expect(await messages('attribute_match', { filename: '/etc/passwd', checksum: 'f'.repeat(64), checksum_match: 'equals' })).toEqual([]);
    expect(await messages('attribute_match', { filename: '/etc/passwd', checksum: 'f'.repeat(64), checksum_match: 'not_equals' })).toEqual([
      `File /etc/passwd matches: sha256 ${SHA_PASSWD} not_equals ${'f'.repeat(64)}`,
    ]);
    expect(
      await messages('attribute_match', { filename: '/etc/passwd', checksum: SHA_PASSWD, checksum_match: 'not_equals', checksum_algorithm: 'sha256' }),
    ).toEqual([]);
  });

  it('mode equals / not_equals, as octal with or without leading zeros', async () => {
    expect(await messages('attribute_match', { filename: '/etc/passwd', mode: '00644', mode_op: 'equals' })).toEqual([
      'File /etc/passwd matches: mode 0644 equals 0644',
    ]);
    expect(await messages('attribute_match', { filename: '/etc/passwd', mode: '644' })).toHaveLength(1);
    expect(await messages('attribute_match', { filename: '/etc/passwd', mode: '0600' })).toEqual([]);
    expect(await messages('attribute_match', { filename: '/etc/passwd', mode: '0600', mode_op: 'not_equals' })).toEqual([
      'File /etc/passwd matches: mode 0644 not_equals 0600',
    ]);
    expect(await messages('attribute_match', { filename: '/usr/bin/passwd', mode: '04755' })).toEqual([
      'File /usr/bin/passwd matches: mode 4755 equals 4755',
    ]);
    await expect(run(filesGate, 'attribute_match', withFiles(), { filename: '/etc/passwd', mode: 'rw-r--r--' })).rejects.toThrow(/octal/);
  });

  it('needs every given condition to hold', async () => {
    expect(await messages('attribute_match', { filename: '/etc/passwd', checksum: SHA_PASSWD, mode: '0644' })).toEqual([
      `File /etc/passwd matches: sha256 ${SHA_PASSWD} equals ${SHA_PASSWD} and mode 0644 equals 0644`,
    ]);
    expect(await messages('attribute_match', { filename: '/etc/passwd', checksum: SHA_PASSWD, mode: '0600' })).toEqual([]);
    expect(await messages('attribute_match', { filename: '/etc/passwd', checksum: 'f'.repeat(64), mode: '0644' })).toEqual([]);
    // An existing file with nothing to compare does not fire.
    expect(await messages('attribute_match', { filename: '/etc/passwd' })).toEqual([]);
  });

  it('a file without a checksum (not a regular file) never equals one', async () => {
    expect(await messages('attribute_match', { filename: '/etc', checksum: SHA_PASSWD })).toEqual([]);
    expect(await messages('attribute_match', { filename: '/etc', checksum: SHA_PASSWD, checksum_match: 'not_equals' })).toEqual([
      `File /etc matches: sha256 (none: not a regular file) not_equals ${SHA_PASSWD}`,
    ]);
  });

  it('a missing file fires unless skip_missing is true', async () => {
    const params = { filename: '/etc/shadow', checksum: SHA_PASSWD };
    expect(await messages('attribute_match', params)).toEqual(['File /etc/shadow is not present in the image (skip_missing is not true)']);
    expect(await messages('attribute_match', { ...params, skip_missing: 'false' })).toHaveLength(1);
    expect(await messages('attribute_match', { ...params, skip_missing: 'TRUE' })).toEqual([]);
    expect(await messages('attribute_match', { filename: 'etc//shadow', skip_missing: 'false' })).toEqual([
      'File /etc/shadow is not present in the image (skip_missing is not true)',
    ]);
  });

  it('normalises the file name', async () => {
    expect(await messages('attribute_match', { filename: 'etc/./passwd', mode: '0644' })).toEqual(['File /etc/passwd matches: mode 0644 equals 0644']);
  });
});

describe('files/content_regex_match', () => {
  const contentSearch = [
    { path: '/app/config.ini', matches: [{ name: 'PASSWORD', regex: '.*password=.*', lines: [4, 9] }, { name: 'TOKEN', regex: '.*token:.*', lines: [1] }] },
    { path: '/etc/app.env', matches: [{ name: 'PASSWORD', regex: '.*password=.*', lines: [2] }] },
  ];
  const ctx = () => fakeContext({ contentSearch });

  it('fires once per file and expression the content search matched', async () => {
    const fired = await run(filesGate, 'content_regex_match', ctx());
    expect(fired.map((f) => f.message)).toEqual([
      'File /app/config.ini has content matching the expression PASSWORD (.*password=.*)',
      'File /app/config.ini has content matching the expression TOKEN (.*token:.*)',
      'File /etc/app.env has content matching the expression PASSWORD (.*password=.*)',
    ]);
    expect(fired[0].triggerId).toBe(defaultTriggerId('files', 'content_regex_match', fired[0].message));
  });

  it('regex_name narrows to one expression, named by its name or by the expression itself', async () => {
    expect(await run(filesGate, 'content_regex_match', ctx(), { regex_name: 'TOKEN' })).toHaveLength(1);
    expect(await run(filesGate, 'content_regex_match', ctx(), { regex_name: '.*password=.*' })).toHaveLength(2);
    expect(await run(filesGate, 'content_regex_match', ctx(), { regex_name: 'SSN' })).toEqual([]);
  });

  it('fires nothing when the search found nothing, and is not evaluable when it did not run', async () => {
    expect(await run(filesGate, 'content_regex_match', fakeContext({ contentSearch: [] }))).toEqual([]);
    await expect(run(filesGate, 'content_regex_match', fakeContext())).rejects.toBeInstanceOf(TriggerNotEvaluableError);
  });
});
