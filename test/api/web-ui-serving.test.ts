/**
 * The web interface over plain HTTP: /ui/ and deep links answer index.html with the strict CSP and a fresh style
 * nonce filled into the page, hashed assets are cached and gzipped, nothing outside dist/web is ever served, `/`
 * sends browsers (only) to /ui/, and a server without the build says how to make it.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWebDir, webUiRouter } from '../../src/server/web-ui.js';
import { raw, rawGet } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('the web interface at /ui/', () => {
  it('answers the app with the strict CSP and the response\'s style nonce in the page', async () => {
    const first = await raw(server.url, 'GET', '/ui/', { auth: null, headers: { accept: BROWSER_ACCEPT } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = first.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const nonce = /style-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(first.text).toContain(`<meta name="vigil-style-nonce" content="${nonce}"`);
    expect(first.text).not.toContain('__VIGIL_STYLE_NONCE__');
    // No inline script: every script is a file from this origin.
    expect(first.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(first.headers.get('x-frame-options')).toBe('DENY');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('cache-control')).toBe('no-store');

    const second = await raw(server.url, 'GET', '/ui/', { auth: null });
    expect(second.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('answers deep links with the app (the router shows the page) and /ui with a redirect to /ui/', async () => {
    for (const path of ['/ui/images', '/ui/images/sha256:0123abcd/vulnerabilities', '/ui/admin/users?x=1', '/ui/index.html']) {
      const res = await raw(server.url, 'GET', path, { auth: null });
      expect(res.status, path).toBe(200);
      expect(res.text, path).toContain('<div id="root"></div>');
    }
    const bare = await raw(server.url, 'GET', '/ui', { auth: null, redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/ui/');
  });

  it('serves the hashed assets cached for a year, gzipped when accepted', async () => {
    const page = await raw(server.url, 'GET', '/ui/', { auth: null });
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    const style = /href="(\/ui\/assets\/[^"]+\.css)"/.exec(page.text)?.[1];
    expect(script && style).toBeTruthy();
    const js = await rawGet(server.url, script!, { 'accept-encoding': 'gzip' });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['content-encoding']).toBe('gzip');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await raw(server.url, 'GET', style!, { auth: null });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.text.length).toBeGreaterThan(1000);
  });

  it('never serves a file outside dist/web, and answers missing files 404 in the error shape', async () => {
    for (const path of [
      '/ui/../package.json',
      '/ui/assets/../../package.json',
      '/ui/%2e%2e/%2e%2e/package.json',
      '/ui/assets/..%2f..%2f..%2fpackage.json',
      '/ui/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/ui/assets/missing.js',
      '/ui/assets/.hidden',
      '/ui/favicon.ico',
    ]) {
      const res = await rawGet(server.url, path);
      expect(res.body, path).not.toContain('"name": "vigil"');
      if (res.status !== 404) expect(res.body, path).toContain('<div id="root"></div>');
      else expect(JSON.parse(res.body).error_type, path).toBe('not_found');
    }
  });

  it('sends browsers asking for / to /ui/, and leaves API clients alone', async () => {
    const browser = await raw(server.url, 'GET', '/', { auth: null, headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/ui/');
    const api = await raw(server.url, 'GET', '/', { auth: null, headers: { accept: 'application/json' }, redirect: 'manual' });
    expect(api.status).toBe(404);
    expect(api.json.error_type).toBe('not_found');
  });
});

describe('the web interface router on its own directory', () => {
  let dir: string;
  let base: string;
  let close: () => void;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-web-ui-'));
    mkdirSync(join(dir, 'web', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'web', 'index.html'), '<html><div id="root"></div></html>');
    writeFileSync(join(dir, 'secret.txt'), 'outside');
    // A link inside dist/web pointing out of it must not be followed.
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'web', 'assets', 'linked.txt'));
    const app = express();
    app.use('/ui', webUiRouter(join(dir, 'web')));
    app.use('/missing', webUiRouter(join(dir, 'not-built')));
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    close = () => listening.close();
  });
  afterAll(() => {
    close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not follow a link out of the directory', async () => {
    const res = await rawGet(base, '/ui/assets/linked.txt');
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('outside');
  });

  it('says how to build the interface when dist/web is missing', async () => {
    const res = await rawGet(base, '/missing/');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).message).toContain('npm run build:web');
  });

  it('finds dist/web beside the package root', () => {
    expect(defaultWebDir()).toMatch(/dist[/\\]web$/);
    expect(readdirSync(defaultWebDir())).toContain('index.html');
  });
});
