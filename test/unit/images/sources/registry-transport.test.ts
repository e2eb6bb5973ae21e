/**
 * The registry client's transport: unreachable registries fail fast with a clear error, TLS problems are named
 * as such (against a real registry serving TLS), and blob redirects to storage are followed without carrying
 * the registry credentials to the storage host.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryTlsError, RegistryUnreachableError } from '../../../../src/images/sources/errors.js';
import { isLoopbackHost } from '../../../../src/images/sources/registry-http.js';
import { RegistryClient } from '../../../../src/images/sources/registry.js';
import { buildImage, readLayerFiles, type BuiltImage } from '../../../support/image-builder.js';
import { freePort, pushImage, startRegistry, type TestRegistry } from '../../../support/registry.js';
import { LOOPBACK_POLICY } from '../../../support/outbound.js';
import { missingTools } from '../../../support/tools.js';

const ALICE = { username: 'alice', password: 'correct-horse' };

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

let open: TestRegistry;
let image: BuiltImage;

beforeAll(async () => {
  open = await startRegistry();
  image = await buildImage({ layers: [[{ path: 'f', content: 'transport' }]] });
  await pushImage(open.url, 'vigil/app', '1', image);
});

afterAll(async () => {
  await open?.close();
});

describe.skipIf(missingTools('docker-registry', 'htpasswd', 'openssl'))('unreachable registries', () => {
  it('reports connection refused quickly', async () => {
    const port = await freePort();
    const started = Date.now();
    const err = await rejection(new RegistryClient(`127.0.0.1:${port}`, { policy: LOOPBACK_POLICY }).resolve('x/y', 'latest'));
    expect(err).toBeInstanceOf(RegistryUnreachableError);
    // the same words as for an address the policy refuses: the API does not tell a closed port from a refusal
    expect(err.message).toBe(`cannot reach registry 127.0.0.1:${port}: the address is not allowed or did not answer`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives up on a registry that accepts connections but never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const host = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const started = Date.now();
      const err = await rejection(new RegistryClient(host, { policy: LOOPBACK_POLICY, timeoutMs: 300 }).resolve('x/y', 'latest'));
      expect(err).toBeInstanceOf(RegistryUnreachableError);
      expect(err.message).toBe(`cannot reach registry ${host}: the address is not allowed or did not answer`);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => silent.close(r));
    }
  });

  it('fails a download the registry stops sending, but not one our reader is slow to consume', async () => {
    const big = Buffer.alloc(4 << 20, 7);
    const bigDigest = `sha256:${createHash('sha256').update(big).digest('hex')}`;
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(big.length) });
      if (req.url?.includes('/stall/')) res.write(big.subarray(0, 1000)); // and then nothing
      else res.end(big);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new RegistryClient(host, { policy: LOOPBACK_POLICY, timeoutMs: 300 });
      const stalled = await client.openBlob('x/stall', bigDigest);
      const err = await rejection((async () => {
        for await (const _ of stalled) void _;
      })());
      expect(err).toBeInstanceOf(RegistryUnreachableError);
      expect(err.message).toContain('stopped sending data for 300 ms');

      const slow = await client.openBlob('x/slow', bigDigest, { expectedSize: big.length });
      let received = 0;
      for await (const chunk of slow) {
        if (received === 0) await new Promise((r) => setTimeout(r, 800)); // a cataloger taking its time
        received += (chunk as Buffer).length;
      }
      expect(received).toBe(big.length);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('treats only loopback hosts as safe for plain HTTP', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('127.8.9.10')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
    expect(isLoopbackHost('127.0.0.1.example.com')).toBe(false);
    expect(isLoopbackHost('registry.example.com')).toBe(false);
  });
});

describe.skipIf(missingTools('docker-registry', 'htpasswd', 'openssl'))('TLS', () => {
  let dir: string;
  let tls: TestRegistry;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-registry-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    tls = await startRegistry({ storageDir: open.storageDir, tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } });
  });

  afterAll(async () => {
    await tls?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names an untrusted certificate as a TLS error', async () => {
    const err = await rejection(new RegistryClient(tls.host, { policy: LOOPBACK_POLICY }).resolve('vigil/app', '1'));
    expect(err).toBeInstanceOf(RegistryTlsError);
    expect(err.message).toContain(`TLS certificate of registry ${tls.host} is not trusted`);
    expect((err as RegistryTlsError).causeCode).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('pulls over HTTPS when verification is disabled', async () => {
    const resolved = await new RegistryClient(tls.host, { policy: LOOPBACK_POLICY, verifyTls: false }).resolve('vigil/app', '1');
    expect(resolved.manifestDigest).toBe(image.manifestDigest);
    const files = await readLayerFiles(await resolved.layers[0]!.open(), true);
    expect(files.get('f')?.toString()).toBe('transport');
  });
});

describe.skipIf(missingTools('docker-registry', 'htpasswd', 'openssl'))('blob redirects', () => {
  let basic: TestRegistry;
  let front: http.Server;
  let storage: http.Server;
  let frontHost: string;
  const storageRequests: { url: string; authorization?: string }[] = [];

  function listen(server: http.Server): Promise<number> {
    return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
  }

  beforeAll(async () => {
    basic = await startRegistry({ storageDir: open.storageDir, htpasswd: ALICE });
    // "Object storage": serves blobs (fetched from the open registry) to whoever holds the redirect URL.
    storage = http.createServer(async (req, res) => {
      storageRequests.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      const upstream = await fetch(`${open.url}${new URL(req.url ?? '/', 'http://x').searchParams.get('path')}`);
      res.writeHead(upstream.status, { 'Content-Type': 'application/octet-stream' }).end(Buffer.from(await upstream.arrayBuffer()));
    });
    const storagePort = await listen(storage);
    // The registry front: proxies to the htpasswd registry, but redirects blob downloads to storage, as S3-backed
    // registries do once the request is authorised.
    front = http.createServer((req, res) => {
      const url = req.url ?? '/';
      if (req.headers.authorization && /\/blobs\/sha256:/.test(url)) {
        res.writeHead(307, { Location: `http://localhost:${storagePort}/signed?path=${encodeURIComponent(url)}` }).end();
        return;
      }
      const upstream = http.request(`${basic.url}${url}`, { method: req.method, headers: { ...req.headers, host: basic.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    frontHost = `127.0.0.1:${await listen(front)}`;
  });

  afterAll(async () => {
    for (const s of [front, storage]) {
      s?.closeAllConnections();
      await new Promise((r) => s?.close(r));
    }
    await basic?.close();
  });

  it('follows redirects to storage and keeps credentials at the registry', async () => {
    const resolved = await new RegistryClient(frontHost, { policy: LOOPBACK_POLICY, credentials: ALICE }).resolve('vigil/app', '1');
    expect(resolved.configDigest).toBe(image.configDigest);
    const files = await readLayerFiles(await resolved.layers[0]!.open(), true);
    expect(files.get('f')?.toString()).toBe('transport');
    // Config and layer both went through storage, and storage never saw the registry password.
    expect(storageRequests.length).toBe(2);
    expect(storageRequests.every((r) => r.authorization === undefined)).toBe(true);
  });
});
