/**
 * package-lock.json reading. Formats:
 *  - v1 (npm 5-6): nested `dependencies` objects keyed by package name, mirroring the node_modules tree.
 *  - v2 (npm 7-8): `packages` keyed by install path (`node_modules/a/node_modules/b`) plus a v1 copy for old npm.
 *  - v3 (npm 9+): `packages` only.
 * Whenever `packages` exists it is authoritative; `dependencies` is only read when it is all there is.
 */
import type { CatalogedPackage } from '../model.js';
import { isJsonObject, parseJsonObject, stringField, withoutUndefined, type JsonObject } from '../../formats/json-object.js';
import { isNpmPackageName, npmLicenses, npmPackage } from './package-json.js';

/** One installed copy of a package as the lock file describes it. */
interface LockEntry {
  name: string;
  version: string;
  /** Install path relative to the project, e.g. `node_modules/a/node_modules/b`. */
  installPath: string;
  resolved?: string;
  integrity?: string;
  dev: boolean;
  optional: boolean;
  devOptional: boolean;
  licenses: string[];
}

/** Keys of `packages` that are installs: the package name is what follows the last `node_modules/`. */
const INSTALL_PATH = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)$/;

function entryFacts(raw: JsonObject): Pick<LockEntry, 'resolved' | 'integrity' | 'dev' | 'optional' | 'devOptional' | 'licenses'> {
  return {
    resolved: stringField(raw, 'resolved'),
    integrity: stringField(raw, 'integrity'),
    dev: raw.dev === true,
    optional: raw.optional === true,
    devOptional: raw.devOptional === true,
    // npm 9+ copies the manifest's license into each entry; older lock files have none.
    licenses: npmLicenses(raw.license, raw.licenses),
  };
}

function entriesFromPackages(packages: JsonObject): LockEntry[] {
  const entries: LockEntry[] = [];
  for (const [key, raw] of Object.entries(packages)) {
    // Skipped: the root project (""), workspace sources ("packages/a") and the symlinks npm creates for them
    // (`link: true`, no version of their own) — none of them is an installed dependency.
    const match = INSTALL_PATH.exec(key);
    if (!match || !isJsonObject(raw) || raw.link === true) continue;
    const version = stringField(raw, 'version');
    if (!version) continue;
    // An alias install (`"x": "npm:real@1.0.0"`) sits at node_modules/x but records the real package's `name`.
    const name = stringField(raw, 'name') ?? match[1];
    if (!isNpmPackageName(name)) continue;
    entries.push({ name, version, installPath: key, ...entryFacts(raw) });
  }
  return entries;
}

/** v1 `version` is either a version, an alias `npm:real@1.2.3`, a git/tarball URL, or `file:` for a local directory. */
function v1Identity(key: string, version: string): { name: string; version: string } | undefined {
  // A local directory has no published version to name; the package is the project's own code.
  if (version.startsWith('file:')) return undefined;
  const alias = /^npm:((?:@[^/@]+\/)?[^/@]+)@(.+)$/.exec(version);
  return alias ? { name: alias[1], version: alias[2] } : { name: key, version };
}

/** v1 trees nested deeper are not read further: npm never writes them, and each level lengthens every path below it. */
const MAX_V1_NESTING = 100;

/** The v1 tree depth first, in file order, with an explicit stack: the file comes from the image, so it may nest anything. */
function entriesFromDependencies(root: JsonObject): LockEntry[] {
  const entries: LockEntry[] = [];
  const pending: { key: string; raw: unknown; parentPath: string; depth: number }[] = [];
  const pushInOrder = (dependencies: JsonObject, parentPath: string, depth: number) => {
    const children = Object.entries(dependencies);
    for (let i = children.length - 1; i >= 0; i--) pending.push({ key: children[i]![0], raw: children[i]![1], parentPath, depth });
  };
  pushInOrder(root, '', 1);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { key, raw, parentPath, depth } = next;
    if (!isJsonObject(raw)) continue;
    const installPath = `${parentPath}node_modules/${key}`;
    const declared = stringField(raw, 'version');
    const identity = declared ? v1Identity(key, declared) : undefined;
    if (identity && isNpmPackageName(identity.name)) entries.push({ ...identity, installPath, ...entryFacts(raw) });
    if (isJsonObject(raw.dependencies) && depth < MAX_V1_NESTING) pushInOrder(raw.dependencies, `${installPath}/`, depth + 1);
  }
  return entries;
}

/**
 * The same name@version installed at several paths is one package for a report (same purl, same location);
 * the copies are listed in `installPaths`. It counts as dev/optional only when every copy is.
 */
function mergeCopies(entries: LockEntry[]): Array<LockEntry & { installPaths: string[] }> {
  const merged = new Map<string, LockEntry & { installPaths: string[] }>();
  for (const entry of entries) {
    const key = `${entry.name}@${entry.version}`;
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, { ...entry, installPaths: [entry.installPath] });
      continue;
    }
    seen.installPaths.push(entry.installPath);
    seen.dev &&= entry.dev;
    seen.optional &&= entry.optional;
    seen.devOptional &&= entry.devOptional;
    seen.resolved ??= entry.resolved;
    seen.integrity ??= entry.integrity;
    if (seen.licenses.length === 0) seen.licenses = entry.licenses;
  }
  return [...merged.values()];
}

/** Every installed dependency a package-lock.json (v1, v2 or v3) records; [] for anything that is not one. */
export function parsePackageLock(path: string, content: Buffer): CatalogedPackage[] {
  const lock = parseJsonObject(content);
  if (!lock) return [];
  const entries = isJsonObject(lock.packages) ? entriesFromPackages(lock.packages) : isJsonObject(lock.dependencies) ? entriesFromDependencies(lock.dependencies) : [];
  return mergeCopies(entries).map((e) =>
    npmPackage(
      e.name,
      e.version,
      path,
      e.licenses,
      withoutUndefined({
        resolved: e.resolved,
        integrity: e.integrity,
        dev: e.dev,
        optional: e.optional,
        devOptional: e.devOptional || undefined,
        installPaths: e.installPaths,
      }),
    ),
  );
}
