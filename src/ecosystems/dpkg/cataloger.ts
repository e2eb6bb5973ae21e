/**
 * Debian packages from dpkg's status database (/var/lib/dpkg/status) and from the one-file-per-package
 * status.d directory distroless images use instead; plus the file lists (/var/lib/dpkg/info/<package>.list, or
 * <package>:<arch>.list for Multi-Arch: same packages), read only for which language packages they own.
 */
import { distroQualifier } from '../distro.js';
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger, DistroInfo } from '../model.js';
import { collectOwnershipKeys, type OwnershipKey } from '../shared/ownership-keys.js';

const STATUS_FILE = '/var/lib/dpkg/status';
const STATUS_DIR = '/var/lib/dpkg/status.d/';
const FILE_LIST = /^\/var\/lib\/dpkg\/info\/([^/:]+)(?::[^/:]+)?\.list$/;

/**
 * The walker keeps results per file, so that a later layer deleting a .list drops what it said; a file list's
 * result therefore travels as a record of this cataloger, marked here, and `finalize` folds it into the package
 * of that name (its `ownedPaths`) and drops it. Nothing marked ever leaves this module.
 */
const fileListRecords = new WeakSet<CatalogedPackage>();

/** One file list reduced to its ownership keys (see ownership.ts for why only those are kept). */
export function parseDpkgFileList(path: string, content: Buffer, ownershipKey: OwnershipKey): CatalogedPackage[] {
  const name = FILE_LIST.exec(path)?.[1];
  if (!name) return [];
  const started = performance.now();
  const keys = collectOwnershipKeys(content.toString('utf8').split('\n'), ownershipKey);
  // Kept when it owns nothing too, so the time it took is counted (a few bytes per installed package).
  const record: CatalogedPackage = {
    name,
    version: '',
    type: 'dpkg',
    locations: [path],
    licenses: [],
    purl: '',
    cpes: [],
    metadata: {},
    ownedPaths: [...keys],
    ownershipMs: performance.now() - started,
  };
  fileListRecords.add(record);
  return [record];
}

/**
 * Packages with the owned paths (and reduction time) of their file lists, without the file-list records themselves.
 * A list left behind by a removed package belongs to no installed package and is dropped with its time.
 */
function foldFileLists(found: CatalogedPackage[]): CatalogedPackage[] {
  const lists = new Map<string, { paths: string[]; ms: number }>();
  for (const record of found) {
    if (!fileListRecords.has(record)) continue;
    const list = lists.get(record.name) ?? { paths: [], ms: 0 };
    list.paths.push(...(record.ownedPaths ?? []));
    list.ms += record.ownershipMs ?? 0;
    lists.set(record.name, list);
  }
  const packages = found.filter((p) => !fileListRecords.has(p));
  if (lists.size === 0) return packages;
  return packages.map((p) => {
    const list = lists.get(p.name);
    return list ? { ...p, ownershipMs: list.ms, ...(list.paths.length > 0 ? { ownedPaths: list.paths } : {}) } : p;
  });
}

/** One deb822 paragraph: field names lower-cased (they are case-insensitive), values with continuations joined by \n. */
export type DpkgStanza = Map<string, string>;

/** Splits a deb822 (RFC822-like) document into paragraphs. Lines that are neither fields nor continuations are ignored. */
export function parseDpkgStatus(content: string): DpkgStanza[] {
  const stanzas: DpkgStanza[] = [];
  let current: DpkgStanza = new Map();
  let lastField: string | undefined;
  const flush = () => {
    if (current.size > 0) stanzas.push(current);
    current = new Map();
    lastField = undefined;
  };
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (line.startsWith(' ') || line.startsWith('\t')) {
      // Continuation of the previous field; a lone " ." stands for an empty line in multi-line values.
      if (lastField !== undefined) {
        const more = line.trim() === '.' ? '' : line.trim();
        current.set(lastField, `${current.get(lastField)}\n${more}`);
      }
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    lastField = line.slice(0, colon).trim().toLowerCase();
    current.set(lastField, line.slice(colon + 1).trim());
  }
  flush();
  return stanzas;
}

/**
 * Whether the package's files are on disk. The Status field is "want flag state"; states other than these
 * (config-files, not-installed, half-installed, unpacked, half-configured) mean removed or broken mid-way.
 * triggers-* packages are fully unpacked and configured, just waiting on a trigger run. status.d entries have
 * no Status field: distroless writes only what is installed.
 */
function isInstalled(stanza: DpkgStanza): boolean {
  const status = stanza.get('status');
  if (status === undefined) return true;
  const state = status.split(/\s+/)[2];
  return state === 'installed' || state === 'triggers-awaiting' || state === 'triggers-pending';
}

/** `Source: glibc (2.36-9)` or `Source: zlib`. */
export function parseDpkgSource(value: string | undefined): { origin?: string; sourceVersion?: string } {
  const match = /^(\S+)(?:\s*\(([^)]+)\))?/.exec(value?.trim() ?? '');
  if (!match) return {};
  return { origin: match[1], ...(match[2] ? { sourceVersion: match[2].trim() } : {}) };
}

function splitRelations(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return items.length ? items : undefined;
}

/** Installed-Size is in KiB. */
function kibToBytes(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) * 1024 : undefined;
}

export function debPurl(name: string, version: string, arch: string | undefined, distro: DistroInfo | undefined): string {
  return purl('deb', distro?.name ?? 'debian', name, version, { arch, distro: distroQualifier(distro) });
}

function toPackage(stanza: DpkgStanza, path: string): CatalogedPackage | undefined {
  const name = stanza.get('package');
  const version = stanza.get('version');
  if (!name || !version) return undefined;
  const arch = stanza.get('architecture');
  const size = kibToBytes(stanza.get('installed-size'));
  const metadata: Record<string, unknown> = {};
  const setIf = (key: string, value: unknown) => {
    if (value !== undefined && value !== '') metadata[key] = value;
  };
  setIf('architecture', arch);
  setIf('maintainer', stanza.get('maintainer'));
  setIf('depends', splitRelations(stanza.get('depends')));
  setIf('preDepends', splitRelations(stanza.get('pre-depends')));
  setIf('provides', splitRelations(stanza.get('provides')));
  // Only the synopsis: long descriptions would bloat every stored package for no analytical value.
  setIf('description', stanza.get('description')?.split('\n')[0]);
  return {
    name,
    version,
    type: 'dpkg',
    locations: [path],
    licenses: [], // dpkg's database records none; they live in /usr/share/doc/*/copyright.
    ...parseDpkgSource(stanza.get('source')),
    ...(size !== undefined ? { size } : {}),
    purl: debPurl(name, version, arch, undefined),
    cpes: [cpe23(name, name, version)],
    metadata,
  };
}

function isStatusDirEntry(path: string): boolean {
  if (!path.startsWith(STATUS_DIR)) return false;
  const rest = path.slice(STATUS_DIR.length);
  return rest !== '' && !rest.includes('/') && !rest.endsWith('.md5sums');
}

/** The dpkg cataloger, reducing file lists with `ownershipKey` (the ownable ecosystems' keys, registry.ts). */
export function createDpkgCataloger(ownershipKey: OwnershipKey): Cataloger {
  return {
    name: 'dpkg',
    maxFileBytes: 64 * 1024 * 1024,
    matches(path) {
      return path === STATUS_FILE || isStatusDirEntry(path) || FILE_LIST.test(path);
    },
    parse(path, content) {
      if (FILE_LIST.test(path)) return parseDpkgFileList(path, content, ownershipKey);
      const packages: CatalogedPackage[] = [];
      for (const stanza of parseDpkgStatus(content.toString('utf8'))) {
        if (!isInstalled(stanza)) continue;
        const pkg = toPackage(stanza, path);
        if (pkg) packages.push(pkg);
      }
      return packages;
    },
    finalize(found, distro) {
      return foldFileLists(found).map((pkg) => {
        const arch = typeof pkg.metadata.architecture === 'string' ? pkg.metadata.architecture : undefined;
        return { ...pkg, purl: debPurl(pkg.name, pkg.version, arch, distro) };
      });
    },
  };
}
