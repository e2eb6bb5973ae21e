/**
 * A real registry for tests: Debian's `docker-registry` (distribution 2.8) on 127.0.0.1 with filesystem storage
 * in a temp dir, optionally behind htpasswd (Basic) auth, token (Bearer) auth or TLS. Several instances may
 * share one storage dir, so tests push to an open instance and read through a secured one. Also: a push helper
 * over the distribution API, a token service for Bearer auth, and a free-port finder.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { hex, type Built, type BuiltImage } from './image-builder.js';
import { requireTool } from './tools.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Credentials {
  username: string;
  password: string;
}

export interface TokenAuthConfig {
  realm: string;
  service: string;
  issuer: string;
  rootCertBundle: string;
}

export interface StartRegistryOptions {
  /** Share storage with another instance (it is then not removed on close). */
  storageDir?: string;
  htpasswd?: Credentials;
  token?: TokenAuthConfig;
  tls?: { certFile: string; keyFile: string };
}

export interface TestRegistry {
  /** `127.0.0.1:PORT`, the registry name to use in references. */
  host: string;
  url: string;
  storageDir: string;
  /** Path of a blob's content in the filesystem storage (for tampering). */
  blobDataPath(digest: string): string;
  close(): Promise<void>;
}

function registryConfig(port: number, storageDir: string, workDir: string, o: StartRegistryOptions): string {
  const lines = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${storageDir}`,
    '  maintenance:',
    '    uploadpurging:',
    '      enabled: false',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    `  secret: ${randomBytes(16).toString('hex')}`,
  ];
  if (o.tls) lines.push('  tls:', `    certificate: ${o.tls.certFile}`, `    key: ${o.tls.keyFile}`);
  if (o.htpasswd) {
    const file = join(workDir, 'htpasswd');
    // bcrypt (-B) is the only hash the registry's htpasswd backend accepts; cost 5 keeps tests fast.
    const line = execFileSync(requireTool('htpasswd'), ['-nbB', '-C', '5', o.htpasswd.username, o.htpasswd.password]).toString().trim();
    writeFileSync(file, `${line}\n`);
    lines.push('auth:', '  htpasswd:', '    realm: vigil-test', `    path: ${file}`);
  } else if (o.token) {
    lines.push(
      'auth:',
      '  token:',
      `    realm: ${o.token.realm}`,
      `    service: ${o.token.service}`,
      `    issuer: ${o.token.issuer}`,
      `    rootcertbundle: ${o.token.rootCertBundle}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function waitForRegistry(url: string, child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`docker-registry exited during startup: ${stderr()}`);
    const ready = await new Promise<boolean>((resolve) => {
      // Any HTTP answer (200, or 401 when auth is on) means it is serving; TLS instances are probed as such.
      const get = url.startsWith('https:') ? https.get : http.get;
      const req = get(`${url}/v2/`, { rejectUnauthorized: false, timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
    });
    if (ready) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer GET /v2/ within ${timeoutMs} ms: ${stderr()}`);
}

export async function startRegistry(options: StartRegistryOptions = {}): Promise<TestRegistry> {
  const registryBinary = requireTool('docker-registry');
  const workDir = mkdtempSync(join(tmpdir(), 'vigil-registry-'));
  const storageDir = options.storageDir ?? join(workDir, 'storage');
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const configFile = join(workDir, 'config.yml');
    writeFileSync(configFile, registryConfig(port, storageDir, workDir, options));
    let log = '';
    const child = spawn(registryBinary, ['serve', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // A clean environment: REGISTRY_* variables would override the config file.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workDir },
    });
    const collect = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const scheme = options.tls ? 'https' : 'http';
    const url = `${scheme}://127.0.0.1:${port}`;
    try {
      await waitForRegistry(url, child, () => log, 15_000);
    } catch (err) {
      child.kill('SIGKILL');
      // The free port can be taken between our probe and the registry's bind; try another.
      if (attempt < 2 && /address already in use/.test(log)) continue;
      rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
    return {
      host: `127.0.0.1:${port}`,
      url,
      storageDir,
      blobDataPath: (digest) => join(storageDir, 'docker/registry/v2/blobs/sha256', hex(digest).slice(0, 2), hex(digest), 'data'),
      async close() {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(workDir, { recursive: true, force: true });
      },
    };
  }
}

// ------------------------------------------------------------------------------------------------------------
// Pushing over the distribution API (monolithic uploads), Basic auth only.

function authHeaders(credentials?: Credentials): Record<string, string> {
  return credentials ? { Authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` } : {};
}

async function expectStatus(res: Response, expected: number[], what: string): Promise<void> {
  if (!expected.includes(res.status)) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
}

export async function pushBlob(registryUrl: string, repository: string, digest: string, blob: Buffer, credentials?: Credentials): Promise<void> {
  const head = await fetch(`${registryUrl}/v2/${repository}/blobs/${digest}`, { method: 'HEAD', headers: authHeaders(credentials) });
  if (head.status === 200) return;
  const start = await fetch(`${registryUrl}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: authHeaders(credentials) });
  await expectStatus(start, [202], `start upload of ${digest}`);
  const location = new URL(start.headers.get('location')!, registryUrl);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, {
    method: 'PUT',
    headers: { ...authHeaders(credentials), 'Content-Type': 'application/octet-stream', 'Content-Length': String(blob.length) },
    body: blob,
  });
  await expectStatus(put, [201], `upload of ${digest}`);
}

export async function pushManifest(
  registryUrl: string,
  repository: string,
  reference: string,
  mediaType: string,
  bytes: Buffer,
  credentials?: Credentials,
): Promise<void> {
  const res = await fetch(`${registryUrl}/v2/${repository}/manifests/${reference}`, {
    method: 'PUT',
    headers: { ...authHeaders(credentials), 'Content-Type': mediaType },
    body: bytes,
  });
  await expectStatus(res, [201], `push of manifest ${reference}`);
}

async function pushImageManifest(registryUrl: string, repository: string, reference: string, image: BuiltImage, credentials?: Credentials): Promise<void> {
  for (const l of image.layers) await pushBlob(registryUrl, repository, l.digest, l.blob, credentials);
  await pushBlob(registryUrl, repository, image.configDigest, image.configBytes, credentials);
  await pushManifest(registryUrl, repository, reference, image.mediaType, image.manifestBytes, credentials);
}

/** Pushes an image or an index (children by digest first) and tags it. */
export async function pushImage(registryUrl: string, repository: string, tag: string, target: Built, credentials?: Credentials): Promise<void> {
  if (target.kind === 'image') {
    await pushImageManifest(registryUrl, repository, tag, target, credentials);
    return;
  }
  for (const img of target.images) await pushImageManifest(registryUrl, repository, img.manifestDigest, img, credentials);
  // Attestation manifests: their blobs first, then the manifests themselves.
  const extras = [...target.extraBlobs].map(([digest, bytes]) => ({ digest, bytes, doc: JSON.parse(bytes.toString()) as { mediaType?: string; config?: unknown } }));
  for (const e of extras.filter((x) => !x.doc.config)) await pushBlob(registryUrl, repository, e.digest, e.bytes, credentials);
  for (const e of extras.filter((x) => x.doc.config)) await pushManifest(registryUrl, repository, e.digest, e.doc.mediaType!, e.bytes, credentials);
  await pushManifest(registryUrl, repository, tag, target.mediaType, target.bytes, credentials);
}

// ------------------------------------------------------------------------------------------------------------
// Token (Bearer) auth: a token service as the distribution token spec describes, signing with a self-signed
// certificate the registry trusts (the certificate travels in the JWT's x5c header).

export interface TokenService {
  realm: string;
  config: TokenAuthConfig;
  /** Every token request seen: the scopes asked for and who asked (undefined: anonymous). */
  requests: { scopes: string[]; user?: string }[];
  close(): Promise<void>;
}

export interface TokenServiceOptions {
  users: Credentials[];
  /** Repositories anyone may pull without credentials. */
  publicRepositories?: string[];
  /** Token lifetime in seconds (default 300). */
  expiresIn?: number;
}

export async function startTokenService(options: TokenServiceOptions): Promise<TokenService> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-token-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    requireTool('openssl'),
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=vigil-test-token', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  const key = createPrivateKey(readFileSync(keyFile));
  const certDer = new X509Certificate(readFileSync(certFile)).raw.toString('base64');
  const issuer = 'vigil-test-issuer';
  const service = 'vigil-test-registry';
  const requests: TokenService['requests'] = [];

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const scopes = url.searchParams.getAll('scope');
    let user: string | undefined;
    const auth = req.headers.authorization;
    if (auth?.startsWith('Basic ')) {
      const [name, ...rest] = Buffer.from(auth.slice(6), 'base64').toString().split(':');
      const ok = options.users.some((u) => u.username === name && u.password === rest.join(':'));
      if (!ok) {
        requests.push({ scopes, user: name });
        res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"details":"incorrect username or password"}');
        return;
      }
      user = name;
    }
    requests.push({ scopes, ...(user ? { user } : {}) });
    const access = scopes.flatMap((s) => {
      const [type, name, actions] = s.split(':');
      if (type !== 'repository' || !name) return [];
      const allowed = user ? (actions ?? '').split(',') : options.publicRepositories?.includes(name) ? ['pull'] : [];
      return [{ type, name, actions: allowed.filter((a) => a === 'pull' || (user && a === 'push')) }];
    });
    const expiresIn = options.expiresIn ?? 300;
    const token = await new SignJWT({ access })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', x5c: [certDer] })
      .setIssuer(issuer)
      .setAudience(service)
      .setSubject(user ?? '')
      .setIssuedAt()
      .setNotBefore(Math.floor(Date.now() / 1000) - 5)
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn)
      .setJti(randomBytes(8).toString('hex'))
      .sign(key);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ token, expires_in: expiresIn, issued_at: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const realm = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return {
    realm,
    config: { realm, service, issuer, rootCertBundle: certFile },
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
