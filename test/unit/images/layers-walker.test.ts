import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileRecord } from '../../../src/images/model.js';
import { walkLayers } from '../../../src/images/layers/walker.js';
import {
  FakeCataloger,
  blob,
  gzip,
  packageNames,
  sha256,
  tarBytes,
  zstd,
  type FixtureEntry,
} from './layers-fixtures.js';
import { missingTools } from '../../support/tools.js';

const layer = async (label: string, entries: FixtureEntry[]) => blob(label, gzip(await tarBytes(entries)));
const paths = (files: Map<string, FileRecord>) => [...files.keys()];

describe('walkLayers: overlay semantics', () => {
  it('applies layers in order: later entries replace earlier ones, file<->dir replacement drops subtrees', async () => {
    const result = await walkLayers(
      [
        await layer('base', [
          { name: './', type: 'directory' },
          { name: './etc/', type: 'directory' },
          { name: './etc/motd', content: 'v1' },
          { name: './opt/x', content: 'a file that becomes a directory' },
          { name: './srv/d/', type: 'directory' },
          { name: './srv/d/f', content: 'below a directory that becomes a file' },
          { name: './usr/bin/tool', content: 'tool' },
        ]),
        await layer('update', [
          { name: 'etc/motd', content: 'v2' },
          { name: 'opt/x/', type: 'directory', mode: 0o750 },
          { name: 'opt/x/y', content: 'y' },
          { name: 'srv/d', content: 'now a file' },
          { name: '/usr/bin/tool', content: 'tool v2' }, // absolute names are paths inside the image
        ]),
      ],
      { catalogers: [], hashFiles: true },
    );
    expect(paths(result.files)).toEqual(['/etc', '/etc/motd', '/opt', '/opt/x', '/opt/x/y', '/srv', '/srv/d', '/usr', '/usr/bin', '/usr/bin/tool']);
    expect(result.files.get('/etc/motd')).toMatchObject({ type: 'file', size: 2, sha256: sha256('v2') });
    expect(result.files.get('/opt/x')).toMatchObject({ type: 'dir', mode: 0o750 });
    expect(result.files.get('/srv/d')).toMatchObject({ type: 'file', sha256: sha256('now a file') });
    expect(result.files.get('/usr/bin/tool')?.sha256).toBe(sha256('tool v2'));
    // Parents the archive did not list are created as runtimes create them.
    expect(result.files.get('/usr/bin')).toMatchObject({ type: 'dir', mode: 0o755, uid: 0, gid: 0 });
    expect(result.layerCount).toBe(2);
    expect(result.entryCount).toBe(12);
    expect(result.expandedBytes).toBe(2 + 31 + 37 + 4 + 2 + 1 + 10 + 7);
    expect(result.warnings).toEqual([]);
  });

  it('whiteouts delete a file, or a directory with everything below it, from lower layers; they never show', async () => {
    const result = await walkLayers(
      [
        await layer('base', [
          { name: 'data/keep', content: 'k' },
          { name: 'data/gone', content: 'g' },
          { name: 'data/olddir/a', content: 'a' },
          { name: 'data/olddir/sub/b', content: 'b' },
          { name: 'data/olddir-sibling', content: 's' },
        ]),
        await layer('delete', [
          { name: 'data/.wh.gone', content: '' },
          { name: 'data/.wh.olddir', content: '' },
          { name: 'data/.wh.never-existed', content: '' },
          { name: 'elsewhere/.wh..wh.plnk', type: 'directory' }, // AUFS bookkeeping, ignored
        ]),
      ],
      { catalogers: [], hashFiles: false },
    );
    expect(paths(result.files)).toEqual(['/data', '/data/keep', '/data/olddir-sibling']);
    expect([...result.files.keys()].some((p) => p.includes('.wh.'))).toBe(false);
  });

  it('a whiteout hides only lower layers: a file written by the same layer stays', async () => {
    const result = await walkLayers(
      [
        await layer('base', [{ name: 'w/x', content: 'lower' }, { name: 'w/dir/lower', content: 'l' }]),
        await layer('same-layer', [
          { name: 'w/x', content: 'upper' },
          { name: 'w/.wh.x', content: '' },
          { name: 'w/dir/', type: 'directory' },
          { name: 'w/dir/upper', content: 'u' },
          { name: 'w/.wh.dir', content: '' },
        ]),
      ],
      { catalogers: [], hashFiles: true },
    );
    expect(result.files.get('/w/x')?.sha256).toBe(sha256('upper'));
    expect(paths(result.files)).toEqual(['/w', '/w/dir', '/w/dir/upper', '/w/x']);
  });

  it('an opaque directory loses what lower layers put in it and keeps what its own layer puts in it', async () => {
    const result = await walkLayers(
      [
        await layer('base', [
          { name: 'app/', type: 'directory' },
          { name: 'app/old.txt', content: 'old' },
          { name: 'app/lib/', type: 'directory' },
          { name: 'app/lib/old.so', content: 'old' },
          { name: 'other/untouched', content: 'u' },
        ]),
        await layer('opaque', [
          { name: 'app/', type: 'directory', mode: 0o700 },
          { name: 'app/before-marker', content: 'same layer, before the marker' },
          { name: 'app/lib/', type: 'directory' },
          { name: 'app/.wh..wh..opq', content: '' },
          { name: 'app/after-marker', content: 'same layer, after the marker' },
        ]),
      ],
      { catalogers: [], hashFiles: false },
    );
    expect(paths(result.files)).toEqual(['/app', '/app/after-marker', '/app/before-marker', '/app/lib', '/other', '/other/untouched']);
    expect(result.files.get('/app')?.mode).toBe(0o700);
  });

  it('records mode with setuid/setgid bits, owners, symlinks, hardlinks and special files', async () => {
    const result = await walkLayers(
      [
        await layer('base', [
          { name: 'usr/bin/sudo', content: '#!sudo', mode: 0o4755, uid: 0, gid: 0 },
          { name: 'usr/bin/wall', content: 'wall', mode: 0o2755, gid: 5 },
          { name: 'home/app/data', content: 'd', mode: 0o600, uid: 1000, gid: 1000 },
          { name: 'usr/bin/sudoedit', type: 'link', linkname: 'usr/bin/sudo' },
          { name: 'etc/localtime', type: 'symlink', linkname: '../../../../usr/share/zoneinfo/UTC' },
          { name: 'dev/null', type: 'character-device', mode: 0o666 },
          { name: 'run/fifo', type: 'fifo' },
        ]),
      ],
      { catalogers: [], hashFiles: true },
    );
    expect(result.files.get('/usr/bin/sudo')).toEqual({
      path: '/usr/bin/sudo',
      type: 'file',
      mode: 0o4755,
      uid: 0,
      gid: 0,
      size: 6,
      sha256: sha256('#!sudo'),
    });
    expect(result.files.get('/usr/bin/wall')).toMatchObject({ mode: 0o2755, gid: 5 });
    expect(result.files.get('/home/app/data')).toMatchObject({ mode: 0o600, uid: 1000, gid: 1000 });
    expect(result.files.get('/usr/bin/sudoedit')).toMatchObject({
      type: 'hardlink',
      linkTarget: '/usr/bin/sudo',
      size: 6,
      sha256: sha256('#!sudo'),
    });
    // Symlink targets are recorded as written, never resolved (a climbing relative target is harmless).
    expect(result.files.get('/etc/localtime')).toMatchObject({ type: 'symlink', linkTarget: '../../../../usr/share/zoneinfo/UTC' });
    expect(result.files.get('/dev/null')).toMatchObject({ type: 'char', mode: 0o666 });
    expect(result.files.get('/run/fifo')).toMatchObject({ type: 'fifo' });
  });

  it('computes sha256 of large files correctly while streaming, and not at all when hashFiles is off', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 9)) & 0xff;
    const layers = async () => [await layer('big', [{ name: 'blob.bin', content: big }, { name: 'empty', content: '' }])];
    const hashed = await walkLayers(await layers(), { catalogers: [], hashFiles: true });
    expect(hashed.files.get('/blob.bin')).toMatchObject({ size: big.length, sha256: sha256(big) });
    expect(hashed.files.get('/empty')?.sha256).toBe(sha256(''));
    const unhashed = await walkLayers(await layers(), { catalogers: [], hashFiles: false });
    expect(unhashed.files.get('/blob.bin')?.sha256).toBeUndefined();
    expect(unhashed.files.get('/blob.bin')?.size).toBe(big.length);
  });

  it('reads gzip, zstd and plain tar layers in one image, whatever they are labelled', async (ctx) => {
    if (missingTools('zstd')) return ctx.skip();
    const result = await walkLayers(
      [
        blob('plain', await tarBytes([{ name: 'a', content: 'plain' }])),
        blob('gzip', gzip(await tarBytes([{ name: 'b', content: 'gzip' }]))),
        blob('zstd', zstd(await tarBytes([{ name: 'c', content: 'zstd' }, { name: '.wh.a', content: '' }]))),
      ],
      { catalogers: [], hashFiles: true },
    );
    expect(paths(result.files)).toEqual(['/b', '/c']);
    expect(result.files.get('/c')?.sha256).toBe(sha256('zstd'));
    expect(result.layerCount).toBe(3);
  });

  it('reads pre-POSIX (v7) tar headers, whose checksums still count', async () => {
    const tarball = await tarBytes([{ name: 'old/file', content: 'v7' }]);
    tarball.fill(0, 257, 265); // no 'ustar' magic or version: a v7 header
    tarball.fill(0x20, 148, 156);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += tarball[i]!;
    tarball.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
    const result = await walkLayers([blob('v7', tarball)], { catalogers: [], hashFiles: true });
    expect(result.files.get('/old/file')?.sha256).toBe(sha256('v7'));
  });

  it('accepts layers as an async iterable, opening each only when its turn comes', async () => {
    const opened: string[] = [];
    async function* layers() {
      for (const name of ['one', 'two']) {
        const l = await layer(name, [{ name, content: name }]);
        yield {
          digest: l.digest,
          open: () => {
            opened.push(name);
            return l.open();
          },
        };
      }
    }
    const result = await walkLayers(layers(), { catalogers: [], hashFiles: false });
    expect(opened).toEqual(['one', 'two']);
    expect(paths(result.files)).toEqual(['/one', '/two']);
  });

  it('stops with the signal reason when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('analysis cancelled'));
    await expect(
      walkLayers([await layer('x', [{ name: 'a', content: 'a' }])], { catalogers: [], hashFiles: false, signal: controller.signal }),
    ).rejects.toThrow('analysis cancelled');
  });
});

describe('walkLayers: catalogers', () => {
  it('keeps results only for paths that survive, from their final content', async () => {
    const cataloger = new FakeCataloger();
    const result = await walkLayers(
      [
        await layer('base', [
          { name: 'db/replaced.pkg', content: 'old 1.0' },
          { name: 'db/deleted.pkg', content: 'deleted 1.0' },
          { name: 'db/kept.pkg', content: 'kept 1.0\nkept-too 2.0' },
          { name: 'opaque/inner.pkg', content: 'hidden 1.0' },
          { name: 'dir/sub/nested.pkg', content: 'nested 1.0' },
          { name: 'not-a-package.txt', content: 'ignored' },
        ]),
        await layer('update', [
          { name: 'db/replaced.pkg', content: 'new 2.0' },
          { name: 'db/.wh.deleted.pkg', content: '' },
          { name: 'opaque/.wh..wh..opq', content: '' },
          { name: 'dir', content: 'a file replacing the directory' },
        ]),
      ],
      { catalogers: [cataloger], hashFiles: false },
    );
    expect(packageNames(result.packagesByCataloger.get('fake'))).toEqual([
      'kept-too@2.0 /db/kept.pkg',
      'kept@1.0 /db/kept.pkg',
      'new@2.0 /db/replaced.pkg',
    ]);
    // Catalogers saw each matching file once, as it was streamed, and nothing else.
    expect(cataloger.calls.map((c) => c.path).sort()).toEqual([
      '/db/deleted.pkg',
      '/db/kept.pkg',
      '/db/replaced.pkg',
      '/db/replaced.pkg',
      '/dir/sub/nested.pkg',
      '/opaque/inner.pkg',
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('gives every cataloger an entry, and the same file to every cataloger that matches it', async () => {
    const a = new FakeCataloger('a');
    const b = new FakeCataloger('b');
    const none = new FakeCataloger('none', 1024, '.nothing');
    const result = await walkLayers([await layer('x', [{ name: 'x.pkg', content: 'x 1' }])], { catalogers: [a, b, none], hashFiles: false });
    expect(packageNames(result.packagesByCataloger.get('a'))).toEqual(['x@1 /x.pkg']);
    expect(packageNames(result.packagesByCataloger.get('b'))).toEqual(['x@1 /x.pkg']);
    expect(result.packagesByCataloger.get('none')).toEqual([]);
  });

  it('records parse failures and oversized files as warnings and carries on', async () => {
    const cataloger = new FakeCataloger('fake', 100);
    const result = await walkLayers(
      [
        await layer('x', [
          { name: 'bad.pkg', content: 'THROW' },
          { name: 'huge.pkg', content: 'x 1\n'.repeat(100) },
          { name: 'capped.pkg', content: 'y 1\n'.repeat(10) },
          { name: 'good.pkg', content: 'good 1' },
        ]),
      ],
      { catalogers: [cataloger], hashFiles: false, limits: { maxFileBytesForCatalogers: 30 } },
    );
    expect(packageNames(result.packagesByCataloger.get('fake'))).toEqual(['good@1 /good.pkg']);
    expect(result.warnings).toEqual([
      "cataloger 'fake' could not parse /bad.pkg: malformed package database",
      "/huge.pkg (400 bytes) was not cataloged by 'fake': it is larger than the 30-byte limit for one file",
      "/capped.pkg (40 bytes) was not cataloged by 'fake': it is larger than the 30-byte limit for one file",
    ]);
    expect(cataloger.calls.map((c) => c.path)).toEqual(['/bad.pkg', '/good.pkg']);
  });

  it('skips files beyond the total buffer limit with a warning', async () => {
    const cataloger = new FakeCataloger();
    const result = await walkLayers([await layer('x', [{ name: 'a.pkg', content: 'a 1\n'.repeat(10) }])], {
      catalogers: [cataloger],
      hashFiles: false,
      limits: { maxTotalBufferedBytes: 16 },
    });
    expect(result.packagesByCataloger.get('fake')).toEqual([]);
    expect(result.warnings).toEqual(["/a.pkg (40 bytes) was not cataloged by 'fake': it is larger than the 16-byte buffer limit"]);
  });

  it('catalogs a hardlink with its target content when that was read, and says so when it was not', async () => {
    const cataloger = new FakeCataloger();
    const result = await walkLayers(
      [
        await layer('x', [
          { name: 'real.pkg', content: 'linked 1.0' },
          { name: 'alias.pkg', type: 'link', linkname: 'real.pkg' },
          { name: 'plain.txt', content: 'plain 1.0' },
          { name: 'from-plain.pkg', type: 'link', linkname: './plain.txt' },
        ]),
        // Replacing the target does not change what the hardlink (a separate path) holds.
        await layer('y', [{ name: 'real.pkg', content: 'replaced 2.0' }]),
      ],
      { catalogers: [cataloger], hashFiles: true },
    );
    expect(packageNames(result.packagesByCataloger.get('fake'))).toEqual(['linked@1.0 /alias.pkg', 'replaced@2.0 /real.pkg']);
    expect(result.files.get('/alias.pkg')).toMatchObject({ type: 'hardlink', linkTarget: '/real.pkg', sha256: sha256('linked 1.0') });
    expect(result.warnings).toEqual(["hardlink /from-plain.pkg -> /plain.txt was not cataloged: the target's content was not kept"]);
  });

  it('never catalogs through a symlink', async () => {
    const cataloger = new FakeCataloger();
    const result = await walkLayers(
      [
        await layer('x', [
          { name: 'real.txt', content: 'secret 1' },
          { name: 'link.pkg', type: 'symlink', linkname: 'real.txt' },
          { name: 'abs.pkg', type: 'symlink', linkname: '/etc/shadow' },
        ]),
      ],
      { catalogers: [cataloger], hashFiles: false },
    );
    expect(cataloger.calls).toEqual([]);
    expect(result.files.get('/link.pkg')).toMatchObject({ type: 'symlink', linkTarget: 'real.txt' });
  });

  it('warns about a hardlink to something that is not an earlier entry', async () => {
    const result = await walkLayers([await layer('x', [{ name: 'dangling', type: 'link', linkname: 'missing' }])], {
      catalogers: [],
      hashFiles: false,
    });
    expect(result.files.get('/dangling')).toMatchObject({ type: 'hardlink', linkTarget: '/missing', size: 0 });
    expect(result.warnings).toEqual(['hardlink /dangling -> /missing: the target is not an earlier entry of the image']);
  });
});

describe('walkLayers: progress', () => {
  it('reports the layer being read and the blob bytes read so far, over all layers', async () => {
    // Random content, so the compressed blob spans many of the fixture's 1 000-byte chunks.
    const first = gzip(await tarBytes([{ name: 'a', content: randomBytes(15_000).toString('base64') }]));
    const second = await tarBytes([{ name: 'b', content: 'y'.repeat(5_000) }]);
    const seen: { layer: number; blobBytes: number }[] = [];
    await walkLayers([blob('one', first), blob('two', second)], { catalogers: [], hashFiles: false, onProgress: (p) => seen.push({ ...p }) });
    // Each layer is announced before its first byte, then every chunk adds to the running total.
    expect(seen[0]).toEqual({ layer: 1, blobBytes: 0 });
    const startOfSecond = seen.findIndex((p) => p.layer === 2);
    expect(seen[startOfSecond]).toEqual({ layer: 2, blobBytes: first.length });
    expect(seen.at(-1)).toEqual({ layer: 2, blobBytes: first.length + second.length });
    const totals = seen.map((p) => p.blobBytes);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(seen.filter((p) => p.layer === 1).length).toBeGreaterThan(2);
  });
});
