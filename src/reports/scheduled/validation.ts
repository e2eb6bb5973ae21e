/**
 * Checks of what a client stores as a scheduled query. Every problem is a ReportInputError naming the argument
 * at fault (`name`, `cronSchedule`, `query`, `variables`), so a query that is accepted will also run: it parses and
 * validates against the report schema with the same limits and rules the endpoint applies, is a single `query`
 * operation selecting exactly one report field, and its variables fit its variable definitions.
 */
import {
  GraphQLError,
  Kind,
  getVariableValues,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ReportInputError } from '../errors.js';
import { parseReportDocument, validateReportDocument } from '../graphql/limits.js';
import { checkCronSchedule } from './cron.js';
import type { ScheduledQueryInput } from './store.js';

/** The report fields a scheduled query may run: each returns `{pageInfo, results}`, so it can be paged through. */
export const REPORT_FIELDS = [
  'imagesByVulnerability',
  'artifactsByVulnerability',
  'tagsByVulnerability',
  'policyEvaluationsByTag',
  'metrics',
  'metricData',
  'runtimeInventoryImagesByVulnerability',
] as const;
export type ReportKind = (typeof REPORT_FIELDS)[number];

/** The variable a run pages with (see ./paged-document.ts); a stored query may not define it itself. */
export const NEXT_TOKEN_VARIABLE = '__nextToken';

const MAX_NAME_LENGTH = 256;
const MAX_DESCRIPTION_LENGTH = 4096;

export interface ReportQuery {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The root field selected, e.g. tagsByVulnerability. */
  reportField: FieldNode;
  reportKind: ReportKind;
}

const isReportKind = (name: string): name is ReportKind => (REPORT_FIELDS as readonly string[]).includes(name);

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_LENGTH)
    throw new ReportInputError(`name must have 1 to ${MAX_NAME_LENGTH} characters (not only spaces)`, 'name');
  return trimmed;
}

export function checkDescription(description: string | null): string | null {
  if (description !== null && description.length > MAX_DESCRIPTION_LENGTH)
    throw new ReportInputError(`description must have at most ${MAX_DESCRIPTION_LENGTH} characters`, 'description');
  return description;
}

/** Parsed within the endpoint's limits on the text. */
function parseQuery(source: string): DocumentNode {
  try {
    return parseReportDocument(source);
  } catch (err) {
    if (err instanceof GraphQLError && err.extensions.code) throw new ReportInputError(err.message, 'query');
    throw new ReportInputError(`query does not parse: ${(err as Error).message}`, 'query');
  }
}

/** The single report field the operation selects, or an error saying what is wrong with the selection. */
function reportFieldOf(operation: OperationDefinitionNode): FieldNode {
  const selections = operation.selectionSet.selections;
  const field = selections[0];
  if (selections.length !== 1 || field.kind !== Kind.FIELD)
    throw new ReportInputError(`query must select exactly one report field (one of ${REPORT_FIELDS.join(', ')}) directly, without fragments; it selects ${selections.length}`, 'query');
  if (!isReportKind(field.name.value))
    throw new ReportInputError(`query selects ${field.name.value}, which is not a report; select one of ${REPORT_FIELDS.join(', ')}`, 'query');
  const selectsResults = field.selectionSet?.selections.some((s) => s.kind === Kind.FIELD && s.name.value === 'results' && !s.alias);
  if (!selectsResults) throw new ReportInputError(`query must select the results of ${field.name.value} (the stored result is its results)`, 'query');
  return field;
}

/** Parses and checks a stored query's document against the report schema. */
export function checkReportQuery(schema: GraphQLSchema, source: string): ReportQuery {
  const document = parseQuery(source);
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw new ReportInputError(`query must hold exactly one operation; it holds ${operations.length}`, 'query');
  const [operation] = operations;
  if (operation.operation !== 'query') throw new ReportInputError(`query must be a query operation, not a ${operation.operation}`, 'query');
  const errors = validateReportDocument(schema, document);
  if (errors.length) throw new ReportInputError(`query is not valid against the report schema: ${errors.map((e) => e.message).join('; ')}`, 'query');
  if (operation.variableDefinitions?.some((v) => v.variable.name.value === NEXT_TOKEN_VARIABLE))
    throw new ReportInputError(`query may not define $${NEXT_TOKEN_VARIABLE}: runs use it to page through the report`, 'query');
  const reportField = reportFieldOf(operation);
  return { document, operation, reportField, reportKind: reportField.name.value as ReportKind };
}

/** The variables, when they are a JSON object that satisfies the operation's variable definitions. */
export function checkVariables(schema: GraphQLSchema, query: ReportQuery, variables: unknown): Record<string, unknown> {
  if (variables === null || typeof variables !== 'object' || Array.isArray(variables))
    throw new ReportInputError('variables must be a JSON object (of the query\'s variable values)', 'variables');
  const coerced = getVariableValues(schema, query.operation.variableDefinitions ?? [], variables as Record<string, unknown>);
  if (coerced.errors) throw new ReportInputError(`variables do not fit the query: ${coerced.errors.map((e) => e.message).join('; ')}`, 'variables');
  return variables as Record<string, unknown>;
}

/** Attributes as a client passes them; an omitted (or null) one keeps its value, except description (null clears it). */
export interface ScheduledQueryArguments {
  name?: string | null;
  description?: string | null;
  cronSchedule?: string | null;
  query?: string | null;
  variables?: unknown;
  enabled?: boolean | null;
}

/**
 * Checks the attributes given and answers them in stored form. The query and its variables are checked
 * together: a new query against the variables it will run with (new or `current`), and new variables against
 * the query they will be used with.
 */
export function checkScheduledQueryArguments(
  schema: GraphQLSchema,
  args: ScheduledQueryArguments,
  current?: { query: string; variables: Record<string, unknown> },
): Partial<ScheduledQueryInput> {
  const out: Partial<ScheduledQueryInput> = {};
  if (args.name !== undefined && args.name !== null) out.name = checkName(args.name);
  if (args.description !== undefined) out.description = checkDescription(args.description);
  if (args.cronSchedule !== undefined && args.cronSchedule !== null) out.cronSchedule = checkCronSchedule(args.cronSchedule);
  if (args.enabled !== undefined && args.enabled !== null) out.enabled = args.enabled;
  const newQuery = args.query ?? undefined;
  const newVariables = args.variables ?? undefined;
  if (newQuery !== undefined || newVariables !== undefined) {
    const query = checkReportQuery(schema, newQuery ?? current?.query ?? '');
    const variables = checkVariables(schema, query, newVariables ?? current?.variables ?? {});
    if (newQuery !== undefined) out.query = newQuery;
    if (newVariables !== undefined) out.variables = variables;
  }
  return out;
}
