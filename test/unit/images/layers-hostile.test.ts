/**
 * Hostile and broken layers: each must stop the walk quickly with the right LayerError and a message a user can
 * act on, without expanding the bomb, and with every stream torn down.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  CorruptLayerError,
  LayerError,
  LayerLimitError,
  LayerSourceError,
  UnsafePathError,
} from '../../../src/images/layers/errors.js';
import { walkLayers, type LayerBlob, type WalkOptions } from '../../../src/images/layers/walker.js';
import {
  FakeCataloger,
  blob,
  fakeDigest,
  gzip,
  lazyGzipTar,
  streamBlob,
  tarBytes,
  tarHeaderOnly,
  zstd,
  zstdRleFrame,
  type FixtureEntry,
} from './layers-fixtures.js';
import { missingTools } from '../../support/tools.js';

const QUICK = 10_000;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const options: WalkOptions = { catalogers: [], hashFiles: true };

async function failure(layers: LayerBlob[], opts: Partial<WalkOptions> = {}): Promise<LayerError> {
  const started = Date.now();
  const error = await walkLayers(layers, { ...options, ...opts }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the walk should have failed').toBeInstanceOf(LayerError);
  expect(Date.now() - started).toBeLessThan(QUICK);
  return error as LayerError;
}

/** The digest as messages show it: algorithm and the first 12 hex digits. */
const shown = (label: string) => fakeDigest(label).slice(0, 'sha256:'.length + 12) + '…';
const gzLayer = async (label: string, entries: FixtureEntry[]) => blob(label, gzip(await tarBytes(entries)));

/** A blob whose opened stream can be inspected afterwards. */
function tracked(label: string, open: () => Readable): { layer: LayerBlob; opened: () => Readable | undefined } {
  let stream: Readable | undefined;
  return {
    layer: {
      digest: fakeDigest(label),
      open: async () => (stream = open()),
    },
    opened: () => stream,
  };
}

describe('hostile paths', () => {
  it('refuses "../../etc/passwd"', { timeout: QUICK }, async () => {
    const error = await failure([await gzLayer('escape', [{ name: 'ok', content: '' }, { name: '../../etc/passwd', content: 'root::0:0' }])]);
    expect(error).toBeInstanceOf(UnsafePathError);
    expect(error.retryable).toBe(false);
    expect(error.layerDigest).toBe(fakeDigest('escape'));
    expect(error.message).toBe(
      `layer ${shown('escape')} contains an unsafe entry "../../etc/passwd": it climbs above the image root with "..". ` +
        'The image may be malicious and was not analysed.',
    );
  });

  it('refuses a NUL byte in an entry name', { timeout: QUICK }, async () => {
    const error = await failure([await gzLayer('nul', [{ name: 'etc/pa\0sswd', content: 'x', pax: {} }])]);
    expect(error).toBeInstanceOf(UnsafePathError);
    expect(error.message).toContain('contains a NUL byte');
  });

  it('refuses a hardlink that climbs out of the image', { timeout: QUICK }, async () => {
    const error = await failure([await gzLayer('hardlink', [{ name: 'shadow', type: 'link', linkname: '../../../etc/shadow' }])]);
    expect(error).toBeInstanceOf(UnsafePathError);
    expect(error.message).toContain('is a hardlink to "../../../etc/shadow", which climbs above the image root');
  });

  it('refuses a file written through a symlinked directory, in the same or a later layer', { timeout: QUICK }, async () => {
    const cataloger = new FakeCataloger('fake', 1024, 'status');
    const later = await failure(
      [
        await gzLayer('link', [{ name: 'var/lib/dpkg', type: 'symlink', linkname: '/tmp/evil' }]),
        await gzLayer('through', [{ name: 'var/lib/dpkg/status', content: 'hidden 1.0' }]),
      ],
      { catalogers: [cataloger] },
    );
    expect(later).toBeInstanceOf(UnsafePathError);
    expect(later.message).toContain('would be written through the symlink /var/lib/dpkg -> /tmp/evil');
    expect(later.layerDigest).toBe(fakeDigest('through'));
    expect(cataloger.calls).toEqual([]);

    const same = await failure([
      await gzLayer('same', [
        { name: 'a', type: 'symlink', linkname: '/' },
        { name: 'a/etc/passwd', content: 'x' },
      ]),
    ]);
    expect(same).toBeInstanceOf(UnsafePathError);
  });

  it('refuses a whiteout that names no file', { timeout: QUICK }, async () => {
    const error = await failure([await gzLayer('wh', [{ name: 'etc/.wh..', content: '' }])]);
    expect(error).toBeInstanceOf(UnsafePathError);
    expect(error.message).toContain('is a whiteout that names no file');
  });
});

describe('bombs and limits', () => {
  it('stops an entry-count bomb at maxEntries', { timeout: QUICK }, async () => {
    const entries = Array.from({ length: 500 }, (_, i) => ({ name: `f${i}`, content: '' }));
    const error = await failure([await gzLayer('many', entries)], { limits: { maxEntries: 100 } });
    expect(error).toBeInstanceOf(LayerLimitError);
    expect((error as LayerLimitError).limit).toBe('maxEntries');
    expect(error.message).toBe(
      `layer ${shown('many')} exceeds the maxEntries limit of 100: the image has more than 100 tar entries. ` +
        'The image may be a decompression bomb; if it is genuine, raise the limit.',
    );
  });

  it('counts entries across layers', { timeout: QUICK }, async () => {
    const entries = Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, content: '' }));
    const error = await failure([await gzLayer('one', entries), await gzLayer('two', entries)], { limits: { maxEntries: 100 } });
    expect(error.layerDigest).toBe(fakeDigest('two'));
  });

  it('stops a gzip expansion bomb from its header, without expanding it', { timeout: QUICK }, async () => {
    // 4 GiB of zeros, produced only as far as the walker reads.
    const bomb = tracked('gzip-bomb', () => lazyGzipTar({ fileSize: 4 * GiB }));
    const error = await failure([bomb.layer], { limits: { maxExpandedBytes: 64 * MiB } });
    expect(error).toBeInstanceOf(LayerLimitError);
    expect((error as LayerLimitError).limit).toBe('maxExpandedBytes');
    expect(error.message).toContain(`layer ${shown('gzip-bomb')} exceeds the maxExpandedBytes limit of ${64 * MiB}`);
    expect(error.message).toContain(`entry "bomb" alone is ${4 * GiB} bytes`);
    expect(bomb.opened()?.destroyed).toBe(true);
  });

  it('stops an archive that expands into endless padding', { timeout: QUICK }, async () => {
    const padded = tracked('padding', () => lazyGzipTar({ fileSize: 10, trailingZeros: 1 * GiB }));
    const error = await failure([padded.layer], { limits: { maxExpandedBytes: 1 * MiB } });
    expect(error).toBeInstanceOf(LayerLimitError);
    expect(error.message).toMatch(/its tar data decompresses to more than \d+ bytes, far more than its 10 bytes of entries/);
    expect(padded.opened()?.destroyed).toBe(true);
  });

  it('stops a zstd RLE bomb (32 KiB expanding to 1 GiB)', { timeout: QUICK }, async () => {
    // The tar header of a 1 GiB file, whose content comes from RLE blocks.
    const tarHeader = await tarHeaderOnly('zeros', 1 * GiB);
    const bomb = zstdRleFrame(tarHeader, 1 * GiB);
    expect(bomb.length).toBeLessThan(40 * 1024);
    const error = await failure([blob('zstd-bomb', bomb, 64 * 1024)], { limits: { maxExpandedBytes: 64 * MiB } });
    expect(error).toBeInstanceOf(LayerLimitError);
    expect((error as LayerLimitError).limit).toBe('maxExpandedBytes');
  });

  it('refuses a zstd frame asking for a huge window before allocating it', { timeout: QUICK }, async () => {
    const error = await failure([blob('window', zstdRleFrame(Buffer.alloc(512), 0, 0xa8))]);
    expect(error).toBeInstanceOf(LayerLimitError);
    expect((error as LayerLimitError).limit).toBe('maxZstdWindowBytes');
    expect(error.message).toContain(`a zstd frame needs a ${2 ** 31}-byte window`);
  });
});

describe('broken layers', () => {
  const archive = () =>
    tarBytes([
      { name: 'etc/os-release', content: 'ID=debian\n'.repeat(200) },
      { name: 'usr/bin/app', content: Buffer.alloc(20_000, 7) },
    ]);

  it('reports a truncated gzip stream', { timeout: QUICK }, async () => {
    const gz = gzip(await archive());
    const error = await failure([blob('cut-gzip', gz.subarray(0, Math.floor(gz.length / 2)))]);
    expect(error).toBeInstanceOf(CorruptLayerError);
    expect(error.message).toBe(
      `layer ${shown('cut-gzip')} is truncated (unexpected end of gzip stream). Re-push the image or check the registry's copy of the blob.`,
    );
  });

  it('reports a truncated zstd stream', { timeout: QUICK }, async (ctx) => {
    if (missingTools('zstd')) return ctx.skip();
    const zst = zstd(await archive());
    const error = await failure([blob('cut-zstd', zst.subarray(0, zst.length - 10))]);
    expect(error).toBeInstanceOf(CorruptLayerError);
    expect(error.message).toContain(`layer ${shown('cut-zstd')} is truncated (unexpected end of zstd stream)`);
  });

  it('reports a garbage layer as not a tar archive', { timeout: QUICK }, async () => {
    const garbage = Buffer.alloc(4096);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) & 0xff;
    const error = await failure([blob('garbage', garbage)]);
    expect(error).toBeInstanceOf(CorruptLayerError);
    expect(error.message).toContain(`layer ${shown('garbage')} is not a tar archive, nor gzip- or zstd-compressed`);
  });

  it('reports corrupt gzip data', { timeout: QUICK }, async () => {
    const gz = gzip(await archive());
    for (let i = 20; i < 60; i++) gz[i] = 0xff;
    const error = await failure([blob('bad-gzip', gz)]);
    expect(error).toBeInstanceOf(CorruptLayerError);
    expect(error.message).toMatch(/is corrupt \(gzip data: .+\)/);
  });

  it('reports a tar cut after a header', { timeout: QUICK }, async () => {
    const tarball = await archive();
    const error = await failure([blob('cut-tar', gzip(tarball.subarray(0, 512 + 100)))]);
    expect(error).toBeInstanceOf(CorruptLayerError);
    expect(error.message).toContain(`layer ${shown('cut-tar')} is truncated (the tar archive ends in the middle of an entry)`);
  });

  it('reports a blob that cannot be read as a source failure, not corruption', { timeout: QUICK }, async () => {
    const refused = await failure([{ digest: fakeDigest('gone'), open: () => Promise.reject(new Error('registry said 404')) }]);
    expect(refused).toBeInstanceOf(LayerSourceError);
    expect(refused.retryable).toBe(true);
    expect(refused.message).toContain(`could not read layer ${shown('gone')}: registry said 404`);

    const gz = gzip(await archive());
    const broken = await failure([
      {
        digest: fakeDigest('reset'),
        open: async () =>
          Readable.from(
            (async function* () {
              yield gz.subarray(0, 100);
              throw new Error('connection reset');
            })(),
            { objectMode: false },
          ),
      },
    ]);
    expect(broken).toBeInstanceOf(LayerSourceError);
    expect(broken.message).toContain('connection reset');
  });

  it('fails the first broken layer even after good ones', { timeout: QUICK }, async () => {
    const error = await failure([await gzLayer('good', [{ name: 'a', content: 'a' }]), blob('bad', Buffer.from('not a tar at all, clearly'))]);
    expect(error.layerDigest).toBe(fakeDigest('bad'));
  });
});

describe('resources', () => {
  it('streams a large layer in bounded memory', { timeout: 30_000 }, async () => {
    const size = 256 * MiB;
    const cataloger = new FakeCataloger('fake', 1024, '/bomb'); // matches, but the file is far over its limit
    const sample = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = sample();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, sample())), 5);
    try {
      const result = await walkLayers([streamBlob('big', () => lazyGzipTar({ fileSize: size }))], {
        catalogers: [cataloger],
        hashFiles: true,
      });
      expect(result.files.get('/bomb')).toMatchObject({ size });
      expect(result.expandedBytes).toBe(size);
    } finally {
      clearInterval(timer);
    }
    // Whatever was allocated is a small fraction of the content; buffering it would take 256 MiB.
    expect(peak - before).toBeLessThan(96 * MiB);
  });

  it('stops when aborted while a blob stalls before its first byte', { timeout: QUICK }, async () => {
    const controller = new AbortController();
    const stalled = tracked('stalled', () => new Readable({ read() {} }));
    setTimeout(() => controller.abort(new Error('analysis cancelled')), 50);
    await expect(walkLayers([stalled.layer], { ...options, signal: controller.signal })).rejects.toThrow('analysis cancelled');
    expect(stalled.opened()?.destroyed).toBe(true);
  });

  it('stops promptly when aborted in the middle of a layer', { timeout: QUICK }, async () => {
    const controller = new AbortController();
    const big = tracked('abort', () => lazyGzipTar({ fileSize: 4 * GiB }));
    setTimeout(() => controller.abort(new Error('analysis cancelled')), 100);
    const started = Date.now();
    await expect(walkLayers([big.layer], { ...options, signal: controller.signal })).rejects.toThrow('analysis cancelled');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(big.opened()?.destroyed).toBe(true);
  });
});
