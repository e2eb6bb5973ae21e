/**
 * The registry client's HTTP layer: GETs through the outbound client (src/outbound/) under the registry
 * policy — every connection and redirect hop vetted, blob redirects to storage followed with the credentials
 * kept at the registry's origin, bodies streamed with an idle timeout — and its failures as registry errors.
 */
import { PassThrough, type Readable } from 'node:stream';
import { OutboundError } from '../../outbound/errors.js';
import { bodyFailure, NOT_TLS_CODE, request, type OutboundResponse } from '../../outbound/http.js';
import type { OutboundPolicy } from '../../outbound/policy.js';
import { tryParseUrl } from '../../outbound/urls.js';
import { RegistryError, RegistryTlsError, RegistryUnreachableError, type RegistryErrorContext } from './errors.js';
import { registryApiHost } from './references.js';

export { NOT_TLS_CODE };

export interface RegistryRequestOptions {
  headers?: Record<string, string>;
  /** Which addresses registries may resolve to (VIGIL_OUTBOUND_ALLOW plus VIGIL_REGISTRY_ALLOW). */
  policy: OutboundPolicy;
  /** Limit for connecting and receiving the response headers, and for any silence while the body streams. */
  timeoutMs: number;
  verifyTls: boolean;
  /** Caller cancellation; aborts the body stream too. */
  signal?: AbortSignal;
  /** Names the registry (and repository) in errors. */
  context: RegistryErrorContext;
}

export type HttpResponse = OutboundResponse;

const MAX_REDIRECTS = 5;

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

/** Loopback hosts may be spoken to over plain HTTP without being marked insecure: nothing crosses a network. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** One GET, following redirects (Authorization is dropped when a redirect leaves the original origin). */
export async function registryGet(url: URL, options: RegistryRequestOptions): Promise<HttpResponse> {
  try {
    return await request(url, {
      method: 'GET',
      headers: options.headers,
      policy: options.policy,
      verifyTls: options.verifyTls,
      headTimeoutMs: options.timeoutMs,
      idleTimeoutMs: options.timeoutMs,
      signal: options.signal,
      redirects: { follow: 'any', max: MAX_REDIRECTS },
    });
  } catch (err) {
    throw registryFailure(err, options.context);
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
    throw registryFailure(bodyFailure(err, res.url), ctx);
  }
  return Buffer.concat(chunks);
}

/** The body as a stream whose failures are registry errors (a stall is RegistryUnreachableError, ETIMEDOUT). */
export function bodyStream(res: HttpResponse, ctx: RegistryErrorContext): Readable {
  const out = new PassThrough();
  res.body.on('error', (err) => out.destroy(registryFailure(bodyFailure(err, res.url), ctx) as Error));
  out.on('close', () => {
    if (!res.body.readableEnded) res.body.destroy(); // the reader gave up: stop downloading
  });
  res.body.pipe(out);
  return out;
}

/** Drains a body we do not need, so the connection can be reused. */
export function discardBody(res: HttpResponse): void {
  res.body.resume();
}

/**
 * An outbound failure as the registry error that says what to do. Whatever kept the registry from answering
 * (the address refused by the policy, DNS, a closed port, silence) is one RegistryUnreachableError with one
 * message: the API must not tell them apart (the precise reason is in the server log). TLS and HTTP-level
 * problems come after an allowed connection and say what they are. Errors of ours and the caller's abort pass.
 */
export function registryFailure(err: unknown, ctx: RegistryErrorContext): unknown {
  if (!(err instanceof OutboundError)) return err;
  const target = describeTarget(err.host, ctx);
  switch (err.reason) {
    case 'unreachable':
      return new RegistryUnreachableError(`cannot reach ${target}: the address is not allowed or did not answer`, ctx);
    case 'tls':
      return tlsError(err, target, ctx);
    case 'response':
      return new RegistryUnreachableError(`${target} ${err.code === 'ETIMEDOUT' ? err.detail : `broke off its answer (${err.code ?? 'error'})`}`, ctx, err.code);
    case 'redirect':
    case 'bad_url':
      return new RegistryError(`${ctx.registry}: ${err.message}`, ctx);
  }
}

function tlsError(err: OutboundError, target: string, ctx: RegistryErrorContext): RegistryTlsError {
  const code = err.code ?? 'EPROTO';
  if (CERTIFICATE_ERROR_CODES.has(code)) {
    return new RegistryTlsError(
      `TLS certificate of ${target} is not trusted (${code}: ${err.detail}); install its CA on this host, or disable TLS verification for this registry if you accept the risk`,
      ctx,
      code,
    );
  }
  if (code === NOT_TLS_CODE) {
    return new RegistryTlsError(`${target} does not speak TLS on ${err.host ?? ctx.registry}; if it serves plain HTTP, mark the registry insecure`, ctx, code);
  }
  return new RegistryTlsError(`TLS handshake with ${target} failed (${code}: ${err.detail})`, ctx, code);
}

/** "registry R" when the failing host is the registry's own (as the URL parser writes it), else the other host too. */
function describeTarget(host: string | undefined, ctx: RegistryErrorContext): string {
  const registryHost = tryParseUrl(`http://${registryApiHost(ctx.registry)}`)?.hostname;
  const failingHost = host === undefined ? undefined : tryParseUrl(`http://${host}`)?.hostname;
  return failingHost === undefined || failingHost === registryHost ? `registry ${ctx.registry}` : `${host} (for registry ${ctx.registry})`;
}
