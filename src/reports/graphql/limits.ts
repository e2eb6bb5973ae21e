/**
 * Limits on report query documents, and the validation that applies them. The limits run before graphql-js's own
 * rules, which are themselves super-linear on fragment and alias bombs (OverlappingFieldsCanBeMerged above all), so
 * an abusive document is refused at once, without ever reaching them:
 * - the text: its characters, tokens and nesting of brackets (`parseReportDocument`);
 * - the document: at most so many operations, fragment definitions and aliases;
 * - each operation, and each fragment no operation uses: depth and cost of the selection as it would run, fragments
 *   expanded. Each fragment is measured once (as a top-level and as a nested selection) and its measure reused, so
 *   the walk's work is linear in the document however often fragments spread one another.
 * Introspection fields count like any other; `__schema` is allowed once per operation, and the standard
 * introspection query (GraphiQL's) fits these limits.
 */
import {
  GraphQLError,
  getNamedType,
  Kind,
  Lexer,
  parse,
  print,
  Source,
  specifiedRules,
  TokenKind,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { isoFromUtcTimestamp, UTC_TIMESTAMP_HINT } from './scalars.js';

export interface QueryLimits {
  /** Characters of query text. */
  maxDocumentLength: number;
  maxDocumentTokens: number;
  /** Brackets (`{`, `[`, `(`) open at once. */
  maxNesting: number;
  maxOperations: number;
  maxFragments: number;
  /** Aliases written in the document (expanded ones are paid for by the cost). */
  maxAliases: number;
  /** Levels of fields selecting data. */
  maxDepth: number;
  /** Levels of fields in a `__schema` or `__type` selection (the standard introspection query needs 15). */
  maxIntrospectionDepth: number;
  /** Each field costs 1; each top-level field (a report reads a page of data) REPORT_FIELD_COST more. */
  maxCost: number;
  /** `__schema` selections per operation, fragments expanded. */
  maxSchemaSelections: number;
}

const REPORT_FIELD_COST = 100;

export const QUERY_LIMITS: Readonly<QueryLimits> = {
  maxDocumentLength: 100_000,
  maxDocumentTokens: 10_000,
  maxNesting: 64,
  maxOperations: 20,
  maxFragments: 50,
  maxAliases: 100,
  maxDepth: 12,
  maxIntrospectionDepth: 20,
  maxCost: 1000,
  maxSchemaSelections: 1,
};

const limitError = (code: string, message: string, node?: OperationDefinitionNode | FragmentDefinitionNode) =>
  new GraphQLError(message, { nodes: node ? [node] : undefined, extensions: { code } });

/**
 * Parses query text within the limits on its size, its tokens and how deeply its brackets nest: the text is
 * lexed once to count them before graphql-js parses it, as its parser recurses once per level and would run out
 * of stack on a few thousand levels.
 */
export function parseReportDocument(source: string | Source, limits: QueryLimits = QUERY_LIMITS): DocumentNode {
  const text = typeof source === 'string' ? new Source(source) : source;
  if (text.body.length > limits.maxDocumentLength)
    throw limitError('DOCUMENT_TOO_LARGE', `query document is too large: ${text.body.length} characters; at most ${limits.maxDocumentLength} are allowed`);
  scanTokens(text, limits);
  return parse(text);
}

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Throws when the text has too many tokens or nests too deeply; a lexical error is left to the parser to report. */
function scanTokens(text: Source, limits: QueryLimits): void {
  const lexer = new Lexer(text);
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > limits.maxDocumentTokens)
        throw limitError('DOCUMENT_TOO_LARGE', `query document is too large: more than ${limits.maxDocumentTokens} tokens; at most ${limits.maxDocumentTokens} are allowed`);
      if (OPENING.has(token.kind) && ++nesting > limits.maxNesting)
        throw limitError('QUERY_TOO_DEEP', `query document is too deep: more than ${limits.maxNesting} levels of brackets; at most ${limits.maxNesting} are allowed`);
      if (CLOSING.has(token.kind)) nesting--;
    }
  } catch (err) {
    if (err instanceof GraphQLError && err.extensions.code) throw err;
  }
}

/** What a selection amounts to once its fragments are expanded. Depths are relative to the selection. */
interface Measure {
  cost: number;
  depth: number;
  introspectionDepth: number;
  schemaSelections: number;
}

const NOTHING: Measure = { cost: 0, depth: 0, introspectionDepth: 0, schemaSelections: 0 };

const isIntrospectionRoot = (name: string) => name === '__schema' || name === '__type';

/** Measures selections with each fragment's measure computed once; `visited` counts the selections walked. */
class SelectionMeasurer {
  visited = 0;
  /** Fragment definitions measured through a spread. */
  readonly reached = new Set<FragmentDefinitionNode>();
  /** Fragments found spreading themselves (their cycle measures as nothing). */
  readonly cyclic = new Set<string>();
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly measured = new Map<string, Measure>();
  private readonly inProgress = new Set<string>();

  constructor(document: DocumentNode) {
    // The last definition of a name wins, as in graphql-js; duplicates are its rules' error.
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(d.name.value, d);
  }

  /** `topLevel`: the selection is an operation's own, where each field is a report. */
  selections(set: SelectionSetNode, topLevel: boolean): Measure {
    let cost = 0;
    let depth = 0;
    let introspectionDepth = 0;
    let schemaSelections = 0;
    for (const selection of set.selections) {
      this.visited++;
      let m: Measure;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const inner = selection.selectionSet ? this.selections(selection.selectionSet, false) : NOTHING;
        m = {
          cost: 1 + (topLevel ? REPORT_FIELD_COST : 0) + inner.cost,
          depth: isIntrospectionRoot(name) ? 0 : 1 + inner.depth,
          introspectionDepth: isIntrospectionRoot(name) ? 1 + Math.max(inner.depth, inner.introspectionDepth) : inner.introspectionDepth && 1 + inner.introspectionDepth,
          schemaSelections: inner.schemaSelections + (name === '__schema' ? 1 : 0),
        };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        m = this.selections(selection.selectionSet, topLevel);
      } else {
        m = this.fragment(selection.name.value, topLevel);
      }
      cost += m.cost;
      depth = Math.max(depth, m.depth);
      introspectionDepth = Math.max(introspectionDepth, m.introspectionDepth);
      schemaSelections += m.schemaSelections;
    }
    return { cost, depth, introspectionDepth, schemaSelections };
  }

  private fragment(name: string, topLevel: boolean): Measure {
    const definition = this.fragments.get(name);
    if (!definition) return NOTHING; // an unknown fragment is graphql-js's rules' error
    const key = `${topLevel ? 'top' : 'nested'} ${name}`;
    const known = this.measured.get(key);
    if (known) return known;
    if (this.inProgress.has(key)) {
      this.cyclic.add(name);
      return NOTHING;
    }
    this.inProgress.add(key);
    this.reached.add(definition);
    const m = this.selections(definition.selectionSet, topLevel);
    this.inProgress.delete(key);
    this.measured.set(key, m);
    return m;
  }
}

/** Aliases written in the document, counted without recursion. */
function countAliases(document: DocumentNode): number {
  let aliases = 0;
  const sets: SelectionSetNode[] = [];
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) sets.push(d.selectionSet);
  for (let set = sets.pop(); set; set = sets.pop())
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD && s.alias) aliases++;
      if (s.kind !== Kind.FRAGMENT_SPREAD && s.selectionSet) sets.push(s.selectionSet);
    }
  return aliases;
}

function checkMeasure(m: Measure, limits: QueryLimits, node: OperationDefinitionNode | FragmentDefinitionNode): GraphQLError[] {
  const what = node.kind === Kind.FRAGMENT_DEFINITION ? `fragment ${node.name.value}` : 'query';
  const errors: GraphQLError[] = [];
  if (m.depth > limits.maxDepth)
    errors.push(limitError('QUERY_TOO_DEEP', `${what} is too deep: ${m.depth} levels; at most ${limits.maxDepth} are allowed`, node));
  if (m.introspectionDepth > limits.maxIntrospectionDepth)
    errors.push(limitError('QUERY_TOO_DEEP', `${what} is too deep: ${m.introspectionDepth} levels of introspection; at most ${limits.maxIntrospectionDepth} are allowed`, node));
  if (m.cost > limits.maxCost)
    errors.push(
      limitError(
        'QUERY_TOO_COSTLY',
        `${what} is too costly: cost ${m.cost}, at most ${limits.maxCost} (each field costs 1, each top-level field ${REPORT_FIELD_COST + 1}); split it into several queries`,
        node,
      ),
    );
  if (m.schemaSelections > limits.maxSchemaSelections)
    errors.push(limitError('QUERY_TOO_COMPLEX', `${what} selects __schema ${m.schemaSelections} times; at most ${limits.maxSchemaSelections} per query`, node));
  return errors;
}

export interface LimitCheck {
  errors: GraphQLError[];
  /** Selections the measuring walk visited: linear in the document, whatever its fragments expand to. */
  visited: number;
}

/** Checks a parsed document against the limits; cheap (linear) whatever the document holds. */
export function checkDocumentLimits(document: DocumentNode, limits: QueryLimits = QUERY_LIMITS): LimitCheck {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  const aliases = countAliases(document);
  const counts: [number, number, string][] = [
    [operations.length, limits.maxOperations, 'operations'],
    [fragments.length, limits.maxFragments, 'fragments'],
    [aliases, limits.maxAliases, 'aliases'],
  ];
  const errors = counts
    .filter(([n, max]) => n > max)
    .map(([n, max, what]) => limitError('QUERY_TOO_COMPLEX', `query document has ${n} ${what}; at most ${max} are allowed`));
  if (errors.length) return { errors, visited: 0 };

  const measurer = new SelectionMeasurer(document);
  for (const operation of operations) errors.push(...checkMeasure(measurer.selections(operation.selectionSet, true), limits, operation));
  // Fragments no operation reached (unused, or a duplicate name) are still validated, so they are limited too.
  for (const fragment of fragments) {
    if (measurer.reached.has(fragment)) continue;
    const fragmentErrors = checkMeasure(measurer.selections(fragment.selectionSet, false), limits, fragment);
    errors.push(...fragmentErrors);
    if (fragmentErrors.length) break; // one is enough: a bomb's every fragment past the limit would say the same
  }
  for (const name of measurer.cyclic)
    errors.push(new GraphQLError(`Cannot spread fragment "${name}" within itself.`, { nodes: fragments.filter((f) => f.name.value === name) }));
  return { errors, visited: measurer.visited };
}

/** Where a literal sits: `filter.vulnerability.after` for an argument, `$since` for a variable's default value. */
function literalLocation(ancestors: readonly unknown[]): string {
  const names: string[] = [];
  for (const a of ancestors) {
    if (Array.isArray(a) || typeof a !== 'object' || a === null || !('kind' in a)) continue;
    const node = a as { kind: Kind; name?: { value: string }; variable?: { name: { value: string } } };
    if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.push(node.name!.value);
    else if (node.kind === Kind.VARIABLE_DEFINITION) names.push(`$${node.variable!.name.value}`);
  }
  return names.join('.');
}

/**
 * Reports UtcTimestamp literals that are not one (a malformed string, a number, ...) as `<where>: ...`, e.g.
 * `filter.vulnerability.after: ...`: the scalar's parseLiteral leaves them to this rule, so each is reported once,
 * with its location and the argument it is for.
 */
export const timestampArguments: ValidationRule = (context) => {
  const check = (node: ValueNode, parent: unknown, ancestors: readonly unknown[]) => {
    const type = context.getInputType();
    if (!type || getNamedType(type).name !== 'UtcTimestamp') return;
    if (node.kind === Kind.STRING && isoFromUtcTimestamp(node.value)) return;
    const where = literalLocation([...ancestors, parent]);
    const what = node.kind === Kind.STRING ? JSON.stringify(node.value) : print(node);
    context.reportError(
      new GraphQLError(`${where}: ${what} is not a UTC timestamp; ${UTC_TIMESTAMP_HINT}`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT', argument: where } }),
    );
  };
  const visit = { enter: (node: ValueNode, _key: unknown, parent: unknown, _path: unknown, ancestors: readonly unknown[]) => check(node, parent, ancestors) };
  return { StringValue: visit, IntValue: visit, FloatValue: visit, BooleanValue: visit, EnumValue: visit, ListValue: visit, ObjectValue: visit };
};

/** graphql-js's rules and this service's timestamp rule. */
export const REPORT_VALIDATION_RULES: readonly ValidationRule[] = [...specifiedRules, timestampArguments];

/**
 * How the endpoint and scheduled queries validate a report document: the limits first, and only a document within
 * them goes through graphql-js's rules.
 */
export function validateReportDocument(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
  const { errors } = checkDocumentLimits(document);
  return errors.length ? errors : validate(schema, document, REPORT_VALIDATION_RULES);
}
