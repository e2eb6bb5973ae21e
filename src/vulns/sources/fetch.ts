/**
 * Downloads one feed source (an OSV all.zip, the KEV catalog, an EPSS CSV, an NVD JSON feed) to a file, so the readers can stream it
 * from disk, through the outbound client (src/outbound/) under the feeds' outbound policy: an admin-configured feed
 * on an internal address needs VIGIL_OUTBOUND_ALLOW like any other outbound request. The body goes to a temporary
 * file that is renamed into place only when complete: a failed or cut-off download never leaves a file that could
 * pass for the feed. A feed's ETag makes re-syncs of an unchanged feed a cheap 304. Failures are FeedFetchErrors
 * naming the URL without its credentials or query (signed-URL secrets).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { OutboundError } from '../../outbound/errors.js';
import { bodyFailure, request, type OutboundResponse } from '../../outbound/http.js';
import type { OutboundPolicy } from '../../outbound/policy.js';
import { safeDecode } from '../../outbound/urls.js';
import { FeedFetchError } from './errors.js';

export interface FetchFeedOptions {
  /** Which addresses feed hosts may resolve to (services.outbound.feeds). */
  policy: OutboundPolicy;
  /** Where the file is written (created if missing); a file of the same name there is replaced. */
  destDir: string;
  /** The ETag of the copy we already have; a 304 answer then means "keep it". */
  etag?: string;
  /** Larger bodies are refused as soon as they exceed this (checked against Content-Length first, then as they stream). */
  maxBytes: number;
  /**
   * Limit for the response headers to arrive, and for any silence while the body streams. Not a limit on the whole
   * download: a large archive on a slow but steady link is fine.
   */
  timeoutMs: number;
  /** Caller cancellation; its reason is thrown as is (not wrapped), so job runners recognise it. */
  signal?: AbortSignal;
  /** Sent as User-Agent: some feed hosts refuse requests without one. */
  userAgent?: string;
}

export type FetchFeedResult = { notModified: true } | { notModified: false; path: string; etag?: string; bytes: number };

const DEFAULT_FILE_NAME = 'feed';
const MAX_FILE_NAME = 128;
const MAX_REDIRECTS = 10;

/** Fetches `url` into `options.destDir`, keeping the URL's file name so the feed kind can be told by its extension. */
export async function fetchFeedSource(url: string, options: FetchFeedOptions): Promise<FetchFeedResult> {
  const target = parseFeedUrl(url);
  options.signal?.throwIfAborted();
  try {
    const res = await request(target.url, {
      method: 'GET',
      headers: requestHeaders(target, options),
      policy: options.policy,
      verifyTls: true,
      headTimeoutMs: options.timeoutMs,
      idleTimeoutMs: options.timeoutMs,
      signal: options.signal,
      redirects: { follow: 'any', max: MAX_REDIRECTS },
    });
    if (res.status === 304 && options.etag !== undefined) {
      res.body.destroy();
      return { notModified: true };
    }
    checkResponse(res, target, options.maxBytes);
    const saved = await saveBody(res, target, options);
    const etag = res.headers.etag;
    return { notModified: false, ...saved, ...(etag ? { etag } : {}) };
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw err instanceof FeedFetchError ? err : downloadFailure(err, target, options.timeoutMs);
  }
}

interface FeedTarget {
  /** The URL to request, userinfo removed. */
  url: URL;
  /** For messages: origin and path only. */
  display: string;
  /** `Basic ...` from the URL's userinfo; the outbound client drops this header on redirects to another origin. */
  authorization?: string;
}

function parseFeedUrl(raw: string): FeedTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FeedFetchError('feed URL is not a valid absolute URL', { url: '(invalid URL)' });
  }
  const display = `${url.protocol}//${url.host}${url.pathname}${url.search ? '?...' : ''}`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FeedFetchError(`cannot download ${display}: only http and https URLs are supported`, { url: display });
  }
  const target: FeedTarget = { url, display };
  if (url.username !== '' || url.password !== '') {
    const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
    target.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return target;
}

function requestHeaders(target: FeedTarget, options: FetchFeedOptions): Record<string, string> {
  return {
    accept: '*/*',
    // the bytes as stored (a .gz feed stays gzip); without this a server may pick any content coding
    'accept-encoding': 'identity',
    'user-agent': options.userAgent ?? 'Vigil',
    ...(target.authorization ? { authorization: target.authorization } : {}),
    ...(options.etag !== undefined ? { 'if-none-match': options.etag } : {}),
  };
}

function failure(target: FeedTarget, problem: string, extra: { httpStatus?: number; causeCode?: string } = {}): FeedFetchError {
  return new FeedFetchError(`cannot download ${target.display}: ${problem}`, { url: target.display, ...extra });
}

/** Rejects non-2xx answers and bodies that announce themselves as too large, before anything is written. */
function checkResponse(res: OutboundResponse, target: FeedTarget, maxBytes: number): void {
  if (res.status < 200 || res.status > 299) {
    res.body.destroy();
    const reason = res.body.statusMessage ? ` ${res.body.statusMessage}` : '';
    throw failure(target, `the server answered HTTP ${res.status}${reason}`, { httpStatus: res.status });
  }
  const declared = Number(res.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw tooLarge(target, maxBytes, res.status);
  }
}

function tooLarge(target: FeedTarget, maxBytes: number, httpStatus: number): FeedFetchError {
  return failure(target, `the feed is larger than the limit of ${maxBytes} bytes`, { httpStatus, causeCode: 'ETOOLARGE' });
}

/** Streams the body to a temporary file and renames it into place; the temporary file is removed on any failure. */
async function saveBody(res: OutboundResponse, target: FeedTarget, options: FetchFeedOptions): Promise<{ path: string; bytes: number }> {
  await mkdir(options.destDir, { recursive: true });
  const name = feedFileName(target.url);
  const path = join(options.destDir, name);
  const temp = join(options.destDir, `.${name}.${randomUUID()}.part`);
  try {
    const bytes = await writeBody(res.body, temp, options.maxBytes, () => tooLarge(target, options.maxBytes, res.status));
    await rename(temp, path);
    return { path, bytes };
  } catch (err) {
    await rm(temp, { force: true });
    throw err === res.body.errored ? bodyFailure(err, res.url) : err; // the download's failure, or the disk's
  }
}

async function writeBody(body: IncomingMessage, temp: string, maxBytes: number, tooLargeError: () => Error): Promise<number> {
  const file = await open(temp, 'wx');
  let bytes = 0;
  try {
    // Leaving this loop by a throw destroys the body stream, which closes the connection.
    for await (const chunk of body) {
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) throw tooLargeError();
      await file.write(chunk as Buffer);
    }
    return bytes;
  } finally {
    await file.close();
  }
}

/**
 * The last path segment of the URL, made safe as a file name: other characters become `_`, leading dots are dropped
 * (no hidden files, no `..`), overlong names keep their end (the extension). `feed` when nothing is left.
 */
export function feedFileName(url: URL): string {
  const segment = url.pathname.split('/').filter((part) => part !== '').pop() ?? '';
  const name = safeDecode(segment).replace(/[^A-Za-z0-9._-]/g, '_').slice(-MAX_FILE_NAME).replace(/^\.+/, '');
  return name === '' ? DEFAULT_FILE_NAME : name;
}

/**
 * An outbound failure in words. Whatever kept the server from answering (the address refused by the policy, DNS, a
 * closed port, silence) is one message without a cause code: the answer must not tell them apart (the precise
 * reason is in the server log). TLS, redirect and broken-answer failures say what they are.
 */
function downloadFailure(err: unknown, target: FeedTarget, timeoutMs: number): FeedFetchError {
  if (!(err instanceof OutboundError)) return failure(target, err instanceof Error ? err.message : String(err));
  switch (err.reason) {
    case 'unreachable':
      return failure(target, 'the address is not allowed or did not answer');
    case 'response':
      return failure(target, err.code === 'ETIMEDOUT' ? `no data received for ${timeoutMs} ms` : err.message, { causeCode: err.code });
    default:
      return failure(target, err.message, err.code ? { causeCode: err.code } : {});
  }
}
