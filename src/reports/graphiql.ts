/**
 * GraphiQL, the interactive GraphQL browser, served from npm packages (no CDN). The page signs in first (username
 * and password, or `_api_key` and an API key), keeps the credentials in sessionStorage only, and sends them as
 * HTTP Basic with every GraphQL request. The asset router serves exactly the files the page needs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { NotFoundError } from '../errors.js';
import { sendError } from '../server/error-response.js';
import { gzipCache, sendImmutableAsset, strictPageHeaders } from '../server/page-security.js';

/** A browser navigating to the endpoint (HTML wanted, no query given) gets GraphiQL instead of a GraphQL error. */
export function wantsGraphiql(req: Request): boolean {
  if (req.method !== 'GET' || req.query.query !== undefined) return false;
  const accept = req.headers.accept;
  if (typeof accept !== 'string' || !accept.includes('html')) return false;
  // The best of what the endpoint can answer, by the client's q-values; ties go to GraphQL (listed first).
  return req.accepts(['application/graphql-response+json', 'application/json', 'text/html']) === 'text/html';
}

/** The page's own script: sign-in, the authenticated fetcher, GraphiQL and sign-out. Plain ES2017, no build. */
const CLIENT_SCRIPT = `(function () {
  'use strict';
  var STORAGE_KEY = 'vigil.graphiql.credentials';
  var CHECK_QUERY = '{ reportingStatus { refreshedAt } }';
  var endpoint = document.body.getAttribute('data-endpoint');
  var signin = document.getElementById('vigil-signin');
  var form = document.getElementById('vigil-signin-form');
  var errorBox = document.getElementById('vigil-signin-error');
  var submit = document.getElementById('vigil-signin-submit');
  var app = document.getElementById('vigil-app');
  var userLabel = document.getElementById('vigil-user');
  var container = document.getElementById('graphiql');
  var root = null;
  var current = null;

  // Libraries inside GraphiQL add <style> elements; let them carry this page's style nonce.
  var style = document.querySelector('style[nonce]');
  if (style && style.nonce) window.__webpack_nonce__ = style.nonce;

  function basic(username, password) {
    var bytes = new TextEncoder().encode(username + ':' + password);
    var binary = '';
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return 'Basic ' + btoa(binary);
  }

  function load() {
    try {
      var saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || 'null');
      return saved && typeof saved.username === 'string' && typeof saved.authorization === 'string' ? saved : null;
    } catch (e) {
      return null;
    }
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  function showSignin(message) {
    if (root) {
      root.unmount();
      root = null;
    }
    current = null;
    app.hidden = true;
    signin.hidden = false;
    submit.disabled = false;
    showError(message || '');
    form.elements.password.value = '';
    (form.elements.username.value ? form.elements.password : form.elements.username).focus();
  }

  function signOut(message) {
    sessionStorage.removeItem(STORAGE_KEY);
    showSignin(message);
  }

  function describeFailure(res, body) {
    var detail = body && typeof body.message === 'string' ? ' (' + body.message + ')' : '';
    if (res.status === 401) return 'Sign-in failed: the username and password (or API key) were not accepted.';
    if (res.status === 403) return 'Signed in, but this user may not use this reporting endpoint' + detail + '.';
    if (res.status === 429) {
      var wait = res.headers.get('retry-after');
      return 'Too many failed sign-ins; try again' + (wait ? ' in ' + wait + ' seconds' : ' later') + '.';
    }
    return 'Sign-in failed: the server answered ' + res.status + detail + '.';
  }

  /** Runs the cheap check query with the credentials; resolves to null when accepted, else to a message. */
  function verify(authorization) {
    return fetch(endpoint, {
      method: 'POST',
      credentials: 'omit',
      headers: {
        Authorization: authorization,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json, application/json',
      },
      body: JSON.stringify({ query: CHECK_QUERY }),
    }).then(
      function (res) {
        if (res.ok) return null;
        return res
          .json()
          .catch(function () {
            return null;
          })
          .then(function (body) {
            return describeFailure(res, body);
          });
      },
      function () {
        return 'Could not reach the server; check the connection and try again.';
      },
    );
  }

  /** fetch for GraphiQL: every request carries the credentials; a 401 ends the session. */
  function authenticatedFetch(input, init) {
    var options = Object.assign({}, init, { credentials: 'omit' });
    var headers = new Headers(options.headers || {});
    var authorization = current && current.authorization;
    if (authorization) headers.set('Authorization', authorization);
    options.headers = headers;
    return fetch(input, options).then(function (res) {
      if (res.status === 401 && current && current.authorization === authorization) {
        setTimeout(function () {
          signOut('Your credentials are no longer accepted; sign in again.');
        }, 0);
      }
      return res;
    });
  }

  function showGraphiql(credentials) {
    current = credentials;
    signin.hidden = true;
    app.hidden = false;
    userLabel.textContent = credentials.username === '_api_key' ? 'an API key' : credentials.username;
    var fetcher = GraphiQL.createFetcher({ url: endpoint, fetch: authenticatedFetch });
    root = ReactDOM.createRoot(container);
    root.render(
      React.createElement(GraphiQL, {
        fetcher: fetcher,
        defaultQuery: '# Vigil reports: press the run button (Ctrl-Enter) to execute.\\n{\\n  reportingStatus {\\n    refreshedAt\\n    pendingChanges\\n  }\\n}\\n',
      }),
    );
  }

  function signIn(credentials) {
    submit.disabled = true;
    showError('');
    return verify(credentials.authorization).then(function (failure) {
      if (failure) {
        sessionStorage.removeItem(STORAGE_KEY);
        showSignin(failure);
        return;
      }
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
      showGraphiql(credentials);
    });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var username = form.elements.username.value.trim();
    var password = form.elements.password.value;
    if (!username || !password) {
      showError('Enter a username and a password (or _api_key and an API key).');
      return;
    }
    signIn({ username: username, authorization: basic(username, password) });
  });
  document.getElementById('vigil-signout').addEventListener('click', function () {
    signOut('');
  });

  var saved = load();
  if (saved) {
    // Signed in earlier in this tab: check the saved credentials again without showing the form meanwhile.
    form.elements.username.value = saved.username;
    signin.hidden = true;
    signIn(saved);
  } else {
    showSignin('');
  }
})();
`;

const PAGE_STYLE = `
html, body { height: 100%; margin: 0; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; background: #f6f7f9; }
[hidden] { display: none !important; }
.vigil-signin { display: flex; align-items: center; justify-content: center; min-height: 100%; padding: 1rem; box-sizing: border-box; }
.vigil-signin form { background: #fff; border: 1px solid #d5d9de; border-radius: 8px; padding: 1.5rem 1.75rem; width: 100%; max-width: 24rem; box-shadow: 0 2px 8px rgba(0,0,0,.06); }
.vigil-signin h1 { font-size: 1.25rem; margin: 0 0 .25rem; }
.vigil-signin p { margin: .5rem 0; font-size: .9rem; }
.vigil-signin label { display: block; margin: .75rem 0 .25rem; font-size: .9rem; font-weight: 600; }
.vigil-signin input { display: block; width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; border: 1px solid #b8bec5; border-radius: 4px; }
.vigil-signin button { margin-top: 1rem; padding: .5rem 1.25rem; font-size: 1rem; border: 0; border-radius: 4px; background: #1f6feb; color: #fff; cursor: pointer; }
.vigil-signin button:disabled { opacity: .6; cursor: progress; }
.vigil-hint { color: #57606a; }
.vigil-error { color: #a40e26; background: #ffebe9; border: 1px solid #ffb3b8; border-radius: 4px; padding: .5rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
.vigil-app { display: flex; flex-direction: column; height: 100%; }
.vigil-bar { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: .35rem .75rem; background: #fff; border-bottom: 1px solid #d5d9de; font-size: .85rem; }
.vigil-bar button { padding: .25rem .75rem; font-size: .85rem; border: 1px solid #b8bec5; border-radius: 4px; background: #fff; cursor: pointer; }
#graphiql { flex: 1; min-height: 0; }
`;

interface Asset {
  /** The file on disk, or the content itself. */
  source: { file: string } | { content: string };
  type: string;
  /** A short version for the URL, so the long cache lifetime is safe. */
  version: string;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const packageVersion = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

let assetTable: Map<string, Asset> | undefined;

/** The served files by name: exactly these, nothing else from node_modules. */
function assets(): Map<string, Asset> {
  if (assetTable) return assetTable;
  const fromPackage = (name: string, file: string, type: string): Asset => ({
    source: { file: join(packageDir(name), file) },
    type,
    version: packageVersion(name),
  });
  assetTable = new Map<string, Asset>([
    ['react.production.min.js', fromPackage('react', 'umd/react.production.min.js', JS)],
    ['react-dom.production.min.js', fromPackage('react-dom', 'umd/react-dom.production.min.js', JS)],
    ['graphiql.min.js', fromPackage('graphiql', 'graphiql.min.js', JS)],
    ['graphiql.min.css', fromPackage('graphiql', 'graphiql.min.css', CSS)],
    ['vigil-graphiql.js', { source: { content: CLIENT_SCRIPT }, type: JS, version: hashOf(CLIENT_SCRIPT) }],
  ]);
  return assetTable;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderGraphiqlPage(options: { endpoint: string; assets: string; nonce?: string }): string {
  const table = assets();
  const url = (name: string) => escapeHtml(`${options.assets}/${name}?v=${encodeURIComponent(table.get(name)!.version)}`);
  const endpoint = escapeHtml(options.endpoint);
  const nonce = options.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <link rel="icon" href="data:,">
  <title>Vigil reports · GraphiQL</title>
  <link rel="stylesheet" href="${url('graphiql.min.css')}">
  <style${nonce}>${PAGE_STYLE}</style>
</head>
<body data-endpoint="${endpoint}">
  <main id="vigil-signin" class="vigil-signin">
    <form id="vigil-signin-form" method="post" action="#" autocomplete="on">
      <h1>Vigil reports</h1>
      <p>Sign in to query <code>${endpoint}</code>.</p>
      <label for="vigil-username">Username</label>
      <input id="vigil-username" name="username" autocomplete="username" autocapitalize="off" spellcheck="false" required>
      <label for="vigil-password">Password</label>
      <input id="vigil-password" name="password" type="password" autocomplete="current-password" required>
      <p class="vigil-hint">To sign in with an API key, enter <code>_api_key</code> as the username and the key as the password.
        Credentials are kept for this browser tab only (sessionStorage).</p>
      <p id="vigil-signin-error" class="vigil-error" role="alert" hidden></p>
      <button id="vigil-signin-submit" type="submit">Sign in</button>
      <noscript><p class="vigil-error">GraphiQL needs JavaScript.</p></noscript>
    </form>
  </main>
  <div id="vigil-app" class="vigil-app" hidden>
    <div class="vigil-bar">
      <span>Vigil reports · <code>${endpoint}</code> · signed in as <strong id="vigil-user"></strong></span>
      <button id="vigil-signout" type="button">Sign out</button>
    </div>
    <div id="graphiql"></div>
  </div>
  <script src="${url('react.production.min.js')}"></script>
  <script src="${url('react-dom.production.min.js')}"></script>
  <script src="${url('graphiql.min.js')}"></script>
  <script src="${url('vigil-graphiql.js')}"></script>
</body>
</html>
`;
}

/** The page's security headers (shared with the web interface). */
export const graphiqlPageHeaders = strictPageHeaders;

/** Sends the GraphiQL page with its headers (a fresh style nonce per response). */
export function sendGraphiqlPage(res: Response, options: { endpoint: string; assets: string }): void {
  const nonce = randomBytes(16).toString('base64');
  res.set(graphiqlPageHeaders(nonce)).type('html').send(renderGraphiqlPage({ ...options, nonce }));
}

export function graphiqlAssets(): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  // Read (and gzipped) once, on first request: GraphiQL is a megabyte, a quarter of that compressed.
  const cache = gzipCache();
  const load = (name: string, asset: Asset) =>
    cache(name, () => ('file' in asset.source ? readFile(asset.source.file) : Promise.resolve(Buffer.from(asset.source.content))));

  router.get('/:name', async (req, res, next) => {
    const name = req.params.name;
    const asset = assets().get(name);
    if (!asset) return next();
    try {
      sendImmutableAsset(req, res, await load(name, asset), asset.type);
    } catch (err) {
      next(err);
    }
  });
  // Anything else under the asset path, including traversal attempts, is not found here.
  router.use((req, res) => {
    sendError(res, new NotFoundError(`no GraphiQL asset at ${req.method} ${req.baseUrl}${req.path}`, { path: req.baseUrl + req.path }), String(res.getHeader('x-request-id') ?? ''));
  });
  return router;
}
