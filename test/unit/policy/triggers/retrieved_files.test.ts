import { describe, expect, it } from 'vitest';
import { retrievedFilesGate } from '../../../../src/policy/gates/retrieved_files.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

describe('retrieved_files', () => {
  it('content_not_available always fires, naming the path', async () => {
    const message = 'The content of /etc/httpd.conf is not stored by this analysis';
    expect(await run(retrievedFilesGate, 'content_not_available', fakeContext(), { path: '/etc/httpd.conf' })).toEqual([
      { message, triggerId: defaultTriggerId('retrieved_files', 'content_not_available', message) },
    ]);
  });

  it('content_regex has no evaluate', () => {
    expect(retrievedFilesGate.triggers.find((t) => t.name === 'content_regex')?.evaluate).toBeUndefined();
  });
});
