/**
 * Go binary cataloger: the modules compiled into Go executables, read from their embedded build info.
 *
 * Which files: those `isExecutableCandidate` picks (executable-paths.ts); non-ELF files are rejected from their
 * first bytes, so a wrong guess costs little.
 *
 * Packages: the main module (version `(devel)` when built from a working tree), every dependency (a replacement
 * by another module version is reported as that module; a local-directory replacement keeps the required path
 * and version and is flagged in metadata), and the Go standard library as `stdlib` at the toolchain version.
 *
 * Symbols: each module package carries `goSymbols`, the functions of its packages found in the binary's pclntab
 * (go-symbols.ts), stored beside the package for reachability checks; not metadata, so listings and SBOMs stay
 * as they were.
 */
import type { CatalogedPackage, Cataloger } from '../model.js';
import { cpe23, purl } from '../shared/identifiers.js';
import { isExecutableCandidate } from '../shared/executable-paths.js';
import { readGoBuildInfo, type GoBuildInfo } from './buildinfo.js';
import type { GoModule } from './modinfo.js';
import { readGoFunctionNames } from './pclntab.js';
import { goSymbolIndexes, STDLIB_MODULE, type GoSymbolIndex } from './symbols.js';

export const goBinaryCataloger: Cataloger = {
  name: 'go-binary',
  maxFileBytes: 512 * 1024 * 1024,
  matches: isExecutableCandidate,
  parse(path: string, content: Buffer): CatalogedPackage[] {
    const info = readGoBuildInfo(content);
    return info ? goPackages(path, info, readGoFunctionNames(content)) : [];
  },
};

/** `functionNames` (from the pclntab) give each package its symbol index; without them reachability is unknown. */
export function goPackages(path: string, info: GoBuildInfo, functionNames?: readonly string[]): CatalogedPackage[] {
  const common = {
    goVersion: info.goVersion,
    ...(info.main ? { mainModule: info.main.path } : {}),
    ...(info.architecture ? { architecture: info.architecture } : {}),
  };
  const packages: CatalogedPackage[] = [];
  if (info.main) {
    const settings = Object.fromEntries(info.settings.map((s) => [s.key, s.value]));
    packages.push(
      goModulePackage(path, info.main, {
        ...common,
        mainModuleVersion: info.main.version || '(devel)',
        ...(info.path ? { mainPackage: info.path } : {}),
        ...(info.settings.length ? { buildSettings: settings } : {}),
        ...(settings['GOOS'] ? { goos: settings['GOOS'] } : {}),
      }),
    );
  }
  for (const dep of info.deps) packages.push(goModulePackage(path, dep, common));
  const stdlib = stdlibPackage(path, info, common);
  if (stdlib) packages.push(stdlib);
  if (functionNames) attachSymbols(packages, info, functionNames);
  return packages;
}

/** Symbols are indexed by the module path as imported: a replacement changes where code comes from, not its import paths. */
function attachSymbols(packages: CatalogedPackage[], info: GoBuildInfo, functionNames: readonly string[]): void {
  const modules = [...(info.main ? [info.main] : []), ...info.deps];
  const indexes = goSymbolIndexes(functionNames, modules.map((m) => m.path));
  const byPackage: (GoSymbolIndex | undefined)[] = [...modules.map((m) => indexes.get(m.path)), indexes.get(STDLIB_MODULE)];
  packages.forEach((p, i) => {
    const index = byPackage[i];
    if (index) p.goSymbols = index;
  });
}

/** A replacement is a local directory (not a module version) when its path is a file path. */
function isLocalReplacement(r: GoModule): boolean {
  return r.path.startsWith('./') || r.path.startsWith('../') || r.path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(r.path) || r.path === '.' || r.path === '..';
}

function goModulePackage(location: string, mod: GoModule, metadata: Record<string, unknown>): CatalogedPackage {
  // What was compiled in: a module replacement supplies the code (and its own version and sum); a local directory
  // has neither, so the required module path and version remain the best identity.
  const effective = mod.replace && !isLocalReplacement(mod.replace) ? mod.replace : mod;
  const version = effective.version || '(devel)';
  const extra: Record<string, unknown> = { ...metadata };
  if (effective.sum) extra['h1Digest'] = effective.sum;
  if (mod.replace) {
    extra['replace'] = { ...mod.replace, local: isLocalReplacement(mod.replace) };
    if (effective !== mod) extra['replaces'] = { path: mod.path, version: mod.version, ...(mod.sum ? { sum: mod.sum } : {}) };
  }
  return {
    name: effective.path,
    version,
    type: 'go',
    locations: [location],
    licenses: [],
    origin: effective.path,
    purl: goPurl(effective.path, version),
    cpes: goModuleCpes(effective.path, version),
    metadata: extra,
  };
}

/** `pkg:golang/<path up to the last slash>/<last element>@<version>`; `(devel)` is no version, so it is left out. */
export function goPurl(path: string, version: string): string {
  const slash = path.lastIndexOf('/');
  const namespace = slash > 0 ? path.slice(0, slash) : undefined;
  const name = slash > 0 ? path.slice(slash + 1) : path;
  try {
    return purl('golang', namespace, name, version === '(devel)' ? undefined : version);
  } catch {
    // Module info is untrusted text: a path the purl library rejects must not lose the package.
    return '';
  }
}

/** NVD versions carry no `v` prefix nor `+incompatible`. */
function cpeVersion(version: string): string {
  return version.replace(/^v(?=\d)/, '').replace(/\+incompatible$/, '');
}

/**
 * CPEs only where the module path names the vendor and product reliably: `github.com/<owner>/<repo>`
 * (also gitlab.com, bitbucket.org) and `golang.org/x/<repo>` (vendor golang). Other paths get none rather than
 * guesses.
 */
export function goModuleCpes(path: string, version: string): string[] {
  if (!version || version === '(devel)') return [];
  const parts = path.split('/');
  if (['github.com', 'gitlab.com', 'bitbucket.org'].includes(parts[0]!) && parts.length >= 3) {
    return [cpe23(parts[1]!, parts[2]!, cpeVersion(version))];
  }
  if (parts[0] === 'golang.org' && parts[1] === 'x' && parts.length >= 3) return [cpe23('golang', parts[2]!, cpeVersion(version))];
  return [];
}

/** `go1.19.8` -> `1.19.8`; `go1.20.5 X:boringcrypto` -> `1.20.5`; development toolchains have no release version. */
function stdlibVersion(goVersion: string): string | undefined {
  const m = /^go(\d[^\s]*)/.exec(goVersion);
  return m?.[1];
}

function stdlibPackage(location: string, info: GoBuildInfo, common: Record<string, unknown>): CatalogedPackage | undefined {
  const version = stdlibVersion(info.goVersion);
  if (!version) return undefined;
  return {
    name: 'stdlib',
    version,
    type: 'go',
    locations: [location],
    licenses: ['BSD-3-Clause'],
    purl: purl('golang', undefined, 'stdlib', version),
    cpes: [cpe23('golang', 'go', version)],
    metadata: common,
  };
}
