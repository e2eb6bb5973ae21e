/**
 * The contract harness itself: against a stand-in server on loopback that answers what Vigil must not, each kind
 * of non-conforming answer is recorded as a problem (which fails an area's test), and a conforming one is not.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sdk from '../../generated/contract-client/sdk.gen.js';
import { closeServer, listenOnLoopback } from '../support/receivers.js';
import { ADMIN, answerCount, answersSince, as, status, type Answer } from './harness.js';

interface Canned {
  status: number;
  contentType?: string;
  body?: string;
}

const canned = new Map<string, Canned>();
let stand: http.Server;
let url: string;

beforeAll(async () => {
  stand = http.createServer((req, res) => {
    const answer = canned.get(`${req.method} ${req.url}`) ?? { status: 404, body: JSON.stringify({ code: 404, error_type: 'not_found', message: 'no route', detail: {} }) };
    req.resume();
    res.writeHead(answer.status, answer.body === undefined ? {} : { 'content-type': answer.contentType ?? 'application/json' });
    res.end(answer.body);
  });
  url = `${await listenOnLoopback(stand)}/v2`;
});
afterAll(async () => {
  await closeServer(stand);
});

/** The one answer the call got, after the SDK has finished with it. */
async function answerTo(route: string, answer: Canned, call: () => Promise<unknown>): Promise<Answer> {
  canned.set(route, answer);
  const from = answerCount();
  await call();
  const got = answersSince(from);
  expect(got).toHaveLength(1);
  return got[0];
}

const ERROR = (code: number) => JSON.stringify({ code, error_type: 'not_found', message: 'no such thing', detail: { request_id: 'r' } });
const USER = JSON.stringify({ username: 'admin', account_name: 'admin', type: 'native', state: 'enabled', created_at: '2026-01-01T00:00:00.000Z', last_updated: '2026-01-01T00:00:00.000Z' });

describe('contract harness', () => {
  it('records nothing against a conforming answer', async () => {
    const a = await answerTo('GET /v2/user', { status: 200, body: USER }, () => sdk.getUser({ client: as(ADMIN, {}, url) }));
    expect(a.problems).toEqual([]);
    expect(a.schemaChecked).toBe(true);
  });

  it('records a 2xx body the generated schema refuses', async () => {
    const a = await answerTo('GET /v2/user', { status: 200, body: JSON.stringify({ username: 5 }) }, () => sdk.getUser({ client: as(ADMIN, {}, url) }));
    expect(a.problems.join('\n')).toMatch(/body does not match the generated schema/);
    expect(a.schemaChecked).toBe(false);
  });

  it('records a 2xx JSON body sent with another content type', async () => {
    const a = await answerTo('GET /v2/user', { status: 200, contentType: 'text/plain', body: USER }, () => sdk.getUser({ client: as(ADMIN, {}, url) }));
    expect(a.problems.join('\n')).toMatch(/content type text\/plain is not one the operation produces/);
  });

  it('records a status the operation does not declare', async () => {
    const a = await answerTo('GET /v2/user', { status: 418, body: ERROR(418) }, () => status(sdk.getUser({ client: as(ADMIN, {}, url) })));
    expect(a.problems.join('\n')).toMatch(/status 418 is not declared/);
  });

  it('records an error answer without the error shape', async () => {
    const route = '/v2/accounts/nobody';
    const a = await answerTo(`GET ${route}`, { status: 404, body: JSON.stringify({ error: 'not found' }) }, () =>
      status(sdk.getAccount({ client: as(ADMIN, {}, url), path: { account_name: 'nobody' } })),
    );
    expect(a.problems.join('\n')).toMatch(/error body does not match the generated schema/);
  });

  it('records a body on an answer that declares none', async () => {
    const a = await answerTo('DELETE /v2/system/feeds/f1', { status: 200, contentType: 'text/plain', body: 'gone' }, () =>
      sdk.deleteFeed({ client: as(ADMIN, {}, url), path: { feed: 'f1' } }),
    );
    expect(a.problems.join('\n')).toMatch(/no body is declared, but one was sent/);
  });
});
