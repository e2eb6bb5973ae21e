import { describe, expect, it } from 'vitest';
import { retrievedFilesGate } from '../../../../src/policy/gates/retrieved_files.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

const CONF = 'ServerName example\r\nSSLEnabled on\nListen 443\n';
const ctx = () => fakeContext({ retrieved: { '/etc/httpd.conf': CONF } });

describe('retrieved_files', () => {
  it('content_not_available fires, naming the path, only when the file was not retrieved', async () => {
    const message = '/etc/httpd.conf was not retrieved from the image (it is missing, too large, or not configured for retrieval)';
    expect(await run(retrievedFilesGate, 'content_not_available', fakeContext(), { path: '/etc/httpd.conf' })).toEqual([
      { message, triggerId: defaultTriggerId('retrieved_files', 'content_not_available', message) },
    ]);
    expect(await run(retrievedFilesGate, 'content_not_available', ctx(), { path: '/etc/httpd.conf' })).toEqual([]);
    expect(await run(retrievedFilesGate, 'content_not_available', ctx(), { path: '/etc/other.conf' })).toHaveLength(1);
  });

  it('content_regex match fires when a line matches from its start', async () => {
    expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/httpd.conf', check: 'match', regex: '.*SSLEnabled.*' })).toEqual([
      expect.objectContaining({ message: '/etc/httpd.conf has content matching the regex .*SSLEnabled.*' }),
    ]);
    // re.match semantics: anchored at the start of each line.
    expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/httpd.conf', check: 'match', regex: 'Enabled' })).toEqual([]);
    expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/httpd.conf', check: 'match', regex: '(?i)listen 443$' })).toHaveLength(1);
    expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/httpd.conf', check: 'match', regex: 'ServerName example$' })).toHaveLength(1);
  });

  it('content_regex no_match fires when no line matches', async () => {
    expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/httpd.conf', check: 'no_match', regex: '.*TLSv1\\.3.*' })).toEqual([
      expect.objectContaining({ message: 'No line of /etc/httpd.conf matches the regex .*TLSv1\\.3.*' }),
    ]);
    expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/httpd.conf', check: 'no_match', regex: 'Listen' })).toEqual([]);
  });

  it('content_regex fires neither way for a file that was not retrieved', async () => {
    for (const check of ['match', 'no_match'])
      expect(await run(retrievedFilesGate, 'content_regex', ctx(), { path: '/etc/missing.conf', check, regex: '.*' })).toEqual([]);
  });
});
