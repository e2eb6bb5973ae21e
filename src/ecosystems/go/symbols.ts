/**
 * What a Go binary compiled in, per module, so that vulnerability matching (vulns/go-reachability.ts) can tell
 * whether the symbols an advisory names are in the binary, long after the binary itself is gone.
 *
 * Representation (`GoSymbolIndex`, stored gzipped in `image_packages.go_symbols`): for one module, its packages
 * that have functions in the binary, keyed by import path relative to the module path (`''` for the module's root
 * package, `html`, `http2/hpack`; for the standard library the whole import path, `net/http`), each with the
 * sorted symbols in Go vulndb's spelling: `Parse`, `Tokenizer.Next` (a method, pointer receiver or not). Closures,
 * method-value wrappers and type arguments are folded into the function they belong to. Relative keys keep the
 * index valid for a module replaced by a fork, whose advisories name the fork's import paths.
 *
 * Bounds: a module whose symbol text exceeds MAX_SYMBOL_BYTES keeps its package list only (each package's symbols
 * `null`: "compiled in, symbols not kept"), and one with more than MAX_PACKAGES packages gets no index at all; both
 * make reachability unknown rather than wrong.
 */
import { gunzipSync, gzipSync } from 'node:zlib';

export interface GoSymbolIndex {
  packages: Record<string, string[] | null>;
}

export const MAX_SYMBOL_BYTES = 2 * 1024 * 1024;
export const MAX_PACKAGES = 20_000;
/** A stored index never inflates beyond this (decoding untrusted or corrupt rows must stay bounded too). */
const MAX_STORED_BYTES = 4 * MAX_SYMBOL_BYTES;

/** `a[b[c]]d` -> `ad`: type arguments of generic functions and methods. */
function withoutTypeArguments(name: string): string {
  let open = name.indexOf('[');
  if (open < 0) return name;
  let out = '';
  let from = 0;
  while (open >= 0) {
    out += name.slice(from, open);
    let depth = 0;
    let i = open;
    for (; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c === 0x5b) depth++;
      else if (c === 0x5d && --depth === 0) break;
    }
    from = i + 1;
    open = name.indexOf('[', from);
  }
  return from < name.length ? out + name.slice(from) : out;
}

/** The linker escapes `.`, `%` and control characters of an import path's last element as %xx. */
function unescapePath(path: string): string {
  return path.includes('%') ? path.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : path;
}

/** Trailing name parts the compiler adds to a function for its closures and wrappers. */
const GENERATED_PART = /^(func\d+|gowrap\d+|deferwrap\d+|\d+)$/;

/** Whether a name part may be compiler-generated: it ends in a digit (checked before the regular expression). */
function generatedPart(part: string): boolean {
  const last = part.charCodeAt(part.length - 1);
  return last >= 0x30 && last <= 0x39 && GENERATED_PART.test(part);
}

/**
 * A pclntab function name split into import path and symbol in vulndb's spelling:
 * `net/http.(*Server).Serve-fm` -> `net/http` + `Server.Serve`; `gopkg.in/yaml%2ev3.Unmarshal.func1` ->
 * `gopkg.in/yaml.v3` + `Unmarshal`. Runtime-generated names (`type:.eq.T`, `go:buildid`) give undefined.
 */
export function splitGoFunctionName(raw: string): { pkg: string; symbol: string } | undefined {
  const name = withoutTypeArguments(raw);
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  if (dot <= 0 || dot === name.length - 1) return undefined;
  const pkg = unescapePath(name.slice(0, dot));
  if (pkg.includes(':') || pkg === 'go') return undefined;
  let symbol = name.slice(dot + 1);
  if (symbol.endsWith('-fm')) symbol = symbol.slice(0, -3);
  if (symbol.includes('(')) symbol = symbol.replace(/\(\*([^)]*)\)/g, '$1');
  for (let cut = symbol.lastIndexOf('.'); cut > 0 && generatedPart(symbol.slice(cut + 1)); cut = symbol.lastIndexOf('.')) symbol = symbol.slice(0, cut);
  return symbol ? { pkg, symbol } : undefined;
}

/** Whether an import path belongs to the standard library (no dot in its first element; `main` is the program). */
function isStdlibPath(pkg: string): boolean {
  const first = pkg.split('/', 1)[0]!;
  return !first.includes('.') && pkg !== 'main';
}

/** The module (of those given) holding an import path: the longest module path that is the path or a prefix of it. */
function owningModule(pkg: string, modules: ReadonlySet<string>): string | undefined {
  for (let p = pkg; p; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
    if (modules.has(p)) return p;
    if (!p.includes('/')) break;
  }
  return undefined;
}

/** The key `stdlib` is the standard library (what the Go cataloger names its package). */
export const STDLIB_MODULE = 'stdlib';

/**
 * Indexes per module path (the paths as imported, i.e. before replacements) of a binary's function names, plus
 * `stdlib` for the standard library. Modules with no function in the binary get an index with no packages.
 */
export function goSymbolIndexes(functionNames: readonly string[], modulePaths: readonly string[]): Map<string, GoSymbolIndex | undefined> {
  const modules = new Set(modulePaths);
  const byModule = new Map<string, Map<string, Set<string>>>();
  for (const m of [...modules, STDLIB_MODULE]) byModule.set(m, new Map());
  const ownerOfPkg = new Map<string, { module: string; rel: string } | null>();
  for (const raw of functionNames) {
    const split = splitGoFunctionName(raw);
    if (!split) continue;
    let owner = ownerOfPkg.get(split.pkg);
    if (owner === undefined) {
      const m = owningModule(split.pkg, modules);
      owner = m !== undefined ? { module: m, rel: split.pkg === m ? '' : split.pkg.slice(m.length + 1) } : isStdlibPath(split.pkg) ? { module: STDLIB_MODULE, rel: split.pkg } : null;
      ownerOfPkg.set(split.pkg, owner);
    }
    if (!owner) continue;
    const packages = byModule.get(owner.module)!;
    let symbols = packages.get(owner.rel);
    if (!symbols) packages.set(owner.rel, (symbols = new Set()));
    symbols.add(split.symbol);
  }
  const out = new Map<string, GoSymbolIndex | undefined>();
  for (const [module, packages] of byModule) out.set(module, boundedIndex(packages));
  return out;
}

function boundedIndex(packages: Map<string, Set<string>>): GoSymbolIndex | undefined {
  if (packages.size > MAX_PACKAGES) return undefined;
  let bytes = 0;
  for (const symbols of packages.values()) for (const s of symbols) bytes += s.length + 3;
  const keepSymbols = bytes <= MAX_SYMBOL_BYTES;
  const index: GoSymbolIndex = { packages: {} };
  for (const rel of [...packages.keys()].sort()) index.packages[rel] = keepSymbols ? [...packages.get(rel)!].sort() : null;
  return index;
}

export function encodeGoSymbols(index: GoSymbolIndex): Buffer {
  return gzipSync(JSON.stringify(index));
}

/** The stored index, or undefined for a row without one or one that does not read back (treated as unknown). */
export function decodeGoSymbols(stored: Buffer | Uint8Array | null | undefined): GoSymbolIndex | undefined {
  if (!stored || stored.length === 0) return undefined;
  try {
    const value = JSON.parse(gunzipSync(stored, { maxOutputLength: MAX_STORED_BYTES }).toString('utf8')) as unknown;
    const packages = (value as { packages?: unknown } | null)?.packages;
    if (!packages || typeof packages !== 'object' || Array.isArray(packages)) return undefined;
    return { packages: packages as Record<string, string[] | null> };
  } catch {
    return undefined;
  }
}
