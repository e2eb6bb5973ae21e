/**
 * Keeps a test process on loopback: TCP/TLS connections (node:net, which http, https, fetch, nodemailer and pg all
 * use) and DNS look-ups of any destination other than 127.0.0.0/8, ::1, `localhost` or a Unix socket are refused
 * before anything is sent, and recorded so the test can fail on them. For tests that feed the server generated
 * input (URLs, image references, host names) where a single unforeseen value must not become outside traffic.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

export interface LoopbackGuard {
  /** Destinations refused since install (or the last take()), e.g. `connect registry-1.docker.io:443`. */
  take(): string[];
  uninstall(): void;
}

export function isLoopbackHost(host: string | undefined | null): boolean {
  if (host === undefined || host === null || host === '') return true; // net defaults to localhost
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** The destination of a Socket#connect call, in any of its argument forms; null for a Unix socket path. */
function destinationOf(args: unknown[]): { host?: string; port?: unknown } | null {
  let first = args[0];
  // net.connect passes its already-normalised [options, callback] array.
  if (Array.isArray(first)) first = first[0];
  if (typeof first === 'string') return null;
  if (typeof first === 'number') return { host: typeof args[1] === 'string' ? args[1] : undefined, port: first };
  const options = (first ?? {}) as { host?: string; port?: unknown; path?: string };
  if (options.path) return null;
  return { host: options.host, port: options.port };
}

export function installLoopbackGuard(): LoopbackGuard {
  let refused: string[] = [];
  const originalConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const destination = destinationOf(args);
    if (destination && !isLoopbackHost(destination.host)) {
      const what = `connect ${destination.host}:${String(destination.port)}`;
      refused.push(what);
      process.nextTick(() => this.destroy(Object.assign(new Error(`loopback guard refused ${what}`), { code: 'ECONNREFUSED' })));
      return this;
    }
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  // Look-ups (getaddrinfo) and resolver queries (nodemailer resolves with resolve4/resolve6) of names.
  const CALLBACK_FNS = ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny'] as const;
  const originals = new Map<string, unknown>();
  const dnsCallbacks = dns as unknown as Record<string, (...a: unknown[]) => unknown>;
  const dnsPromises = dns.promises as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const refuseName = (hostname: unknown): Error | null => {
    if (typeof hostname !== 'string' || isLoopbackHost(hostname) || net.isIP(hostname)) return null;
    refused.push(`lookup ${hostname}`);
    return Object.assign(new Error(`loopback guard refused lookup ${hostname}`), { code: 'ENOTFOUND', hostname });
  };
  for (const name of CALLBACK_FNS) {
    const callbackFn = dnsCallbacks[name];
    const promiseFn = dnsPromises[name];
    originals.set(`cb:${name}`, callbackFn);
    originals.set(`p:${name}`, promiseFn);
    dnsCallbacks[name] = function guarded(hostname: unknown, ...rest: unknown[]) {
      const err = refuseName(hostname);
      if (!err) return callbackFn.call(dns, hostname, ...rest);
      const callback = rest[rest.length - 1] as (e: Error) => void;
      process.nextTick(() => callback(err));
      return {};
    };
    dnsPromises[name] = async function guarded(hostname: unknown, ...rest: unknown[]) {
      const err = refuseName(hostname);
      if (err) throw err;
      return promiseFn.call(dns.promises, hostname, ...rest);
    };
  }
  // ESM named imports of builtins (import { lookup } from 'node:dns') see the patched functions only after this.
  syncBuiltinESMExports();

  return {
    take() {
      const out = refused;
      refused = [];
      return out;
    },
    uninstall() {
      net.Socket.prototype.connect = originalConnect;
      for (const name of CALLBACK_FNS) {
        dnsCallbacks[name] = originals.get(`cb:${name}`) as (...a: unknown[]) => unknown;
        dnsPromises[name] = originals.get(`p:${name}`) as (...a: unknown[]) => Promise<unknown>;
      }
      syncBuiltinESMExports();
    },
  };
}
