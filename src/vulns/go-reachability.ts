/**
 * Go matching precision (issue 16, class 2), a step after matching for Go module packages:
 *
 * - Confidence. Go vulndb publishes many records it has not reviewed (`database_specific.review_status:
 *   "UNREVIEWED"`, mostly imported from GHSA/NVD without affected packages or symbols). They are kept, but their
 *   findings get `confidence: low`; every other finding is `high`. The default policy only warns on low ones.
 * - Reachability. When an affected entry names the packages and symbols that hold the flaw
 *   (`ecosystem_specific.imports[].path` and `.symbols`), the binary's symbol index (stored at cataloging time,
 *   ecosystems/go/symbols.ts) decides: none of them compiled in, no finding (suppressed as
 *   `not-reachable`). Without imports, without an index (an imported SBOM, a pre-1.16 binary's limits, an index
 *   over its bounds) or for an import path outside the module, the verdict is `unknown` and the finding stays.
 *
 * Matching itself (match-package.ts) is untouched: this reads the matched records by (feed, id) and filters.
 */
import type { GoSymbolIndex } from '../ecosystems/go/symbols.js';
import { STDLIB_MODULE } from '../ecosystems/go/symbols.js';
import type { MatchablePackage } from '../ecosystems/shared/lookup.js';
import type { PackageMatch } from './match-package.js';
import { registerSuppressionReason, type SuppressionReason } from './match-explain.js';
import type { OsvAffected, OsvRecord } from './osv/types.js';
import { normalizePackageName } from '../ecosystems/registry.js';
import { recordKey, type VulnerabilityProvider } from './vulnerability-provider.js';

export type Confidence = 'high' | 'low';
export const CONFIDENCE_LEVELS: readonly Confidence[] = ['high', 'low'];

export type GoReachability = 'reachable' | 'not-reachable' | 'unknown';

/** Not a candidate rule: it needs the binary's symbol index, which matching (shared across images) does not have. */
export const NOT_REACHABLE: SuppressionReason = {
  reason: 'not-reachable',
  description:
    "A Go advisory that names the affected packages and symbols, none of which the binary's symbol table holds: the vulnerable code is not compiled in.",
};
registerSuppressionReason(NOT_REACHABLE);

/** A match left out, and why; the debug view lists these (its reasons are an open list). */
export interface SuppressedMatch {
  packageIndex: number;
  vulnId: string;
  feed: string;
  reason: 'not-reachable';
}

export type ConfidentMatch = PackageMatch & { confidence: Confidence };

/** Whether a record's publisher marked it as not reviewed (Go vulndb's `review_status`). */
export function isUnreviewed(record: Pick<OsvRecord, 'databaseSpecific'>): boolean {
  const status = record.databaseSpecific?.['review_status'];
  return typeof status === 'string' && status.toUpperCase() === 'UNREVIEWED';
}

/** vulndb writes methods as `T.M`; a `(*T).M` spelling is read the same way. */
function symbolKey(symbol: string): string {
  return symbol.replace(/\(\*([^)]*)\)/g, '$1');
}

function includesSorted(list: readonly string[], value: string): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = list[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The verdict for one affected entry against a module package's symbol index. `modulePath` is the package's name
 * as cataloged (`stdlib` for the standard library): import paths are looked up relative to it.
 */
export function goReachability(index: GoSymbolIndex | undefined, modulePath: string, affected: OsvAffected): GoReachability {
  const imports = affected.ecosystemSpecific?.['imports'];
  if (!Array.isArray(imports) || imports.length === 0 || !index) return 'unknown';
  for (const entry of imports as unknown[]) {
    const path = (entry as { path?: unknown } | null)?.path;
    if (typeof path !== 'string' || path === '') return 'unknown';
    const rel = modulePath === STDLIB_MODULE ? path : path === modulePath ? '' : path.startsWith(`${modulePath}/`) ? path.slice(modulePath.length + 1) : undefined;
    if (rel === undefined) return 'unknown';
    if (!Object.hasOwn(index.packages, rel)) continue;
    const present = index.packages[rel];
    const symbols = (entry as { symbols?: unknown }).symbols;
    // A package compiled in with no symbols named, or whose symbols were not kept (bounds): cannot rule it out.
    if (!Array.isArray(symbols) || symbols.length === 0 || !Array.isArray(present)) return 'reachable';
    if (symbols.some((s) => typeof s !== 'string' || includesSorted(present, symbolKey(s)))) return 'reachable';
  }
  return 'not-reachable';
}

/** The verdict over every entry of a record for this module: not reachable only when no entry can be reached. */
function recordReachability(record: OsvRecord, index: GoSymbolIndex | undefined, pkg: MatchablePackage, matchedName: string): GoReachability {
  const entries = record.affected.filter(
    (a) => a.package && a.package.ecosystem.ecosystem.toLowerCase() === 'go' && normalizePackageName('go', a.package.name) === matchedName,
  );
  if (entries.length === 0) return 'unknown';
  const verdicts = entries.map((a) => goReachability(index, pkg.name, a));
  if (verdicts.includes('reachable')) return 'reachable';
  return verdicts.every((v) => v === 'not-reachable') ? 'not-reachable' : 'unknown';
}

/** Whether any entry of the record names affected imports (only then is a symbol index worth reading). */
function namesImports(record: OsvRecord): boolean {
  return record.affected.some((a) => Array.isArray(a.ecosystemSpecific?.['imports']) && (a.ecosystemSpecific!['imports'] as unknown[]).length > 0);
}

/**
 * Confidence for every match, and Go matches whose record names affected symbols none of which the binary holds
 * left out. `symbolsOf` reads a package's stored index; it is asked only for Go packages with such a match.
 */
export async function refineGoMatches(
  provider: VulnerabilityProvider,
  packages: readonly MatchablePackage[],
  matches: readonly PackageMatch[][],
  symbolsOf: (pkg: MatchablePackage, index: number) => Promise<GoSymbolIndex | undefined>,
): Promise<{ matches: ConfidentMatch[][]; suppressed: SuppressedMatch[] }> {
  const keys = packages.flatMap((p, i) => (p.type === 'go' ? matches[i]!.map((m) => ({ feed: m.feed, id: m.vulnId })) : []));
  const records = await provider.records(keys);
  const suppressed: SuppressedMatch[] = [];
  const refined: ConfidentMatch[][] = [];
  for (let i = 0; i < packages.length; i++) {
    const pkg = packages[i]!;
    if (pkg.type !== 'go') {
      refined.push(matches[i]!.map((m) => ({ ...m, confidence: 'high' })));
      continue;
    }
    let index: GoSymbolIndex | undefined;
    let indexRead = false;
    const kept: ConfidentMatch[] = [];
    for (const m of matches[i]!) {
      const record = records.get(recordKey({ feed: m.feed, id: m.vulnId }));
      if (record && namesImports(record)) {
        if (!indexRead) {
          index = await symbolsOf(pkg, i);
          indexRead = true;
        }
        if (recordReachability(record, index, pkg, m.matchedName) === 'not-reachable') {
          suppressed.push({ packageIndex: i, vulnId: m.vulnId, feed: m.feed, reason: 'not-reachable' });
          continue;
        }
      }
      kept.push({ ...m, confidence: record && isUnreviewed(record) ? 'low' : 'high' });
    }
    refined.push(kept);
  }
  return { matches: refined, suppressed };
}
