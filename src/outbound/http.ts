/**
 * The one HTTP(S) client of every request Vigil makes to other hosts: registries and their token services,
 * feed downloads, notification receivers. On node:http/https rather than fetch: it needs TLS verification
 * per request, a streaming body that a connect timeout does not cut off, and control of every connection.
 *
 * Every new connection, for the first request and for each redirect hop alike, is made by an agent of the
 * request's outbound policy that resolves the name and vets the address BEFORE any socket exists, then
 * connects to exactly that address (the name is kept for SNI and certificate checks). So a refused address
 * is never contacted, and DNS cannot rebind between check and connect. Kept-alive connections are pooled per
 * policy and TLS setting, so a connection vetted under one policy is never reused under another.
 *
 * Failures are OutboundErrors (./errors.ts). Anything short of an HTTP answer is one neutral 'unreachable'
 * error; its precise reason goes to the policy's log.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction, NetConnectOpts } from 'node:net';
import type { Duplex } from 'node:stream';
import { OutboundError, unreachable } from './errors.js';
import { stripBrackets, type OutboundPolicy } from './policy.js';
import { tryParseUrl, withoutSecrets } from './urls.js';

/** Which redirects a request follows. */
export type RedirectRule =
  /** 301/302/303/307/308 to any http(s) URL (GET/HEAD); Authorization and Cookie are dropped off the origin. */
  | { follow: 'any'; max: number }
  /** Only 307/308 (method and body kept) to the same host and port; http may become https. Others are errors. */
  | { follow: 'same-receiver'; max: number }
  /** Redirects are answers like any other. */
  | { follow: 'none' };

export interface OutboundRequest {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  policy: OutboundPolicy;
  verifyTls: boolean;
  /** Limit for connecting and receiving the answer's headers, per hop. */
  headTimeoutMs: number;
  /** Limit for any silence of the server while the body streams (default headTimeoutMs); a slow reader is not silence. */
  idleTimeoutMs?: number;
  /** Caller cancellation: the request and the body stream fail with the signal's reason, as is. */
  signal?: AbortSignal;
  redirects: RedirectRule;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The final URL, after redirects. */
  url: URL;
  /** The body, streaming; errors with an OutboundError('response') when the server stalls. */
  body: IncomingMessage;
}

/** The `code` of a 'tls' OutboundError meaning "the port answered in plain HTTP". */
export const NOT_TLS_CODE = 'ERR_SSL_WRONG_VERSION_NUMBER';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** A redirect's body is drained (keeping the connection) only when it is this small; larger ones close it. */
const MAX_DRAINED_REDIRECT_BYTES = 64 * 1024;
/** Idle kept-alive connections are closed after this long: under the 5 s most servers (Node's default) keep them. */
const IDLE_SOCKET_MS = 4_000;
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Sends a request and resolves with the answer's head and its streaming body; non-2xx answers are answers. */
export async function request(url: string | URL, options: OutboundRequest): Promise<OutboundResponse> {
  let target = httpUrl(typeof url === 'string' ? url : url.href);
  let method = options.method ?? 'GET';
  let body = options.body;
  let headers: OutgoingHttpHeaders = { ...options.headers };
  for (let hops = 0; ; hops++) {
    options.signal?.throwIfAborted();
    const res = await exchange(target, method, headers, body, options);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (options.redirects.follow === 'none' || !REDIRECT_STATUSES.has(status) || location === undefined) {
      return { status, headers: res.headers, url: target, body: res };
    }
    discard(res);
    const next = nextHop(target, status, location, hops, options.redirects);
    if (next.origin !== target.origin) headers = withoutCredentials(headers);
    // 303, and 301/302 after a POST, continue as a GET without the body (what browsers and fetch do)
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      if (method !== 'HEAD') method = 'GET';
      body = undefined;
      headers = withoutBodyHeaders(headers);
    }
    target = next;
  }
}

/** An error of an answer's body stream: socket errors become OutboundError('response'); others pass as they are. */
export function bodyFailure(err: unknown, url: URL): unknown {
  if (err instanceof OutboundError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return err; // the caller's abort reason, or a stream consumer's own error
  return new OutboundError('response', `the answer from ${url.host} broke off (${code})`, { detail: `${url.host}: ${code}`, code, host: url.host });
}

/** Closes the kept-alive connections made under this policy (the service is stopping). */
export function closeIdleConnections(policy: OutboundPolicy): void {
  for (const variant of policy.keptVariants()) closeIdleConnections(variant);
  for (const agents of agentsByPolicy.get(policy)?.values() ?? []) {
    for (const agent of Object.values(agents)) agent.destroy();
  }
  agentsByPolicy.delete(policy);
}

function httpUrl(raw: string): URL {
  const parsed = tryParseUrl(raw);
  if (parsed === null) throw new OutboundError('bad_url', 'the URL is not valid');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundError('bad_url', `only http: and https: URLs are supported, not ${parsed.protocol}`);
  }
  return parsed;
}

function nextHop(from: URL, status: number, location: string, hops: number, rule: Exclude<RedirectRule, { follow: 'none' }>): URL {
  const next = tryParseUrl(location, from);
  if (rule.follow === 'same-receiver') {
    const followable = (status === 307 || status === 308) && next !== null && sameReceiver(from, next);
    const refuse = (why: string) => new OutboundError('redirect', `the receiver at ${from.host} answered ${status} (redirect); ${why}`, { host: from.host });
    if (!followable) throw refuse('redirects are not followed');
    if (hops >= rule.max) throw refuse(`gave up after ${rule.max} redirects`);
    return next;
  }
  if (hops >= rule.max) throw new OutboundError('redirect', `${from.host} redirected more than ${rule.max} times`, { host: from.host });
  if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
    throw new OutboundError('redirect', `${from.host} redirected to an unsupported URL${next ? ` scheme ${next.protocol}` : ''}`, { host: from.host });
  }
  return next;
}

/** Same hostname and port as written (empty: the scheme's default); http may be upgraded to https, not back. */
function sameReceiver(from: URL, to: URL): boolean {
  const schemeOk = to.protocol === from.protocol || (from.protocol === 'http:' && to.protocol === 'https:');
  return schemeOk && to.hostname === from.hostname && to.port === from.port;
}

function withoutCredentials(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

function withoutBodyHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(length|type)$/i.test(name)));
}

/** Drains a small redirect body so its connection can be reused; a large (or unannounced) one costs the connection. */
function discard(res: IncomingMessage): void {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared <= MAX_DRAINED_REDIRECT_BYTES) res.resume();
  else res.destroy();
}

// --- one exchange --------------------------------------------------------------------------------------------

class StaleConnection extends Error {}

/**
 * One request/response exchange; resolves once the answer's headers are in. A kept-alive connection the server
 * closed just as it was reused fails before the request reached it (ECONNRESET / EPIPE on a reused socket):
 * that is sent again once, on a new connection.
 */
async function exchange(url: URL, method: string, headers: OutgoingHttpHeaders, body: string | Buffer | undefined, options: OutboundRequest): Promise<IncomingMessage> {
  try {
    return await exchangeOnce(url, method, headers, body, options, false);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    return exchangeOnce(url, method, headers, body, options, true);
  }
}

function exchangeOnce(
  url: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: string | Buffer | undefined,
  options: OutboundRequest,
  freshConnection: boolean,
): Promise<IncomingMessage> {
  const secure = url.protocol === 'https:';
  const agents = agentsFor(options.policy, options.verifyTls);
  const requestOptions: https.RequestOptions = {
    protocol: url.protocol,
    hostname: stripBrackets(url.hostname),
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method,
    headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) },
    agent: secure ? (freshConnection ? agents.httpsOnce : agents.https) : freshConnection ? agents.httpOnce : agents.http,
    ...(secure ? { rejectUnauthorized: options.verifyTls } : {}),
  };
  const { signal } = options;
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(requestOptions);
    let settled = false;
    const settle = (err: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      reject(err);
    };
    const onAbort = () => settle(signal!.reason);
    const timer = setTimeout(() => settle(unreachableFor(url, `no answer within ${options.headTimeoutMs} ms`, options.policy)), options.headTimeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      if (settled) return void res.destroy();
      settled = true;
      cleanup();
      guardBody(res, url, options);
      resolve(res);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      if (req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) settle(new StaleConnection());
      else settle(failure(err, url, options.policy));
    });
    req.end(body);
  });
}

/** Fails the body on the caller's abort and on the server's silence; waiting on our own slow reader is not silence. */
function guardBody(res: IncomingMessage, url: URL, options: OutboundRequest): void {
  const idleMs = options.idleTimeoutMs ?? options.headTimeoutMs;
  const { signal } = options;
  const onAbort = () => res.destroy(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  res.once('close', () => signal?.removeEventListener('abort', onAbort));
  res.on('timeout', () => {
    if (res.complete) return;
    if (waitingForOurReader(res)) return void res.setTimeout(idleMs); // re-armed: the silence is ours
    const detail = `stopped sending data for ${idleMs} ms`;
    res.destroy(new OutboundError('response', `${url.host} ${detail}`, { detail, code: 'ETIMEDOUT', host: url.host }));
  });
  res.setTimeout(idleMs);
}

/**
 * Data we have not consumed yet, or a flowing stream we paused (a pipe's backpressure): the server may be
 * sending, we are not reading. A paused stream with a 'readable' listener (async iteration) and nothing
 * buffered is a reader waiting for the server.
 */
function waitingForOurReader(res: IncomingMessage): boolean {
  return res.readableLength > 0 || (res.readableFlowing === false && res.listenerCount('readable') === 0);
}

function unreachableFor(url: URL, detail: string, policy: OutboundPolicy): OutboundError {
  policy.report(url.host, detail);
  return unreachable(url.host, detail);
}

/** A failed exchange: TLS problems of an allowed connection are named; everything else is 'unreachable'. */
function failure(err: NodeJS.ErrnoException, url: URL, policy: OutboundPolicy): OutboundError {
  if (err instanceof OutboundError) return err.reason === 'unreachable' ? unreachableFor(url, err.detail, policy) : err;
  if (url.protocol === 'https:' && isTlsFailure(err)) return tlsFailure(err, url);
  return unreachableFor(url, err.code ?? withoutSecrets(err.message, url), policy);
}

/** Error codes node:tls and OpenSSL give certificate and handshake failures. */
const TLS_ERROR_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|INVALID_CA|EPROTO$)/;
/** `...:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:<source file>` → its reason field. */
const OPENSSL_ERROR = /SSL routines:[^:]*:([^:]+)/;

function isTlsFailure(err: NodeJS.ErrnoException): boolean {
  return TLS_ERROR_CODE.test(err.code ?? '') || OPENSSL_ERROR.test(err.message);
}

function tlsFailure(err: NodeJS.ErrnoException, url: URL): OutboundError {
  const reason = OPENSSL_ERROR.exec(err.message)?.[1] ?? withoutSecrets(err.message, url);
  // OpenSSL reports "the peer answered in plain HTTP" under several codes
  const plainHttp = err.code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' || /wrong version number|packet length too long/i.test(err.message);
  const code = plainHttp ? NOT_TLS_CODE : (err.code ?? 'EPROTO');
  return new OutboundError('tls', `${url.host}: TLS failed: ${reason} (${code})`, { detail: reason, code, host: url.host });
}

// --- connections ---------------------------------------------------------------------------------------------

interface Agents {
  http: http.Agent;
  https: https.Agent;
  /** Not pooled: for the one retry after a stale kept-alive connection. */
  httpOnce: http.Agent;
  httpsOnce: https.Agent;
}

/** Agents per policy, then per TLS verification setting. */
const agentsByPolicy = new WeakMap<OutboundPolicy, Map<boolean, Agents>>();

function agentsFor(policy: OutboundPolicy, verifyTls: boolean): Agents {
  let byTls = agentsByPolicy.get(policy);
  if (!byTls) agentsByPolicy.set(policy, (byTls = new Map()));
  let agents = byTls.get(verifyTls);
  if (!agents) {
    const pooled = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 16, scheduling: 'lifo' as const };
    agents = {
      http: new VettingHttpAgent(policy, pooled),
      https: new VettingHttpsAgent(policy, pooled),
      httpOnce: new VettingHttpAgent(policy, { keepAlive: false }),
      httpsOnce: new VettingHttpsAgent(policy, { keepAlive: false }),
    };
    byTls.set(verifyTls, agents);
  }
  return agents;
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;

/**
 * Resolves and vets the address first; only then is a socket created, connected to that address. Refused
 * (or unresolvable) targets fail the request without any socket.
 */
function connectVetted(policy: OutboundPolicy, options: NetConnectOpts & { host?: string; port?: number | string }, connect: (options: NetConnectOpts) => Duplex, callback: ConnectCallback): void {
  const port = options.port === undefined ? undefined : Number(options.port);
  policy.resolve(options.host ?? 'localhost', port).then(
    ({ address, family }) => {
      let socket: Duplex;
      try {
        socket = connect({ ...options, lookup: pinnedLookup(address, family) });
      } catch (err) {
        return callback(err as Error, undefined as unknown as Duplex);
      }
      callback(null, socket);
    },
    (err: Error) => callback(err, undefined as unknown as Duplex),
  );
}

/** A `lookup` that answers the vetted address whatever it is asked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

class VettingHttpAgent extends http.Agent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
    connectVetted(this.policy, options as NetConnectOpts, (vetted) => super.createConnection(vetted as http.ClientRequestArgs)!, callback!);
    return undefined;
  }
}

class VettingHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  // https.Agent's own createConnection adds TLS session reuse; it runs with the vetted address pinned
  override createConnection(options: https.RequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
    connectVetted(this.policy, options as NetConnectOpts, (vetted) => super.createConnection(vetted as https.RequestOptions)!, callback!);
    return undefined;
  }
}
