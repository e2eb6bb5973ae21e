import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FeedFetchError } from '../../../../src/vulns/sources/errors.js';
import { feedFileName, fetchFeedSource, type FetchFeedOptions } from '../../../../src/vulns/sources/fetch.js';
import { LOOPBACK_POLICY } from '../../../support/outbound.js';

const BODY = Buffer.from('{"vulnerabilities": []}\n'.repeat(1000));
const ETAG = '"v1-abc"';
const AUTH = `Basic ${Buffer.from('reader:s3cret').toString('base64')}`;

/** Bytes the /endless route managed to send before the client hung up. */
let endlessSent = 0;

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  switch (path) {
    case '/PyPI/all.zip':
    case '/kev.json':
      if (req.headers['if-none-match'] === ETAG) {
        res.writeHead(304, { etag: ETAG }).end();
        return;
      }
      res.writeHead(200, { etag: ETAG, 'content-length': BODY.length }).end(BODY);
      return;
    case '/no-etag.csv':
      res.writeHead(200).end('cve,epss,percentile\n');
      return;
    case '/empty':
      res.writeHead(200, { 'content-length': 0 }).end();
      return;
    case '/redirect':
      res.writeHead(302, { location: '/kev.json' }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/private/feed.json':
      if (req.headers.authorization !== AUTH) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200).end(BODY);
      return;
    case '/declared-big':
      res.writeHead(200, { 'content-length': 10_000_000 });
      res.write(Buffer.alloc(1000));
      return; // never finishes: the client must refuse from the header alone
    case '/endless':
      endlessSent = 0;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      writeForever(res);
      return;
    case '/hang':
      return; // never answers
    case '/stall':
      res.writeHead(200, { 'content-length': 100_000 });
      res.write(Buffer.alloc(10_000)); // then silence
      return;
    case '/error':
      res.writeHead(503, 'Service Unavailable').end('down for maintenance');
      return;
    default:
      res.writeHead(404, 'Not Found').end('no such feed');
  }
}

function writeForever(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const pump = () => {
    while (!res.destroyed) {
      endlessSent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

let server: Server;
let base: string;
let root: string;
let dest: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-fetch-'));
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});
let run = 0;
beforeEach(() => {
  dest = join(root, `dest-${run++}`);
});

function options(extra: Partial<FetchFeedOptions> = {}): FetchFeedOptions {
  return { policy: LOOPBACK_POLICY, destDir: dest, maxBytes: 1_000_000, timeoutMs: 5_000, ...extra };
}

async function failureOf(promise: Promise<unknown>): Promise<FeedFetchError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FeedFetchError);
  return err as FeedFetchError;
}

async function filesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

describe('fetchFeedSource', () => {
  it('downloads a feed to destDir under the URL file name, with its ETag', async () => {
    const result = await fetchFeedSource(`${base}/PyPI/all.zip`, options());
    expect(result).toEqual({ notModified: false, path: join(dest, 'all.zip'), etag: ETAG, bytes: BODY.length });
    expect(await readFile(join(dest, 'all.zip'))).toEqual(BODY);
    expect(await filesIn(dest)).toEqual(['all.zip']);
  });

  it('answers notModified when the server says 304 to our ETag, writing nothing', async () => {
    expect(await fetchFeedSource(`${base}/kev.json`, options({ etag: ETAG }))).toEqual({ notModified: true });
    expect(await filesIn(dest)).toEqual([]);
  });

  it('downloads again when the ETag no longer matches', async () => {
    const result = await fetchFeedSource(`${base}/kev.json`, options({ etag: '"old"' }));
    expect(result).toMatchObject({ notModified: false, etag: ETAG, bytes: BODY.length });
  });

  it('omits etag when the server sends none, and drops the query from the file name', async () => {
    expect(await fetchFeedSource(`${base}/no-etag.csv?date=2025-11-20`, options())).toEqual({
      notModified: false,
      path: join(dest, 'no-etag.csv'),
      bytes: 20,
    });
    expect(await fetchFeedSource(`${base}/empty`, options())).toEqual({ notModified: false, path: join(dest, 'empty'), bytes: 0 });
  });

  it('replaces an older copy of the same file', async () => {
    await fetchFeedSource(`${base}/kev.json`, options());
    await writeFile(join(dest, 'kev.json'), 'stale');
    await fetchFeedSource(`${base}/kev.json`, options());
    expect(await readFile(join(dest, 'kev.json'))).toEqual(BODY);
    expect(await filesIn(dest)).toEqual(['kev.json']);
  });

  it('follows redirects, keeping the requested file name', async () => {
    const result = await fetchFeedSource(`${base}/redirect`, options());
    expect(result).toMatchObject({ notModified: false, path: join(dest, 'redirect'), bytes: BODY.length });
  });

  it('sends URL credentials as Basic auth and never names them in errors', async () => {
    const port = (server.address() as AddressInfo).port;
    const ok = await fetchFeedSource(`http://reader:s3cret@127.0.0.1:${port}/private/feed.json`, options());
    expect(ok).toMatchObject({ notModified: false, bytes: BODY.length });
    const err = await failureOf(fetchFeedSource(`http://reader:wrong@127.0.0.1:${port}/private/feed.json?token=t0ps3cret`, options()));
    expect(err.httpStatus).toBe(401);
    expect(err.message).toBe(`cannot download http://127.0.0.1:${port}/private/feed.json?...: the server answered HTTP 401 Unauthorized`);
    expect(JSON.stringify({ message: err.message, detail: err.detail })).not.toMatch(/reader|wrong|t0ps3cret/);
  });

  it('fails on a non-2xx answer with the status, leaving no file', async () => {
    const notFound = await failureOf(fetchFeedSource(`${base}/nope.json`, options()));
    expect(notFound.message).toBe(`cannot download ${base}/nope.json: the server answered HTTP 404 Not Found`);
    expect(notFound.httpStatus).toBe(404);
    expect(notFound.url).toBe(`${base}/nope.json`);
    expect(notFound.status).toBe(502);
    const unavailable = await failureOf(fetchFeedSource(`${base}/error`, options()));
    expect(unavailable.httpStatus).toBe(503);
    expect(await filesIn(dest)).toEqual([]);
  });

  it('treats a 304 it did not ask for as a failure', async () => {
    const local = createServer((_req, res) => res.writeHead(304).end());
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      const err = await failureOf(fetchFeedSource(`http://127.0.0.1:${(local.address() as AddressInfo).port}/x`, options()));
      expect(err.httpStatus).toBe(304);
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });

  it('refuses a body that declares more than maxBytes before writing anything', async () => {
    const err = await failureOf(fetchFeedSource(`${base}/declared-big`, options({ maxBytes: 5_000 })));
    expect(err.message).toMatch(/larger than the limit of 5000 bytes/);
    expect(err.causeCode).toBe('ETOOLARGE');
    expect(await filesIn(dest)).toEqual([]);
  });

  it('aborts a streamed body as soon as it exceeds maxBytes, removing the partial file', async () => {
    const started = Date.now();
    const err = await failureOf(fetchFeedSource(`${base}/endless`, options({ maxBytes: 200_000 })));
    expect(err.message).toMatch(/larger than the limit of 200000 bytes/);
    expect(await filesIn(dest)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(4_000);
    // The connection was dropped: the server could not go on sending (allowing for socket buffers).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(endlessSent).toBeLessThan(20_000_000);
  });

  it('gives up on a server that never answers, in the words of any unreachable address', async () => {
    const started = Date.now();
    const err = await failureOf(fetchFeedSource(`${base}/hang`, options({ timeoutMs: 200 })));
    expect(err.message).toBe(`cannot download ${base}/hang: the address is not allowed or did not answer`);
    expect(err.causeCode).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await filesIn(dest)).toEqual([]);
  });

  it('times out when the body stalls, removing the partial file', async () => {
    const err = await failureOf(fetchFeedSource(`${base}/stall`, options({ timeoutMs: 200 })));
    expect(err.causeCode).toBe('ETIMEDOUT');
    expect(await filesIn(dest)).toEqual([]);
  });

  it('reports a refused connection in the words of any unreachable address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failureOf(fetchFeedSource(`http://127.0.0.1:${port}/feed.json`, options()));
    expect(err.message).toBe(`cannot download http://127.0.0.1:${port}/feed.json: the address is not allowed or did not answer`);
    expect(err.causeCode).toBeUndefined();
    expect(err.httpStatus).toBeUndefined();
  });

  it('reports too many redirects', async () => {
    const err = await failureOf(fetchFeedSource(`${base}/loop`, options()));
    expect(err.message).toMatch(/redirect/i);
  });

  it.each([
    ['file:///etc/passwd', /only http and https URLs are supported/],
    ['ftp://example.invalid/feed.json', /only http and https URLs are supported/],
    ['not a url', /not a valid absolute URL/],
    ['/relative/feed.json', /not a valid absolute URL/],
  ])('refuses %s', async (url, message) => {
    const err = await failureOf(fetchFeedSource(url, options()));
    expect(err.message).toMatch(message);
    expect(await filesIn(dest)).toEqual([]);
  });

  it('throws the caller abort reason as is, before or during the request', async () => {
    const before = new AbortController();
    before.abort(new Error('shutting down'));
    await expect(fetchFeedSource(`${base}/kev.json`, options({ signal: before.signal }))).rejects.toThrow('shutting down');

    const during = new AbortController();
    setTimeout(() => during.abort(new Error('cancelled by user')), 100);
    await expect(fetchFeedSource(`${base}/hang`, options({ signal: during.signal }))).rejects.toThrow('cancelled by user');
    await expect(fetchFeedSource(`${base}/stall`, options({ signal: AbortSignal.timeout(100) }))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(await filesIn(dest)).toEqual([]);
  });
});

describe('feedFileName', () => {
  it.each([
    ['https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip', 'all.zip'],
    ['https://epss.cyentia.com/epss_scores-current.csv.gz?x=1#frag', 'epss_scores-current.csv.gz'],
    ['https://example.com/feeds/kev.json/', 'kev.json'],
    ['https://example.com/', 'feed'],
    ['https://example.com/a%20b%2Fc.json', 'a_b_c.json'],
    ['https://example.com/..%2F..%2Fetc%2Fpasswd', '_.._etc_passwd'],
    ['https://example.com/...hidden', 'hidden'],
    ['https://example.com/%2e%2e', 'feed'],
    ['https://example.com/bad%zzname.csv', 'bad_zzname.csv'],
    [`https://example.com/${'x'.repeat(300)}.csv.gz`, `${'x'.repeat(121)}.csv.gz`],
  ])('%s → %s', (url, name) => {
    expect(feedFileName(new URL(url))).toBe(name);
  });
});
