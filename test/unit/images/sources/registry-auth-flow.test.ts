/**
 * Authentication against real registries sharing one storage: htpasswd (Basic) and token (Bearer, with a token
 * service signing JWTs the registry verifies). Images are pushed through an open instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryUnauthorizedError } from '../../../../src/images/sources/errors.js';
import { checkCredentials, RegistryClient } from '../../../../src/images/sources/registry.js';
import { buildImage, readLayerFiles, type BuiltImage } from '../../../support/image-builder.js';
import { pushImage, startRegistry, startTokenService, type TestRegistry, type TokenService } from '../../../support/registry.js';
import { LOOPBACK_POLICY } from '../../../support/outbound.js';
import { missingTools } from '../../../support/tools.js';

const ALICE = { username: 'alice', password: 'correct-horse' };
const WRONG = { username: 'alice', password: 'wrong-horse' };

let open: TestRegistry;
let basic: TestRegistry;
let bearer: TestRegistry;
let tokens: TokenService;
let image: BuiltImage;

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

beforeAll(async () => {
  open = await startRegistry();
  basic = await startRegistry({ storageDir: open.storageDir, htpasswd: ALICE });
  tokens = await startTokenService({ users: [ALICE], publicRepositories: ['public/app'] });
  bearer = await startRegistry({ storageDir: open.storageDir, token: tokens.config });
  image = await buildImage({ layers: [[{ path: 'hello', content: 'private bits' }], [{ path: 'more', content: 'x' }]] });
  await pushImage(open.url, 'private/app', '1', image);
  await pushImage(open.url, 'public/app', '1', image);
});

afterAll(async () => {
  await Promise.all([basic?.close(), bearer?.close(), open?.close()]);
  await tokens?.close();
});

describe.skipIf(missingTools('docker-registry', 'htpasswd', 'openssl'))('Basic auth (htpasswd)', () => {
  it('asks for credentials when none are configured', async () => {
    const err = await rejection(new RegistryClient(basic.host, { policy: LOOPBACK_POLICY }).resolve('private/app', '1'));
    expect(err).toBeInstanceOf(RegistryUnauthorizedError);
    expect(err.message).toContain(`registry ${basic.host} requires authentication to pull ${basic.host}/private/app`);
  });

  it('reports rejected credentials', async () => {
    const err = await rejection(new RegistryClient(basic.host, { policy: LOOPBACK_POLICY, credentials: WRONG }).resolve('private/app', '1'));
    expect(err).toBeInstanceOf(RegistryUnauthorizedError);
    expect(err.message).toContain('rejected the credentials of user "alice"');
    expect((err as RegistryUnauthorizedError).errorType).toBe('registry_unauthorized');
  });

  it('pulls with the right credentials', async () => {
    const resolved = await new RegistryClient(basic.host, { policy: LOOPBACK_POLICY, credentials: ALICE }).resolve('private/app', '1');
    expect(resolved.manifestDigest).toBe(image.manifestDigest);
    const files = await readLayerFiles(await resolved.layers[0]!.open(), true);
    expect(files.get('hello')?.toString()).toBe('private bits');
  });

  it('validates credentials with checkCredentials', async () => {
    await expect(checkCredentials(basic.host, ALICE, { policy: LOOPBACK_POLICY })).resolves.toEqual({ authenticated: true });
    await expect(checkCredentials(basic.host, WRONG, { policy: LOOPBACK_POLICY })).rejects.toBeInstanceOf(RegistryUnauthorizedError);
    // A registry that asks for nothing cannot confirm credentials; say so rather than claim success.
    await expect(checkCredentials(open.host, ALICE, { policy: LOOPBACK_POLICY })).resolves.toEqual({ authenticated: false });
  });
});

describe.skipIf(missingTools('docker-registry', 'htpasswd', 'openssl'))('Bearer token auth', () => {
  it('pulls a public repository with an anonymous token', async () => {
    const resolved = await new RegistryClient(bearer.host, { policy: LOOPBACK_POLICY }).resolve('public/app', '1');
    expect(resolved.manifestDigest).toBe(image.manifestDigest);
    expect(tokens.requests.some((r) => r.user === undefined && r.scopes.includes('repository:public/app:pull'))).toBe(true);
  });

  it('asks for credentials when the anonymous token does not grant the pull', async () => {
    const err = await rejection(new RegistryClient(bearer.host, { policy: LOOPBACK_POLICY }).resolve('private/app', '1'));
    expect(err).toBeInstanceOf(RegistryUnauthorizedError);
    expect(err.message).toContain('requires authentication');
  });

  it('reports credentials the token service rejects', async () => {
    const err = await rejection(new RegistryClient(bearer.host, { policy: LOOPBACK_POLICY, credentials: WRONG }).resolve('private/app', '1'));
    expect(err).toBeInstanceOf(RegistryUnauthorizedError);
    expect(err.message).toContain('rejected the credentials of user "alice"');
  });

  it('pulls with credentials and reuses the token for the scope until it expires', async () => {
    const before = tokens.requests.length;
    const client = new RegistryClient(bearer.host, { policy: LOOPBACK_POLICY, credentials: ALICE });
    const resolved = await client.resolve('private/app', '1');
    for (const layer of resolved.layers) await readLayerFiles(await layer.open(), true);
    await client.resolve('private/app', '1');
    const asked = tokens.requests.slice(before);
    expect(asked).toEqual([{ scopes: ['repository:private/app:pull'], user: 'alice' }]);
  });

  it('validates credentials through the token service', async () => {
    await expect(checkCredentials(bearer.host, ALICE, { policy: LOOPBACK_POLICY })).resolves.toEqual({ authenticated: true });
    await expect(checkCredentials(bearer.host, WRONG, { policy: LOOPBACK_POLICY })).rejects.toBeInstanceOf(RegistryUnauthorizedError);
  });
});
