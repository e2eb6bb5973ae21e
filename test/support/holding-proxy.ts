/**
 * A registry proxy that holds layer blob downloads: it forwards every request to a real registry, but GETs of the
 * chosen blobs wait until the test releases them. A test learns that an analysis is in progress from the proxy
 * seeing the blob request (an event), not from sleeping, and can kill the analyzing process while it waits.
 */
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { within } from './vigil-process.js';

export interface HeldRequest {
  digest: string;
  forward(): void;
  /** The client went away (killed) before the proxy answered. */
  gone: boolean;
}

export class HoldingProxy extends EventEmitter {
  readonly server: http.Server;
  /** Blob GETs for these digests wait until release(). */
  private readonly holdDigests: Set<string>;
  private held: HeldRequest[] = [];
  private releasedAll = false;
  /** Every held request ever seen, in order (a killed process's and the next one's). */
  readonly heldLog: string[] = [];
  /** `127.0.0.1:PORT`, the registry name to use in references. */
  host = '';

  constructor(
    private readonly upstream: URL,
    holdDigests: string[],
  ) {
    super();
    this.holdDigests = new Set(holdDigests);
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.host = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const forward = () => {
      const upstream = http.request(
        new URL(req.url ?? '/', this.upstream),
        { method: req.method, headers: { ...req.headers, host: this.upstream.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    };
    const blob = /^\/v2\/.+\/blobs\/(sha256:[0-9a-f]{64})$/.exec(req.url ?? '');
    if (req.method === 'GET' && blob && this.holdDigests.has(blob[1]) && !this.releasedAll) {
      const entry: HeldRequest = { digest: blob[1], forward, gone: false };
      res.on('close', () => (entry.gone = true));
      this.held.push(entry);
      this.heldLog.push(blob[1]);
      this.emit('held', entry);
      return;
    }
    forward();
  }

  /** Resolves when the next blob request is held; rejects after `ms`. */
  nextHeld(ms: number): Promise<HeldRequest> {
    return within(ms, 'a layer blob request to reach the proxy', once(this, 'held').then(([e]) => e as HeldRequest));
  }

  /** Forwards every held request whose client is still there, and lets later ones through. */
  release(): void {
    this.releasedAll = true;
    for (const h of this.held) if (!h.gone) h.forward();
    this.held = [];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
