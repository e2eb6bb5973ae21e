import { describe, expect, it } from 'vitest';
import type { ContentSearchResult } from '../../../../src/images/scanners/index.js';
import { TriggerNotEvaluableError } from '../../../../src/policy/evaluation-context.js';
import { secretScansGate } from '../../../../src/policy/gates/secret_scans.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

const RESULTS: ContentSearchResult[] = [
  { path: '/app/.aws/credentials', matches: [{ name: 'AWS_ACCESS_KEY', regex: 'x', lines: [2] }, { name: 'AWS_SECRET_KEY', regex: 'y', lines: [3] }] },
  { path: '/etc/ssl/private/server.key', matches: [{ name: 'PRIV_KEY', regex: 'z', lines: [1] }] },
];

const check = (params: Record<string, string>, secretSearch: ContentSearchResult[] | 'not run' = RESULTS) =>
  run(secretScansGate, 'content_regex_checks', fakeContext({ secretSearch: secretSearch === 'not run' ? undefined : secretSearch }), params);

describe('secret_scans/content_regex_checks', () => {
  it('fires once per file and expression found, by default', async () => {
    const fired = await check({});
    expect(fired.map((f) => f.message)).toEqual([
      'The secret search found a match for AWS_ACCESS_KEY in /app/.aws/credentials',
      'The secret search found a match for AWS_SECRET_KEY in /app/.aws/credentials',
      'The secret search found a match for PRIV_KEY in /etc/ssl/private/server.key',
    ]);
    expect(fired[0].triggerId).toBe(defaultTriggerId('secret_scans', 'content_regex_checks', fired[0].message));
    expect(await check({}, [])).toEqual([]);
  });

  it('narrows by expression name and by file name regex', async () => {
    expect((await check({ content_regex_name: 'PRIV_KEY' })).map((f) => f.message)).toEqual(['The secret search found a match for PRIV_KEY in /etc/ssl/private/server.key']);
    expect(await check({ content_regex_name: 'DOCKER_AUTH' })).toEqual([]);
    expect(await check({ filename_regex: '/etc/.*' })).toHaveLength(1);
    expect(await check({ filename_regex: '/etc/.*', content_regex_name: 'AWS_ACCESS_KEY' })).toEqual([]);
  });

  it('notfound fires once when nothing matches the filters, and not otherwise', async () => {
    expect((await check({ match_type: 'notfound', content_regex_name: 'DOCKER_AUTH' })).map((f) => f.message)).toEqual([
      'The secret search found no match for DOCKER_AUTH in any file',
    ]);
    expect(await check({ match_type: 'notfound', filename_regex: '/usr/.*' })).toHaveLength(1);
    expect(await check({ match_type: 'notfound' })).toEqual([]);
  });

  it('is not evaluable for an image the search did not run on', async () => {
    await expect(check({}, 'not run')).rejects.toBeInstanceOf(TriggerNotEvaluableError);
  });
});
