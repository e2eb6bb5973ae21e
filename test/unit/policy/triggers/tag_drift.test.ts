import { describe, expect, it } from 'vitest';
import type { PackageRow } from '../../../../src/images/store.js';
import type { TriggerParams } from '../../../../src/policy/evaluation-context.js';
import { tagDriftGate } from '../../../../src/policy/gates/tag_drift.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, pkg, run } from './fake-context.js';

const BEFORE: PackageRow[] = [
  pkg('dpkg', 'bash', '5.2.15-2'),
  pkg('dpkg', 'curl', '7.88.1-10'),
  pkg('dpkg', 'openssl', '3.0.11-1'),
  pkg('npm', 'lodash', '4.17.20'),
  pkg('npm', 'express', '4.18.2'),
  pkg('python', 'requests', '2.31.0'),
];

const NOW_PACKAGES: PackageRow[] = [
  pkg('dpkg', 'bash', '5.2.15-2'),
  pkg('dpkg', 'openssl', '3.0.13-1'),
  pkg('dpkg', 'zlib1g', '1:1.2.13-1'),
  pkg('npm', 'lodash', '4.17.21'),
  pkg('npm', 'lodash', '4.17.21'),
  pkg('npm', 'express', '4.18.2'),
  pkg('npm', 'express', '4.19.0'),
  pkg('python', 'requests', '2.31.0'),
  pkg('dpkg', 'requests', '2.31.0'),
];

/** Messages of a trigger for NOW_PACKAGES against `previous` (BEFORE unless given; null for no previous image). */
async function messages(trigger: string, params: TriggerParams = {}, previous: PackageRow[] | null = BEFORE): Promise<string[]> {
  const ctx = fakeContext({ packages: NOW_PACKAGES, previous: previous ?? undefined });
  return (await run(tagDriftGate, trigger, ctx, params)).map((f) => f.message);
}

describe('tag_drift gate: every trigger evaluates', () => {
  it('has an evaluate on each trigger', () => {
    for (const t of tagDriftGate.triggers) expect(t.evaluate, t.name).toBeTypeOf('function');
  });
});

describe('tag_drift/packages_added', () => {
  it('fires per (type, name) new since the previous image, in (type, name) order', async () => {
    expect(await messages('packages_added')).toEqual([
      'Package added since the previous image: requests (dpkg) 2.31.0',
      'Package added since the previous image: zlib1g (dpkg) 1:1.2.13-1',
    ]);
  });
  it('uses the md5 trigger id', async () => {
    const [f] = await run(tagDriftGate, 'packages_added', fakeContext({ packages: NOW_PACKAGES, previous: BEFORE }), {});
    expect(f.triggerId).toBe(defaultTriggerId('tag_drift', 'packages_added', f.message));
  });
});

describe('tag_drift/packages_removed', () => {
  it('fires per (type, name) gone since the previous image', async () => {
    expect(await messages('packages_removed')).toEqual(['Package removed since the previous image: curl (dpkg) 7.88.1-10']);
  });
});

describe('tag_drift/packages_modified', () => {
  it('fires per (type, name) whose versions changed, old -> new', async () => {
    expect(await messages('packages_modified')).toEqual([
      'Package modified since the previous image: openssl (dpkg) 3.0.11-1 -> 3.0.13-1',
      'Package modified since the previous image: express (npm) 4.18.2 -> 4.18.2, 4.19.0',
      'Package modified since the previous image: lodash (npm) 4.17.20 -> 4.17.21',
    ]);
  });
  it('ignores duplicate copies of the same version', async () => {
    const fired = await run(tagDriftGate, 'packages_modified', fakeContext({ packages: [pkg('npm', 'a', '1'), pkg('npm', 'a', '1')], previous: [pkg('npm', 'a', '1')] }), {});
    expect(fired).toEqual([]);
  });
});

describe('tag_drift: package_type filter', () => {
  it('limits every trigger to the listed types (case-insensitive)', async () => {
    expect(await messages('packages_modified', { package_type: 'npm' })).toEqual([
      'Package modified since the previous image: express (npm) 4.18.2 -> 4.18.2, 4.19.0',
      'Package modified since the previous image: lodash (npm) 4.17.20 -> 4.17.21',
    ]);
    expect(await messages('packages_added', { package_type: 'python, NPM' })).toEqual([]);
    expect(await messages('packages_removed', { package_type: 'dpkg,npm' })).toEqual(['Package removed since the previous image: curl (dpkg) 7.88.1-10']);
    expect(await messages('packages_removed', { package_type: 'npm' })).toEqual([]);
  });
});

describe('tag_drift: no previous image', () => {
  it.each(['packages_added', 'packages_removed', 'packages_modified'])('%s does not fire', async (trigger) => {
    expect(await messages(trigger, {}, null)).toEqual([]);
  });
  it('an empty previous image makes every package added', async () => {
    expect(await messages('packages_added', { package_type: 'python' }, [])).toEqual(['Package added since the previous image: requests (python) 2.31.0']);
  });
});
