/**
 * What the contract test as a whole proves: the client under test was generated from the spec Vigil serves, and
 * the areas (test/contract/areas/) drive every operation that spec declares, each from exactly one area. A new
 * operation fails here until a call for it is added to an area; see harness.ts for how answers are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sdk from '../../generated/contract-client/sdk.gen.js';
import type { TestServer } from '../support/server.js';
import { areas } from './areas/index.js';
import { generatedDocument, ok, operationsOf, sdkFunction, startContractServer } from './harness.js';

let server: TestServer;
let served: Record<string, any>;

beforeAll(async () => {
  server = await startContractServer();
  served = (await ok(sdk.getOpenapiSpec())) as Record<string, any>;
});
afterAll(async () => {
  await server?.close();
});

describe('contract coverage', () => {
  it('tests a client generated from the document Vigil serves at GET /v2/openapi.json', () => {
    // generated/contract-client is generated from generated/swagger.json (npm run codegen; codegen:check in CI).
    expect(served).toEqual(generatedDocument);
  });

  it('drives every operation of the served spec, each from one area', () => {
    const declared = [...operationsOf(served).keys()].sort();
    const driven = areas.flatMap((a) => Object.keys(a.calls).map((op) => ({ op, area: a.name })));
    const missing = declared.filter((op) => !driven.some((d) => d.op === op));
    expect(missing, 'operations without a contract call: add one to an area in test/contract/areas/').toEqual([]);
    const unknown = driven.filter((d) => !declared.includes(d.op));
    expect(unknown, 'contract calls for operations the spec does not declare').toEqual([]);
    const twice = driven.filter((d, i) => driven.findIndex((e) => e.op === d.op) !== i);
    expect(twice, 'operations driven from more than one area').toEqual([]);
    expect(driven.length).toBe(declared.length);
  });

  it('has a generated SDK function for every operation', () => {
    for (const op of operationsOf(served).keys()) expect(() => sdkFunction(op)).not.toThrow();
  });
});
