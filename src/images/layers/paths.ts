/**
 * Tar entry names as paths inside the image. Nothing is ever written to disk, so an absolute name is simply a path
 * from the image root; what we refuse is a name that cannot denote a path inside the image at all ('..' climbing
 * above the root, NUL bytes), because accepting it would let a layer confuse every consumer of the file view.
 */
import { UnsafePathError } from './errors.js';

export const ROOT = '/';

/**
 * `./usr//bin/./x` -> `/usr/bin/x`; `/etc/passwd` -> `/etc/passwd`; `./` -> `/`.
 * Throws UnsafePathError for NUL bytes and for '..' that climbs above the root.
 */
export function normaliseEntryPath(name: string): string {
  if (name.includes('\0')) throw new UnsafePathError(name, 'contains a NUL byte');
  const parts: string[] = [];
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) throw new UnsafePathError(name, 'climbs above the image root with ".."');
      parts.pop();
      continue;
    }
    parts.push(part);
  }
  return ROOT + parts.join('/');
}

/**
 * A symlink target is recorded verbatim (it is resolved by whoever runs the image, relative to the link) and never
 * followed here; only a NUL byte, which no filesystem can store, makes it unacceptable.
 */
export function checkSymlinkTarget(entryName: string, target: string): string {
  if (target.includes('\0')) throw new UnsafePathError(entryName, 'is a symlink whose target contains a NUL byte');
  return target;
}

/** Path components of a normalised path; [] for the root. */
export function pathComponents(path: string): string[] {
  return path === ROOT ? [] : path.slice(1).split('/');
}

export function parentPath(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? ROOT : path.slice(0, slash);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function joinPath(dir: string, name: string): string {
  return dir === ROOT ? ROOT + name : `${dir}/${name}`;
}
