import { describe, expect, it } from 'vitest';
import { passwdFileGate } from '../../../../src/policy/gates/passwd_file.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

describe('passwd_file', () => {
  it('content_not_available always fires: the analysis stores no file contents', async () => {
    const message = 'The content of /etc/passwd is not stored by this analysis';
    expect(await run(passwdFileGate, 'content_not_available', fakeContext())).toEqual([
      { message, triggerId: defaultTriggerId('passwd_file', 'content_not_available', message) },
    ]);
  });

  it('the content triggers have no evaluate', () => {
    const without = passwdFileGate.triggers.filter((t) => !t.evaluate).map((t) => t.name);
    expect(without).toEqual(['blacklist_usernames', 'blacklist_userids', 'blacklist_groupids', 'blacklist_shells', 'blacklist_full_entry']);
  });
});
