/** `docker save` archives: identity, tags, layer verification against diff_ids, format detection, typed errors. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDockerArchive, synthesizeManifest } from '../../../../src/images/sources/docker-archive.js';
import {
  ArchiveEntryMissingError,
  ArchivePathError,
  DigestMismatchError,
  ImageArchiveError,
  MalformedImageError,
} from '../../../../src/images/sources/errors.js';
import { readImageArchive } from '../../../../src/images/sources/image-archive.js';
import type { ArchiveImage } from '../../../../src/images/sources/resolved-image.js';
import {
  buildImage,
  dockerArchiveEntries,
  dockerArchiveTar,
  hex,
  ociLayoutFiles,
  ociLayoutTar,
  readLayerFiles,
  sha256,
  tarOf,
  tarOfFiles,
  type BuiltImage,
  type RawTarEntry,
} from '../../../support/image-builder.js';

let dir: string;
let image: BuiltImage;
let counter = 0;

function file(content: Buffer): string {
  const path = join(dir, `archive-${++counter}.tar`);
  writeFileSync(path, content);
  return path;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

async function withImage<T>(p: Promise<ArchiveImage>, fn: (img: ArchiveImage) => Promise<T>): Promise<T> {
  const img = await p;
  try {
    return await fn(img);
  } finally {
    await img.close();
  }
}

function replaceEntry(entries: RawTarEntry[], name: string, change: (e: RawTarEntry) => RawTarEntry | undefined): RawTarEntry[] {
  return entries.flatMap((e) => (e.name === name ? [change(e)].filter((x): x is RawTarEntry => !!x) : [e]));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-docker-archive-test-'));
  const shared = [{ path: 'etc/shared', content: 'same layer twice' }];
  image = await buildImage({
    layers: [[{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID=12\n' }], shared, [{ path: 'app', content: 'app' }], shared],
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('reading docker save archives', () => {
  it('reads config, tags and layers, verifying each layer against its diff_id', async () => {
    const path = file(await dockerArchiveTar(image, { repoTags: ['example/app:1', 'example/app:latest'] }));
    await withImage(readDockerArchive(path), async (img) => {
      expect(img.source).toBe('docker-archive');
      expect(img.configDigest).toBe(image.configDigest);
      expect(img.repoTags).toEqual(['example/app:1', 'example/app:latest']);
      expect(img.platform).toEqual({ os: 'linux', architecture: 'amd64' });
      expect(img.layers.map((l) => [l.digest, l.diffId, l.mediaType, l.size])).toEqual(
        image.layers.map((l) => [l.diffId, l.diffId, 'application/vnd.oci.image.layer.v1.tar', l.tar.length]),
      );
      const first = await readLayerFiles(await img.layers[0]!.open(), false);
      expect(first.get('etc/os-release')?.toString()).toBe('ID=debian\nVERSION_ID=12\n');
      // The 4th layer is a symlink to the 2nd in the archive, as docker writes duplicates.
      const dup = await readLayerFiles(await img.layers[3]!.open(), false);
      expect(dup.get('etc/shared')?.toString()).toBe('same layer twice');
    });
  });

  it('identifies the image by a synthesized canonical OCI manifest', async () => {
    const path = file(await dockerArchiveTar(image, { repoTags: ['example/app:1'] }));
    await withImage(readDockerArchive(path), async (img) => {
      const expected = {
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: image.configDigest, size: image.configBytes.length },
        layers: image.layers.map((l) => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: l.diffId, size: l.tar.length })),
      };
      expect(img.manifest).toEqual(expected);
      expect(img.manifestBytes.toString()).toBe(JSON.stringify(expected));
      expect(img.manifestDigest).toBe(`sha256:${createHash('sha256').update(JSON.stringify(expected)).digest('hex')}`);
      expect(synthesizeManifest(img.configDigest, image.configBytes.length, img.layers).bytes.equals(img.manifestBytes)).toBe(true);
    });
    // Stable: the same content read again (tags do not matter) gives the same digest.
    const again = file(await dockerArchiveTar(image, { repoTags: ['other:2'] }));
    const [a, b] = await Promise.all([readDockerArchive(path), readDockerArchive(again)]);
    expect(a.manifestDigest).toBe(b.manifestDigest);
    await Promise.all([a.close(), b.close()]);
  });

  it('falls back to the legacy repositories file for tags', async () => {
    const path = file(await dockerArchiveTar(image, { repoTags: ['legacy/app:old'], omitRepoTags: true, legacyRepositories: true }));
    await withImage(readDockerArchive(path), async (img) => expect(img.repoTags).toEqual(['legacy/app:old']));
  });

  it('picks an image of a multi-image archive by tag', async () => {
    const other = await buildImage({ layers: [[{ path: 'other', content: 'second image' }]] });
    const a = dockerArchiveEntries(image, { repoTags: ['example/app:1'] });
    const b = dockerArchiveEntries(other, { repoTags: ['example/other:2'] });
    const manifest = [
      ...JSON.parse(String(a.find((e) => e.name === 'manifest.json')!.content)),
      ...JSON.parse(String(b.find((e) => e.name === 'manifest.json')!.content)),
    ];
    const entries = [...a, ...b].filter((e) => e.name !== 'manifest.json');
    entries.push({ name: 'manifest.json', content: JSON.stringify(manifest) });
    const path = file(await tarOf(entries));
    await withImage(readDockerArchive(path, { tag: 'docker.io/example/other:2' }), async (img) => expect(img.configDigest).toBe(other.configDigest));
    const ambiguous = await rejection(readDockerArchive(path));
    expect(ambiguous).toBeInstanceOf(ImageArchiveError);
    expect(ambiguous.message).toContain('holds 2 images; choose one by tag: example/app:1, example/other:2');
    expect((await rejection(readDockerArchive(path, { tag: 'nope:1' }))).message).toContain('has no image tagged nope:1');
  });

  it('reads docker 25+ archives (OCI layout plus manifest.json over blobs/, compressed layers)', async () => {
    const files = ociLayoutFiles(image);
    files.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify([
          {
            Config: `blobs/sha256/${hex(image.configDigest)}`,
            RepoTags: ['example/app:25'],
            Layers: image.layers.map((l) => `blobs/sha256/${hex(l.digest)}`),
          },
        ]),
      ),
    );
    const path = file(await tarOfFiles(files));
    await withImage(readImageArchive(path), async (img) => {
      expect(img.source).toBe('docker-archive');
      expect(img.repoTags).toEqual(['example/app:25']);
      expect(img.layers.map((l) => [l.digest, l.mediaType])).toEqual(image.layers.map((l) => [l.digest, 'application/vnd.oci.image.layer.v1.tar+gzip']));
      const first = await readLayerFiles(await img.layers[0]!.open(), true);
      expect(first.get('etc/os-release')?.toString()).toContain('debian');
    });
  });

  it('detects the format of an upload', async () => {
    await withImage(readImageArchive(file(gzipSync(await dockerArchiveTar(image, { repoTags: ['x:1'] })))), async (img) => {
      expect(img.source).toBe('docker-archive');
      expect(img.configDigest).toBe(image.configDigest);
    });
    await withImage(readImageArchive(file(await ociLayoutTar(image))), async (img) => expect(img.source).toBe('oci-layout'));
    const neither = await rejection(readImageArchive(file(await tarOf([{ name: 'hello.txt', content: 'hi' }]))));
    expect(neither).toBeInstanceOf(ArchiveEntryMissingError);
    expect(neither.message).toContain('neither a `docker save` archive nor an OCI image layout');
  });
});

describe('malformed docker save archives', () => {
  let entries: RawTarEntry[];
  let configName: string;
  let firstLayer: string;

  async function archiveWith(name: string, change: (e: RawTarEntry) => RawTarEntry | undefined): Promise<string> {
    return file(await tarOf(replaceEntry(entries, name, change)));
  }

  beforeAll(() => {
    entries = dockerArchiveEntries(image, { repoTags: ['example/app:1'] });
    const manifest = JSON.parse(String(entries.find((e) => e.name === 'manifest.json')!.content));
    configName = manifest[0].Config;
    firstLayer = manifest[0].Layers[0];
  });

  it('reports a missing manifest.json', async () => {
    const err = await rejection(readDockerArchive(await archiveWith('manifest.json', () => undefined)));
    expect(err).toBeInstanceOf(ArchiveEntryMissingError);
    expect(err.message).toContain('the archive has no manifest.json');
  });

  it('reports bad JSON and wrong shapes', async () => {
    const bad = await rejection(readDockerArchive(await archiveWith('manifest.json', (e) => ({ ...e, content: '[{"Config": ' }))));
    expect(bad).toBeInstanceOf(MalformedImageError);
    expect(bad.message).toContain('manifest.json is not valid JSON');
    const shape = await rejection(readDockerArchive(await archiveWith('manifest.json', (e) => ({ ...e, content: '{"Config":"x"}' }))));
    expect(shape).toBeInstanceOf(MalformedImageError);
    const config = await rejection(readDockerArchive(await archiveWith(configName, (e) => ({ ...e, content: '{"os":"linux"}' }))));
    // The config file name is its digest, so an edited config is caught before its shape is looked at.
    expect(config).toBeInstanceOf(DigestMismatchError);
  });

  it('reports a missing layer file', async () => {
    const err = await rejection(readDockerArchive(await archiveWith(firstLayer, () => undefined)));
    expect(err).toBeInstanceOf(ArchiveEntryMissingError);
    expect(err.message).toContain(`the archive has no ${firstLayer}: manifest.json lists it as layer 1`);
  });

  it('reports a layer count that does not match the diff_ids', async () => {
    const manifest = JSON.parse(String(entries.find((e) => e.name === 'manifest.json')!.content));
    manifest[0].Layers.pop();
    const err = await rejection(readDockerArchive(await archiveWith('manifest.json', (e) => ({ ...e, content: JSON.stringify(manifest) }))));
    expect(err).toBeInstanceOf(MalformedImageError);
    expect(err.message).toContain('lists 3 layers but the config has 4 diff_ids');
  });

  it('fails the layer stream when the layer does not match its diff_id', async () => {
    const tampered = replaceEntry(entries, firstLayer, (e) => ({ ...e, content: Buffer.from(String(e.content).replace('debian', 'DEBIAN'), 'latin1') }));
    await withImage(readDockerArchive(file(await tarOf(tampered))), async (img) => {
      const err = await rejection(readLayerFiles(await img.layers[0]!.open(), false));
      expect(err).toBeInstanceOf(DigestMismatchError);
      expect(err.message).toContain(image.layers[0]!.diffId);
    });
  });

  it('refuses paths that escape the archive', async () => {
    const manifest = JSON.parse(String(entries.find((e) => e.name === 'manifest.json')!.content));
    manifest[0].Layers[0] = '../outside/layer.tar';
    const viaManifest = await rejection(readDockerArchive(await archiveWith('manifest.json', (e) => ({ ...e, content: JSON.stringify(manifest) }))));
    expect(viaManifest).toBeInstanceOf(ArchivePathError);
    const viaEntry = await rejection(readDockerArchive(file(await tarOf([...entries, { name: '../../etc/cron.d/evil', content: 'x' }]))));
    expect(viaEntry).toBeInstanceOf(ArchivePathError);
    const viaLink = await rejection(readDockerArchive(await archiveWith(firstLayer, (e) => ({ name: e.name, type: 'symlink', linkname: '../../../etc/passwd' }))));
    expect(viaLink).toBeInstanceOf(ArchivePathError);
  });

  it('checks the digest of a compressed layer named by its blob path', async () => {
    const files = ociLayoutFiles(image);
    const key = `blobs/sha256/${hex(image.layers[2]!.digest)}`;
    files.set(key, gzipSync(Buffer.from('not the layer')));
    files.set('manifest.json', Buffer.from(JSON.stringify([{ Config: `blobs/sha256/${hex(image.configDigest)}`, Layers: image.layers.map((l) => `blobs/sha256/${hex(l.digest)}`) }])));
    await withImage(readDockerArchive(file(await tarOfFiles(files))), async (img) => {
      const err = await rejection(readLayerFiles(await img.layers[2]!.open(), true));
      expect(err).toBeInstanceOf(Error);
      // Either the size or the digest gives it away; both are DigestMismatchError.
      expect(err).toBeInstanceOf(DigestMismatchError);
      expect(sha256(files.get(key)!)).not.toBe(image.layers[2]!.digest);
    });
  });
});
