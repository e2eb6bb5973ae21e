/**
 * Rewrites a stored query so a run can page through the whole report: the report field takes
 * `nextToken: $__nextToken` (replacing a nextToken the query gives), `limit: 1000` unless the query sets a
 * limit, and selects `pageInfo { nextToken }` (added to the query's own pageInfo selection, or as a new one).
 * Everything else the query selects is kept as written.
 */
import {
  Kind,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { MAX_PAGE_SIZE } from '../paging.js';
import { NEXT_TOKEN_VARIABLE, type ReportQuery } from './validation.js';

export interface PagedDocument {
  document: DocumentNode;
  /** Where the report is in `data`: the field's alias, else its name. */
  responseKey: string;
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const field = (fieldName: string, selections?: readonly SelectionNode[]): FieldNode => ({
  kind: Kind.FIELD,
  name: name(fieldName),
  ...(selections ? { selectionSet: { kind: Kind.SELECTION_SET, selections } } : {}),
});
const isField = (s: SelectionNode, fieldName: string): s is FieldNode => s.kind === Kind.FIELD && s.name.value === fieldName && !s.alias;

function pagingArguments(args: readonly ArgumentNode[]): ArgumentNode[] {
  const kept = args.filter((a) => a.name.value !== 'nextToken');
  const nextToken: ArgumentNode = { kind: Kind.ARGUMENT, name: name('nextToken'), value: { kind: Kind.VARIABLE, name: name(NEXT_TOKEN_VARIABLE) } };
  const limit: ArgumentNode = { kind: Kind.ARGUMENT, name: name('limit'), value: { kind: Kind.INT, value: String(MAX_PAGE_SIZE) } };
  return [...kept, nextToken, ...(kept.some((a) => a.name.value === 'limit') ? [] : [limit])];
}

/** The selection with `pageInfo { nextToken }` in it. */
function withNextToken(set: SelectionSetNode): SelectionSetNode {
  const pageInfo = set.selections.find((s): s is FieldNode => isField(s, 'pageInfo'));
  if (!pageInfo) return { ...set, selections: [...set.selections, field('pageInfo', [field('nextToken')])] };
  const inner = pageInfo.selectionSet?.selections ?? [];
  if (inner.some((s) => isField(s, 'nextToken'))) return set;
  const extended: FieldNode = { ...pageInfo, selectionSet: { kind: Kind.SELECTION_SET, selections: [...inner, field('nextToken')] } };
  return { ...set, selections: set.selections.map((s) => (s === pageInfo ? extended : s)) };
}

export function pagedDocument(query: ReportQuery): PagedDocument {
  const report = query.reportField;
  const pagedReport: FieldNode = { ...report, arguments: pagingArguments(report.arguments ?? []), selectionSet: withNextToken(report.selectionSet!) };
  const operation: OperationDefinitionNode = {
    ...query.operation,
    variableDefinitions: [
      ...(query.operation.variableDefinitions ?? []),
      { kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: name(NEXT_TOKEN_VARIABLE) }, type: { kind: Kind.NAMED_TYPE, name: name('String') } },
    ],
    selectionSet: { ...query.operation.selectionSet, selections: [pagedReport] },
  };
  return {
    document: { ...query.document, definitions: query.document.definitions.map((d) => (d === query.operation ? operation : d)) },
    responseKey: report.alias?.value ?? report.name.value,
  };
}
