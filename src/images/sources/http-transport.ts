/**
 * The HTTP layer under the registry client, on node:http/https rather than fetch because it needs per-request
 * TLS verification control (fetch offers none without the undici package) and a streaming body that is not cut
 * off by the connect timeout. It follows redirects itself so credentials never leave the registry's origin
 * (registries redirect blob downloads to object storage), and turns socket/TLS failures into typed errors.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { AppError } from '../../errors.js';
import { RegistryError, RegistryTlsError, RegistryUnreachableError, type RegistryErrorContext } from './errors.js';

export interface HttpRequestOptions {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Limit for connecting and receiving the response headers, and for any silence while the body streams. */
  timeoutMs: number;
  verifyTls: boolean;
  /** Caller cancellation; aborts the body stream too. */
  signal?: AbortSignal;
  /** 0 returns redirects to the caller. */
  maxRedirects?: number;
  /** Names the registry (and repository) in errors. */
  context: RegistryErrorContext;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Final URL after redirects. */
  url: URL;
  body: IncomingMessage;
}

const DEFAULT_MAX_REDIRECTS = 5;

/** causeCode of a RegistryTlsError meaning "the server answered in plain HTTP". */
export const NOT_TLS_CODE = 'ERR_SSL_WRONG_VERSION_NUMBER';

const CERTIFICATE_ERROR_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const NETWORK_ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** Loopback hosts may be spoken to over plain HTTP without being marked insecure: nothing crosses a network. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

function describeTarget(url: URL, ctx: RegistryErrorContext): string {
  return url.host === ctx.registry ? `registry ${ctx.registry}` : `${url.host} (for registry ${ctx.registry})`;
}

/** Maps a socket or TLS failure of a request to `url` into a typed error; typed errors and aborts pass through. */
export function networkError(err: unknown, url: URL, ctx: RegistryErrorContext): Error {
  if (err instanceof AppError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'AbortError') return e;
  const code = e?.code ?? '';
  const target = describeTarget(url, ctx);
  if (CERTIFICATE_ERROR_CODES.has(code)) {
    return new RegistryTlsError(
      `TLS certificate of ${target} is not trusted (${code}: ${e.message}); install its CA on this host, or disable TLS verification for this registry if you accept the risk`,
      ctx,
      code,
    );
  }
  // OpenSSL reports "the peer answered in plain HTTP" as EPROTO with this reason (or as its own code).
  if (code === NOT_TLS_CODE || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' || (code === 'EPROTO' && /wrong version number|packet length too long/i.test(e.message))) {
    return new RegistryTlsError(
      `${target} does not speak TLS on ${url.host}; if it serves plain HTTP, mark the registry insecure`,
      ctx,
      NOT_TLS_CODE,
    );
  }
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return new RegistryTlsError(`TLS handshake with ${target} failed (${code}: ${e.message})`, ctx, code);
  }
  const words = NETWORK_ERROR_WORDS[code];
  return new RegistryUnreachableError(
    `cannot reach ${target} at ${url.origin}: ${words ?? e?.message ?? String(err)}; check the registry address and that it is running`,
    ctx,
    code || undefined,
  );
}

function requestOnce(url: URL, options: HttpRequestOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      signal: options.signal,
      ...(url.protocol === 'https:' ? { rejectUnauthorized: options.verifyTls } : {}),
    });
    // AbortSignal.timeout bounds only the wait for the response head: a large layer may legitimately take
    // longer than that to download, so the body is guarded by an idle timeout below instead.
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const onDeadline = () => {
      req.destroy(
        new RegistryUnreachableError(
          `${describeTarget(url, options.context)} did not answer within ${options.timeoutMs} ms (${url.origin}); check the address, firewall and registry health`,
          options.context,
          'ETIMEDOUT',
        ),
      );
    };
    deadline.addEventListener('abort', onDeadline, { once: true });
    req.on('response', (res) => {
      deadline.removeEventListener('abort', onDeadline);
      const onIdle = () => {
        // Silence while our reader is not reading (backpressure, or nobody consuming yet) is ours, not the
        // server's: re-arm instead of failing a slow but healthy download.
        if (res.isPaused() || res.readableLength > 0) {
          res.setTimeout(options.timeoutMs, onIdle);
          return;
        }
        res.destroy(
          new RegistryUnreachableError(
            `${describeTarget(url, options.context)} stopped sending data for ${options.timeoutMs} ms`,
            options.context,
            'ETIMEDOUT',
          ),
        );
      };
      res.setTimeout(options.timeoutMs, onIdle);
      resolve(res);
    });
    req.on('error', (err) => {
      deadline.removeEventListener('abort', onDeadline);
      reject(networkError(err, url, options.context));
    });
    req.end();
  });
}

/** One request, following redirects; Authorization is dropped when a redirect leaves the original origin. */
export async function httpRequest(url: URL, options: HttpRequestOptions): Promise<HttpResponse> {
  let current = url;
  let headers = { ...(options.headers ?? {}) };
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(current, { ...options, headers });
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (![301, 302, 303, 307, 308].includes(status) || !location || maxRedirects === 0) {
      return { status, headers: res.headers, url: current, body: res };
    }
    res.resume();
    if (hop >= maxRedirects) {
      throw new RegistryError(`${options.context.registry} redirected more than ${maxRedirects} times`, options.context);
    }
    const next = new URL(location, current);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new RegistryError(`${options.context.registry} redirected to an unsupported URL scheme ${next.protocol}`, options.context);
    }
    if (next.origin !== current.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    }
    current = next;
  }
}

/** Reads a whole (small) body, refusing more than `maxBytes` so a hostile server cannot exhaust memory. */
export async function readBody(res: HttpResponse, maxBytes: number, what: string, ctx: RegistryErrorContext): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  const tooLarge = () => new RegistryError(`${what} from ${ctx.registry} is larger than ${maxBytes} bytes; refusing to read it`, ctx);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) {
        res.body.destroy();
        throw tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    throw networkError(err, res.url, ctx);
  }
  return Buffer.concat(chunks);
}

/** Drains a body we do not need, so the connection can be reused. */
export function discardBody(res: HttpResponse): void {
  res.body.resume();
}
