import { describe, expect, it } from 'vitest';
import type { PackageRow } from '../../../../src/images/store.js';
import type { TriggerParams } from '../../../../src/policy/evaluation-context.js';
import { packagesGate } from '../../../../src/policy/gates/packages.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, pkg, run } from './fake-context.js';

async function fire(trigger: string, packages: PackageRow[], params: TriggerParams) {
  return run(packagesGate, trigger, fakeContext({ packages }), params);
}

async function messages(trigger: string, packages: PackageRow[], params: TriggerParams): Promise<string[]> {
  return (await fire(trigger, packages, params)).map((f) => f.message);
}

const IMAGE = [
  pkg('dpkg', 'libssl3', '3.0.11-1~deb12u2'),
  pkg('dpkg', 'openssh-server', '1:9.2p1-2+deb12u2'),
  pkg('dpkg', 'bash', '5.2.15-2+b2'),
  pkg('npm', 'lodash', '4.17.21', { locations: ['/app/node_modules/lodash/package.json'] }),
  pkg('npm', 'lodash', '4.17.21', { locations: ['/app/other/node_modules/lodash/package.json'] }),
  pkg('npm', 'lodash', '3.10.1'),
];

describe('packages gate: every trigger evaluates', () => {
  it('has an evaluate on each active trigger but verify', () => {
    for (const t of packagesGate.triggers.filter((x) => x.name !== 'verify')) expect(t.evaluate, t.name).toBeTypeOf('function');
  });
});

describe('packages/required_package', () => {
  it('does not fire when the package is installed and no version is asked for', async () => {
    expect(await fire('required_package', IMAGE, { name: 'bash' })).toEqual([]);
  });
  it('fires once when the package is missing, with the engine message and the md5 id', async () => {
    const fired = await fire('required_package', IMAGE, { name: 'curl' });
    expect(fired).toEqual([
      {
        triggerId: defaultTriggerId('packages', 'required_package', 'Required input package (curl) is not present in container image'),
        message: 'Required input package (curl) is not present in container image',
      },
    ]);
    expect(await messages('required_package', IMAGE, { name: 'curl', version: '7.88.1-10' })).toEqual([
      'Required input package (curl,7.88.1-10) is not present in container image',
    ]);
  });
  it('matches names exactly (case-sensitive)', async () => {
    expect(await fire('required_package', IMAGE, { name: 'Bash' })).toHaveLength(1);
  });

  describe('exact (the default)', () => {
    it('is satisfied by the exact version', async () => {
      expect(await fire('required_package', IMAGE, { name: 'bash', version: '5.2.15-2+b2' })).toEqual([]);
      expect(await fire('required_package', IMAGE, { name: 'bash', version: '5.2.15-2+b2', version_match_type: 'exact' })).toEqual([]);
    });
    it('fires when only other versions are installed, naming them', async () => {
      expect(await messages('required_package', IMAGE, { name: 'bash', version: '5.2.21-2' })).toEqual([
        'Required input package (bash) is present (5.2.15-2+b2), but not at the version specified in policy (5.2.21-2)',
      ]);
      expect(await messages('required_package', IMAGE, { name: 'lodash', version: '4.17.20', version_match_type: 'exact' })).toEqual([
        'Required input package (lodash) is present (3.10.1, 4.17.21), but not at the version specified in policy (4.17.20)',
      ]);
    });
    it('is satisfied when any installed copy has the version', async () => {
      expect(await fire('required_package', IMAGE, { name: 'lodash', version: '3.10.1' })).toEqual([]);
    });
    it('a newer version does not satisfy exact', async () => {
      expect(await fire('required_package', IMAGE, { name: 'bash', version: '5.0-4' })).toHaveLength(1);
    });
  });

  describe('minimum', () => {
    const min = (name: string, version: string, packages = IMAGE) => fire('required_package', packages, { name, version, version_match_type: 'minimum' });

    it('is satisfied by the same or a newer version (dpkg ordering, epochs included)', async () => {
      expect(await min('bash', '5.2.15-2+b2')).toEqual([]);
      expect(await min('bash', '5.2.9-1')).toEqual([]); // 15 > 9 numerically, not as text
      expect(await min('openssh-server', '9.9p1-1')).toEqual([]); // epoch 1 wins
    });
    it('fires when every installed version is lower', async () => {
      const fired = await min('libssl3', '3.0.11-1~deb12u3');
      expect(fired.map((f) => f.message)).toEqual([
        'Required min-version input package (libssl3) is present (3.0.11-1~deb12u2), but is lower version than what is specified in policy (3.0.11-1~deb12u3)',
      ]);
      expect(await min('libssl3', '3.0.11-1')).toHaveLength(1); // ~ sorts before the bare revision
    });
    it('is satisfied when one of several copies is new enough', async () => {
      expect(await min('lodash', '4.0.0')).toEqual([]);
      expect(await min('lodash', '4.17.22')).toHaveLength(1);
    });
    it('orders by each package type', async () => {
      expect(await min('kernel', '5.14.0-362.el9', [pkg('rpm', 'kernel', '5.14.0-70.el9')])).toHaveLength(1);
      expect(await min('kernel', '5.14.0-70.el9', [pkg('rpm', 'kernel', '5.14.0-362.el9')])).toEqual([]);
      expect(await min('musl', '1.2.4-r2', [pkg('apk', 'musl', '1.2.4-r10')])).toEqual([]);
      expect(await min('musl', '1.2.4_git20230717-r0', [pkg('apk', 'musl', '1.2.4-r0')])).toHaveLength(1); // _git sorts after the bare version
      expect(await min('requests', '2.31.0', [pkg('python', 'requests', '2.31.0rc1')])).toHaveLength(1);
      expect(await min('express', '4.9.0', [pkg('npm', 'express', '4.18.2')])).toEqual([]);
      expect(await min('tool', '1.9.0', [pkg('binary', 'tool', '1.10.0')])).toEqual([]); // SemVer for other types
    });
  });
});

describe.each(['denylist', 'blacklist'])('packages/%s', (trigger) => {
  const word = trigger === 'denylist' ? 'denylisted' : 'blacklisted';

  it('fires for an installed package with the name', async () => {
    const fired = await fire(trigger, IMAGE, { name: 'openssh-server' });
    expect(fired).toEqual([{ triggerId: defaultTriggerId('packages', trigger, `Package is ${word}: openssh-server`), message: `Package is ${word}: openssh-server` }]);
  });
  it('fires per package version; copies of one package fire once', async () => {
    expect(await messages(trigger, IMAGE, { name: 'lodash', version: '4.17.21' })).toEqual([`Package is ${word}: lodash-4.17.21`]);
    expect(await messages(trigger, IMAGE, { name: 'lodash', version: '3.10.1' })).toEqual([`Package is ${word}: lodash-3.10.1`]);
    expect(await messages(trigger, [pkg('dpkg', 'vim', '1'), pkg('rpm', 'vim', '2')], { name: 'vim' })).toEqual([`Package is ${word}: vim`]);
  });
  it('does not fire for another version or an absent package', async () => {
    expect(await fire(trigger, IMAGE, { name: 'openssh-server', version: '1:9.2p1-2' })).toEqual([]);
    expect(await fire(trigger, IMAGE, { name: 'telnetd' })).toEqual([]);
  });
});

describe('packages/metadata', () => {
  const names = async (params: TriggerParams) => (await fire('metadata', IMAGE, params)).map((f) => f.message);

  it('name = (the default) fires per matching package version', async () => {
    expect(await names({ name: 'lodash' })).toEqual([
      'Package lodash-4.17.21 (npm) matches name = lodash',
      'Package lodash-3.10.1 (npm) matches name = lodash',
    ]);
    const [f] = await fire('metadata', IMAGE, { name: 'bash', name_comparison: '=' });
    expect(f).toEqual({ triggerId: defaultTriggerId('packages', 'metadata', 'Package bash-5.2.15-2+b2 (dpkg) matches name = bash'), message: 'Package bash-5.2.15-2+b2 (dpkg) matches name = bash' });
  });
  it('name != fires for every other package', async () => {
    expect(await names({ name: 'lodash', name_comparison: '!=' })).toEqual([
      'Package libssl3-3.0.11-1~deb12u2 (dpkg) matches name != lodash',
      'Package openssh-server-1:9.2p1-2+deb12u2 (dpkg) matches name != lodash',
      'Package bash-5.2.15-2+b2 (dpkg) matches name != lodash',
    ]);
  });
  it('like is a regular expression matched at the start of the name', async () => {
    expect(await names({ name: 'lib.*ssl', name_comparison: 'like' })).toEqual(['Package libssl3-3.0.11-1~deb12u2 (dpkg) matches name like lib.*ssl']);
    expect(await names({ name: 'ssl', name_comparison: 'like' })).toEqual([]);
    expect(await names({ name: 'openssh|bash', name_comparison: 'like' })).toHaveLength(2);
  });
  it('not_like fires for the names the expression does not match', async () => {
    expect(await names({ name: '.*ssl|lodash', name_comparison: 'not_like' })).toEqual([
      'Package openssh-server-1:9.2p1-2+deb12u2 (dpkg) matches name not_like .*ssl|lodash',
      'Package bash-5.2.15-2+b2 (dpkg) matches name not_like .*ssl|lodash',
    ]);
  });
  it('a version compares by the package type ordering, = by default', async () => {
    expect(await names({ name: 'lodash', version: '4.17.21' })).toEqual(['Package lodash-4.17.21 (npm) matches name = lodash, version = 4.17.21']);
    expect(await names({ name: 'lodash', version: '4.0.0', version_comparison: '<' })).toEqual(['Package lodash-3.10.1 (npm) matches name = lodash, version < 4.0.0']);
    expect(await names({ name: 'lodash', version: '4.9.0', version_comparison: '>' })).toEqual(['Package lodash-4.17.21 (npm) matches name = lodash, version > 4.9.0']);
    expect(await names({ name: 'lodash', version: '4.17.21', version_comparison: '!=' })).toHaveLength(1);
    expect(await names({ name: 'lodash', version: '4.17.21', version_comparison: '<=' })).toHaveLength(2);
    expect(await names({ name: 'bash', version: '5.2.9', version_comparison: '>=' })).toHaveLength(1);
    expect(await names({ name: 'openssh-server', version: '9.9p1-1', version_comparison: '>' })).toHaveLength(1); // epoch
  });
  it('name and version comparisons combine', async () => {
    expect(await names({ name: 'l.*', name_comparison: 'like', version: '3', version_comparison: '>=' })).toEqual([
      'Package libssl3-3.0.11-1~deb12u2 (dpkg) matches name like l.*, version >= 3',
      'Package lodash-4.17.21 (npm) matches name like l.*, version >= 3',
      'Package lodash-3.10.1 (npm) matches name like l.*, version >= 3',
    ]);
    expect(await names({ name: 'l.*', name_comparison: 'like', version: '4', version_comparison: '>=' })).toEqual([
      'Package lodash-4.17.21 (npm) matches name like l.*, version >= 4',
    ]);
  });
});

describe('packages/verify', () => {
  it('has no evaluate: no per-package file digests are stored to verify against, so it never fires', () => {
    const verify = packagesGate.triggers.find((t) => t.name === 'verify');
    expect(verify).toBeDefined();
    expect(verify?.evaluate).toBeUndefined();
  });
});
