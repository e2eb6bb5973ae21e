/**
 * Interoperability with a real third-party tool: skopeo pushes our OCI layout to the registry (as OCI and as
 * Docker schema 2) and writes a docker-archive from it; our readers must agree with what skopeo produced.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDockerArchive } from '../../../../src/images/sources/docker-archive.js';
import { readOciLayout } from '../../../../src/images/sources/oci-layout.js';
import { RegistryClient } from '../../../../src/images/sources/registry.js';
import { buildImage, readLayerFiles, writeOciLayout, type BuiltImage } from '../../../support/image-builder.js';
import { startRegistry, type TestRegistry } from '../../../support/registry.js';
import { LOOPBACK_POLICY } from '../../../support/outbound.js';
import { missingTools } from '../../../support/tools.js';

const run = promisify(execFile);

let dir: string;
let layout: string;
let registry: TestRegistry;
let image: BuiltImage;

async function skopeo(...args: string[]): Promise<void> {
  // No signature policy is configured on test machines; skopeo refuses to copy without one unless told.
  await run('skopeo', ['--insecure-policy', ...args], { timeout: 60_000 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-skopeo-'));
  layout = join(dir, 'layout');
  image = await buildImage({
    layers: [[{ path: 'etc/os-release', content: 'ID=skopeo\n' }], [{ path: 'srv/data', content: 'data' }]],
  });
  await writeOciLayout(layout, image, { refName: 'v1' });
  registry = await startRegistry();
});

afterAll(async () => {
  await registry?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missingTools('docker-registry', 'skopeo'))('skopeo interoperability', () => {
  it('resolves an image skopeo pushed, byte for byte', async () => {
    await skopeo('copy', '--dest-tls-verify=false', `oci:${layout}:v1`, `docker://${registry.host}/interop/oci:v1`);
    const resolved = await new RegistryClient(registry.host, { policy: LOOPBACK_POLICY }).resolve('interop/oci', 'v1');
    expect(resolved.manifestDigest).toBe(image.manifestDigest);
    expect(resolved.configDigest).toBe(image.configDigest);
  });

  it('resolves an image skopeo converted to Docker schema 2', async () => {
    await skopeo('copy', '--dest-tls-verify=false', '--format', 'v2s2', `oci:${layout}:v1`, `docker://${registry.host}/interop/docker:v1`);
    const resolved = await new RegistryClient(registry.host, { policy: LOOPBACK_POLICY }).resolve('interop/docker', 'v1');
    expect(resolved.manifestMediaType).toBe('application/vnd.docker.distribution.manifest.v2+json');
    expect(resolved.layers.map((l) => l.diffId)).toEqual(image.layers.map((l) => l.diffId));
    const files = await readLayerFiles(await resolved.layers[0]!.open(), true);
    expect(files.get('etc/os-release')?.toString()).toBe('ID=skopeo\n');
  });

  it('reads a docker-archive written by skopeo', async () => {
    const archive = join(dir, 'image.tar');
    await skopeo('copy', `oci:${layout}:v1`, `docker-archive:${archive}:interop/app:v1`);
    const img = await readDockerArchive(archive);
    try {
      expect(img.repoTags).toEqual(['docker.io/interop/app:v1']);
      // The same image: skopeo keeps the config, and stores the layers uncompressed (verified against diff_ids).
      expect(img.configDigest).toBe(image.configDigest);
      expect(img.layers.map((l) => [l.digest, l.mediaType])).toEqual(image.layers.map((l) => [l.diffId, 'application/vnd.oci.image.layer.v1.tar']));
      const files = await readLayerFiles(await img.layers[1]!.open(), false);
      expect(files.get('srv/data')?.toString()).toBe('data');
    } finally {
      await img.close();
    }
  });

  it('reads an OCI layout written by skopeo from the registry', async () => {
    await skopeo('copy', '--src-tls-verify=false', `docker://${registry.host}/interop/oci:v1`, `oci:${join(dir, 'pulled')}:pulled`);
    const img = await readOciLayout(join(dir, 'pulled'));
    try {
      expect(img.manifestDigest).toBe(image.manifestDigest);
    } finally {
      await img.close();
    }
  });
});
