/**
 * The registry client against a real registry (Debian's docker-registry): resolution by tag and digest, platform
 * choice in OCI indexes and Docker manifest lists, media types, digest verification of streamed blobs, and the
 * typed errors for unknown manifests and blobs. Error mapping a real registry cannot be made to produce (schema 1,
 * rate limits, a lying Docker-Content-Digest) is checked against a small fake registry.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BlobUnknownError,
  DigestMismatchError,
  ManifestUnknownError,
  PlatformNotFoundError,
  RegistryDeniedError,
  RegistryRateLimitedError,
  RepositoryUnknownError,
  UnsupportedMediaTypeError,
} from '../../../../src/images/sources/errors.js';
import { parsePlatform } from '../../../../src/images/sources/platforms.js';
import { parseImageReference } from '../../../../src/images/sources/references.js';
import { RegistryClient, resolveImageReference } from '../../../../src/images/sources/registry.js';
import { buildImage, buildIndex, readLayerFiles, sha256, type BuiltImage, type BuiltIndex } from '../../../support/image-builder.js';
import { pushBlob, pushImage, pushManifest, startRegistry, type TestRegistry } from '../../../support/registry.js';
import { LOOPBACK_POLICY } from '../../../support/outbound.js';
import { missingTools } from '../../../support/tools.js';

let registry: TestRegistry;
let client: RegistryClient;
let ociImage: BuiltImage;
let dockerImage: BuiltImage;
let multi: BuiltIndex;
let dockerList: BuiltIndex;
let tamperLayer: BuiltImage;
let tamperConfig: BuiltImage;

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

beforeAll(async () => {
  registry = await startRegistry();
  client = new RegistryClient(registry.host, { policy: LOOPBACK_POLICY });
  ociImage = await buildImage({
    layers: [
      [{ path: 'etc', type: 'dir' }, { path: 'etc/os-release', content: 'ID=vigil\nVERSION_ID=1\n' }],
      [{ path: 'app/main.js', content: 'console.log(1)\n' }],
    ],
    runtime: { Labels: { 'org.example': 'yes' } },
  });
  dockerImage = await buildImage({ layers: [[{ path: 'docker.txt', content: 'schema 2' }]], mediaTypes: 'docker' });
  const amd = await buildImage({ layers: [[{ path: 'arch', content: 'amd64' }]] });
  const arm = await buildImage({ layers: [[{ path: 'arch', content: 'arm64' }]], architecture: 'arm64', variant: 'v8' });
  multi = buildIndex([arm, amd], { attestation: true });
  const damd = await buildImage({ layers: [[{ path: 'arch', content: 'd-amd64' }]], mediaTypes: 'docker' });
  const darm = await buildImage({ layers: [[{ path: 'arch', content: 'd-armv7' }]], mediaTypes: 'docker', architecture: 'arm', variant: 'v7' });
  dockerList = buildIndex([damd, darm], { mediaTypes: 'docker' });
  tamperLayer = await buildImage({ layers: [[{ path: 'secret', content: 'original content '.repeat(20) }]], compression: 'none' });
  tamperConfig = await buildImage({ layers: [[{ path: 'c', content: 'config tamper' }]] });

  await pushImage(registry.url, 'vigil/oci', '1', ociImage);
  await pushImage(registry.url, 'vigil/docker', '1', dockerImage);
  await pushImage(registry.url, 'vigil/multi', '1', multi);
  await pushImage(registry.url, 'vigil/multi-docker', '1', dockerList);
  await pushImage(registry.url, 'vigil/tamper-layer', '1', tamperLayer);
  await pushImage(registry.url, 'vigil/tamper-config', '1', tamperConfig);
});

afterAll(async () => {
  await registry?.close();
});

describe.skipIf(missingTools('docker-registry'))('resolution', () => {
  it('resolves a tag to the OCI manifest, verified config and layers', async () => {
    const image = await client.resolve('vigil/oci', '1');
    expect(image.source).toBe('registry');
    expect(image.manifestDigest).toBe(ociImage.manifestDigest);
    expect(image.manifestBytes.equals(ociImage.manifestBytes)).toBe(true);
    expect(image.manifestMediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(image.indexDigest).toBeUndefined();
    expect(image.configDigest).toBe(ociImage.configDigest);
    expect(image.config.config?.Labels).toEqual({ 'org.example': 'yes' });
    expect(image.platform).toEqual({ os: 'linux', architecture: 'amd64' });
    expect(image.repoTags).toEqual([`${registry.host}/vigil/oci:1`]);
    expect(image.layers.map((l) => ({ digest: l.digest, size: l.size, mediaType: l.mediaType, diffId: l.diffId }))).toEqual(
      ociImage.layers.map((l) => ({ digest: l.digest, size: l.size, mediaType: l.mediaType, diffId: l.diffId })),
    );
    const files = await readLayerFiles(await image.layers[0]!.open(), true);
    expect(files.get('etc/os-release')?.toString()).toBe('ID=vigil\nVERSION_ID=1\n');
  });

  it('resolves a digest to the same image', async () => {
    const image = await client.resolve('vigil/oci', ociImage.manifestDigest);
    expect(image.manifestDigest).toBe(ociImage.manifestDigest);
    expect(image.repoTags).toEqual([]);
    const viaReference = await resolveImageReference(parseImageReference(`${registry.host}/vigil/oci:1@${ociImage.manifestDigest}`), { policy: LOOPBACK_POLICY });
    expect(viaReference.manifestDigest).toBe(ociImage.manifestDigest);
    expect(viaReference.repoTags).toEqual([`${registry.host}/vigil/oci:1`]);
  });

  it('reads Docker schema 2 manifests', async () => {
    const image = await client.resolve('vigil/docker', '1');
    expect(image.manifestMediaType).toBe('application/vnd.docker.distribution.manifest.v2+json');
    expect(image.manifestDigest).toBe(dockerImage.manifestDigest);
    expect(image.layers[0]!.mediaType).toBe('application/vnd.docker.image.rootfs.diff.tar.gzip');
    const files = await readLayerFiles(await image.layers[0]!.open(), true);
    expect(files.get('docker.txt')?.toString()).toBe('schema 2');
  });

  it('picks linux/amd64 from a multi-arch OCI index, skipping the attestation', async () => {
    const image = await client.resolve('vigil/multi', '1');
    expect(image.indexDigest).toBe(multi.digest);
    expect(image.manifestDigest).toBe(multi.images[1]!.manifestDigest);
    expect(image.platform).toEqual({ os: 'linux', architecture: 'amd64' });
    const files = await readLayerFiles(await image.layers[0]!.open(), true);
    expect(files.get('arch')?.toString()).toBe('amd64');
  });

  it('honours an explicit platform', async () => {
    const image = await client.resolve('vigil/multi', '1', { platform: parsePlatform('linux/arm64') });
    expect(image.manifestDigest).toBe(multi.images[0]!.manifestDigest);
    expect(image.platform).toEqual({ os: 'linux', architecture: 'arm64', variant: 'v8' });

    const armv7 = await client.resolve('vigil/multi-docker', '1', { platform: parsePlatform('linux/arm/v7') });
    expect(armv7.manifestDigest).toBe(dockerList.images[1]!.manifestDigest);
    expect(armv7.indexDigest).toBe(dockerList.digest);
    const amd = await client.resolve('vigil/multi-docker', '1');
    expect(amd.manifestDigest).toBe(dockerList.images[0]!.manifestDigest);
  });

  it('refuses a platform the image does not provide', async () => {
    const err = await rejection(client.resolve('vigil/multi', '1', { platform: parsePlatform('linux/s390x') }));
    expect(err).toBeInstanceOf(PlatformNotFoundError);
    expect(err.message).toMatch(/linux\/s390x.*available: linux\/arm64\/v8, linux\/amd64/);
    // A single-platform image does not silently stand in for another platform either.
    expect(await rejection(client.resolve('vigil/oci', '1', { platform: parsePlatform('linux/arm64') }))).toBeInstanceOf(PlatformNotFoundError);
  });

  it('refuses manifests that describe artifacts rather than images', async () => {
    const helmConfig = Buffer.from('{"name":"chart","version":"1.0.0"}');
    const content = Buffer.from('chart-bytes');
    await pushBlob(registry.url, 'vigil/chart', sha256(helmConfig), helmConfig);
    await pushBlob(registry.url, 'vigil/chart', sha256(content), content);
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', digest: sha256(helmConfig), size: helmConfig.length },
        layers: [{ mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip', digest: sha256(content), size: content.length }],
      }),
    );
    await pushManifest(registry.url, 'vigil/chart', '1.0.0', 'application/vnd.oci.image.manifest.v1+json', manifest);
    const err = await rejection(client.resolve('vigil/chart', '1.0.0'));
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(err.message).toContain('unsupported media type "application/vnd.cncf.helm.config.v1+json"');
  });
});

describe.skipIf(missingTools('docker-registry'))('digest verification', () => {
  it('streams a blob whose content matches its digest', async () => {
    const blob = await client.openBlob('vigil/oci', ociImage.layers[1]!.digest, { expectedSize: ociImage.layers[1]!.size });
    const chunks: Buffer[] = [];
    for await (const c of blob) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(ociImage.layers[1]!.blob)).toBe(true);
  });

  it('errors at the end of a tampered layer, through a tar reader too', async () => {
    const layer = tamperLayer.layers[0]!;
    const path = registry.blobDataPath(layer.digest);
    const original = readFileSync(path);
    // Same length, different content: only the digest can tell.
    writeFileSync(path, Buffer.from(original.toString('latin1').replace('original', 'tampered'), 'latin1'));
    try {
      const image = await client.resolve('vigil/tamper-layer', '1');
      const err = await rejection(readLayerFiles(await image.layers[0]!.open(), false));
      expect(err).toBeInstanceOf(DigestMismatchError);
      expect(err.message).toContain(layer.digest);

      const raw = await client.openBlob('vigil/tamper-layer', layer.digest);
      const rawErr = await rejection((async () => {
        for await (const _ of raw) void _;
      })());
      expect(rawErr).toBeInstanceOf(DigestMismatchError);
      expect((rawErr as DigestMismatchError).expected).toBe(layer.digest);
      expect((rawErr as DigestMismatchError).actual).toMatch(/^sha256:[a-f0-9]{64}$/);
    } finally {
      writeFileSync(path, original);
    }
  });

  it('refuses a tampered config', async () => {
    const path = registry.blobDataPath(tamperConfig.configDigest);
    const original = readFileSync(path);
    writeFileSync(path, Buffer.from(original.toString().replace('"os":"linux"', '"os":"linuX"')));
    try {
      const err = await rejection(client.resolve('vigil/tamper-config', '1'));
      expect(err).toBeInstanceOf(DigestMismatchError);
      expect(err.message).toContain('image config');
    } finally {
      writeFileSync(path, original);
    }
  });
});

describe.skipIf(missingTools('docker-registry'))('unknown content', () => {
  it('reports an unknown tag as manifest unknown', async () => {
    const err = await rejection(client.resolve('vigil/oci', 'no-such-tag'));
    expect(err).toBeInstanceOf(ManifestUnknownError);
    expect(err.message).toContain('manifest no-such-tag not found');
    expect((err as ManifestUnknownError).errorType).toBe('manifest_unknown');
  });

  it('reports an unknown repository (this registry says MANIFEST_UNKNOWN, others NAME_UNKNOWN)', async () => {
    const err = await rejection(client.resolve('vigil/nothing-here', 'latest'));
    expect(err instanceof ManifestUnknownError || err instanceof RepositoryUnknownError).toBe(true);
  });

  it('reports an unknown blob', async () => {
    const err = await rejection(client.openBlob('vigil/oci', sha256('nope')));
    expect(err).toBeInstanceOf(BlobUnknownError);
  });
});

// ------------------------------------------------------------------------------------------------------------
// Answers a real registry does not give on demand.

describe.skipIf(missingTools('docker-registry'))('error mapping (fake registry)', () => {
  let server: http.Server;
  let host: string;
  const schema1 = Buffer.from(JSON.stringify({ schemaVersion: 1, name: 'x/old', tag: 'v1', fsLayers: [], history: [] }));
  const good = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha256('{}'), size: 2 }, layers: [] }));

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? '';
      if (url.endsWith('/old/manifests/v1')) {
        res.writeHead(200, { 'Content-Type': 'application/vnd.docker.distribution.manifest.v1+prettyjws' }).end(schema1);
      } else if (url.endsWith('/weird/manifests/v1')) {
        res.writeHead(200, { 'Content-Type': 'application/vnd.example.thing+json' }).end('{"schemaVersion":2,"thing":true}');
      } else if (url.endsWith('/liar/manifests/v1')) {
        const wrong = `sha256:${createHash('sha256').update('other').digest('hex')}`;
        res.writeHead(200, { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json', 'Docker-Content-Digest': wrong }).end(good);
      } else if (url.includes('/limited/')) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '30' }).end('{"errors":[{"code":"TOOMANYREQUESTS","message":"slow down"}]}');
      } else if (url.includes('/denied/')) {
        res.writeHead(403, { 'Content-Type': 'application/json' }).end('{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}');
      } else if (url.includes('/gone/')) {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry"}]}');
      } else {
        res.writeHead(500).end('boom');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('rejects Docker schema 1 manifests with a typed error', async () => {
    const err = await rejection(new RegistryClient(host, { policy: LOOPBACK_POLICY }).resolve('x/old', 'v1'));
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(err.message).toMatch(/^unsupported media type "application\/vnd.docker.distribution.manifest.v1\+prettyjws".*schema 1/);
  });

  it('rejects unknown manifest media types', async () => {
    const err = await rejection(new RegistryClient(host, { policy: LOOPBACK_POLICY }).resolve('x/weird', 'v1'));
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(err.message).toContain('unsupported media type "application/vnd.example.thing+json"');
  });

  it('checks Docker-Content-Digest against the bytes', async () => {
    const err = await rejection(new RegistryClient(host, { policy: LOOPBACK_POLICY }).resolve('x/liar', 'v1'));
    expect(err).toBeInstanceOf(DigestMismatchError);
    expect(err.message).toContain('Docker-Content-Digest');
  });

  it('maps rate limiting, denial, unknown repositories and server errors', async () => {
    const c = new RegistryClient(host, { policy: LOOPBACK_POLICY });
    const limited = await rejection(c.resolve('x/limited', 'v1'));
    expect(limited).toBeInstanceOf(RegistryRateLimitedError);
    expect(limited.message).toContain('retry after 30s');
    const denied = await rejection(c.resolve('x/denied', 'v1'));
    expect(denied).toBeInstanceOf(RegistryDeniedError);
    expect(denied.message).toContain('requested access to the resource is denied');
    expect(await rejection(c.resolve('x/gone', 'v1'))).toBeInstanceOf(RepositoryUnknownError);
    const boom = await rejection(c.resolve('x/other', 'v1'));
    expect(boom.message).toContain('answered 500');
  });
});
