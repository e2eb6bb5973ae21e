/**
 * Downloads one feed source (an OSV all.zip, the KEV catalog, an EPSS CSV) to a file, so the readers can stream it
 * from disk. The body goes to a temporary file that is renamed into place only when complete: a failed or cut-off
 * download never leaves a file that could pass for the feed. A feed's ETag makes re-syncs of an unchanged feed a
 * cheap 304. Failures are FeedFetchErrors naming the URL without its credentials or query (signed-URL secrets).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FeedFetchError } from './errors.js';

export interface FetchFeedOptions {
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
}

export type FetchFeedResult = { notModified: true } | { notModified: false; path: string; etag?: string; bytes: number };

const DEFAULT_FILE_NAME = 'feed';
const MAX_FILE_NAME = 128;

const NETWORK_ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** Fetches `url` into `options.destDir`, keeping the URL's file name so the feed kind can be told by its extension. */
export async function fetchFeedSource(url: string, options: FetchFeedOptions): Promise<FetchFeedResult> {
  const target = parseFeedUrl(url);
  options.signal?.throwIfAborted();
  const idle = new IdleTimer(options.timeoutMs, () => failure(target, `no data received for ${options.timeoutMs} ms`, { causeCode: 'ETIMEDOUT' }));
  const signal = options.signal ? AbortSignal.any([idle.signal, options.signal]) : idle.signal;
  try {
    const res = await fetch(target.url, { headers: requestHeaders(target, options.etag), signal });
    if (res.status === 304 && options.etag !== undefined) {
      await res.body?.cancel();
      return { notModified: true };
    }
    checkResponse(res, target, options.maxBytes);
    const saved = await saveBody(res, target, options, idle);
    const etag = res.headers.get('etag');
    return { notModified: false, ...saved, ...(etag ? { etag } : {}) };
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (idle.error) throw idle.error;
    throw err instanceof FeedFetchError ? err : networkFailure(err, target);
  } finally {
    idle.stop();
  }
}

interface FeedTarget {
  /** The URL to request, userinfo removed. */
  url: URL;
  /** For messages: origin and path only. */
  display: string;
  /** `Basic ...` from the URL's userinfo; fetch refuses URLs that carry credentials, and drops this header on cross-origin redirects. */
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

function requestHeaders(target: FeedTarget, etag: string | undefined): Record<string, string> {
  return {
    ...(target.authorization ? { authorization: target.authorization } : {}),
    ...(etag !== undefined ? { 'if-none-match': etag } : {}),
  };
}

function failure(target: FeedTarget, problem: string, extra: { httpStatus?: number; causeCode?: string } = {}): FeedFetchError {
  return new FeedFetchError(`cannot download ${target.display}: ${problem}`, { url: target.display, ...extra });
}

/** Rejects non-2xx answers and bodies that announce themselves as too large, before anything is written. */
function checkResponse(res: Response, target: FeedTarget, maxBytes: number): void {
  if (!res.ok) {
    void res.body?.cancel();
    throw failure(target, `the server answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, { httpStatus: res.status });
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    void res.body?.cancel();
    throw tooLarge(target, maxBytes, res.status);
  }
}

function tooLarge(target: FeedTarget, maxBytes: number, httpStatus: number): FeedFetchError {
  return failure(target, `the feed is larger than the limit of ${maxBytes} bytes`, { httpStatus, causeCode: 'ETOOLARGE' });
}

/** Streams the body to a temporary file and renames it into place; the temporary file is removed on any failure. */
async function saveBody(res: Response, target: FeedTarget, options: FetchFeedOptions, idle: IdleTimer): Promise<{ path: string; bytes: number }> {
  await mkdir(options.destDir, { recursive: true });
  const name = feedFileName(target.url);
  const path = join(options.destDir, name);
  const temp = join(options.destDir, `.${name}.${randomUUID()}.part`);
  try {
    const bytes = await writeBody(res, temp, options.maxBytes, idle, () => tooLarge(target, options.maxBytes, res.status));
    await rename(temp, path);
    return { path, bytes };
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

async function writeBody(res: Response, temp: string, maxBytes: number, idle: IdleTimer, tooLargeError: () => Error): Promise<number> {
  const file = await open(temp, 'wx');
  let bytes = 0;
  try {
    if (res.body === null) return 0;
    // Leaving this loop by a throw cancels the body stream, which closes the connection.
    for await (const chunk of res.body) {
      idle.restart();
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLargeError();
      await file.write(chunk);
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

/** Percent-decoding that leaves a malformed escape (`%zz`) as written instead of throwing. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A fetch failure (no HTTP answer, or the body stream broke off) in words, with the underlying code. */
function networkFailure(err: unknown, target: FeedTarget): FeedFetchError {
  const cause = (err as { cause?: unknown } | undefined)?.cause ?? err;
  const code = errorCode(cause);
  const words = (code && NETWORK_ERROR_WORDS[code]) || (cause instanceof Error ? cause.message : String(cause));
  return failure(target, words, code ? { causeCode: code } : {});
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: unknown[] } | undefined;
  if (typeof e?.code === 'string') return e.code;
  // Connecting to a name with several addresses fails with an AggregateError of per-address errors.
  return Array.isArray(e?.errors) ? errorCode(e.errors[0]) : undefined;
}

/** Aborts when `timeoutMs` pass without restart(): first waiting for the headers, then between body chunks. */
class IdleTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  /** Set when the timer fired: the error the download fails with. */
  error?: FeedFetchError;

  constructor(
    private readonly timeoutMs: number,
    private readonly makeError: () => FeedFetchError,
  ) {
    this.timer = this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  restart(): void {
    clearTimeout(this.timer);
    this.timer = this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): NodeJS.Timeout {
    return setTimeout(() => {
      this.error = this.makeError();
      this.controller.abort(this.error);
    }, this.timeoutMs);
  }
}
