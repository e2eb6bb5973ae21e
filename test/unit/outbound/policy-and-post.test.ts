import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OutboundError, type OutboundFailure } from '../../../src/outbound/errors.js';
import { closeIdleConnections } from '../../../src/outbound/http.js';
import { OutboundPolicy, type LookupAllFn } from '../../../src/outbound/policy.js';
import { postJson, type PostOptions } from '../../../src/outbound/post-json.js';
import { originOf, redactUrl } from '../../../src/outbound/urls.js';
import { closeServer, listenOnLoopback } from '../../support/receivers.js';

const NO_EXTRA = OutboundPolicy.parse(null);

describe('OutboundPolicy.parse', () => {
  it('accepts hostnames, IPs and CIDRs, ignoring whitespace and empty entries', () => {
    expect(() => OutboundPolicy.parse(null)).not.toThrow();
    expect(() => OutboundPolicy.parse('   ')).not.toThrow();
    expect(() =>
      OutboundPolicy.parse(' smtp.internal , 127.0.0.1/32,10.0.0.0/8, ::1/128,fd00::/8 , 192.168.1.5, fe80::1, hooks_x.local.,'),
    ).not.toThrow();
  });

  it.each([
    'not a host!',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.0/',
    '/8',
    '10.0.0.0/8/1',
    '1.2.3',
    '300.1.1.1',
    '*.internal',
    'http://smtp.internal',
    'a..b',
    '-bad.example',
  ])('rejects %j naming the entry and what is expected', (entry) => {
    const attempt = () => OutboundPolicy.parse(`smtp.internal, ${entry}`);
    expect(attempt).toThrow(Error);
    expect(attempt).toThrow(`"${entry}"`);
    expect(attempt).toThrow(/expected a hostname .* an IP address .* or a CIDR/);
  });
});

describe('OutboundPolicy.check', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['::127.0.0.1', 'unspecified'], // deprecated IPv4-compatible form
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.0.8', 'IETF protocol assignment'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a00:1', 'private'],
    ['::FFFF:169.254.169.254', 'link-local'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 of 127.0.0.1
    ['64:ff9b::a9fe:a9fe', 'link-local'], // NAT64 of 169.254.169.254
    ['2002:a00:1::', 'private'], // 6to4 of 10.0.0.1
    ['2002:7f00:1:1::5', 'loopback'], // 6to4 of 127.0.0.1
  ])('refuses %s (%s)', (address, kind) => {
    const error = catchSync(() => NO_EXTRA.check('receiver.example', address));
    expect(error).toBeInstanceOf(OutboundError);
    // the message is the neutral one; the kind of address is for the log only
    expect(error).toMatchObject({ reason: 'unreachable', name: 'OutboundError', message: 'cannot reach receiver.example: the address is not allowed or did not answer' });
    expect(error.detail).toContain(`${kind} address`);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1', // just past 172.16/12
    '100.128.0.1', // just past 100.64/10
    '203.0.113.5', // documentation ranges are allowed (routed nowhere)
    '2606:4700:4700::1111',
    '2002:c000:204::1', // 6to4 of 192.0.2.4
    '2002:808:808::1', // 6to4 of 8.8.8.8
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '::ffff:8.8.8.8',
  ])('allows public %s', (address) => {
    expect(() => NO_EXTRA.check('receiver.example', address)).not.toThrow();
  });

  it('refuses a non-IP address outright', () => {
    expect(catchSync(() => NO_EXTRA.check('x', 'not-an-ip')).reason).toBe('unreachable');
  });

  it('allows listed CIDRs, addresses and hostnames (mapped IPv6 judged as IPv4)', () => {
    const policy = OutboundPolicy.parse('127.0.0.1/32, 10.0.0.0/8, fd00::/8, 192.168.1.5, SMTP.internal, ::1');
    const allowed: Array<[string, string]> = [
      ['x', '127.0.0.1'],
      ['x', '::ffff:127.0.0.1'],
      ['x', '::ffff:7f00:1'],
      ['x', '10.200.0.1'],
      ['x', 'fd00::abcd'],
      ['x', '192.168.1.5'],
      ['x', '::1'],
      ['smtp.internal', '192.168.9.9'],
      ['SMTP.Internal.', '169.254.1.1'],
    ];
    const refused: Array<[string, string]> = [
      ['x', '127.0.0.2'],
      ['x', 'fc00::1'],
      ['x', '192.168.1.6'],
      ['other.internal', '192.168.9.9'],
      ['smtp.internal.evil', '192.168.9.9'],
    ];
    for (const [host, address] of allowed) expect(() => policy.check(host, address), `${host} ${address}`).not.toThrow();
    for (const [host, address] of refused) expect(() => policy.check(host, address), `${host} ${address}`).toThrow(OutboundError);
  });
});

describe('several allow-lists', () => {
  it('unite (VIGIL_OUTBOUND_ALLOW and VIGIL_REGISTRY_ALLOW for registries)', () => {
    const policy = OutboundPolicy.parse(['10.0.0.0/8', null, 'registry.internal, 192.168.1.5']);
    for (const [host, address] of [['x', '10.9.9.9'], ['registry.internal', '172.16.0.1'], ['x', '192.168.1.5']]) {
      expect(() => policy.check(host!, address!)).not.toThrow();
    }
    expect(() => policy.check('x', '172.16.0.1')).toThrow(OutboundError);
  });
});

describe('OutboundPolicy.withLoopbackEndpoint', () => {
  it("opens the loopback addresses of one host on its ports, nothing else, and answers the same variant again", () => {
    const policy = NO_EXTRA.withLoopbackEndpoint('localhost', [5000]);
    expect(NO_EXTRA.withLoopbackEndpoint('LOCALHOST', [5000])).toBe(policy);
    expect(() => policy.check('localhost', '127.0.0.1', 5000)).not.toThrow();
    expect(() => policy.check('localhost', '::1', 5000)).not.toThrow();
    for (const [host, address, port] of [
      ['localhost', '127.0.0.1', 5001], // another port
      ['localhost', '127.0.0.1', undefined], // a port not known
      ['127.0.0.1', '127.0.0.1', 5000], // another name for the same address
      ['localhost', '10.0.0.1', 5000], // a name that resolves beyond loopback
      ['localhost', '169.254.169.254', 5000],
    ] as const) {
      expect(() => policy.check(host, address, port), `${host} ${address} ${port}`).toThrow(OutboundError);
    }
    expect(() => NO_EXTRA.check('localhost', '127.0.0.1', 5000)).toThrow(OutboundError);
    expect(NO_EXTRA.keptVariants()).toContain(policy);
  });
});

describe('OutboundPolicy.resolve', () => {
  const fakeLookup = (...addresses: string[]) =>
    vi.fn<LookupAllFn>(async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  const resolveAllowed = (host: string, allow: OutboundPolicy | string | null, lookup: LookupAllFn) =>
    OutboundPolicy.parse(allow instanceof OutboundPolicy ? null : allow, { lookup }).resolve(host);

  it('refuses a name that resolves to loopback (DNS rebinding) unless allowed', async () => {
    const lookup = fakeLookup('127.0.0.1');
    const error = await catchAsync(resolveAllowed('evil.example', NO_EXTRA, lookup));
    expect(error.reason).toBe('unreachable');
    expect(error.message).not.toContain('127.0.0.1');
    expect(error.detail).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(lookup).toHaveBeenCalledWith('evil.example', { all: true });

    await expect(resolveAllowed('evil.example', '127.0.0.1/32', lookup)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(resolveAllowed('evil.example', 'evil.example', lookup)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
  });

  it('picks the first allowed address of a mixed answer', async () => {
    await expect(resolveAllowed('mixed.example', NO_EXTRA, fakeLookup('10.0.0.1', '93.184.215.14'))).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    await expect(resolveAllowed('localhost', '::1/128', fakeLookup('127.0.0.1', '::1'))).resolves.toEqual({
      address: '::1',
      family: 6,
    });
  });

  it('checks IP literals without resolving them', async () => {
    const lookup = fakeLookup('8.8.8.8');
    expect((await catchAsync(resolveAllowed('[::1]', NO_EXTRA, lookup))).reason).toBe('unreachable');
    await expect(resolveAllowed('[2606:4700:4700::1111]', NO_EXTRA, lookup)).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
    await expect(resolveAllowed('8.8.4.4', NO_EXTRA, lookup)).resolves.toEqual({ address: '8.8.4.4', family: 4 });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('reports a DNS failure as unreachable, its code in the detail', async () => {
    const lookup = vi.fn<LookupAllFn>(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    });
    const error = await catchAsync(resolveAllowed('nowhere.example', NO_EXTRA, lookup));
    expect(error).toMatchObject({
      reason: 'unreachable',
      message: 'cannot reach nowhere.example: the address is not allowed or did not answer',
      detail: 'name resolution failed: ENOTFOUND',
    });
  });
});

describe('originOf / redactUrl', () => {
  const slack = 'https://user:pw@hooks.slack.com/services/T000/B000/SECRETTOKEN?sig=abc';

  it('keep scheme, host and port only', () => {
    expect(originOf(slack)).toBe('https://hooks.slack.com');
    expect(originOf('http://Receiver.example:8080/x?y')).toBe('http://receiver.example:8080');
    expect(originOf('http://[::1]:9000/')).toBe('http://[::1]:9000');
    expect(originOf('not a url')).toBe('(invalid URL)');
  });

  it.each([
    [slack, 'https://hooks.slack.com/***'],
    ['https://receiver.example/?token=1', 'https://receiver.example/***'],
    ['https://receiver.example/#frag', 'https://receiver.example/***'],
    ['https://u:p@receiver.example:8443/', 'https://receiver.example:8443/'],
    ['https://receiver.example', 'https://receiver.example/'],
    ['::nonsense', '(invalid URL)'],
  ])('redactUrl(%j) = %j', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe('postJson', () => {
  /** What the loopback receiver saw; tests pick its reply with the x-test-reply header. */
  interface Seen {
    method: string;
    url: string;
    headers: http.IncomingHttpHeaders;
    body: string;
  }
  const seen: Seen[] = [];
  let connections = 0;
  let base = '';
  const SECRET_PATH = '/services/T000/B000/SECRETTOKEN?sig=abc';
  const SECRETS = ['SECRETTOKEN', 'sig=abc', '/services', 'T000', 'hunter2'];
  const CAP = 64 * 1024;
  const MIB = Buffer.alloc(1024 * 1024, 'a');
  const HUGE = 64 * MIB.length;
  /** Settles when the receiver's huge answer closes, with how many bytes it got to write. */
  let hugeSent: Promise<number> = Promise.resolve(0);

  const replies: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    ok: (_req, res) => res.end('hello'),
    fail: (_req, res) => res.writeHead(500).end('boom'),
    huge: (_req, res) => {
      // streamed with backpressure, so how much got written shows whether the client kept reading
      let sent = 0;
      hugeSent = new Promise((resolve) => res.on('close', () => resolve(sent)));
      const pump = () => {
        while (sent < HUGE && !res.destroyed) {
          sent += MIB.length;
          if (!res.write(MIB)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    },
    utf8: (_req, res) => res.end('é'.repeat(100)), // 2 bytes each: an odd cap cuts one in half
    hang: () => {}, // never answers
    'redirect-away': (_req, res) => res.writeHead(302, { location: `http://other.example${SECRET_PATH}` }).end(),
    'redirect-302-same': (_req, res) => res.writeHead(302, { location: '/final' }).end(),
    'redirect-307-port': (_req, res) => res.writeHead(307, { location: `http://127.0.0.1:1${SECRET_PATH}` }).end(),
    'redirect-307-same': (req, res) => (req.url === '/final' ? res.end('followed') : res.writeHead(307, { location: '/final' }).end()),
    'redirect-loop': (req, res) => res.writeHead(308, { location: req.url }).end(),
  };

  const server = http.createServer((req, res) => {
    const record: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' };
    seen.push(record);
    res.on('error', () => {}); // the client hangs up on purpose in the cap and timeout tests
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (record.body += chunk));
    req.on('end', () => replies[String(req.headers['x-test-reply'])]!(req, res));
  });
  server.on('connection', () => connections++);

  beforeAll(async () => {
    base = await listenOnLoopback(server);
  });

  afterAll(() => closeServer(server));

  const loopbackAllowed: PostOptions = {
    policy: OutboundPolicy.parse('127.0.0.1/32'),
    timeoutMs: 2000,
    verifyTls: true,
    maxResponseBytes: CAP,
    userAgent: 'Vigil-test/1',
  };

  const post = (reply: string, options: Partial<PostOptions> = {}, url = `${base}/hook`) =>
    postJson(url, '{"n":1}', { 'x-test-reply': reply, 'X-Vigil-Signature': 'sha256=00' }, { ...loopbackAllowed, ...options });

  /** Every failure must be an OutboundError of the expected reason whose message holds no path, query or userinfo. */
  async function expectFailure(promise: Promise<unknown>, reason: OutboundFailure): Promise<OutboundError> {
    const error = await catchAsync(promise);
    expect(error.reason, error.message).toBe(reason);
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
    return error;
  }

  it('returns a 2xx answer and sends the expected headers and body', async () => {
    const result = await post('ok');
    expect(result).toEqual({ status: 200, body: 'hello', truncated: false });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/hook', body: '{"n":1}' });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '7',
      'user-agent': 'Vigil-test/1',
      'x-vigil-signature': 'sha256=00',
    });
    expect(request.headers.authorization).toBeUndefined();
  });

  it('uses URL userinfo as Basic auth unless basicAuth is given', async () => {
    const withUserinfo = `http://alice:hunter2@127.0.0.1:${new URL(base).port}/hook`;
    await post('ok', {}, withUserinfo);
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('alice:hunter2').toString('base64')}`);
    await post('ok', { basicAuth: { username: 'bob', password: 's3cret' } }, withUserinfo);
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('bob:s3cret').toString('base64')}`);
  });

  it('returns a 500 as a status, not an error', async () => {
    expect(await post('fail')).toEqual({ status: 500, body: 'boom', truncated: false });
  });

  it('stops reading a huge answer at the cap', async () => {
    const result = await post('huge');
    expect(result.truncated).toBe(true);
    expect(result.body.length).toBeLessThanOrEqual(CAP);
    expect(result.body.length).toBeGreaterThan(0);
    // the client hung up rather than read (or drain) the rest; socket buffers absorb a few MiB at most
    expect(await hugeSent).toBeLessThan(HUGE);
  });

  it('cuts a capped answer on a character boundary', async () => {
    const result = await post('utf8', { maxResponseBytes: 11 });
    expect(result).toEqual({ status: 200, body: 'é'.repeat(5), truncated: true });
  });

  it('gives up when the receiver does not answer in time, as unreachable', async () => {
    const error = await expectFailure(post('hang', { timeoutMs: 200 }, `${base}${SECRET_PATH}`), 'unreachable');
    expect(error.message).toBe(`cannot reach ${new URL(base).host}: the address is not allowed or did not answer`);
    expect(error.detail).toBe('no answer within 200 ms');
  });

  it.each(['redirect-away', 'redirect-302-same', 'redirect-307-port'])('refuses %s', async (reply) => {
    const error = await expectFailure(post(reply, {}, `${base}${SECRET_PATH}`), 'redirect');
    expect(error.message).toMatch(/^the receiver at 127\.0\.0\.1:\d+ answered 30[27] \(redirect\); redirects are not followed$/);
  });

  it('follows a 307 on the same receiver, sending the body again', async () => {
    const before = seen.length;
    expect(await post('redirect-307-same')).toEqual({ status: 200, body: 'followed', truncated: false });
    expect(seen.slice(before).map((r) => [r.url, r.body])).toEqual([
      ['/hook', '{"n":1}'],
      ['/final', '{"n":1}'],
    ]);
  });

  it('gives up after 3 same-receiver redirects', async () => {
    const before = seen.length;
    const error = await expectFailure(post('redirect-loop', {}, `${base}${SECRET_PATH}`), 'redirect');
    expect(error.message).toContain('gave up after 3 redirects');
    expect(seen.length - before).toBe(4);
  });

  it('refuses loopback without an allow entry, before connecting (literal and by name)', async () => {
    const before = connections;
    const port = new URL(base).port;
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
      const url = `http://alice:hunter2@${host}:${port}${SECRET_PATH}`;
      const error = await expectFailure(post('ok', { policy: NO_EXTRA }, url), 'unreachable');
      expect(error.message).toMatch(/^cannot reach \S+: the address is not allowed or did not answer$/);
    }
    expect(connections).toBe(before);
  });

  it('connects to a name through its allowed address', async () => {
    const result = await post('ok', {}, `http://localhost:${new URL(base).port}/hook`);
    expect(result.status).toBe(200);
  });

  it('reports a TLS failure as tls', async () => {
    const error = await expectFailure(post('ok', {}, `https://127.0.0.1:${new URL(base).port}${SECRET_PATH}`), 'tls');
    expect(error.message).toMatch(/^127\.0\.0\.1:\d+: TLS failed: /);
  });

  it('reports a refused connection as unreachable, like a refused address', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await expectFailure(post('ok', {}, `http://127.0.0.1:${port}${SECRET_PATH}`), 'unreachable');
    expect(error.message).toBe(`cannot reach 127.0.0.1:${port}: the address is not allowed or did not answer`);
    expect(error.detail).toBe('ECONNREFUSED');
  });

  it.each(['ftp://alice:hunter2@127.0.0.1/services/T000/B000/SECRETTOKEN?sig=abc', 'hunter2 SECRETTOKEN'])(
    'refuses %j as bad_url',
    async (url) => {
      await expectFailure(post('ok', {}, url), 'bad_url');
    },
  );
});

describe('postJson connection reuse', () => {
  const policy = OutboundPolicy.parse('127.0.0.1/32');
  const options: PostOptions = { policy, timeoutMs: 2000, verifyTls: true, maxResponseBytes: 1024, userAgent: 'Vigil-test/1' };
  let connections = 0;
  /** Set: the next request on a reused connection is cut without an answer. */
  let dropNextReuse = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const perSocket = ((req.socket as unknown as { served?: number }).served ?? 0) + 1;
      (req.socket as unknown as { served: number }).served = perSocket;
      if (dropNextReuse && perSocket > 1) {
        dropNextReuse = false;
        req.socket.destroy(); // as a server closing an idle connection just as it is reused
        return;
      }
      res.end('ok');
    });
  });
  server.on('connection', () => connections++);
  let base = '';

  beforeAll(async () => {
    base = await listenOnLoopback(server);
  });
  afterAll(async () => {
    closeIdleConnections(policy);
    await closeServer(server);
  });

  it('sends consecutive deliveries to a receiver over one kept-alive connection', async () => {
    const before = connections;
    for (let i = 0; i < 5; i++) expect(await postJson(`${base}/hook`, '{}', {}, options)).toMatchObject({ status: 200, body: 'ok' });
    expect(connections - before).toBe(1);
  });

  it('does not share connections between policies', async () => {
    const other = OutboundPolicy.parse('127.0.0.1/32');
    const before = connections;
    await postJson(`${base}/hook`, '{}', {}, { ...options, policy: other });
    expect(connections - before).toBe(1);
    closeIdleConnections(other);
  });

  it('sends again, on a new connection, when a reused one was closed under it', async () => {
    await postJson(`${base}/hook`, '{}', {}, options); // a connection is kept alive
    const before = connections;
    dropNextReuse = true;
    expect(await postJson(`${base}/hook`, '{}', {}, options)).toMatchObject({ status: 200, body: 'ok' });
    expect(dropNextReuse).toBe(false); // the reused connection was indeed cut
    expect(connections - before).toBe(1);
  });
});

function catchSync(fn: () => unknown): OutboundError {
  try {
    fn();
  } catch (err) {
    return err as OutboundError;
  }
  throw new Error('expected an error');
}

async function catchAsync(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return err as OutboundError;
  }
  throw new Error('expected an error');
}
