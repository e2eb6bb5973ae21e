/**
 * GraphQL requests for tests. Every response is checked against the SDL of record before the test sees it:
 * the envelope ({data, errors}), and every selected field of `data` against its schema type (nullability,
 * lists, scalars, enum values, the UtcTimestamp form), so the schema and the server cannot drift.
 */
import {
  GraphQLEnumType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  Kind,
  buildSchema,
  getOperationAST,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { reportsSdl } from '../../src/reports/graphql/schema.js';
import { adminAuth, authHeader, type Auth } from './http.js';
import type { TestServer } from './server.js';

let schema: GraphQLSchema | null = null;
const sdlSchema = () => (schema ??= buildSchema(reportsSdl()));

export interface GqlResponse<T = any> {
  status: number;
  data: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  body: any;
  headers: Headers;
}

const SCALAR_CHECKS: Record<string, (v: unknown) => boolean> = {
  String: (v) => typeof v === 'string',
  ID: (v) => typeof v === 'string',
  Int: (v) => Number.isInteger(v),
  Float: (v) => typeof v === 'number',
  Boolean: (v) => typeof v === 'boolean',
  UtcTimestamp: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v),
  JSON: () => true,
};

function checkValue(type: GraphQLOutputType, value: unknown, set: SelectionSetNode | undefined, frags: Map<string, FragmentDefinitionNode>, path: string): void {
  if (type instanceof GraphQLNonNull) {
    if (value === null || value === undefined) throw new Error(`GraphQL response: ${path} is null but its type is ${type}`);
    return checkValue(type.ofType, value, set, frags, path);
  }
  if (value === null) return;
  if (value === undefined) throw new Error(`GraphQL response: ${path} was selected but is missing`);
  if (type instanceof GraphQLList) {
    if (!Array.isArray(value)) throw new Error(`GraphQL response: ${path} should be a list`);
    value.forEach((v, i) => checkValue(type.ofType, v, set, frags, `${path}[${i}]`));
    return;
  }
  if (type instanceof GraphQLEnumType) {
    if (!type.getValues().some((e) => e.name === value)) throw new Error(`GraphQL response: ${path} = ${JSON.stringify(value)} is not a ${type.name}`);
    return;
  }
  if (type instanceof GraphQLScalarType) {
    if (!SCALAR_CHECKS[type.name](value)) throw new Error(`GraphQL response: ${path} = ${JSON.stringify(value)} is not a ${type.name}`);
    return;
  }
  if (type instanceof GraphQLObjectType) checkSelection(type, value as Record<string, unknown>, set!, frags, path);
}

function checkSelection(type: GraphQLObjectType, value: Record<string, unknown>, set: SelectionSetNode, frags: Map<string, FragmentDefinitionNode>, path: string): void {
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`GraphQL response: ${path} should be an object`);
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      if (s.name.value === '__typename') continue;
      const field = type.getFields()[s.name.value];
      if (!field) continue; // introspection fields
      checkValue(field.type, value[key], s.selectionSet, frags, `${path}.${key}`);
    } else if (s.kind === Kind.INLINE_FRAGMENT) checkSelection(type, value, s.selectionSet, frags, path);
    else checkSelection(type, value, frags.get(s.name.value)!.selectionSet, frags, path);
  }
}

/** Throws when a response does not match the SDL for the query that produced it. */
export function assertGraphqlResponse(document: DocumentNode, operationName: string | undefined, body: any): void {
  const keys = Object.keys(body ?? {});
  if (!keys.length || keys.some((k) => !['data', 'errors', 'extensions'].includes(k))) throw new Error(`GraphQL response envelope has keys ${keys.join(', ')}`);
  if (body.errors !== undefined) {
    if (!Array.isArray(body.errors) || body.errors.some((e: any) => typeof e.message !== 'string')) throw new Error('GraphQL response errors are malformed');
  }
  if (body.data === undefined || body.data === null) return;
  const op = getOperationAST(document, operationName);
  if (!op) throw new Error('no operation in the test query');
  const root = op.operation === 'mutation' ? sdlSchema().getMutationType()! : sdlSchema().getQueryType()!;
  const frags = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  // Fields with errors are null in data; the error says so, and nullability is the server's promise otherwise.
  if (body.errors?.length) return;
  checkSelection(root, body.data, op.selectionSet, frags, 'data');
}

export interface GqlOptions {
  variables?: Record<string, unknown>;
  operationName?: string;
  auth?: Auth;
  headers?: Record<string, string>;
  /** /v2/reports/graphql (default) or /v2/reports/global/graphql */
  path?: string;
  method?: 'GET' | 'POST';
}

export async function gql<T = any>(server: TestServer | string, query: string, options: GqlOptions = {}): Promise<GqlResponse<T>> {
  const base = typeof server === 'string' ? server : server.url;
  const path = options.path ?? '/v2/reports/graphql';
  const headers = { ...authHeader(options.auth === undefined ? adminAuth : options.auth), ...(options.headers ?? {}) };
  let res: Response;
  if (options.method === 'GET') {
    const params = new URLSearchParams({ query });
    if (options.variables) params.set('variables', JSON.stringify(options.variables));
    if (options.operationName) params.set('operationName', options.operationName);
    res = await fetch(`${base}${path}?${params}`, { headers: { accept: 'application/graphql-response+json, application/json', ...headers } });
  } else {
    res = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
      body: JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
    });
  }
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  if (body && ('data' in body || 'errors' in body)) {
    let document: DocumentNode | null = null;
    try {
      document = parse(query);
    } catch {
      // A query that does not parse gets errors only; the envelope is still checked.
    }
    if (document) assertGraphqlResponse(document, options.operationName, body);
    else if (body.data !== undefined || !Array.isArray(body.errors)) throw new Error('GraphQL response to an unparsable query must hold errors only');
  }
  return { status: res.status, data: body?.data, errors: body?.errors, body, headers: res.headers };
}

/** Applies every pending change to the reporting read model (what the refresh timer does every few seconds). */
export async function refreshReports(server: TestServer): Promise<void> {
  await server.running.services.reports.refresher.refreshNow();
}
