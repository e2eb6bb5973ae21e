/**
 * The web interface (web/, built by `npm run build:web` into dist/web) at /ui/: hashed assets cached for a year and
 * sent gzipped, every other path the single-page app's index.html (its router shows the page) with the strict CSP
 * and a fresh style nonce for Mantine's <style> tags. Browsers asking for `/` are sent to /ui/.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { NotFoundError, UnavailableError } from '../errors.js';
import { sendError } from './error-response.js';
import { gzipCache, sendImmutableAsset, strictPageHeaders } from './page-security.js';

export const WEB_UI_PATH = '/ui';
const NONCE_PLACEHOLDER = '__VIGIL_STYLE_NONCE__';
/** File names Vite writes (name-hash.ext); anything else, dot files and path tricks included, is never a file. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.[A-Za-z0-9]+$/;
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** dist/web beside the package root (the nearest directory up with a package.json: the checkout, or /opt/vigil). */
export function defaultWebDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'web');
}

function requestId(res: Response): string {
  return String(res.getHeader('x-request-id') ?? '');
}

/** A browser navigating to `/` (HTML wanted) is sent to the web interface; API clients get what they got before. */
export const redirectBrowsersToUi: RequestHandler = (req, res, next) => {
  if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD') && req.accepts(['application/json', 'text/html']) === 'text/html') {
    return res.redirect(302, `${WEB_UI_PATH}/`);
  }
  next();
};

export function webUiRouter(webDir: string = defaultWebDir()): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const cache = gzipCache();
  const notBuilt = () => new UnavailableError('the web interface is not built on this server: run `npm run build:web`', { path: WEB_UI_PATH });

  /** The file a request names under dist/web, or null: one or two plain segments, resolved inside dist/web only. */
  function fileFor(path: string): string | null {
    const segments = path.split('/').filter(Boolean);
    const valid = (segments.length === 1 || (segments.length === 2 && segments[0] === 'assets')) && ASSET_NAME.test(segments[segments.length - 1]);
    if (!valid || segments[segments.length - 1] === 'index.html') return null;
    const file = join(webDir, ...segments);
    try {
      const real = realpathSync(file);
      return real.startsWith(realpathSync(webDir) + sep) ? real : null;
    } catch {
      return null;
    }
  }

  async function sendIndex(res: Response): Promise<void> {
    const html = await readFile(join(webDir, 'index.html'), 'utf8');
    const nonce = randomBytes(16).toString('base64');
    res.set(strictPageHeaders(nonce)).type('html').send(html.replaceAll(NONCE_PLACEHOLDER, nonce));
  }

  router.get('/{*rest}', async (req: Request, res: Response, next) => {
    try {
      if (!existsSync(join(webDir, 'index.html'))) return sendError(res, notBuilt(), requestId(res));
      // /ui (no slash) would resolve the assets' relative URLs and the router's basename wrongly.
      if (req.path === '/' && !req.originalUrl.split('?')[0].endsWith('/')) return res.redirect(301, `${WEB_UI_PATH}/`);
      const file = fileFor(req.path);
      if (file) return sendImmutableAsset(req, res, await cache(file, () => readFile(file)), TYPES[extname(file)] ?? 'application/octet-stream');
      if (req.path === '/index.html') return await sendIndex(res);
      // A path that names a file (an extension, or under assets/) and is not one is a 404, not the app.
      const last = req.path.split('/').pop() ?? '';
      if (req.path.startsWith('/assets/') || extname(last) !== '') {
        return sendError(res, new NotFoundError(`no web interface file at ${WEB_UI_PATH}${req.path}`, { path: WEB_UI_PATH + req.path }), requestId(res));
      }
      await sendIndex(res);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
