/**
 * Sorting declared license strings into what SBOM formats can say about them: a listed SPDX identifier, a valid
 * SPDX expression, or a free-form name. Catalogers keep licenses as declared ("MIT", "mit", "GPLv2+",
 * "MIT and BSD"), and both CycloneDX and SPDX reject documents that pass free text off as SPDX, so this is the one
 * place that decides. Nothing is guessed: "BSD" stays a name rather than becoming some BSD-n-Clause.
 */
import { createRequire } from 'node:module';
import parseSpdx from 'spdx-expression-parse';

export type LicenseChoice =
  /** One listed SPDX license identifier, no `+` or exception. */
  | { kind: 'id'; id: string }
  /** A valid SPDX expression in canonical form (upper-case operators, listed ids spelled as listed). */
  | { kind: 'expression'; expression: string }
  /** Anything else, exactly as declared. */
  | { kind: 'name'; name: string };

// spdx-license-ids ships JSON only; createRequire reads it without depending on JSON-module import support.
const require = createRequire(import.meta.url);
const LISTED_IDS: string[] = [...(require('spdx-license-ids') as string[]), ...(require('spdx-license-ids/deprecated.json') as string[])];
const LISTED = new Set(LISTED_IDS);
const BY_LOWER = new Map(LISTED_IDS.map((id) => [id.toLowerCase(), id]));

export function isListedLicenseId(id: string): boolean {
  return LISTED.has(id);
}

function render(node: parseSpdx.Info, parent?: 'and' | 'or'): string {
  if ('license' in node) return `${node.license}${node.plus ? '+' : ''}${node.exception ? ` WITH ${node.exception}` : ''}`;
  const text = `${render(node.left, node.conjunction)} ${node.conjunction.toUpperCase()} ${render(node.right, node.conjunction)}`;
  // Parentheses only where the operator changes, which is where precedence (AND binds tighter) could mislead.
  return parent && parent !== node.conjunction ? `(${text})` : text;
}

/**
 * Longer declared licenses are names, never parsed: real SPDX expressions are a few hundred characters at most,
 * and the parser's time grows faster than linearly with the number of terms (seconds for some ten thousand).
 */
const MAX_EXPRESSION_LENGTH = 1000;

function tryParse(value: string): parseSpdx.Info | undefined {
  if (value.length > MAX_EXPRESSION_LENGTH) return undefined;
  try {
    return parseSpdx(value);
  } catch {
    return undefined;
  }
}

/** "mit or apache-2.0" -> "MIT OR Apache-2.0": fixes only the case of listed ids and operators, nothing else. */
function fixCase(value: string): string {
  return value.replace(/[A-Za-z0-9.:-]+/g, (token) => {
    const lower = token.toLowerCase();
    if (lower === 'and' || lower === 'or' || lower === 'with') return lower.toUpperCase();
    return BY_LOWER.get(lower) ?? token;
  });
}

/** A DocumentRef points into another SPDX document, which an SBOM made from an image never has. */
function refersToOtherDocuments(node: parseSpdx.Info): boolean {
  if ('license' in node) return node.license.startsWith('DocumentRef-');
  return refersToOtherDocuments(node.left) || refersToOtherDocuments(node.right);
}

/** Placeholders metadata uses for "no license information", which no format should present as a license. */
const NO_INFORMATION = new Set(['', 'noassertion', 'none', 'unknown']);

export function classifyLicense(declared: string): LicenseChoice | undefined {
  const value = declared.trim();
  if (NO_INFORMATION.has(value.toLowerCase())) return undefined;
  const tree = tryParse(value) ?? tryParse(fixCase(value));
  if (!tree || refersToOtherDocuments(tree)) return { kind: 'name', name: value };
  if ('license' in tree && !tree.plus && !tree.exception && LISTED.has(tree.license)) return { kind: 'id', id: tree.license };
  return { kind: 'expression', expression: render(tree) };
}

/** Whether the string is a valid SPDX expression as written (what consumers of our documents will check). */
export function isValidSpdxExpression(value: string): boolean {
  return tryParse(value) !== undefined;
}

/** `A AND B` of valid expressions, each parenthesised when compound, duplicates dropped. */
export function conjoin(expressions: readonly string[]): string {
  const unique = [...new Set(expressions)];
  if (unique.length === 1) return unique[0]!;
  return unique.map((e) => (/\s/.test(e) ? `(${e})` : e)).join(' AND ');
}

/** LicenseRef ids an expression uses (they must be defined wherever the expression is used in SPDX). */
export function licenseRefsIn(expression: string): string[] {
  const tree = tryParse(expression);
  const refs: string[] = [];
  const walk = (node: parseSpdx.Info): void => {
    if ('license' in node) {
      if (node.license.startsWith('LicenseRef-')) refs.push(node.license);
    } else {
      walk(node.left);
      walk(node.right);
    }
  };
  if (tree) walk(tree);
  return refs;
}
