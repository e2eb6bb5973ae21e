/**
 * Watches every TCP connect of this process (net.Socket#connect, under net, tls, http, https and undici alike,
 * so also those of an in-process Vigil server). A connect to a host that is not loopback is failed on the spot,
 * before anything is sent: a test of outbound refusals never sends traffic off this machine, even when the
 * code under test is wrong.
 */
import net from 'node:net';
import { vi } from 'vitest';

export interface ConnectAttempt {
  /** As passed to connect: a name (resolved later, inside connect) or an address. */
  host: string;
  port: number;
}

export interface ConnectWatch {
  attempts: ConnectAttempt[];
  restore(): void;
}

/** `loopbackNames`: names the code under test resolves to loopback itself (a test's injected resolver). */
export function watchConnects(options: { loopbackNames?: string[] } = {}): ConnectWatch {
  const loopbackNames = new Set(options.loopbackNames ?? []);
  const attempts: ConnectAttempt[] = [];
  const original = net.Socket.prototype.connect;
  const spy = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    const target = connectTarget(args);
    if (target !== null) {
      attempts.push(target);
      if (!isLoopbackHost(target.host) && !loopbackNames.has(target.host)) {
        const refusal = Object.assign(new Error(`connect ENETUNREACH ${target.host}:${target.port} (stopped by the test: not loopback)`), { code: 'ENETUNREACH' });
        process.nextTick(() => this.destroy(refusal));
        return this;
      }
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  });
  return { attempts, restore: () => spy.mockRestore() };
}

/** host and port of a TCP connect; null for a Unix socket path (Postgres, say). */
function connectTarget(args: unknown[]): ConnectAttempt | null {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]; // net.connect passes its normalized [options, cb]
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; port?: number | string; path?: string };
    return options.path ? null : { host: options.host ?? 'localhost', port: Number(options.port) };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: Number(first) };
  }
  return null;
}

/** Loopback in the forms a connect may be given: localhost, 127/8, ::1, and IPv4-mapped 127/8. */
function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}
