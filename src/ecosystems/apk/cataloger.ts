/**
 * Alpine (and Wolfi, Chainguard, postmarketOS) packages from apk's installed database, /lib/apk/db/installed,
 * with each package's file list (`F:` directories, `R:` files) read only for which language packages it owns.
 */
import { distroQualifier } from '../distro.js';
import { cpe23, purl } from '../shared/identifiers.js';
import { collectOwnershipKeys, type OwnershipKey } from '../shared/ownership-keys.js';
import type { CatalogedPackage, Cataloger, DistroInfo } from '../model.js';

/**
 * Where apk keeps its database. On usr-merged systems /lib is a symlink to usr/lib; the walker does not follow
 * symlinks, so the file is seen only under /usr/lib.
 */
const INSTALLED_DB_PATHS = new Set(['/lib/apk/db/installed', '/usr/lib/apk/db/installed']);

/**
 * One package record: single-letter keys to their values. Keys that repeat within a record (F, R, a, M, Z: the
 * file list and its attributes) keep every value, in order. Under `FILES` (not a letter, so no field's key) every
 * file's absolute path, each `R:` name joined to the `F:` directory before it.
 */
export type ApkRecord = Map<string, string[]>;
export const FILES = 'files';

/** Splits the installed database into records ("K:value" lines, records separated by blank lines). */
export function parseApkInstalled(content: string): ApkRecord[] {
  const records: ApkRecord[] = [];
  let current: ApkRecord = new Map();
  let directory = '';
  const add = (key: string, value: string) => {
    const values = current.get(key);
    if (values) values.push(value);
    else current.set(key, [value]);
  };
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (current.size > 0) records.push(current);
      current = new Map();
      directory = '';
      continue;
    }
    // Keys are single letters; anything else is not a field.
    if (line[1] !== ':' || !/^[A-Za-z]$/.test(line[0] ?? '')) continue;
    const key = line[0]!;
    const value = line.slice(2);
    add(key, value);
    // Directories are relative to the root (`usr/lib`); files are names within the directory before them.
    if (key === 'F') directory = value;
    else if (key === 'R') add(FILES, directory ? `/${directory}/${value}` : `/${value}`);
  }
  if (current.size > 0) records.push(current);
  return records;
}

/**
 * apk `L:` values are SPDX expressions on current Alpine ("MIT AND BSD-2-Clause") and space-separated lists on
 * older releases ("GPL-2.0-or-later LGPL-2.1-or-later"). AND-ed terms are listed separately; an expression with
 * OR or parentheses is kept whole, because splitting it would change its meaning.
 */
export function splitApkLicense(raw: string | undefined): string[] {
  const value = raw?.trim() ?? '';
  if (value === '') return [];
  const hasOperators = /\s(AND|OR|WITH)\s|[()]/.test(value);
  if (!hasOperators) return value.split(/\s+/);
  if (/\sOR\s|[()]/.test(value)) return [value];
  return value.split(/\s+AND\s+/).map((s) => s.trim()).filter(Boolean);
}

const APK_DISTROS = new Set(['alpine', 'wolfi', 'chainguard', 'postmarketos']);

/** apk purls are namespaced by the distro that built them; "alpine" unless the image says it is another apk distro. */
function apkNamespace(distro: DistroInfo | undefined): string {
  if (distro && (APK_DISTROS.has(distro.name) || distro.like.includes('alpine'))) return distro.name;
  return 'alpine';
}

export function apkPurl(name: string, version: string, arch: string | undefined, distro: DistroInfo | undefined): string {
  return purl('apk', apkNamespace(distro), name, version, { arch, distro: distroQualifier(distro) });
}

function toPackage(record: ApkRecord, path: string, ownershipKey: OwnershipKey): CatalogedPackage | undefined {
  const field = (key: string) => record.get(key)?.[0];
  const name = field('P');
  const version = field('V');
  if (!name || !version) return undefined;
  const arch = field('A');
  const installedSize = field('I');
  const metadata: Record<string, unknown> = {};
  const setIf = (key: string, value: unknown) => {
    if (value !== undefined && value !== '') metadata[key] = value;
  };
  const words = (value: string | undefined) => {
    const list = value?.split(/\s+/).filter(Boolean);
    return list?.length ? list : undefined;
  };
  const integer = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined);
  setIf('architecture', arch);
  setIf('maintainer', field('m'));
  setIf('description', field('T'));
  setIf('url', field('U'));
  setIf('commit', field('c'));
  setIf('buildTime', integer(field('t')));
  setIf('packageSize', integer(field('S')));
  setIf('checksum', field('C'));
  setIf('depends', words(field('D')));
  setIf('provides', words(field('p')));
  const origin = field('o');
  const size = integer(installedSize);
  const started = performance.now();
  const ownedPaths = [...collectOwnershipKeys(record.get(FILES) ?? [], ownershipKey)];
  const ownershipMs = performance.now() - started;
  return {
    name,
    version,
    type: 'apk',
    locations: [path],
    licenses: splitApkLicense(field('L')),
    ...(origin ? { origin } : {}),
    ...(size !== undefined ? { size } : {}),
    purl: apkPurl(name, version, arch, undefined),
    cpes: [cpe23(name, name, version)],
    metadata,
    ...(ownedPaths.length > 0 ? { ownedPaths } : {}),
    ownershipMs,
  };
}

/** The apk cataloger, reducing each package's file list with `ownershipKey` (registry.ts). */
export function createApkCataloger(ownershipKey: OwnershipKey): Cataloger {
  return {
    name: 'apk',
    maxFileBytes: 64 * 1024 * 1024,
    matches(path) {
      return INSTALLED_DB_PATHS.has(path);
    },
    parse(path, content) {
      const packages: CatalogedPackage[] = [];
      for (const record of parseApkInstalled(content.toString('utf8'))) {
        const pkg = toPackage(record, path, ownershipKey);
        if (pkg) packages.push(pkg);
      }
      return packages;
    },
    finalize(packages, distro) {
      return packages.map((pkg) => {
        const arch = typeof pkg.metadata.architecture === 'string' ? pkg.metadata.architecture : undefined;
        return { ...pkg, purl: apkPurl(pkg.name, pkg.version, arch, distro) };
      });
    },
  };
}
