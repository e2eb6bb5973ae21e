import { describe, expect, it } from 'vitest';
import type { EvaluationContext, ImageFacts, TriggerParams } from '../../../../src/policy/evaluation-context.js';
import { metadataGate } from '../../../../src/policy/gates/metadata.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

function image(facts: Partial<ImageFacts> = {}): EvaluationContext {
  const base = fakeContext();
  return {
    ...base,
    image: {
      ...base.image,
      arch: 'amd64',
      size: 2_000_000_000,
      layerCount: 7,
      distro: { name: 'ubuntu', version: '22.04', like: ['debian'] },
      ...facts,
    },
  };
}

async function check(attribute: string, op: string, value?: string, ctx = image()): Promise<string[]> {
  const params: TriggerParams = value === undefined ? { attribute, check: op } : { attribute, check: op, value };
  return (await run(metadataGate, 'attribute', ctx, params)).map((f) => f.message);
}

async function fires(attribute: string, op: string, value?: string, ctx = image()): Promise<boolean> {
  return (await check(attribute, op, value, ctx)).length > 0;
}

describe('metadata/attribute', () => {
  it('fires once with a message naming the attribute, its value and the check, under the default trigger id', async () => {
    const fired = await run(metadataGate, 'attribute', image(), { attribute: 'size', check: '>', value: '1073741824' });
    expect(fired).toEqual([
      {
        message: "Image attribute size (2000000000) matches check '>' '1073741824'",
        triggerId: defaultTriggerId('metadata', 'attribute', "Image attribute size (2000000000) matches check '>' '1073741824'"),
      },
    ]);
  });

  it('compares size and layer_count numerically with every order operator', async () => {
    expect(await fires('size', '>', '1073741824')).toBe(true);
    expect(await fires('size', '>', '3000000000')).toBe(false);
    expect(await fires('size', '<', '3000000000')).toBe(true);
    expect(await fires('size', '<', '2000000000')).toBe(false);
    expect(await fires('size', '>=', '2000000000')).toBe(true);
    expect(await fires('size', '<=', '2000000000')).toBe(true);
    expect(await fires('size', '<=', '1999999999')).toBe(false);
    expect(await fires('size', '=', '2000000000.0')).toBe(true);
    expect(await fires('size', '!=', '2000000000')).toBe(false);
    expect(await fires('size', '!=', '1')).toBe(true);
    // Numerically, not as text: "7" > "10" as strings.
    expect(await fires('layer_count', '<', '10')).toBe(true);
    expect(await fires('layer_count', '>', '10')).toBe(false);
    await expect(check('size', '>', '1GB')).rejects.toThrow(/not a number/);
  });

  it('compares strings for architecture, os_type and distro', async () => {
    expect(await fires('architecture', '=', 'amd64')).toBe(true);
    expect(await fires('architecture', '=', 'arm64')).toBe(false);
    expect(await fires('architecture', '!=', 'arm64')).toBe(true);
    expect(await fires('os_type', '=', 'linux')).toBe(true);
    expect(await fires('os_type', '!=', 'linux')).toBe(false);
    expect(await fires('distro', '=', 'ubuntu')).toBe(true);
    expect(await fires('distro', '>', 'debian')).toBe(true);
    expect(await fires('distro', '<', 'debian')).toBe(false);
  });

  it('compares distro_version as a version', async () => {
    expect(await fires('distro_version', '=', '22.04')).toBe(true);
    expect(await fires('distro_version', '=', '22.4')).toBe(true);
    expect(await fires('distro_version', '=', '22')).toBe(true);
    expect(await fires('distro_version', '>', '9.10')).toBe(true);
    expect(await fires('distro_version', '<', '24.04')).toBe(true);
    expect(await fires('distro_version', '>=', '22.10')).toBe(false);
    expect(await fires('distro_version', '<=', '22.04')).toBe(true);
    expect(await fires('distro_version', '!=', '20.04')).toBe(true);
  });

  it('exists and not_exists need no value and test whether the attribute is known', async () => {
    expect(await check('architecture', 'exists')).toEqual(["Image attribute architecture (amd64) matches check 'exists'"]);
    expect(await fires('architecture', 'not_exists')).toBe(false);
    const unknown = image({ arch: null, size: null, distro: undefined });
    expect(await fires('architecture', 'exists', undefined, unknown)).toBe(false);
    expect(await check('architecture', 'not_exists', undefined, unknown)).toEqual(["Image attribute architecture (unknown) matches check 'not_exists'"]);
    expect(await fires('distro', 'not_exists', undefined, unknown)).toBe(true);
    expect(await fires('like_distro', 'exists', undefined, image({ distro: { name: 'debian', version: '12', like: [] } }))).toBe(false);
  });

  it('an unknown attribute passes only the negated checks', async () => {
    const unknown = image({ size: null });
    expect(await fires('size', '>', '0', unknown)).toBe(false);
    expect(await fires('size', '=', '0', unknown)).toBe(false);
    expect(await fires('size', '!=', '0', unknown)).toBe(true);
    expect(await fires('size', 'in', '0', unknown)).toBe(false);
    expect(await fires('size', 'not_in', '0', unknown)).toBe(true);
  });

  it('like and not_like match a regex from the start of the value', async () => {
    expect(await check('architecture', 'like', 'amd.*')).toEqual(["Image attribute architecture (amd64) matches check 'like' 'amd.*'"]);
    expect(await fires('architecture', 'like', '64')).toBe(false);
    expect(await fires('architecture', 'like', '.*64')).toBe(true);
    expect(await fires('architecture', 'not_like', 'arm.*')).toBe(true);
    expect(await fires('architecture', 'not_like', 'amd.*')).toBe(false);
    expect(await fires('size', 'like', '2\\d{9}$')).toBe(true);
  });

  it('in and not_in test membership of a comma-separated list', async () => {
    expect(await fires('architecture', 'in', 'arm64, amd64')).toBe(true);
    expect(await fires('architecture', 'in', 'arm64,s390x')).toBe(false);
    expect(await fires('architecture', 'not_in', 'arm64,s390x')).toBe(true);
    expect(await fires('architecture', 'not_in', 'amd64')).toBe(false);
    expect(await fires('layer_count', 'in', '5, 7')).toBe(true);
    expect(await fires('distro_version', 'in', '20.04,22.04')).toBe(true);
  });

  it('like_distro is any of the distro ID_LIKE entries', async () => {
    const rocky = image({ distro: { name: 'rocky', version: '9.3', like: ['rhel', 'centos', 'fedora'] } });
    expect(await check('like_distro', '=', 'centos', rocky)).toEqual(["Image attribute like_distro (rhel,centos,fedora) matches check '=' 'centos'"]);
    expect(await fires('like_distro', '!=', 'centos', rocky)).toBe(false);
    expect(await fires('like_distro', '!=', 'debian', rocky)).toBe(true);
    expect(await fires('like_distro', 'in', 'debian,fedora', rocky)).toBe(true);
    expect(await fires('like_distro', 'not_in', 'debian,suse', rocky)).toBe(true);
    expect(await fires('like_distro', 'like', 'fed', rocky)).toBe(true);
  });

  it('finds nothing when a comparing check has no value', async () => {
    for (const op of ['=', '!=', '>', '<', '>=', '<=', 'like', 'not_like', 'in', 'not_in']) {
      expect(await check('size', op)).toEqual([]);
    }
  });
});
