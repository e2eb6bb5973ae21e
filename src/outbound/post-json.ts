/**
 * A JSON POST for webhook, Slack and Teams deliveries, and a GET of a small document (SAML metadata), on the
 * outbound client: one deadline covers the whole exchange (redirects and reading the answer included), at most
 * maxResponseBytes of the answer are ever buffered, and a POST follows only 307/308 redirects on the same receiver. Messages of the errors never carry
 * the URL's path, query or userinfo: for Slack/Teams/webhooks those are the credentials.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { OutboundError, unreachable } from './errors.js';
import { bodyFailure, request, type OutboundRequest } from './http.js';
import type { OutboundPolicy } from './policy.js';
import { safeDecode, tryParseUrl } from './urls.js';

export interface PostOptions {
  policy: OutboundPolicy;
  /** One deadline for connecting, sending and reading the answer (redirects included). */
  timeoutMs: number;
  verifyTls: boolean;
  maxResponseBytes: number;
  userAgent: string;
  /** Basic credentials; when absent, userinfo in the URL is used instead. */
  basicAuth?: { username: string; password: string } | null;
}

export interface PostResult {
  status: number;
  /** The start of the answer, at most maxResponseBytes of UTF-8 (cut on a character boundary). */
  body: string;
  /** true: the answer was longer and the rest was not read. */
  truncated: boolean;
}

/** An answer with its headers, for callers that need them (fetch.ts). */
export interface CappedAnswer extends PostResult {
  headers: IncomingHttpHeaders;
}

/** 307/308 keep method and body, so they are safe to follow on the same receiver; a few hops at most. */
const MAX_REDIRECTS = 3;

/** POSTs a JSON body; non-2xx answers are returned, not thrown (the caller decides what they mean). */
export async function postJson(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostResult> {
  const parsed = tryParseUrl(url);
  return withoutHeaders(await exchangeCapped(url, { method: 'POST', headers: buildHeaders(parsed, headers, options), body, redirects: { follow: 'same-receiver', max: MAX_REDIRECTS } }, options));
}

/**
 * GETs a document (such as an identity provider's SAML metadata) under the same deadline and cap; any redirect is
 * followed, a few hops at most, each hop vetted by the policy. Non-2xx answers are returned, not thrown.
 */
export async function getCapped(url: string, headers: Record<string, string>, options: Omit<PostOptions, 'basicAuth'>): Promise<PostResult> {
  return withoutHeaders(await exchangeCapped(url, { method: 'GET', headers: { 'User-Agent': options.userAgent, ...headers }, redirects: { follow: 'any', max: MAX_REDIRECTS } }, options));
}

function withoutHeaders({ status, body, truncated }: CappedAnswer): PostResult {
  return { status, body, truncated };
}

/** One exchange under one deadline, reading at most maxResponseBytes of the answer (also used by fetch.ts). */
export async function exchangeCapped(
  url: string,
  exchange: Pick<OutboundRequest, 'method' | 'headers' | 'body' | 'redirects'>,
  options: Pick<PostOptions, 'policy' | 'timeoutMs' | 'verifyTls' | 'maxResponseBytes'>,
): Promise<CappedAnswer> {
  const host = tryParseUrl(url)?.host ?? '(invalid URL)';
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const detail = `no answer within ${options.timeoutMs} ms`;
    options.policy.report(host, detail);
    deadline.abort(unreachable(host, detail));
  }, options.timeoutMs);
  try {
    const res = await request(url, {
      ...exchange,
      policy: options.policy,
      verifyTls: options.verifyTls,
      headTimeoutMs: options.timeoutMs,
      signal: deadline.signal,
    });
    return await readCapped(res.body, res.url, options.maxResponseBytes);
  } finally {
    clearTimeout(timer);
  }
}

function buildHeaders(url: URL | null, headers: Record<string, string>, options: PostOptions): OutgoingHttpHeaders {
  const auth = options.basicAuth ?? (url ? userinfoOf(url) : null);
  return {
    'Content-Type': 'application/json',
    'User-Agent': options.userAgent,
    ...(auth ? { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` } : {}),
    ...headers,
  };
}

function userinfoOf(url: URL): { username: string; password: string } | null {
  if (url.username === '' && url.password === '') return null;
  return { username: safeDecode(url.username), password: safeDecode(url.password) };
}

/** Reads the answer up to the cap, then destroys the socket rather than buffer (or drain) the rest. */
function readCapped(res: IncomingMessage, url: URL, cap: number): Promise<CappedAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (truncated: boolean) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: new TextDecoder('utf-8').decode(Buffer.concat(chunks), { stream: truncated }), truncated });
    };
    res.on('data', (chunk: Buffer) => {
      if (size + chunk.length <= cap) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      // a cut body may end inside a multi-byte character: streaming mode leaves the incomplete bytes out
      chunks.push(chunk.subarray(0, cap - size));
      size = cap;
      res.destroy();
      finish(true);
    });
    res.on('end', () => finish(false));
    res.on('error', (err) => reject(err instanceof OutboundError ? err : bodyFailure(err, url)));
  });
}
