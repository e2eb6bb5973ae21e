/**
 * One safe HTTP(S) POST for webhook, Slack and Teams deliveries: every address connected to passes the
 * outbound policy (checked in the socket's `lookup`, so DNS cannot rebind between check and connect;
 * connections are kept alive and reused per policy), one
 * deadline covers the whole exchange, at most maxResponseBytes of the answer are ever buffered, and redirects
 * only stay on the same receiver. Errors are OutboundErrors whose messages never carry a URL's path, query
 * or userinfo: for Slack/Teams/webhooks those are the credentials.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { OutboundPolicyLike } from '../types.js';
import { OutboundError, resolveAllowed, stripBrackets } from './policy.js';

export interface PostOptions {
  policy: OutboundPolicyLike;
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

/** 307/308 keep method and body, so they are safe to follow on the same receiver; a few hops at most. */
const MAX_REDIRECTS = 3;

/** Idle connections are closed after this long: under the 5 s most servers (Node's default) keep them. */
const IDLE_SOCKET_MS = 4_000;

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Keep-alive agents, one pair per outbound policy: a receiver's connection (and TLS session) is reused across
 * deliveries, and a socket connected under one policy is never reused under another. A new connection still
 * goes through the policy's lookup; a reused one was checked when it was made.
 */
const agentsByPolicy = new WeakMap<OutboundPolicyLike, Agents>();

function agentsFor(policy: OutboundPolicyLike): Agents {
  let agents = agentsByPolicy.get(policy);
  if (!agents) {
    const settings = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 16, scheduling: 'lifo' as const };
    agents = { http: new http.Agent(settings), https: new https.Agent(settings) };
    agentsByPolicy.set(policy, agents);
  }
  return agents;
}

/** Closes the kept-alive connections made under this policy (the service is stopping). */
export function closeIdleConnections(policy: OutboundPolicyLike): void {
  const agents = agentsByPolicy.get(policy);
  agents?.http.destroy();
  agents?.https.destroy();
  agentsByPolicy.delete(policy);
}

/** POSTs a JSON body; non-2xx answers are returned, not thrown (the caller decides what they mean). */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  let target = parseHttpUrl(url);
  const requestHeaders = buildHeaders(target, body, headers, options);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    for (let hops = 0; ; hops++) {
      const res = await send(target, body, requestHeaders, options, deadline.signal);
      const status = res.statusCode ?? 0;
      if (status < 300 || status >= 400) return await readCapped(res, target, options, deadline.signal);
      res.destroy(); // a redirect's body is of no interest
      target = followableRedirect(target, status, res.headers.location, hops);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** scheme://host[:port] of a URL, for messages and log lines. */
export function originOf(url: string): string {
  const parsed = tryParseUrl(url);
  return parsed === null ? '(invalid URL)' : originOfUrl(parsed);
}

/** How the API shows a stored URL whose path or query may hold a token: origin, then `/***` if anything follows. */
export function redactUrl(url: string): string {
  const parsed = tryParseUrl(url);
  if (parsed === null) return '(invalid URL)';
  const hasSecretPart = parsed.pathname.length > 1 || parsed.search !== '' || parsed.hash !== '';
  return `${originOfUrl(parsed)}/${hasSecretPart ? '***' : ''}`;
}

function parseHttpUrl(url: string): URL {
  const parsed = tryParseUrl(url);
  if (parsed === null) throw new OutboundError('bad_url', 'the URL is not valid');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundError('bad_url', `only http: and https: URLs are supported, not ${parsed.protocol}`);
  }
  return parsed;
}

function buildHeaders(url: URL, body: string, headers: Record<string, string>, options: PostOptions): OutgoingHttpHeaders {
  const auth = options.basicAuth ?? userinfoOf(url);
  return {
    'Content-Type': 'application/json',
    'User-Agent': options.userAgent,
    ...(auth ? { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` } : {}),
    ...headers,
    'Content-Length': Buffer.byteLength(body), // last: always the length of what is actually sent
  };
}

function userinfoOf(url: URL): { username: string; password: string } | null {
  if (url.username === '' && url.password === '') return null;
  return { username: safeDecode(url.username), password: safeDecode(url.password) };
}

/**
 * One request/response exchange; resolves once the answer's headers are in. A kept-alive connection the receiver
 * closed just as it was reused fails before the request reached it (ECONNRESET / EPIPE on a reused socket):
 * that is sent again once, on a new connection.
 */
async function send(
  url: URL,
  body: string,
  headers: OutgoingHttpHeaders,
  options: PostOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  try {
    return await sendOnce(url, body, headers, options, signal, false);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    return sendOnce(url, body, headers, options, signal, true);
  }
}

class StaleConnection extends Error {}

async function sendOnce(
  url: URL,
  body: string,
  headers: OutgoingHttpHeaders,
  options: PostOptions,
  signal: AbortSignal,
  freshSocket: boolean,
): Promise<IncomingMessage> {
  const hostname = stripBrackets(url.hostname);
  if (isIP(hostname) !== 0) options.policy.check(hostname, hostname); // Node never calls `lookup` for IP literals
  const requestOptions: https.RequestOptions = {
    protocol: url.protocol,
    hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers,
    signal,
    // Every new connection goes through the policy lookup; the retry after a stale one takes no chances.
    agent: freshSocket ? false : url.protocol === 'https:' ? agentsFor(options.policy).https : agentsFor(options.policy).http,
    lookup: policyLookup(options.policy),
    rejectUnauthorized: options.verifyTls,
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(requestOptions, resolve);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (req.reusedSocket && !signal.aborted && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) reject(new StaleConnection());
      else reject(describeFailure(err, url, signal, options.timeoutMs));
    });
    req.end(body);
  });
}

/** A socket `lookup` that only ever yields an address the policy accepts (closes the DNS-rebinding gap). */
function policyLookup(policy: OutboundPolicyLike): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveAllowed(hostname, policy).then(
      ({ address, family }) =>
        lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family),
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** Reads the answer up to the cap, then destroys the socket rather than buffer (or drain) the rest. */
function readCapped(res: IncomingMessage, url: URL, options: PostOptions, signal: AbortSignal): Promise<PostResult> {
  const cap = options.maxResponseBytes;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onAbort = () => {
      res.destroy();
      reject(timeoutError(url, options.timeoutMs));
    };
    const finish = (truncated: boolean) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ status: res.statusCode ?? 0, body: decodeUtf8(Buffer.concat(chunks), truncated), truncated });
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      if (size + chunk.length <= cap) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, cap - size));
      size = cap;
      res.destroy();
      finish(true);
    });
    res.on('end', () => finish(false));
    res.on('error', (err) => reject(describeFailure(err, url, signal, options.timeoutMs)));
  });
}

/** A cut body may end inside a multi-byte character: streaming mode leaves the incomplete bytes out. */
function decodeUtf8(bytes: Buffer, truncated: boolean): string {
  return new TextDecoder('utf-8').decode(bytes, { stream: truncated });
}

/** The next URL for a 307/308 on the same receiver; any other redirect is refused. */
function followableRedirect(from: URL, status: number, location: string | undefined, hops: number): URL {
  const refuse = (why: string) => new OutboundError('redirect', `the receiver at ${from.host} answered ${status} (redirect); ${why}`);
  const next = (status === 307 || status === 308) && location !== undefined ? tryParseUrl(location, from) : null;
  if (next === null || !sameReceiver(from, next)) throw refuse('redirects are not followed');
  if (hops >= MAX_REDIRECTS) throw refuse(`gave up after ${MAX_REDIRECTS} redirects`);
  return next;
}

/** Same hostname and port as written (empty: the scheme's default); http may be upgraded to https, not back. */
function sameReceiver(from: URL, to: URL): boolean {
  const schemeOk = to.protocol === from.protocol || (from.protocol === 'http:' && to.protocol === 'https:');
  return schemeOk && to.hostname === from.hostname && to.port === from.port;
}

function describeFailure(err: Error, url: URL, signal: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err; // refused or unresolvable in policyLookup
  if (signal.aborted) return timeoutError(url, timeoutMs);
  const code = (err as NodeJS.ErrnoException).code;
  if (isTlsFailure(err)) {
    return new OutboundError('tls', `${url.host}: TLS failed: ${tlsReason(err, url)}${code ? ` (${code})` : ''}`);
  }
  return new OutboundError('network', `${url.host}: ${code ?? withoutSecrets(err.message, url)}`);
}

function timeoutError(url: URL, timeoutMs: number): OutboundError {
  return new OutboundError('timeout', `no answer from ${url.host} within ${timeoutMs} ms`);
}

/** Error codes node:tls and OpenSSL give certificate and handshake failures. */
const TLS_ERROR_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
/** `...:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:<source file>` → its reason field. */
const OPENSSL_ERROR = /SSL routines:[^:]*:([^:]+)/;

/** OpenSSL failures often arrive as a plain EPROTO whose message is the OpenSSL error string. */
function isTlsFailure(err: Error): boolean {
  return TLS_ERROR_CODE.test((err as NodeJS.ErrnoException).code ?? '') || OPENSSL_ERROR.test(err.message);
}

function tlsReason(err: Error, url: URL): string {
  return OPENSSL_ERROR.exec(err.message)?.[1] ?? withoutSecrets(err.message, url);
}

/** Belt and braces for messages we did not write: drop URLs and the request's path, query and userinfo. */
function withoutSecrets(text: string, url: URL): string {
  const secrets = [url.pathname.length > 1 ? url.pathname : '', url.search, url.username, url.password];
  return secrets
    .filter((secret) => secret !== '')
    .reduce((t, secret) => t.split(secret).join('***'), text.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, '<url>'));
}

function originOfUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

function tryParseUrl(url: string, base?: URL): URL | null {
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
