/**
 * npm cataloger: installed packages (`node_modules/<name>/package.json`, `node_modules/@scope/<name>/package.json`,
 * at any depth, and Debian's `/usr/share/nodejs/<name>/package.json`) and the dependencies a project's
 * package-lock.json records.
 */
import type { CatalogedPackage, Cataloger } from '../model.js';
import { parseJsonObject, stringField, withoutUndefined } from '../../formats/json-object.js';
import { mergeLockedIntoInstalled } from '../shared/lock-merge.js';
import { parsePackageLock } from './lockfile.js';
import { isNpmPackageName, npmLicenses, npmPackage, npmPerson, npmRepository } from './package-json.js';

/**
 * The manifest of an installed package: its directory sits directly in a node_modules directory, or in one of the
 * directories Debian's JavaScript policy installs `node-*` packages into (`/usr/share/nodejs`, `/usr/lib/nodejs`,
 * `/usr/lib/<multiarch triplet>/nodejs`; Node's global search path there). Dot-directories (`.bin`, `.pnpm`,
 * `.cache`) are npm/pnpm bookkeeping, and package.json files deeper inside a package (sub-path `{"type":"module"}`
 * stubs, test fixtures) do not describe an installed package.
 */
const INSTALLED_MANIFEST =
  /(?:(?:^|\/)node_modules|^\/usr\/share\/nodejs|^\/usr\/lib(?:\/[a-z0-9_]+-linux-[a-z0-9_]+)?\/nodejs)\/(?:@[^/]+\/)?[^/@.][^/]*\/package\.json$/;
const LOCK_FILE = /(?:^|\/)package-lock\.json$/;
/** Lock files shipped inside published packages describe their authors' dev setup, not what is installed here. */
const INSIDE_NODE_MODULES = /(?:^|\/)node_modules\//;

export function isInstalledPackageJson(path: string): boolean {
  return INSTALLED_MANIFEST.test(path);
}

export function isProjectPackageLock(path: string): boolean {
  return LOCK_FILE.test(path) && !INSIDE_NODE_MODULES.test(path);
}

/** One package from a package.json, or [] when it lacks a name or version (or is not a package.json at all). */
export function parsePackageJson(path: string, content: Buffer): CatalogedPackage[] {
  const manifest = parseJsonObject(content);
  if (!manifest) return [];
  const name = stringField(manifest, 'name');
  const version = stringField(manifest, 'version');
  if (!name || !version || !isNpmPackageName(name)) return [];
  // An application's own manifest is not a dependency; installed packages are kept even if marked private.
  if (manifest.private === true && !isInstalledPackageJson(path)) return [];
  const metadata = withoutUndefined({
    author: npmPerson(manifest.author),
    homepage: stringField(manifest, 'homepage'),
    repository: npmRepository(manifest.repository),
    // npm 5-6 recorded where an install came from in underscore fields of the installed manifest.
    resolved: stringField(manifest, '_resolved'),
    integrity: stringField(manifest, '_integrity'),
  });
  return [npmPackage(name, version, path, npmLicenses(manifest.license, manifest.licenses), metadata)];
}

export const npmCataloger: Cataloger = {
  name: 'npm',
  // Lock files of large monorepos reach tens of megabytes; installed manifests are a few kilobytes.
  maxFileBytes: 64 * 1024 * 1024,
  matches: (path) => isInstalledPackageJson(path) || isProjectPackageLock(path),
  parse(path, content) {
    try {
      return isProjectPackageLock(path) ? parsePackageLock(path, content) : parsePackageJson(path, content);
    } catch {
      // The parsers are written not to throw; this guards the image walk against a bug on one odd file.
      return [];
    }
  },
  /**
   * A project's lock file lists what its node_modules holds: a lock entry for a package also found installed
   * adds its lock file to that package's locations instead of counting it twice. Lock-only entries stay.
   */
  finalize: (packages) => mergeLockedIntoInstalled(packages, isProjectPackageLock, (p) => `${p.name}@${p.version}`),
};
