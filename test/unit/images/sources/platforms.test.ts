import { describe, expect, it } from 'vitest';
import { PlatformNotFoundError } from '../../../../src/images/sources/errors.js';
import type { Descriptor } from '../../../../src/images/sources/manifests.js';
import { parsePlatform, selectPlatformManifest } from '../../../../src/images/sources/platforms.js';

function d(n: number, platform?: Descriptor['platform'], annotations?: Record<string, string>): Descriptor {
  return {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    digest: `sha256:${String(n).repeat(64).slice(0, 64)}`,
    size: 100,
    ...(platform ? { platform } : {}),
    ...(annotations ? { annotations } : {}),
  };
}

const attestation = d(9, { os: 'unknown', architecture: 'unknown' }, { 'vnd.docker.reference.type': 'attestation-manifest' });
const amd64 = d(1, { os: 'linux', architecture: 'amd64' });
const arm64 = d(2, { os: 'linux', architecture: 'arm64', variant: 'v8' });
const armv7 = d(3, { os: 'linux', architecture: 'arm', variant: 'v7' });
const armv6 = d(4, { os: 'linux', architecture: 'arm', variant: 'v6' });

describe('selectPlatformManifest', () => {
  it('defaults to linux/amd64 and skips attestations', () => {
    expect(selectPlatformManifest([attestation, arm64, amd64])).toBe(amd64);
  });

  it('honours an explicit platform, normalising aliases and default variants', () => {
    expect(selectPlatformManifest([amd64, arm64], parsePlatform('linux/arm64'))).toBe(arm64);
    expect(selectPlatformManifest([amd64, arm64], parsePlatform('linux/aarch64'))).toBe(arm64);
    expect(selectPlatformManifest([amd64, armv6, armv7], parsePlatform('linux/arm'))).toBe(armv7);
    expect(selectPlatformManifest([amd64, armv6, armv7], parsePlatform('linux/arm/v6'))).toBe(armv6);
  });

  it('takes the only image of an index when no platform was asked for', () => {
    expect(selectPlatformManifest([attestation, arm64])).toBe(arm64);
  });

  it('refuses a platform the index does not have, listing what it has', () => {
    const err = (() => {
      try {
        selectPlatformManifest([amd64, arm64], parsePlatform('linux/s390x'));
      } catch (e) {
        return e as PlatformNotFoundError;
      }
    })();
    expect(err).toBeInstanceOf(PlatformNotFoundError);
    expect(err!.message).toContain('linux/s390x');
    expect(err!.available).toEqual(['linux/amd64', 'linux/arm64/v8']);
    expect(() => selectPlatformManifest([amd64, armv7], parsePlatform('linux/arm/v6'))).toThrow(PlatformNotFoundError);
  });

  it('rejects malformed platform strings', () => {
    expect(() => parsePlatform('linux')).toThrow(/expected os\/architecture/);
  });
});
