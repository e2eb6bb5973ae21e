/**
 * Each problem of a GraphQL report request is reported once: in the answer, one error per problem, with its
 * location and, for input, the argument it concerns; in the log, a failing resolver's error once. A UtcTimestamp
 * literal of the wrong kind (a number, a boolean) and a malformed default value of a variable are named like a
 * malformed string literal, not as an anonymous second error of graphql-js.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  server = await startTestServer({}, { logs });
});
afterAll(async () => {
  await server?.close();
});

const METRICS = (filter: string) => `{ metricData(filter: ${filter}) { results { value } } }`;

describe('GraphQL report errors', () => {
  it('names a timestamp literal of the wrong kind once, with its location and argument', async () => {
    for (const [literal, shown] of [['5', '5'], ['true', 'true'], ['1.5', '1.5'], ['LATER', 'LATER'], ['"yesterday"', '"yesterday"']]) {
      const res = await gql(server, METRICS(`{start: ${literal}}`));
      expect(res.status).toBe(400);
      expect(res.errors).toEqual([
        {
          message: `filter.start: ${shown} is not a UTC timestamp; write a UTC time as YYYY-MM-DDThh:mm:ss, without a zone (for example 2024-05-01T00:00:00)`,
          locations: [{ line: 1, column: 30 }],
          extensions: { code: 'BAD_USER_INPUT', argument: 'filter.start' },
        },
      ]);
    }
  });

  it("names the variable whose default value is not a timestamp", async () => {
    for (const value of ['"2024-01-01"', '7']) {
      const res = await gql(server, `query($since: UtcTimestamp = ${value}) { metricData(filter: {start: $since}) { results { value } } }`);
      expect(res.status).toBe(400);
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: '$since' }, locations: [{ line: 1, column: 30 }] });
      expect(res.errors![0].message).toMatch(/^\$since: .* is not a UTC timestamp/);
    }
  });

  it('reports each problem of a request once, whatever kind it is', async () => {
    const cases: [query: string, variables: Record<string, unknown> | undefined, messages: RegExp[]][] = [
      ['{ nosuch }', undefined, [/Cannot query field "nosuch"/]],
      [METRICS('{start: "2024-01-01", end: 5}'), undefined, [/^filter\.start: /, /^filter\.end: /]],
      ['query($t: UtcTimestamp) { metricData(filter: {start: $t}) { results { value } } }', { t: 'nope' }, [/\$t.*not a UTC timestamp/s]],
      ['{ metricData(limit: 0) { results { value } } }', undefined, [/between 1 and 1000/]],
      ['query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }', undefined, [/within itself/]],
    ];
    for (const [query, variables, messages] of cases) {
      const res = await gql(server, query, { variables });
      expect(res.errors?.map((e) => e.message), query).toHaveLength(messages.length);
      messages.forEach((m, i) => expect(res.errors![i].message).toMatch(m));
    }
  });

  it('logs a failing resolver once and answers one internal error', async () => {
    const { db } = server.running.services;
    await db.schema.renameTable('report_metric_data', 'report_metric_data_away');
    try {
      const before = logLines.length;
      const res = await gql(server, '{ metricData { results { value } } reportingStatus { __typename } }');
      expect(res.errors).toEqual([{ message: 'internal error while resolving this field', path: ['metricData'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
      const logged = logLines.slice(before).filter((l) => l['level'] === 50);
      expect(logged.map((l) => l['msg'])).toEqual(['report query failed']);
    } finally {
      await db.schema.renameTable('report_metric_data_away', 'report_metric_data');
    }
  });
});
