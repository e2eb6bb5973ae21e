/**
 * PHP Composer cataloger: a project's `composer.lock` (`packages` and `packages-dev`) and what Composer installed,
 * `vendor/composer/installed.json` (Composer 2: `{"packages": [...], "dev-package-names": [...]}`; Composer 1: a
 * bare array). Both list package objects of one shape:
 *
 *   {"name": "symfony/http-foundation", "version": "v6.4.0", "type": "library", "license": ["MIT"],
 *    "source": {"type": "git", "url": "https://github.com/symfony/http-foundation.git", "reference": "44a6d39"},
 *    "dist": {"type": "zip", "url": "https://api.github.com/repos/...", "reference": "44a6d39", "shasum": ""}}
 *
 * A package found in both is listed once, installed, with both locations (as npm's lock and manifests are).
 */
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger } from '../model.js';
import { isJsonObject, parseJsonObject, stringField, withoutUndefined, type JsonObject } from '../../formats/json-object.js';
import { mergeLockedIntoInstalled } from '../shared/lock-merge.js';

const LOCK_FILE = /(?:^|\/)composer\.lock$/;
const INSTALLED_JSON = /(?:^|\/)vendor\/composer\/installed\.json$/;
/** Lock files shipped inside installed packages describe their authors' setup, not what is installed here. */
const INSIDE_VENDOR = /(?:^|\/)vendor\//;
/** Composer's rule for package names: `vendor/name`, lower-case letters, digits and `_.-` separators. */
const PACKAGE_NAME = /^[a-z0-9]([_.-]?[a-z0-9]+)*\/[a-z0-9](([_.]|-{1,2})?[a-z0-9]+)*$/;
/** Far more than any project installs; the rest of the list is ignored. */
const MAX_PACKAGES = 20_000;

export function isComposerLock(path: string): boolean {
  return LOCK_FILE.test(path) && !INSIDE_VENDOR.test(path);
}

export function isComposerInstalledJson(path: string): boolean {
  return INSTALLED_JSON.test(path);
}

function reference(value: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(value)) return undefined;
  const fields = withoutUndefined({ type: stringField(value, 'type'), url: stringField(value, 'url'), reference: stringField(value, 'reference') });
  return Object.keys(fields).length ? fields : undefined;
}

function licenses(value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return [...new Set(list.filter((l): l is string => typeof l === 'string').map((l) => l.trim()).filter(Boolean))];
}

function composerPackage(path: string, raw: JsonObject, dev: boolean): CatalogedPackage | undefined {
  const declared = stringField(raw, 'name');
  const version = stringField(raw, 'version');
  // Composer lower-cases names on install; older registries kept capitals, which mean the same package.
  const name = declared?.toLowerCase();
  if (!name || !version || !PACKAGE_NAME.test(name) || /\s/.test(version)) return undefined;
  const [vendor, project] = name.split('/') as [string, string];
  return {
    name,
    version,
    type: 'composer',
    locations: [path],
    licenses: licenses(raw.license),
    purl: purl('composer', vendor, project, version),
    cpes: [cpe23(vendor, project, version.replace(/^v(?=\d)/, ''))],
    metadata: withoutUndefined({
      packageType: stringField(raw, 'type'),
      source: reference(raw.source),
      dist: reference(raw.dist),
      homepage: stringField(raw, 'homepage'),
      dev: dev || undefined,
    }),
  };
}

function packageList(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.slice(0, MAX_PACKAGES).filter(isJsonObject) : [];
}

/** The packages a composer.lock or installed.json lists; [] for anything that is neither. */
export function parseComposerFile(path: string, content: Buffer): CatalogedPackage[] {
  let listed: { raw: JsonObject; dev: boolean }[];
  if (isComposerLock(path)) {
    const lock = parseJsonObject(content);
    if (!lock) return [];
    listed = [...packageList(lock.packages).map((raw) => ({ raw, dev: false })), ...packageList(lock['packages-dev']).map((raw) => ({ raw, dev: true }))];
  } else {
    // Composer 1 wrote the list itself; Composer 2 an object that names the dev packages apart.
    let parsed: unknown;
    try {
      parsed = JSON.parse(content.toString('utf8').replace(/^\uFEFF/, ''));
    } catch {
      return [];
    }
    const installed = isJsonObject(parsed) ? parsed : { packages: parsed };
    const devNames = new Set(Array.isArray(installed['dev-package-names']) ? installed['dev-package-names'].filter((n): n is string => typeof n === 'string') : []);
    listed = packageList(installed.packages).map((raw) => ({ raw, dev: devNames.has(stringField(raw, 'name') ?? '') }));
  }
  return listed.slice(0, MAX_PACKAGES).flatMap(({ raw, dev }) => composerPackage(path, raw, dev) ?? []);
}

export const composerCataloger: Cataloger = {
  name: 'php-composer',
  // Lock files carry every package's full description and autoload rules: large projects reach a few megabytes.
  maxFileBytes: 32 * 1024 * 1024,
  matches: (path) => isComposerLock(path) || isComposerInstalledJson(path),
  parse(path, content) {
    try {
      return parseComposerFile(path, content);
    } catch {
      // The parser is written not to throw; this guards the image walk against a bug on one odd file.
      return [];
    }
  },
  finalize: (packages) => mergeLockedIntoInstalled(packages, isComposerLock, (p) => `${p.name}@${p.version}`),
};
