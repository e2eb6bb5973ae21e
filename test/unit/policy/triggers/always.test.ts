import { describe, expect, it } from 'vitest';
import { alwaysGate } from '../../../../src/policy/gates/always.js';
import { fakeContext, run } from './fake-context.js';

describe('always/always', () => {
  it('fires once with the fixed trigger id "always"', async () => {
    expect(await run(alwaysGate, 'always', fakeContext())).toEqual([{ triggerId: 'always', message: 'Unconditional trigger match' }]);
  });
  it('fires whatever the image holds', async () => {
    const fired = await run(alwaysGate, 'always', fakeContext({ packages: [], vulnerabilities: [] }), { anything: 'x' });
    expect(fired).toHaveLength(1);
  });
});
