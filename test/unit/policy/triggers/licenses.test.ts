import { describe, expect, it } from 'vitest';
import type { PackageRow } from '../../../../src/images/store.js';
import { licensesGate } from '../../../../src/policy/gates/licenses.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, pkg, run } from './fake-context.js';

const IMAGE: PackageRow[] = [
  pkg('dpkg', 'bash', '5.2.15-2+b2', { licenses: ['GPL-3+', 'BSD-4-clause-UC'] }),
  pkg('dpkg', 'libc6', '2.36-9', { licenses: ['LGPL-2.1+', 'GPL-2+'] }),
  pkg('npm', 'lodash', '4.17.21', { licenses: ['MIT'], locations: ['/a/node_modules/lodash/package.json'] }),
  pkg('npm', 'lodash', '4.17.21', { licenses: ['MIT'], locations: ['/b/node_modules/lodash/package.json'] }),
  pkg('python', 'certifi', '2023.7.22', { licenses: ['MPL-2.0'] }),
  pkg('dpkg', 'unlicensed', '1.0', { licenses: [] }),
];

async function messages(trigger: string, licenses: string, packages = IMAGE): Promise<string[]> {
  return (await run(licensesGate, trigger, fakeContext({ packages }), { licenses })).map((f) => f.message);
}

describe('licenses gate: every trigger evaluates', () => {
  it('has an evaluate on each trigger', () => {
    for (const t of licensesGate.triggers) expect(t.evaluate, t.name).toBeTypeOf('function');
  });
});

describe.each(['denylist_exact_match', 'blacklist_exact_match'])('licenses/%s', (trigger) => {
  it('fires per package with a license equal to an entry, naming package and license', async () => {
    const fired = await run(licensesGate, trigger, fakeContext({ packages: IMAGE }), { licenses: 'GPL-2+, MIT' });
    expect(fired.map((f) => f.message)).toEqual([
      'Package libc6-2.36-9 (dpkg) is distributed under a license on the denylist: GPL-2+',
      'Package lodash-4.17.21 (npm) is distributed under a license on the denylist: MIT',
    ]);
    expect(fired[0].triggerId).toBe(defaultTriggerId('licenses', trigger, fired[0].message));
  });
  it('names every denied license of a package in one firing', async () => {
    expect(await messages(trigger, 'GPL-3+,BSD-4-clause-UC')).toEqual([
      'Package bash-5.2.15-2+b2 (dpkg) is distributed under licenses on the denylist: GPL-3+, BSD-4-clause-UC',
    ]);
  });
  it('does not match substrings or other letter case', async () => {
    expect(await messages(trigger, 'GPL')).toEqual([]);
    expect(await messages(trigger, 'mit')).toEqual([]);
    expect(await messages(trigger, 'GPL-2')).toEqual([]);
  });
});

describe.each(['denylist_partial_match', 'blacklist_partial_match'])('licenses/%s', (trigger) => {
  it('fires per package with a license containing an entry', async () => {
    const fired = await run(licensesGate, trigger, fakeContext({ packages: IMAGE }), { licenses: 'GPL' });
    expect(fired.map((f) => f.message)).toEqual([
      'Package bash-5.2.15-2+b2 (dpkg) is distributed under a license matching the denylist: GPL-3+',
      'Package libc6-2.36-9 (dpkg) is distributed under licenses matching the denylist: LGPL-2.1+, GPL-2+',
    ]);
    expect(fired[1].triggerId).toBe(defaultTriggerId('licenses', trigger, fired[1].message));
  });
  it('takes entries literally (no regular expression) and case-sensitively', async () => {
    expect(await messages(trigger, '2.1+')).toEqual(['Package libc6-2.36-9 (dpkg) is distributed under a license matching the denylist: LGPL-2.1+']);
    expect(await messages(trigger, 'G.L')).toEqual([]);
    expect(await messages(trigger, 'mpl')).toEqual([]);
  });
  it('an exact name is a partial match too', async () => {
    expect(await messages(trigger, 'MPL-2.0')).toEqual(['Package certifi-2023.7.22 (python) is distributed under a license matching the denylist: MPL-2.0']);
  });
});

describe('licenses: exact vs partial on the same list', () => {
  it('partial finds what exact does not', async () => {
    expect(await messages('denylist_exact_match', 'LGPL')).toEqual([]);
    expect(await messages('denylist_partial_match', 'LGPL')).toEqual(['Package libc6-2.36-9 (dpkg) is distributed under a license matching the denylist: LGPL-2.1+']);
  });
  it('no packages or no licensed packages, no firings', async () => {
    expect(await messages('denylist_partial_match', 'GPL', [])).toEqual([]);
    expect(await messages('denylist_exact_match', 'GPL-2+', [pkg('dpkg', 'x', '1')])).toEqual([]);
  });
});
