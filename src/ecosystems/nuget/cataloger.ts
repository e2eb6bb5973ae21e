/**
 * .NET cataloger: the NuGet packages an application was published with, from the `<app>.deps.json` the .NET SDK
 * writes beside it (and the shared frameworks' own deps.json under `dotnet/shared/`). Its `libraries` object is
 * keyed `Name/Version`:
 *
 *   "libraries": {
 *     "WebShop/1.0.0": { "type": "project", "serviceable": false, "sha512": "" },
 *     "Newtonsoft.Json/13.0.1": { "type": "package", "serviceable": true, "sha512": "sha512-...",
 *                                 "path": "newtonsoft.json/13.0.1", "hashPath": "newtonsoft.json.13.0.1.nupkg.sha512" }
 *   }
 *
 * Packages are the `package` entries (from a NuGet feed) and `runtimepack` entries (the runtime a self-contained
 * app carries, itself a NuGet package); `project` entries are the application's own code and `reference`
 * entries framework assemblies, so neither is a package.
 */
import { purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger } from '../model.js';
import { isJsonObject, parseJsonObject, stringField, withoutUndefined } from '../../formats/json-object.js';

const DEPS_JSON = /(?:^|\/)[^/]+\.deps\.json$/;
/** The NuGet download cache holds packages' own build files, not what an application runs with. */
const NUGET_CACHE = /\/\.nuget\/packages\//;
const PACKAGE_TYPES = new Set(['package', 'runtimepack']);
/** Far more than any application references; the rest of the object is ignored. */
const MAX_LIBRARIES = 20_000;
/** NuGet package ids: letters, digits, `.`, `_` and `-` (NuGet's PackageIdValidator), at most 100 characters. */
const NUGET_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

export function isDepsJsonPath(path: string): boolean {
  return DEPS_JSON.test(path) && !NUGET_CACHE.test(path);
}

/** The NuGet packages a deps.json lists; [] for anything that is not one. */
export function parseDepsJson(path: string, content: Buffer): CatalogedPackage[] {
  const deps = parseJsonObject(content);
  if (!deps || !isJsonObject(deps.libraries)) return [];
  const packages: CatalogedPackage[] = [];
  for (const [key, library] of Object.entries(deps.libraries).slice(0, MAX_LIBRARIES)) {
    if (!isJsonObject(library)) continue;
    const type = stringField(library, 'type');
    const slash = key.indexOf('/');
    if (!type || !PACKAGE_TYPES.has(type) || slash <= 0) continue;
    const name = key.slice(0, slash);
    const version = key.slice(slash + 1).trim();
    if (!NUGET_ID.test(name) || version === '' || /\s/.test(version)) continue;
    let packageUrl = '';
    try {
      packageUrl = purl('nuget', undefined, name, version);
    } catch {
      // Keep the package even if the purl library rejects what the file says.
    }
    packages.push({
      name,
      version,
      type: 'nuget',
      locations: [path],
      licenses: [],
      purl: packageUrl,
      cpes: [],
      metadata: withoutUndefined({
        libraryType: type,
        sha512: stringField(library, 'sha512'),
        path: stringField(library, 'path'),
        hashPath: stringField(library, 'hashPath'),
      }),
    });
  }
  return packages;
}

export const dotnetCataloger: Cataloger = {
  name: 'dotnet-deps',
  // deps.json of large applications run to a few megabytes (every runtime asset is listed per target).
  maxFileBytes: 32 * 1024 * 1024,
  matches: isDepsJsonPath,
  parse(path, content) {
    try {
      return parseDepsJson(path, content);
    } catch {
      // The parser is written not to throw; this guards the image walk against a bug on one odd file.
      return [];
    }
  },
};
