/**
 * A `fetch` for libraries that take one (openid-client's and jose's `customFetch`), on the one outbound client:
 * every address is vetted by the policy before a socket exists, one deadline covers the exchange, at most
 * maxResponseBytes of an answer are read (a longer one fails rather than being cut), and redirects are never
 * followed (both libraries ask for `redirect: 'manual'`: an OpenID endpoint that redirects is an error).
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { OutboundError } from './errors.js';
import type { OutboundPolicy } from './policy.js';
import { exchangeCapped } from './post-json.js';
import { tryParseUrl } from './urls.js';

export interface GuardedFetchOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
  userAgent: string;
}

/** What both libraries pass; a body is a string or form parameters. */
export interface FetchInit {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: unknown;
}

export type GuardedFetch = (url: string, init?: FetchInit) => Promise<Response>;

/** Statuses whose Response may not have a body. */
const NO_BODY = new Set([101, 204, 205, 304]);

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new OutboundError('bad_url', 'only text and form bodies are sent');
}

export function guardedFetch(options: GuardedFetchOptions): GuardedFetch {
  return async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new OutboundError('bad_url', `method ${method} is not sent`);
    const headers: OutgoingHttpHeaders = { 'User-Agent': options.userAgent };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = bodyText(init.body);
    if (body !== undefined && init.body instanceof URLSearchParams && !headers['content-type'])
      headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    const answer = await exchangeCapped(url, { method, headers, body, redirects: { follow: 'none' } }, { ...options, verifyTls: true });
    if (answer.truncated) {
      const host = tryParseUrl(url)?.host ?? '(invalid URL)';
      throw new OutboundError('response', `the answer from ${host} is larger than ${options.maxResponseBytes} bytes`, { host });
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
    }
    return new Response(NO_BODY.has(answer.status) ? null : answer.body, { status: answer.status, headers: responseHeaders });
  };
}
