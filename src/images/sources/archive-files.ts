/**
 * Read access to the files of an uploaded image archive, whatever its container: a tar (indexed in place), a
 * gzip-compressed tar (decompressed once to a temporary file, since gzip cannot be read at random), or an
 * unpacked directory. Paths are archive-relative; anything reaching outside the archive is refused.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { AppError } from '../../errors.js';
import { ArchiveEntryMissingError, ImageArchiveError } from './errors.js';
import { indexTar, normalizeArchivePath, resolveLinkTarget, type TarEntry } from './tar-index.js';

export interface ArchiveFiles {
  /** Byte size of the regular file at `path` (links followed), or undefined when there is none. */
  size(path: string): Promise<number | undefined>;
  /** The whole file, refusing more than `maxBytes`; ArchiveEntryMissingError (saying `why` it is needed) when absent. */
  read(path: string, maxBytes: number, why: string): Promise<Buffer>;
  /** The first `n` bytes (fewer for a shorter file). */
  head(path: string, n: number): Promise<Buffer>;
  open(path: string): Promise<Readable>;
  /** Removes any temporary decompressed copy; files cannot be opened afterwards. */
  close(): Promise<void>;
}

export interface OpenArchiveOptions {
  /** Where a gzip-compressed upload is decompressed (default: the OS temp dir). */
  tempDir?: string;
  /** Bound on the decompressed size of a gzip upload (default 32 GiB): a defence against gzip bombs. */
  maxUncompressedBytes?: number;
}

const DEFAULT_MAX_UNCOMPRESSED = 32 * 2 ** 30;
const MAX_LINK_HOPS = 16;

abstract class BaseFiles implements ArchiveFiles {
  abstract size(path: string): Promise<number | undefined>;
  abstract open(path: string): Promise<Readable>;
  abstract head(path: string, n: number): Promise<Buffer>;
  async close(): Promise<void> {}

  async read(path: string, maxBytes: number, why: string): Promise<Buffer> {
    const size = await this.size(path);
    if (size === undefined) throw new ArchiveEntryMissingError(path, why);
    if (size > maxBytes) throw new ImageArchiveError(`${path} in the archive is ${size} bytes, more than the ${maxBytes} allowed`, { entry: path });
    const chunks: Buffer[] = [];
    for await (const chunk of await this.open(path)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

/** A tar on disk, read in place through its header index. */
class TarFiles extends BaseFiles {
  constructor(
    private readonly file: string,
    private readonly entries: Map<string, TarEntry>,
    private readonly cleanup: () => Promise<void> = async () => {},
  ) {
    super();
  }

  /** Follows symlinks and hardlinks (docker save links duplicate layers) to a regular file entry. */
  private resolve(path: string): TarEntry | undefined {
    let name = normalizeArchivePath(path);
    for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
      const entry = this.entries.get(name);
      if (!entry) return undefined;
      if (entry.type === 'file') return entry;
      if (entry.type === 'symlink' && entry.linkname) name = resolveLinkTarget(entry.name, entry.linkname);
      else if (entry.type === 'hardlink' && entry.linkname) name = normalizeArchivePath(entry.linkname);
      else return undefined;
    }
    throw new ImageArchiveError(`${path} in the archive is a chain of more than ${MAX_LINK_HOPS} links`, { entry: path });
  }

  async size(path: string): Promise<number | undefined> {
    return this.resolve(path)?.size;
  }

  async open(path: string): Promise<Readable> {
    const entry = this.resolve(path);
    if (!entry) throw new ArchiveEntryMissingError(path, 'it is referenced by the image metadata');
    if (entry.size === 0) return Readable.from([]);
    return createReadStream(this.file, { start: entry.offset, end: entry.offset + entry.size - 1 });
  }

  async head(path: string, n: number): Promise<Buffer> {
    const entry = this.resolve(path);
    if (!entry) throw new ArchiveEntryMissingError(path, 'it is referenced by the image metadata');
    const length = Math.min(n, entry.size);
    const buf = Buffer.alloc(length);
    const fh = await open(this.file, 'r');
    try {
      await fh.read(buf, 0, length, entry.offset);
    } finally {
      await fh.close();
    }
    return buf;
  }

  override async close(): Promise<void> {
    await this.cleanup();
  }
}

/** An unpacked OCI layout or docker save directory. Symlinks may not lead outside it. */
class DirectoryFiles extends BaseFiles {
  constructor(private readonly root: string) {
    super();
  }

  private async resolve(path: string): Promise<{ file: string; size: number } | undefined> {
    const rel = normalizeArchivePath(path);
    let real: string;
    try {
      real = await realpath(join(this.root, rel));
    } catch {
      return undefined;
    }
    if (real !== this.root && !real.startsWith(this.root + sep)) throw new ImageArchiveError(`${path} links outside the image directory`, { entry: path });
    const st = await stat(real);
    return st.isFile() ? { file: real, size: st.size } : undefined;
  }

  async size(path: string): Promise<number | undefined> {
    return (await this.resolve(path))?.size;
  }

  async open(path: string): Promise<Readable> {
    const r = await this.resolve(path);
    if (!r) throw new ArchiveEntryMissingError(path, 'it is referenced by the image metadata');
    return createReadStream(r.file);
  }

  async head(path: string, n: number): Promise<Buffer> {
    const r = await this.resolve(path);
    if (!r) throw new ArchiveEntryMissingError(path, 'it is referenced by the image metadata');
    const fh = await open(r.file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(n, r.size));
      await fh.read(buf, 0, buf.length, 0);
      return buf;
    } finally {
      await fh.close();
    }
  }
}

async function fileHead(path: string, n: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function byteLimit(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > max) cb(new ImageArchiveError(`the archive decompresses to more than ${max} bytes; refusing to read it`));
      else cb(null, chunk);
    },
  });
}

async function gunzipToTemp(path: string, options: OpenArchiveOptions): Promise<{ file: string; dir: string }> {
  const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'vigil-archive-'));
  const file = join(dir, 'archive.tar');
  try {
    await pipeline(createReadStream(path), createGunzip(), byteLimit(options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED), createWriteStream(file));
    return { file, dir };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    if (err instanceof AppError) throw err;
    throw new ImageArchiveError(`the gzip-compressed archive is corrupt: ${(err as Error).message}`);
  }
}

/** Opens an archive given as a path: a directory, a tar, or a gzip-compressed tar. */
export async function openArchiveFiles(path: string, options: OpenArchiveOptions = {}): Promise<ArchiveFiles> {
  let st;
  try {
    st = await stat(path);
  } catch {
    throw new ImageArchiveError('the image archive file does not exist or cannot be read');
  }
  if (st.isDirectory()) return new DirectoryFiles(await realpath(path));
  if (!st.isFile()) throw new ImageArchiveError('the image archive is neither a file nor a directory');

  const magic = await fileHead(path, 4);
  if (magic[0] === 0x1f && magic[1] === 0x8b) {
    const temp = await gunzipToTemp(path, options);
    try {
      return new TarFiles(temp.file, await indexTar(temp.file), () => rm(temp.dir, { recursive: true, force: true }));
    } catch (err) {
      await rm(temp.dir, { recursive: true, force: true });
      throw err;
    }
  }
  if (magic.equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))) {
    throw new ImageArchiveError('zstd-compressed archives are not supported; upload the plain tar or a gzip-compressed one');
  }
  return new TarFiles(path, await indexTar(path));
}
