/**
 * Validation rules beyond the GraphQL standard ones: query depth and cost limits (checked before anything runs,
 * so an abusive query gets an error, never a timeout) and timestamp literals reported with the argument's name.
 */
import {
  GraphQLError,
  getNamedType,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { isoFromUtcTimestamp, UTC_TIMESTAMP_HINT } from './scalars.js';

export const MAX_QUERY_DEPTH = 12;
/** Each field costs 1; each report (root field) costs REPORT_FIELD_COST more, as it reads a page of data. */
export const MAX_QUERY_COST = 1000;
export const REPORT_FIELD_COST = 100;

interface Measure {
  depth: number;
  cost: number;
}

function measure(
  set: SelectionSetNode,
  fragment: (name: string) => FragmentDefinitionNode | null | undefined,
  seen: Set<string>,
  depth: number,
  root: boolean,
): Measure {
  let out: Measure = { depth, cost: 0 };
  for (const s of set.selections) {
    let inner: Measure = { depth, cost: 0 };
    if (s.kind === Kind.FIELD) {
      // Introspection (GraphiQL's schema query is deep by nature) is bounded by the schema, not by data.
      if (s.name.value.startsWith('__')) continue;
      const own = 1 + (root ? REPORT_FIELD_COST : 0);
      inner = s.selectionSet ? measure(s.selectionSet, fragment, seen, depth + 1, false) : { depth: depth + 1, cost: 0 };
      inner = { depth: inner.depth, cost: inner.cost + own };
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      inner = measure(s.selectionSet, fragment, seen, depth, root);
    } else {
      const def = fragment(s.name.value);
      if (!def || seen.has(s.name.value)) continue; // unknown or cyclic fragments are the standard rules' errors
      inner = measure(def.selectionSet, fragment, new Set([...seen, s.name.value]), depth, root);
    }
    out = { depth: Math.max(out.depth, inner.depth), cost: out.cost + inner.cost };
  }
  return out;
}

export function queryLimits(maxDepth = MAX_QUERY_DEPTH, maxCost = MAX_QUERY_COST): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node: OperationDefinitionNode) {
      const m = measure(node.selectionSet, (name) => context.getFragment(name), new Set(), 0, true);
      if (m.depth > maxDepth)
        context.reportError(new GraphQLError(`query is too deep: ${m.depth} levels; at most ${maxDepth} are allowed`, { nodes: [node], extensions: { code: 'QUERY_TOO_DEEP' } }));
      if (m.cost > maxCost)
        context.reportError(
          new GraphQLError(`query is too costly: cost ${m.cost}, at most ${maxCost} (each field costs 1, each report ${REPORT_FIELD_COST + 1}); split it into several queries`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_COSTLY' },
          }),
        );
    },
  });
}

/** Reports malformed UtcTimestamp literals as `<argument path>: ...` (e.g. filter.vulnerability.after). */
export const timestampArguments: ValidationRule = (context) => ({
  StringValue(node, _key, parent, _path, ancestors) {
    const type = context.getInputType();
    if (!type || getNamedType(type).name !== 'UtcTimestamp' || isoFromUtcTimestamp(node.value)) return;
    const names: string[] = [];
    for (const a of [...ancestors, parent])
      if (!Array.isArray(a) && typeof a === 'object' && a !== null && 'kind' in a && (a.kind === Kind.ARGUMENT || a.kind === Kind.OBJECT_FIELD))
        names.push(a.name.value);
    context.reportError(
      new GraphQLError(`${names.join('.')}: "${node.value}" is not a UTC timestamp; ${UTC_TIMESTAMP_HINT}`, {
        nodes: [node],
        extensions: { code: 'BAD_USER_INPUT', argument: names.join('.') },
      }),
    );
  },
});
