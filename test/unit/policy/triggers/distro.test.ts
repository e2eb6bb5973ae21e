import { describe, expect, it } from 'vitest';
import type { DistroInfo } from '../../../../src/ecosystems/model.js';
import type { TriggerParams } from '../../../../src/policy/evaluation-context.js';
import { compareDistroVersions, distroGate } from '../../../../src/policy/gates/distro.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

const DEBIAN_12: DistroInfo = { name: 'debian', version: '12', like: [] };
const ALPINE: DistroInfo = { name: 'alpine', version: '3.18.4', like: [] };
const RHEL: DistroInfo = { name: 'rhel', version: '8.9', like: ['fedora'] };

async function deny(distro: DistroInfo | undefined, params: TriggerParams): Promise<string[]> {
  return (await run(distroGate, 'deny', fakeContext({ distro }), params)).map((f) => f.message);
}

describe('compareDistroVersions', () => {
  it('compares dotted versions numerically, to the precision of the policy version', () => {
    expect(compareDistroVersions('12', '12')).toBe(0);
    expect(compareDistroVersions('9', '10')).toBe(-1);
    expect(compareDistroVersions('22.04', '22.4')).toBe(0);
    expect(compareDistroVersions('22.10', '22.04')).toBe(1);
    expect(compareDistroVersions('3.18.4', '3.18')).toBe(0);
    expect(compareDistroVersions('3.18.4', '3.18.0')).toBe(1);
    expect(compareDistroVersions('3.18.4', '3.9')).toBe(1);
    expect(compareDistroVersions('12', '12.1')).toBe(-1);
    expect(compareDistroVersions('', '12')).toBeUndefined();
  });
});

describe('distro/deny', () => {
  it('fires for the named distro when no version is given (case-insensitive)', async () => {
    const fired = await run(distroGate, 'deny', fakeContext({ distro: DEBIAN_12 }), { distro: 'Debian' });
    expect(fired).toEqual([
      { message: 'Image distro debian 12 is denied (Debian)', triggerId: defaultTriggerId('distro', 'deny', 'Image distro debian 12 is denied (Debian)') },
    ]);
    expect(await deny(DEBIAN_12, { distro: 'ubuntu' })).toEqual([]);
    expect(await deny(undefined, { distro: 'debian' })).toEqual([]);
  });

  it('checks the version with = by default', async () => {
    expect(await deny(DEBIAN_12, { distro: 'debian', version: '12' })).toEqual(['Image distro debian 12 is denied (debian = 12)']);
    expect(await deny(DEBIAN_12, { distro: 'debian', version: '11' })).toEqual([]);
    // The series: rhel 8 covers 8.9, alpine 3.18 covers 3.18.4, but 3.18.0 is exact.
    expect(await deny(RHEL, { distro: 'rhel', version: '8' })).toHaveLength(1);
    expect(await deny(ALPINE, { distro: 'alpine', version: '3.18' })).toHaveLength(1);
    expect(await deny(ALPINE, { distro: 'alpine', version: '3.18.0' })).toEqual([]);
  });

  it('applies every comparison operator numerically', async () => {
    const cases: [string, string, boolean][] = [
      ['<', '13', true],
      ['<', '12', false],
      ['<', '9', false],
      ['>', '9', true],
      ['>', '12', false],
      ['<=', '12', true],
      ['<=', '11', false],
      ['>=', '12', true],
      ['>=', '13', false],
      ['!=', '11', true],
      ['!=', '12', false],
      ['=', '12.0', true],
    ];
    for (const [check, version, expected] of cases) {
      const got = await deny(DEBIAN_12, { distro: 'debian', version, check });
      expect(got.length > 0, `debian 12 ${check} ${version}`).toBe(expected);
    }
    expect(await deny(ALPINE, { distro: 'alpine', version: '3.9', check: '>' })).toEqual(['Image distro alpine 3.18.4 is denied (alpine > 3.9)']);
    expect(await deny(ALPINE, { distro: 'alpine', version: '3.19', check: '<' })).toHaveLength(1);
  });

  it('does not fire when the image version is unknown and a version is given', async () => {
    const sid: DistroInfo = { name: 'debian', version: '', like: [] };
    expect(await deny(sid, { distro: 'debian', version: '12', check: '<' })).toEqual([]);
    expect(await deny(sid, { distro: 'debian' })).toEqual(['Image distro debian is denied (debian)']);
  });
});
