import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decompressLayer, detectCompression } from '../../../src/images/layers/decompress.js';
import { UnsafePathError } from '../../../src/images/layers/errors.js';
import { baseName, checkSymlinkTarget, normaliseEntryPath, parentPath } from '../../../src/images/layers/paths.js';
import { ZstdDecompressStream, ZstdStreamError } from '../../../src/images/layers/zstd.js';
import { gzip, tarBytes, zstd, zstdRleFrame } from './layers-fixtures.js';
import { missingTools } from '../../support/tools.js';

describe('normaliseEntryPath', () => {
  it('makes tar names absolute and clean', () => {
    expect(normaliseEntryPath('./usr/bin/x')).toBe('/usr/bin/x');
    expect(normaliseEntryPath('usr//lib/./libc.so')).toBe('/usr/lib/libc.so');
    expect(normaliseEntryPath('/etc/passwd')).toBe('/etc/passwd');
    expect(normaliseEntryPath('./var/lib/dpkg/')).toBe('/var/lib/dpkg');
    expect(normaliseEntryPath('a/b/../c')).toBe('/a/c');
    expect(normaliseEntryPath('./')).toBe('/');
    expect(normaliseEntryPath('')).toBe('/');
  });

  it('refuses ".." above the root and NUL bytes, saying why', () => {
    for (const name of ['../../etc/passwd', '/../etc/passwd', 'a/../../b', '..']) {
      expect(() => normaliseEntryPath(name)).toThrow(UnsafePathError);
      expect(() => normaliseEntryPath(name)).toThrow(/climbs above the image root/);
    }
    expect(() => normaliseEntryPath('etc/pa\0sswd')).toThrow(/NUL byte/);
  });

  it('records symlink targets verbatim unless they hold a NUL', () => {
    expect(checkSymlinkTarget('x', '../../../../etc/shadow')).toBe('../../../../etc/shadow');
    expect(() => checkSymlinkTarget('x', 'a\0b')).toThrow(UnsafePathError);
  });

  it('splits paths', () => {
    expect(parentPath('/a/b')).toBe('/a');
    expect(parentPath('/a')).toBe('/');
    expect(baseName('/a/.wh.b')).toBe('.wh.b');
  });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const chunked = (bytes: Buffer, size = 100) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
    })(),
  );

describe('decompressLayer', () => {
  it('detects the compression from magic bytes, not media types', () => {
    expect(detectCompression(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('gzip');
    expect(detectCompression(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))).toBe('zstd');
    expect(detectCompression(Buffer.from('usr/'))).toBe('none');
    expect(detectCompression(Buffer.alloc(0))).toBe('none');
  });

  it('returns the same tar bytes for plain, gzip and zstd blobs', async (ctx) => {
    const tar = await tarBytes([{ name: 'etc/os-release', content: 'ID=debian\n' }]);
    for (const [blob, expected] of [
      [tar, 'none'],
      [gzip(tar), 'gzip'],
    ] as const) {
      const { compression, tar: out } = await decompressLayer(chunked(blob));
      expect(compression).toBe(expected);
      expect((await readAll(out)).equals(tar)).toBe(true);
    }
    if (missingTools('zstd')) return ctx.skip();
    const { compression, tar: out } = await decompressLayer(chunked(zstd(tar), 7));
    expect(compression).toBe('zstd');
    expect((await readAll(out)).equals(tar)).toBe(true);
  });

  it('handles blobs shorter than the magic', async () => {
    const { compression, tar } = await decompressLayer(Readable.from([Buffer.from([0x1f])]));
    expect(compression).toBe('none');
    expect(await readAll(tar)).toEqual(Buffer.from([0x1f]));
  });
});

describe('ZstdDecompressStream', () => {
  it('decodes multi-frame streams with skippable frames, split anywhere', async (ctx) => {
    if (missingTools('zstd')) return ctx.skip();
    const a = Buffer.from('first frame '.repeat(1000));
    const b = Buffer.from('second frame '.repeat(50));
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]), Buffer.from('xyz')]);
    const stream = Buffer.concat([zstd(a), skippable, zstd(b)]);
    for (const size of [1, 5, 64, 100_000]) {
      const out = await readAll(chunked(stream, size).pipe(new ZstdDecompressStream()));
      expect(out.equals(Buffer.concat([a, b]))).toBe(true);
    }
  });

  it('decodes only a few blocks beyond what the reader has taken (RLE bomb)', async () => {
    // 32 KiB of input that expands to 1 GiB: fed in one chunk, nothing read yet. fzstd holds back a frame's first
    // 18 bytes, so up to 4 blocks (of 128 KiB) may come out at once.
    const bound = (s: ZstdDecompressStream) => s.readableHighWaterMark + 4 * 128 * 1024;
    const bomb = zstdRleFrame(Buffer.from('head'), 1024 * 1024 * 1024);
    const stream = new ZstdDecompressStream();
    stream.write(bomb);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stream.readableLength).toBeGreaterThan(0);
    expect(stream.readableLength).toBeLessThanOrEqual(bound(stream));
    // Reading some decodes some more, not the rest.
    let read = 0;
    for (let i = 0; i < 20; i++) {
      read += (stream.read() as Buffer | null)?.length ?? 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(read).toBeGreaterThan(128 * 1024);
    expect(stream.readableLength).toBeLessThanOrEqual(bound(stream));
    stream.destroy();
  });

  it('refuses a window larger than the limit before allocating it', async () => {
    const hugeWindow = zstdRleFrame(Buffer.from('x'), 0, 0xa8 /* 2^31 */);
    const stream = new ZstdDecompressStream({ maxWindowBytes: 128 * 1024 * 1024 });
    const error = await readAll(Readable.from([hugeWindow]).pipe(stream)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZstdStreamError);
    expect((error as ZstdStreamError).problem).toBe('window-too-large');
    expect((error as ZstdStreamError).windowBytes).toBe(2 ** 31);
  });

  it('reports a stream cut inside a frame as truncated', async () => {
    const frame = zstdRleFrame(Buffer.from('hello'), 1000);
    const error = await readAll(Readable.from([frame.subarray(0, frame.length - 2)]).pipe(new ZstdDecompressStream())).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ZstdStreamError);
    expect((error as ZstdStreamError).problem).toBe('truncated');
  });
});
