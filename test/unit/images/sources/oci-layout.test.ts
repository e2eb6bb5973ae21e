/** OCI image layouts (tarball, gzip tarball, directory): selection, verification and typed errors. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ArchiveEntryMissingError,
  ArchivePathError,
  DigestMismatchError,
  ImageArchiveError,
  MalformedImageError,
  PlatformNotFoundError,
} from '../../../../src/images/sources/errors.js';
import { readOciLayout } from '../../../../src/images/sources/oci-layout.js';
import { parsePlatform } from '../../../../src/images/sources/platforms.js';
import type { ArchiveImage } from '../../../../src/images/sources/resolved-image.js';
import {
  buildImage,
  buildIndex,
  hex,
  ociLayoutFiles,
  ociLayoutTar,
  readLayerFiles,
  tarOf,
  tarOfFiles,
  writeOciLayout,
  type BuiltImage,
  type BuiltIndex,
} from '../../../support/image-builder.js';

let dir: string;
let image: BuiltImage;
let arm: BuiltImage;
let index: BuiltIndex;
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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-oci-test-'));
  image = await buildImage({
    layers: [[{ path: 'etc/os-release', content: 'ID=alpine\n' }], [{ path: 'usr/bin/tool', content: 'binary', mode: 0o755 }]],
  });
  arm = await buildImage({ layers: [[{ path: 'arch', content: 'arm64' }]], architecture: 'arm64' });
  index = buildIndex([arm, image], { attestation: true });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('reading OCI layouts', () => {
  it('reads a single-image tarball with verified layers', async () => {
    const path = file(await ociLayoutTar(image, { annotations: { 'io.containerd.image.name': 'docker.io/library/tool:1' }, refName: '1' }));
    await withImage(readOciLayout(path), async (img) => {
      expect(img.source).toBe('oci-layout');
      expect(img.manifestDigest).toBe(image.manifestDigest);
      expect(img.manifestBytes.equals(image.manifestBytes)).toBe(true);
      expect(img.configDigest).toBe(image.configDigest);
      expect(img.indexDigest).toBeUndefined();
      expect(img.repoTags).toEqual(['docker.io/library/tool:1']);
      expect(img.platform).toEqual({ os: 'linux', architecture: 'amd64' });
      expect(img.layers.map((l) => [l.digest, l.size, l.diffId])).toEqual(image.layers.map((l) => [l.digest, l.size, l.diffId]));
      const files = await readLayerFiles(await img.layers[1]!.open(), true);
      expect(files.get('usr/bin/tool')?.toString()).toBe('binary');
    });
  });

  it('reads a directory layout and a gzip-compressed tarball alike', async () => {
    const layoutDir = join(dir, 'layout');
    await writeOciLayout(layoutDir, image);
    await withImage(readOciLayout(layoutDir), async (img) => expect(img.manifestDigest).toBe(image.manifestDigest));
    const gz = file(gzipSync(await ociLayoutTar(image)));
    await withImage(readOciLayout(gz), async (img) => {
      expect(img.configDigest).toBe(image.configDigest);
      const files = await readLayerFiles(await img.layers[0]!.open(), true);
      expect(files.get('etc/os-release')?.toString()).toBe('ID=alpine\n');
    });
  });

  it('follows a nested index to linux/amd64 by default, or to the requested platform', async () => {
    const path = file(await ociLayoutTar(index));
    await withImage(readOciLayout(path), async (img) => {
      expect(img.indexDigest).toBe(index.digest);
      expect(img.manifestDigest).toBe(image.manifestDigest);
    });
    await withImage(readOciLayout(path, { platform: parsePlatform('linux/arm64') }), async (img) => {
      expect(img.manifestDigest).toBe(arm.manifestDigest);
      const files = await readLayerFiles(await img.layers[0]!.open(), true);
      expect(files.get('arch')?.toString()).toBe('arm64');
    });
    await expect(readOciLayout(path, { platform: parsePlatform('linux/ppc64le') })).rejects.toBeInstanceOf(PlatformNotFoundError);
  });

  it('chooses among index.json entries by platform or by ref name', async () => {
    const byPlatform = file(await ociLayoutTar([image, arm], { withPlatform: true }));
    await withImage(readOciLayout(byPlatform), async (img) => expect(img.manifestDigest).toBe(image.manifestDigest));

    const files = ociLayoutFiles(image, { refName: 'example.com/tool:1' });
    const second = ociLayoutFiles(arm, { refName: 'example.com/other:2' });
    const merged = new Map([...files, ...second]);
    const idx = JSON.parse(files.get('index.json')!.toString());
    idx.manifests.push(...JSON.parse(second.get('index.json')!.toString()).manifests);
    merged.set('index.json', Buffer.from(JSON.stringify(idx)));
    const path = file(await tarOfFiles(merged));
    await withImage(readOciLayout(path, { refName: 'example.com/other:2' }), async (img) => {
      expect(img.manifestDigest).toBe(arm.manifestDigest);
      expect(img.repoTags).toEqual(['example.com/other:2']);
    });
    const ambiguous = await rejection(readOciLayout(path));
    expect(ambiguous).toBeInstanceOf(ImageArchiveError);
    expect(ambiguous.message).toContain('holds 2 images; choose one by name: example.com/tool:1, example.com/other:2');
    expect(await rejection(readOciLayout(path, { refName: 'nope' }))).toBeInstanceOf(ImageArchiveError);
  });
});

describe('malformed OCI layouts', () => {
  function without(name: string): Map<string, Buffer> {
    const files = ociLayoutFiles(image);
    files.delete(name);
    return files;
  }

  it('reports a missing index.json', async () => {
    const err = await rejection(readOciLayout(file(await tarOfFiles(without('index.json')))));
    expect(err).toBeInstanceOf(ArchiveEntryMissingError);
    expect(err.message).toContain('the archive has no index.json');
  });

  it('reports bad JSON', async () => {
    const files = ociLayoutFiles(image);
    files.set('index.json', Buffer.from('{"schemaVersion": 2, "manifests": ['));
    const err = await rejection(readOciLayout(file(await tarOfFiles(files))));
    expect(err).toBeInstanceOf(MalformedImageError);
    expect(err.message).toContain('index.json is not valid JSON');
  });

  it('reports a missing layer blob at load time', async () => {
    const err = await rejection(readOciLayout(file(await tarOfFiles(without(`blobs/sha256/${hex(image.layers[1]!.digest)}`)))));
    expect(err).toBeInstanceOf(ArchiveEntryMissingError);
    expect(err.message).toContain(`blobs/sha256/${hex(image.layers[1]!.digest)}`);
  });

  it('refuses a manifest that does not match its digest', async () => {
    const files = ociLayoutFiles(image);
    const key = `blobs/sha256/${hex(image.manifestDigest)}`;
    files.set(key, Buffer.from(files.get(key)!.toString().replace('"schemaVersion": 2', '"schemaVersion": 2 ')));
    expect(await rejection(readOciLayout(file(await tarOfFiles(files))))).toBeInstanceOf(DigestMismatchError);
  });

  it('fails the layer stream when a layer was altered', async () => {
    const tampered = await buildImage({ layers: [[{ path: 'data', content: 'A'.repeat(100) }]], compression: 'none' });
    const files = ociLayoutFiles(tampered);
    const key = `blobs/sha256/${hex(tampered.layers[0]!.digest)}`;
    files.set(key, Buffer.from(files.get(key)!.toString('latin1').replace('AAAA', 'BBBB'), 'latin1'));
    await withImage(readOciLayout(file(await tarOfFiles(files))), async (img) => {
      const err = await rejection(readLayerFiles(await img.layers[0]!.open(), false));
      expect(err).toBeInstanceOf(DigestMismatchError);
    });
  });

  it('refuses tar entries that escape the archive', async () => {
    const files = [...ociLayoutFiles(image)].map(([name, content]) => ({ name, content }));
    for (const evil of ['../evil', '/etc/evil', 'blobs/../../evil']) {
      const err = await rejection(readOciLayout(file(await tarOf([...files, { name: evil, content: 'x' }]))));
      expect(err).toBeInstanceOf(ArchivePathError);
      expect(err.message).toContain('unsafe path');
    }
  });

  it('refuses symlinks that lead outside the archive', async () => {
    const files = [...ociLayoutFiles(image)].filter(([name]) => name !== 'index.json').map(([name, content]) => ({ name, content }));
    const err = await rejection(readOciLayout(file(await tarOf([...files, { name: 'index.json', type: 'symlink', linkname: '../../etc/passwd' }]))));
    expect(err).toBeInstanceOf(ArchivePathError);
  });

  it('refuses uploads that are not tar archives', async () => {
    expect((await rejection(readOciLayout(file(Buffer.from('not a tar at all'.repeat(64)))))).message).toContain('not a tar archive');
    expect((await rejection(readOciLayout(file(Buffer.alloc(0))))).message).toContain('empty');
    const tarball = await ociLayoutTar(image);
    const truncated = await rejection(readOciLayout(file(tarball.subarray(0, 1536))));
    expect(truncated).toBeInstanceOf(ImageArchiveError);
    expect((await rejection(readOciLayout(file(gzipSync(tarball).subarray(0, 200)))))).toBeInstanceOf(ImageArchiveError);
    expect(await rejection(readOciLayout(join(dir, 'does-not-exist.tar')))).toBeInstanceOf(ImageArchiveError);
  });
});
