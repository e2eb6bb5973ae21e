/**
 * Issue 14, item 1: the walk that measures a query's cost and depth visits each fragment once, so its work grows
 * with the document, not with what the fragments expand to (the old walk re-expanded every spread: 2^N for a chain
 * of N fragments each spreading the previous one twice). Also: cycles end the walk, the text limits hold before
 * parsing, the standard introspection query fits, and the answer's size estimate stops at its bound.
 */
import { getIntrospectionQuery, GraphQLError, Kind, parse, visit, type DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkDocumentLimits, parseReportDocument, QUERY_LIMITS } from '../../src/reports/graphql/limits.js';
import { estimatedJsonBytes } from '../../src/reports/graphql/response-size.js';

/** N fragments, each spreading the previous one `width` times, and an operation spreading the last. */
function fragmentBomb(n: number, width = 2): string {
  const defs = ['fragment F0 on Query { reportingStatus { pendingChanges } }'];
  for (let i = 1; i < n; i++) defs.push(`fragment F${i} on Query { ${`...F${i - 1} `.repeat(width)}}`);
  return `${defs.join('\n')}\n{ ...F${n - 1} }`;
}

/** Selections (fields, spreads, inline fragments) written in the document. */
function selectionCount(document: DocumentNode): number {
  let count = 0;
  visit(document, { enter: (node) => void ([Kind.FIELD, Kind.FRAGMENT_SPREAD, Kind.INLINE_FRAGMENT].includes(node.kind) && count++) });
  return count;
}

const codes = (errors: readonly { extensions: Record<string, unknown> }[]) => errors.map((e) => e.extensions.code);

describe('the cost walk', () => {
  it('does work linear in the document for fragment bombs (N = 10, 20, 30, 40)', () => {
    const limits = { ...QUERY_LIMITS, maxFragments: 100 };
    const sizes = [10, 20, 30, 40];
    const checks = sizes.map((n) => {
      const document = parse(fragmentBomb(n));
      return { ...checkDocumentLimits(document, limits), selections: selectionCount(document) };
    });
    for (const check of checks) {
      expect(codes(check.errors)).toEqual(['QUERY_TOO_COSTLY']);
      expect(check.visited).toBeGreaterThan(0);
      expect(check.visited).toBeLessThanOrEqual(2 * check.selections);
    }
    // Each ten more fragments add the same work (the expansion doubles 10 times over each step).
    const steps = checks.slice(1).map((c, i) => c.visited - checks[i].visited);
    expect(new Set(steps).size).toBe(1);
    expect(steps[0]).toBeLessThan(100);
  });

  it('does work linear in the document for wide fragments and unused ones too', () => {
    for (const width of [3, 10]) {
      const document = parse(fragmentBomb(12, width));
      const check = checkDocumentLimits(document);
      expect(codes(check.errors)).toEqual(['QUERY_TOO_COSTLY']);
      expect(check.visited).toBeLessThanOrEqual(2 * selectionCount(document));
    }
    const unused = parse(fragmentBomb(40).replace(/\{ \.\.\.F39 \}$/, '{ reportingStatus { pendingChanges } }'));
    const check = checkDocumentLimits(unused);
    expect(check.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^fragment F\d+ is too costly/)]);
    expect(check.visited).toBeLessThanOrEqual(2 * selectionCount(unused));
  });

  it('ends on fragments that spread themselves, directly or through others', () => {
    for (const query of [
      'fragment A on Query { ...A } { ...A }',
      'fragment A on Query { ...B } fragment B on Query { ...A reportingStatus { pendingChanges } } { ...A }',
      'fragment A on ReportingStatus { pendingChanges ... on ReportingStatus { ...A } } { reportingStatus { ...A } }',
      'fragment A on Query { reportingStatus { ...B } } fragment B on ReportingStatus { ...C } fragment C on ReportingStatus { pendingChanges ...B } { ...A }',
    ]) {
      const check = checkDocumentLimits(parse(query));
      expect(check.errors.map((e) => e.message).join('\n'), query).toMatch(/Cannot spread fragment "\w+" within itself/);
      expect(check.visited).toBeLessThanOrEqual(10);
    }
  });

  it('counts introspection fields and lets the standard introspection query through', () => {
    for (const options of [{}, { inputValueDeprecation: true, schemaDescription: true }, { descriptions: false }, { specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true, schemaDescription: true, oneOf: true }])
      expect(checkDocumentLimits(parseReportDocument(getIntrospectionQuery(options))).errors, JSON.stringify(options)).toEqual([]);
    const typenames = `{ reportingStatus { ${Array.from({ length: 999 }, () => '__typename').join(' ')} } }`;
    expect(codes(checkDocumentLimits(parse(typenames)).errors)).toEqual(['QUERY_TOO_COSTLY']);
    const twice = checkDocumentLimits(parse('fragment S on Query { __schema { queryType { name } } } { ...S ...S }'));
    expect(codes(twice.errors)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('counts aliases, fragments and operations written in the document', () => {
    const aliases = `{ reportingStatus { ${Array.from({ length: 101 }, (_, i) => `a${i}: pendingChanges`).join(' ')} } }`;
    expect(checkDocumentLimits(parse(aliases))).toEqual({ errors: [expect.objectContaining({ message: 'query document has 101 aliases; at most 100 are allowed' })], visited: 0 });
    expect(checkDocumentLimits(parse(fragmentBomb(51))).errors.map((e) => e.message)).toEqual(['query document has 51 fragments; at most 50 are allowed']);
    const operations = Array.from({ length: 21 }, (_, i) => `query Q${i} { reportingStatus { pendingChanges } }`).join('\n');
    expect(codes(checkDocumentLimits(parse(operations)).errors)).toEqual(['QUERY_TOO_COMPLEX']);
  });
});

describe('the query text', () => {
  const codeOf = (text: string) => {
    try {
      parseReportDocument(text);
      return 'parsed';
    } catch (err) {
      return (err as { extensions?: Record<string, unknown> }).extensions?.code ?? (err as Error).message;
    }
  };

  it('is refused past its length, tokens or nesting, before the parser recurses into it', () => {
    expect(codeOf(`{ reportingStatus { pendingChanges } }${' '.repeat(QUERY_LIMITS.maxDocumentLength)}`)).toBe('DOCUMENT_TOO_LARGE');
    expect(codeOf(`{ ${'a '.repeat(QUERY_LIMITS.maxDocumentTokens)} }`)).toBe('DOCUMENT_TOO_LARGE');
    // Thousands of levels would overflow graphql-js's recursive parser (a RangeError).
    expect(codeOf(`{ a(x: ${'['.repeat(4000)}${']'.repeat(4000)}) }`)).toBe('QUERY_TOO_DEEP');
    expect(codeOf(`{ ${'a { '.repeat(3000)}b${' }'.repeat(3000)} }`)).toBe('QUERY_TOO_DEEP');
    expect(codeOf('{ reportingStatus { pendingChanges }')).toMatch(/^Syntax Error/);
    expect(codeOf('{ reportingStatus { pendingChanges } }')).toBe('parsed');
  });
});

describe('the answer size estimate', () => {
  it('is the JSON length of results (in characters, escapes not counted)', () => {
    const result = { data: { a: [1, 2.5, true, null, 'x', { b: [], c: {} }], d: 'text', e: [] }, errors: [{ message: 'm', path: ['a', 0] }] };
    expect(estimatedJsonBytes(result)).toBe(JSON.stringify(result).length);
    expect(estimatedJsonBytes({ s: 'é€😀' })).toBe(JSON.stringify({ s: 'é€😀' }).length);
    const error = new GraphQLError('too large', { extensions: { code: 'X' } });
    expect(estimatedJsonBytes({ errors: [error] })).toBe(JSON.stringify({ errors: [error] }).length);
    const withJson = { at: new Date(0), skipped: undefined };
    expect(estimatedJsonBytes(withJson)).toBe(JSON.stringify(withJson).length);
  });

  it('stops soon after passing its bound', () => {
    const big = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `item ${i}` }));
    const full = estimatedJsonBytes(big);
    expect(full).toBe(JSON.stringify(big).length);
    // The list's commas count at once; no item is walked after that.
    const bounded = estimatedJsonBytes(big, 1000);
    expect(bounded).toBe(2 + 99_999);
    const nested = estimatedJsonBytes({ a: { b: { c: big } } }, 10);
    expect(nested).toBeGreaterThan(10);
    expect(nested).toBeLessThan(20);
  });
});
