/** guardedFetch: the `fetch` openid-client and jose get, on the guarded outbound client. */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundError } from '../../../src/outbound/errors.js';
import { guardedFetch } from '../../../src/outbound/fetch.js';
import { closeIdleConnections } from '../../../src/outbound/http.js';
import { OutboundPolicy } from '../../../src/outbound/policy.js';
import { closeServer, listenOnLoopback } from '../../support/receivers.js';

const allowed = OutboundPolicy.parse('127.0.0.1');
const options = { policy: allowed, timeoutMs: 5000, maxResponseBytes: 256, userAgent: 'vigil-test' };
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/echo')
        res.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] }).end(JSON.stringify({ method: req.method, type: req.headers['content-type'], ua: req.headers['user-agent'], body }));
      else if (req.url === '/redirect') res.writeHead(302, { location: '/echo' }).end();
      else if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(200).end('x'.repeat(1000));
    });
  });
  base = await listenOnLoopback(server);
});
afterAll(async () => {
  closeIdleConnections(allowed);
  await closeServer(server);
});

describe('guardedFetch', () => {
  it('sends form bodies and headers, and answers status, headers and body as a Response', async () => {
    const res = await guardedFetch(options)(`${base}/echo`, { method: 'POST', headers: { accept: 'application/json' }, body: new URLSearchParams({ a: '1' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(await res.json()).toEqual({ method: 'POST', type: 'application/x-www-form-urlencoded;charset=UTF-8', ua: 'vigil-test', body: 'a=1' });
    expect((await guardedFetch(options)(`${base}/empty`)).status).toBe(204);
  });

  it('answers a redirect as it is, without following it', async () => {
    const res = await guardedFetch(options)(`${base}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/echo');
  });

  it('fails an answer over the cap rather than cutting it', async () => {
    await expect(guardedFetch(options)(`${base}/large`)).rejects.toThrow(/larger than 256 bytes/);
  });

  it('never reaches an address the policy refuses', async () => {
    const refused = guardedFetch({ ...options, policy: OutboundPolicy.parse(null) })(`${base}/echo`);
    await expect(refused).rejects.toBeInstanceOf(OutboundError);
    await expect(refused).rejects.toThrow(/cannot reach 127\.0\.0\.1/);
  });
});
