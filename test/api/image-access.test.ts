/**
 * Access to images: one allowed and one denied image operation for each built-in role that concerns images,
 * images of one account invisible to users of another (with or without x-service-account), the administrator
 * acting on another account with the header, and deleting an account removing every row it owned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, json, raw, type Auth } from '../support/http.js';
import type { BuiltImage } from '../support/image-builder.js';
import { createAccount, createUser, expectError, expectForbidden, expectNotFound, grantRole, type TestUser } from '../support/rbac-fixtures.js';
import { storedUploadCounts } from '../support/analysis.js';
import { ACCOUNT_TABLES, SA, alpineImage, analysisSettled, rowCounts, uploadArchive } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let url: string;
/** An ordinary account with one analyzed image (added by the administrator through x-service-account). */
let A: string;
let dA: string;
/** Another account with one analyzed image. */
let B: string;
let dB: string;
/** An account with no images. */
let E: string;

let marker = 0;
const freshImage = (): Promise<BuiltImage> => alpineImage(`access-${process.pid}-${++marker}`);

async function upload(account: string, auth: Auth, options: { header?: string } = {}) {
  return uploadArchive(url, await freshImage(), `example.com/access/app:${++marker}`, { auth, account: options.header });
}

/** Uploads an image into `account` as the administrator and waits for its analysis; answers the digest. */
async function seedImage(account: string): Promise<string> {
  const res = await upload(account, adminAuth, { header: account });
  expect(res.status, res.text).toBe(200);
  expect(res.json.account_name).toBe(account);
  expect(await analysisSettled(server, account, res.json.image_digest)).toBe('analyzed');
  return res.json.image_digest;
}

async function imageDigests(account: string): Promise<string[]> {
  return (await server.running.services.db('images').where({ account_name: account }).orderBy('image_digest')).map((r: { image_digest: string }) => r.image_digest);
}


function listedDigests(res: { json: { items: { image_digest: string }[] } }): string[] {
  return res.json.items.map((i) => i.image_digest).sort();
}

beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
  [A, B, E] = [await createAccount(url, 'img-a'), await createAccount(url, 'img-b'), await createAccount(url, 'img-e')];
  dA = await seedImage(A);
  dB = await seedImage(B);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('built-in roles on the image routes', () => {
  it('image-analyzer: may add an image (archive upload) and read it, but not delete it', async () => {
    const analyzer = await createUser(url, A, { roles: ['image-analyzer'], prefix: 'analyzer' });
    const res = await upload(A, analyzer.auth);
    expect(res.status, res.text).toBe(200);
    expect(res.json.account_name).toBe(A);
    const digest = res.json.image_digest as string;
    expect(await analysisSettled(server, A, digest)).toBe('analyzed');

    const got = await raw(url, 'GET', `/v2/images/${digest}`, { auth: analyzer.auth });
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({ image_digest: digest, account_name: A, analysis_status: 'analyzed' });
    const listed = await raw(url, 'GET', '/v2/images', { auth: analyzer.auth });
    expect(listedDigests(listed)).toEqual([dA, digest].sort());

    const before = await imageDigests(A);
    expectForbidden(await raw(url, 'DELETE', `/v2/images/${digest}`, { auth: analyzer.auth }), 'deleteImage');
    expectForbidden(await raw(url, 'DELETE', `/v2/images?image_digests=${digest}`, { auth: analyzer.auth }), 'deleteImage');
    expect(await imageDigests(A)).toEqual(before);
  });

  it('read-only: may list and get images and their content, but not add one', async () => {
    const reader = await createUser(url, A, { roles: ['read-only'], prefix: 'reader' });
    const auth = reader.auth;
    const listed = await raw(url, 'GET', '/v2/images', { auth });
    expect(listed.status).toBe(200);
    expect(listedDigests(listed)).toContain(dA);
    expect((await raw(url, 'GET', `/v2/images/${dA}`, { auth })).json.image_digest).toBe(dA);
    const os = await raw(url, 'GET', `/v2/images/${dA}/content/os`, { auth });
    expect(os.status, os.text).toBe(200);
    expect(os.json.content.map((p: { package: string }) => p.package).sort()).toEqual(['musl', 'zlib']);
    expect((await raw(url, 'GET', `/v2/images/${dA}/content-summary`, { auth })).status).toBe(200);
    expect((await raw(url, 'GET', `/v2/images/${dA}/content/files`, { auth })).status).toBe(200);
    expect((await raw(url, 'GET', `/v2/images/${dA}/metadata/manifest`, { auth })).status).toBe(200);

    const before = await imageDigests(A);
    expectForbidden(await upload(A, auth), 'createImage');
    expectForbidden(await json(url, 'POST', '/v2/images', { source: { tag: { pull_string: '127.0.0.1:1/team/app:1' } } }, auth), 'createImage');
    expectForbidden(await raw(url, 'DELETE', `/v2/images/${dA}`, { auth }), 'deleteImage');
    expect(await imageDigests(A)).toEqual(before);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('policy-editor: may read images, but not add one', async () => {
    const editor = await createUser(url, A, { roles: ['policy-editor'], prefix: 'policy' });
    const listed = await raw(url, 'GET', '/v2/images', { auth: editor.auth });
    expect(listed.status).toBe(200);
    expect(listedDigests(listed)).toContain(dA);
    const got = await raw(url, 'GET', `/v2/images/${dA}`, { auth: editor.auth });
    expect(got.status).toBe(200);
    expect(got.json.account_name).toBe(A);

    const before = await imageDigests(A);
    expectForbidden(await upload(A, editor.auth), 'createImage');
    expect(await imageDigests(A)).toEqual(before);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('read-write: may add and delete images', async () => {
    const writer = await createUser(url, A, { roles: ['read-write'], prefix: 'writer' });
    const res = await upload(A, writer.auth);
    expect(res.status, res.text).toBe(200);
    const digest = res.json.image_digest as string;
    expect(await analysisSettled(server, A, digest)).toBe('analyzed');
    const del = await raw(url, 'DELETE', `/v2/images/${digest}`, { auth: writer.auth });
    expect(del.status, del.text).toBe(200);
    expect(del.json).toEqual({ image_digest: digest, status: 'deleting' });
    expectNotFound(await raw(url, 'GET', `/v2/images/${digest}`, { auth: writer.auth }));
    expect(await imageDigests(A)).not.toContain(digest);
    expect(await imageDigests(A)).toContain(dA);
  });

  it('a user without any role in the account may do nothing with its images', async () => {
    const idle = await createUser(url, A, { prefix: 'idle' });
    expectForbidden(await raw(url, 'GET', '/v2/images', { auth: idle.auth }), 'listImages');
    expectForbidden(await raw(url, 'GET', `/v2/images/${dA}`, { auth: idle.auth }), 'getImage');
    expectForbidden(await upload(A, idle.auth), 'createImage');
  });
});

describe("another account's images", () => {
  let aFull: TestUser;
  let eFull: TestUser;

  beforeAll(async () => {
    aFull = await createUser(url, A, { roles: ['full-control'], prefix: 'a-full' });
    eFull = await createUser(url, E, { roles: ['full-control'], prefix: 'e-full' });
  });

  it('are invisible without the header: 404 by digest, absent from the list', async () => {
    const empty = await raw(url, 'GET', '/v2/images', { auth: eFull.auth });
    expect(empty.status).toBe(200);
    expect(empty.json.items).toEqual([]);
    for (const user of [eFull, aFull]) {
      expectNotFound(await raw(url, 'GET', `/v2/images/${dB}`, { auth: user.auth }));
      expectNotFound(await raw(url, 'GET', `/v2/images/${dB}/content/os`, { auth: user.auth }));
      expectNotFound(await raw(url, 'GET', `/v2/images/${dB}/metadata`, { auth: user.auth }));
      expectNotFound(await raw(url, 'DELETE', `/v2/images/${dB}`, { auth: user.auth }));
      const bulk = await raw(url, 'DELETE', `/v2/images?image_digests=${dB}`, { auth: user.auth });
      expect(bulk.status).toBe(200);
      expect(bulk.json).toEqual([expect.objectContaining({ image_digest: dB, status: 'not_found' })]);
    }
    const own = await raw(url, 'GET', '/v2/images', { auth: aFull.auth });
    expect(listedDigests(own)).not.toContain(dB);
    expect(own.json.items.every((i: { account_name: string }) => i.account_name === A)).toBe(true);
    expect(await imageDigests(B)).toEqual([dB]);
  });

  it('are refused with x-service-account naming an account the user holds no role in', async () => {
    const headers = { [SA]: B };
    for (const user of [eFull, aFull]) {
      expectForbidden(await raw(url, 'GET', '/v2/images', { auth: user.auth, headers }));
      expectForbidden(await raw(url, 'GET', `/v2/images/${dB}`, { auth: user.auth, headers }));
      expectForbidden(await raw(url, 'GET', `/v2/images/${dB}/content/os`, { auth: user.auth, headers }));
      expectForbidden(await raw(url, 'DELETE', `/v2/images/${dB}`, { auth: user.auth, headers }));
      expectForbidden(await upload(B, user.auth, { header: B }));
    }
    expect(await imageDigests(B)).toEqual([dB]);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('are readable with the header by a user holding a role there, within that role only', async () => {
    const visitor = await createUser(url, A, { roles: ['full-control'], prefix: 'visitor' });
    await grantRole(url, 'read-only', visitor.username, B);
    const headers = { [SA]: B };
    const listed = await raw(url, 'GET', '/v2/images', { auth: visitor.auth, headers });
    expect(listed.status).toBe(200);
    expect(listedDigests(listed)).toEqual([dB]);
    expect((await raw(url, 'GET', `/v2/images/${dB}`, { auth: visitor.auth, headers })).json.account_name).toBe(B);
    expectForbidden(await upload(B, visitor.auth, { header: B }), 'createImage');
    expectForbidden(await raw(url, 'DELETE', `/v2/images/${dB}`, { auth: visitor.auth, headers }), 'deleteImage');
    // Without the header it is back in its own account.
    expectNotFound(await raw(url, 'GET', `/v2/images/${dB}`, { auth: visitor.auth }));
    expect(await imageDigests(B)).toEqual([dB]);
  });

  it('are reached by the administrator with the header only', async () => {
    expectNotFound(await raw(url, 'GET', `/v2/images/${dB}`));
    expect(listedDigests(await raw(url, 'GET', '/v2/images'))).not.toContain(dB);

    const headers = { [SA]: B };
    const listed = await raw(url, 'GET', '/v2/images', { headers });
    expect(listedDigests(listed)).toEqual([dB]);
    const got = await raw(url, 'GET', `/v2/images/${dB}`, { headers });
    expect(got.status).toBe(200);
    expect(got.json.account_name).toBe(B);
    expect((await raw(url, 'GET', `/v2/images/${dB}/content/os`, { headers })).status).toBe(200);

    const added = await upload(B, adminAuth, { header: B });
    expect(added.status, added.text).toBe(200);
    expect(added.json.account_name).toBe(B);
    const digest = added.json.image_digest as string;
    expect(await analysisSettled(server, B, digest)).toBe('analyzed');
    expect(await imageDigests(B)).toEqual([dB, digest].sort());
    expectNotFound(await raw(url, 'GET', `/v2/images/${digest}`));
    const del = await raw(url, 'DELETE', `/v2/images/${digest}`, { headers });
    expect(del.status, del.text).toBe(200);
    expect(await imageDigests(B)).toEqual([dB]);
    expect(await imageDigests(A)).toContain(dA);
    expect(await imageDigests('admin')).toEqual([]);
  });

  it('answers 404 to the administrator for an unknown account in the header', async () => {
    expectNotFound(await raw(url, 'GET', '/v2/images', { headers: { [SA]: 'no-such-account' } }));
    expectError(await raw(url, 'GET', '/v2/images', { headers: { [SA]: '-bad name' } }), 400, 'validation_error');
  });
});

describe('deleting an account', () => {
  it('removes its images, tags, packages, documents, events, registries, subscriptions and jobs', async () => {
    const X = await createAccount(url, 'img-x');
    const member = await createUser(url, X, { roles: ['read-write'], prefix: 'x-user' });
    const headers = { [SA]: X };
    await seedImage(X);
    const viaMember = await upload(X, member.auth);
    expect(viaMember.status, viaMember.text).toBe(200);
    expect(await analysisSettled(server, X, viaMember.json.image_digest)).toBe('analyzed');
    expectError(await json(url, 'POST', '/v2/images', { source: { tag: { pull_string: '127.0.0.1:1/x/app:1' } } }, adminAuth, headers), 502, 'registry_unreachable');
    const reg = await json(url, 'POST', '/v2/registries', { registry: 'registry.example.com', registry_user: 'u', registry_pass: 'p-secret' }, adminAuth, headers);
    expect(reg.status, reg.text).toBe(200);
    const sub = await json(url, 'POST', '/v2/subscriptions', { subscription_key: 'example.com/x/app:1', subscription_type: 'tag_update' }, adminAuth, headers);
    expect(sub.status, sub.text).toBe(200);

    const db = server.running.services.db;
    const before = await rowCounts(db, X);
    for (const table of ACCOUNT_TABLES) expect(before[table], `${table} rows of ${X} before deletion`).toBeGreaterThan(0);
    const othersBefore = { A: await rowCounts(db, A), B: await rowCounts(db, B) };

    // Enabled accounts are not deleted.
    expectError(await raw(url, 'DELETE', `/v2/accounts/${X}`), 409, 'conflict');
    expect(await rowCounts(db, X)).toEqual(before);

    expect((await json(url, 'PUT', `/v2/accounts/${X}/state`, { state: 'disabled' })).status).toBe(200);
    const del = await raw(url, 'DELETE', `/v2/accounts/${X}`);
    expect(del.status, del.text).toBe(204);

    expectNotFound(await raw(url, 'GET', `/v2/accounts/${X}`));
    const after = await rowCounts(db, X);
    expect(after).toEqual(Object.fromEntries(ACCOUNT_TABLES.map((t) => [t, 0])));
    expect(await rowCounts(db, X, ['users', 'role_members', 'import_operations'])).toEqual({ users: 0, role_members: 0, import_operations: 0 });
    expect({ A: await rowCounts(db, A), B: await rowCounts(db, B) }).toEqual(othersBefore);
    // Its members can no longer sign in.
    expectError(await raw(url, 'GET', '/v2/images', { auth: member.auth }), 401, 'unauthorized');
  });
});
