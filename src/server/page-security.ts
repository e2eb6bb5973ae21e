/**
 * What Vigil's own browser pages share (GraphiQL, the web interface): the strict security headers, and sending
 * immutable assets gzipped once and kept in memory.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Request, Response } from 'express';

const gzipAsync = promisify(gzip);

/** The page's security headers: scripts from this origin only; inline styles only with the per-response nonce. */
export function strictPageHeaders(nonce: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

export interface AssetBody {
  plain: Buffer;
  gzipped: Buffer;
}

/** Sends an asset whose name changes with its content (cached for a year), gzipped when the client accepts it. */
export function sendImmutableAsset(req: Request, res: Response, body: AssetBody, type: string): void {
  res.set({
    'Content-Type': type,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  });
  if (req.acceptsEncodings('gzip', 'identity') === 'gzip') {
    res.set('Content-Encoding', 'gzip');
    res.send(body.gzipped);
  } else {
    res.send(body.plain);
  }
}

/**
 * A memo of assets read and gzipped once, on first request. A failed read is forgotten, so the next request
 * tries again.
 */
export function gzipCache(): (key: string, read: () => Promise<Buffer>) => Promise<AssetBody> {
  const contents = new Map<string, Promise<AssetBody>>();
  return (key, read) => {
    let body = contents.get(key);
    if (!body) {
      body = read().then(async (plain) => ({ plain, gzipped: await gzipAsync(plain, { level: 9 }) }));
      body.catch(() => contents.delete(key));
      contents.set(key, body);
    }
    return body;
  };
}
