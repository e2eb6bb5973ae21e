/**
 * A random-access index of a tar file on disk: one pass over the 512-byte headers (skipping the data) records
 * where each entry's content lies, so blobs can be streamed straight from the upload without extracting a
 * multi-gigabyte archive. Understands ustar, pax (path/linkpath/size records) and GNU long names. Every entry
 * name is checked: an absolute path or a `..` component makes the whole archive unacceptable.
 */
import { open } from 'node:fs/promises';
import { posix } from 'node:path';
import { ArchivePathError, ImageArchiveError } from './errors.js';

export type TarEntryType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'other';

export interface TarEntry {
  name: string;
  type: TarEntryType;
  /** Byte offset of the content in the tar file. */
  offset: number;
  size: number;
  linkname?: string;
}

const BLOCK = 512;
/** Image archives hold a handful of files per layer; anything near this is not one. */
const MAX_ENTRIES = 200_000;
const MAX_META_BYTES = 1 << 20;

/** `./a//b/` -> `a/b`; throws ArchivePathError for absolute paths and `..` components. */
export function normalizeArchivePath(name: string): string {
  if (name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name)) throw new ArchivePathError(name);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new ArchivePathError(name);
  return parts.join('/');
}

/** Resolves a symlink target relative to the link's directory, staying inside the archive root. */
export function resolveLinkTarget(linkPath: string, target: string): string {
  if (target.startsWith('/')) throw new ArchivePathError(target);
  const joined = posix.normalize(posix.join(posix.dirname(linkPath), target));
  if (joined === '..' || joined.startsWith('../')) throw new ArchivePathError(`${linkPath} -> ${target}`);
  return normalizeArchivePath(joined);
}

function cString(buf: Buffer, start: number, length: number): string {
  const field = buf.subarray(start, start + length);
  const nul = field.indexOf(0);
  return field.subarray(0, nul < 0 ? field.length : nul).toString('utf8');
}

function parseNumber(buf: Buffer, start: number, length: number): number {
  // GNU base-256 for values that do not fit in octal (files over 8 GiB).
  if (buf[start]! & 0x80) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + buf[i]!;
    return value;
  }
  const text = cString(buf, start, length).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumValid(header: Buffer): boolean {
  const stored = parseNumber(header, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return stored === sum;
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space < 0) break;
    const length = parseInt(data.subarray(pos, space).toString('ascii'), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, pos + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    pos += length;
  }
  return out;
}

function entryType(flag: string): TarEntryType {
  switch (flag) {
    case '0':
    case '\0':
    case '':
    case '7':
      return 'file';
    case '1':
      return 'hardlink';
    case '2':
      return 'symlink';
    case '5':
      return 'dir';
    default:
      return 'other';
  }
}

/** Reads the headers of the tar at `path`; later entries of the same name replace earlier ones. */
export async function indexTar(path: string): Promise<Map<string, TarEntry>> {
  const fh = await open(path, 'r');
  try {
    const { size: fileSize } = await fh.stat();
    if (fileSize === 0) throw new ImageArchiveError('the uploaded archive is empty');
    if (fileSize < BLOCK) throw new ImageArchiveError('the upload is not a tar archive (it is shorter than one tar header)');
    const entries = new Map<string, TarEntry>();
    const header = Buffer.alloc(BLOCK);
    let pos = 0;
    let pending: { path?: string; linkpath?: string; size?: number } = {};
    let count = 0;

    const readData = async (offset: number, size: number): Promise<Buffer> => {
      if (size > MAX_META_BYTES) throw new ImageArchiveError('the archive has an oversized tar metadata entry');
      const data = Buffer.alloc(size);
      await fh.read(data, 0, size, offset);
      return data;
    };

    while (pos + BLOCK <= fileSize) {
      await fh.read(header, 0, BLOCK, pos);
      if (header.every((b) => b === 0)) break;
      if (!checksumValid(header)) {
        throw new ImageArchiveError(
          pos === 0 ? 'the upload is not a tar archive (expected `docker save` output or an OCI image layout tarball)' : `the tar archive is corrupt at byte ${pos}`,
        );
      }
      if (++count > MAX_ENTRIES) throw new ImageArchiveError(`the archive has more than ${MAX_ENTRIES} entries; it is not an image archive`);

      const flag = String.fromCharCode(header[156]!);
      const size = pending.size ?? parseNumber(header, 124, 12);
      const offset = pos + BLOCK;
      const next = offset + Math.ceil(size / BLOCK) * BLOCK;
      if (offset + size > fileSize) throw new ImageArchiveError('the tar archive is truncated (an entry extends past the end of the file)');

      if (flag === 'x') {
        const pax = parsePax(await readData(offset, size));
        pending = {
          ...pending,
          ...(pax.path !== undefined ? { path: pax.path } : {}),
          ...(pax.linkpath !== undefined ? { linkpath: pax.linkpath } : {}),
          ...(pax.size !== undefined ? { size: Number(pax.size) } : {}),
        };
      } else if (flag === 'L') {
        pending.path = cString(await readData(offset, size), 0, size);
      } else if (flag === 'K') {
        pending.linkpath = cString(await readData(offset, size), 0, size);
      } else if (flag !== 'g') {
        const ustar = header.subarray(257, 263).toString('latin1') === 'ustar\0';
        const prefix = ustar ? cString(header, 345, 155) : '';
        const rawName = pending.path ?? (prefix ? `${prefix}/${cString(header, 0, 100)}` : cString(header, 0, 100));
        const name = normalizeArchivePath(rawName);
        const linkname = pending.linkpath ?? cString(header, 157, 100);
        const type = entryType(flag);
        if (name !== '') {
          entries.set(name, { name, type, offset, size, ...(linkname ? { linkname } : {}) });
        }
        pending = {};
      }
      pos = next;
    }
    return entries;
  } finally {
    await fh.close();
  }
}
