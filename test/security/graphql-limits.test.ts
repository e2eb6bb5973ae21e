/**
 * Issue 14, items 1 and 2: abusive GraphQL documents are refused before anything runs, at once, and the rest of
 * the service keeps answering meanwhile. Fragment bombs (each fragment spreading the previous one twice) and
 * alias bombs of introspection get a GraphQL error with extensions.code; introspection counts like any field, yet
 * GraphiQL's own introspection query passes; an answer larger than VIGIL_GRAPHQL_MAX_RESPONSE_BYTES becomes an
 * error; a scheduled query cannot store a bomb either.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** N fragments on `type`, each spreading the previous one twice: `leaf` selected 2^(N-1) times once expanded. */
function fragmentBomb(n: number, type = 'Query', leaf = 'reportingStatus { pendingChanges }'): { fragments: string; top: string } {
  const defs = [`fragment F0 on ${type} { ${leaf} }`];
  for (let i = 1; i < n; i++) defs.push(`fragment F${i} on ${type} { ...F${i - 1} ...F${i - 1} }`);
  return { fragments: defs.join('\n'), top: `F${n - 1}` };
}

const queryBomb = (n: number) => {
  const bomb = fragmentBomb(n);
  return `${bomb.fragments}\n{ ...${bomb.top} }`;
};

/** A deep introspection selection, as in the alias bomb. */
const DEEP_SCHEMA =
  '__schema { types { name kind description interfaces { name } possibleTypes { name } fields { name description isDeprecated deprecationReason ' +
  'args { name description defaultValue type { name kind ofType { name kind ofType { name kind ofType { name } } } } } ' +
  'type { name kind ofType { name kind ofType { name kind ofType { name } } } } } } }';

/** `count` aliased copies of `selection` (the 1 MB body held 2 881 deep `__schema` selections). */
const aliasBomb = (count: number, selection = DEEP_SCHEMA) => `{ ${Array.from({ length: count }, (_, i) => `s${i}: ${selection}`).join(' ')} }`;

const codes = (res: { errors?: { extensions?: Record<string, unknown> }[] }) => (res.errors ?? []).map((e) => e.extensions?.code);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('fragment bombs', () => {
  it.each([24, 30])('refuses the %i-fragment bomb as too costly, before running it', async (n) => {
    const query = queryBomb(n);
    expect(query.length).toBeLessThan(1600);
    const res = await gql(server, query);
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(codes(res)).toEqual(['QUERY_TOO_COSTLY']);
  });

  it('refuses a bomb in fragments no operation uses', async () => {
    const bomb = fragmentBomb(30);
    const res = await gql(server, `${bomb.fragments}\n{ reportingStatus { pendingChanges } }`);
    expect(res.status).toBe(400);
    expect(codes(res)).toContain('QUERY_TOO_COSTLY');
  });

  it('answers /v2/health while a bomb is being refused', async () => {
    const [bomb, health] = await Promise.all([gql(server, queryBomb(30)), raw(server.url, 'GET', '/v2/health', { auth: null })]);
    expect(health.status).toBe(200);
    expect(codes(bomb)).toEqual(['QUERY_TOO_COSTLY']);
  });
});

describe('introspection', () => {
  it('refuses the 1 MB alias bomb of __schema selections as too large a document', async () => {
    const query = aliasBomb(2881);
    // Just within the JSON body limit (1 MB), so it reaches GraphQL.
    expect(JSON.stringify({ query }).length).toBeGreaterThan(900_000);
    expect(JSON.stringify({ query }).length).toBeLessThan(1024 * 1024);
    const res = await gql(server, query);
    expect(res.status).toBe(400);
    expect(codes(res)).toEqual(['DOCUMENT_TOO_LARGE']);
  });

  it('refuses a smaller alias bomb for its aliases, and more than one __schema per query', async () => {
    const many = await gql(server, aliasBomb(150, '__schema { types { name } }'));
    expect(many.status).toBe(400);
    expect(codes(many)).toContain('QUERY_TOO_COMPLEX');
    expect(many.errors!.map((e) => e.message).join('\n')).toMatch(/aliases/);
    const two = await gql(server, aliasBomb(2));
    expect(two.status).toBe(400);
    expect(codes(two)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(two.errors![0].message).toMatch(/__schema/);
  });

  it('counts introspection fields like any other', async () => {
    const types = Array.from({ length: 10 }, (_, i) => `t${i}: __type(name: "Query") { name }`).join(' ');
    const res = await gql(server, `{ ${types} }`);
    expect(res.status).toBe(400);
    expect(codes(res)).toEqual(['QUERY_TOO_COSTLY']);
  });

  it.each([
    ['the default options', {}],
    ["GraphiQL's options", { inputValueDeprecation: true, schemaDescription: true }],
  ])("still answers the standard introspection query with %s", async (_what, options) => {
    const res = await gql(server, getIntrospectionQuery(options));
    expect(res.errors).toBeUndefined();
    expect(res.data.__schema.types.map((t: { name: string }) => t.name)).toContain('TagsByVulnerabilityResult');
  });
});

describe('scheduled queries', () => {
  const CREATE = `mutation($query: String!) { createScheduledQuery(name: "bomb", cronSchedule: "0 0 1 1 *", query: $query) { ok } }`;

  it('refuses to store a fragment bomb', async () => {
    const bomb = fragmentBomb(30, 'TagsByVulnerabilityResult', 'vulnerabilityId');
    const query = `${bomb.fragments}\nquery { tagsByVulnerability { results { ...${bomb.top} } } }`;
    const res = await gql(server, CREATE, { variables: { query } });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'query' });
    expect(res.errors![0].message).toMatch(/too costly/);
  });
});

describe('the answer', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ VIGIL_GRAPHQL_MAX_RESPONSE_BYTES: '16kb' });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('becomes an error when it would be larger than VIGIL_GRAPHQL_MAX_RESPONSE_BYTES', async () => {
    const res = await gql(small, getIntrospectionQuery());
    expect(res.data ?? null).toBeNull();
    expect(codes(res)).toEqual(['RESPONSE_TOO_LARGE']);
    expect(res.errors![0].message).toMatch(/16384 bytes/);
    // A small answer still goes through.
    const status = await gql(small, `{ reportingStatus { pendingChanges } }`);
    expect(status.errors).toBeUndefined();
    expect(status.data.reportingStatus.pendingChanges).toBe(0);
  });
});
