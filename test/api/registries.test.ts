/**
 * Registry credentials against a real docker-registry behind htpasswd (Basic) auth: validation on create and
 * update, storage (encrypted, never returned), CRUD by registry name, pulling a private image with and without
 * stored credentials, the longest-prefix choice between `host` and `host/team` entries, and bad inputs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { ISO_UTC, expectBodyRejections, expectError, expectValidationError } from '../support/fixtures.js';
import { adminAuth, client, json, raw } from '../support/http.js';
import type { BuiltImage } from '../support/image-builder.js';
import { createAccount, createUser } from '../support/rbac-fixtures.js';
import { SA, alpineImage, expectNoPassword, registryPath } from '../support/registry-fixtures.js';
import { pushImage, startRegistry, type Credentials, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

const CREDS: Credentials = { username: 'vigil-puller', password: 'Pr1vate-Registry-Passw0rd' };
const WRONG = 'not-the-Passw0rd-at-all';

let server: TestServer;
let registry: TestRegistry;
let url: string;
let host: string;

beforeAll(async () => {
  [server, registry] = await Promise.all([startTestServer(), startRegistry({ htpasswd: CREDS })]);
  url = server.url;
  host = registry.host;
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
});

/** The stored rows of the admin account's registries, straight from the database. */
async function storedRows(account = 'admin'): Promise<Record<string, any>[]> {
  return server.running.services.db('registries').where({ account_name: account }).orderBy('registry');
}

function body(registryName: string, password: string, extra: Record<string, unknown> = {}) {
  return { registry: registryName, registry_user: CREDS.username, registry_pass: password, registry_verify: false, ...extra };
}

async function create(registryName: string, password: string, extra: Record<string, unknown> = {}, query = '') {
  return json(url, 'POST', `/v2/registries${query}`, body(registryName, password, extra));
}

async function removeAll(): Promise<void> {
  for (const row of await storedRows()) expect((await raw(url, 'DELETE', registryPath(row.registry))).status).toBe(204);
  expect(await storedRows()).toEqual([]);
}

async function addByTag(pullString: string) {
  return json(url, 'POST', '/v2/images', { source: { tag: { pull_string: pullString } } });
}

describe.skipIf(missingTools('docker-registry', 'htpasswd'))('storing registry credentials', () => {
  it('refuses credentials the registry rejects (?validate=true) and stores nothing', async () => {
    const res = await create(host, WRONG, { registry_name: 'private' }, '?validate=true');
    expectError(res, 422, 'registry_unauthorized');
    expect(res.json.message).toContain(host);
    expect(res.json.message).toMatch(/rejected the credentials/);
    expect(res.json.detail.registry).toBe(host);
    expectNoPassword(res, WRONG);
    expect(await storedRows()).toEqual([]);
    expect((await raw(url, 'GET', registryPath(host))).status).toBe(404);
    const { data } = await client(url).GET('/registries');
    expect(data).toEqual([]);
  });

  it('answers 502 when the registry to validate against is unreachable, and stores nothing', async () => {
    const res = await create('127.0.0.1:1', CREDS.password, {}, '?validate=true');
    expectError(res, 502, 'registry_unreachable');
    expectNoPassword(res, CREDS.password);
    expect(await storedRows()).toEqual([]);
  });

  it('stores credentials the registry accepts; the answer never holds the password', async () => {
    const before = Date.now();
    const res = await create(host, CREDS.password, { registry_name: 'private' }, '?validate=true');
    expect(res.status, res.text).toBe(200);
    // As the established API: every answer about registries is a list, here of the one stored.
    expect(res.json).toEqual([{
      registry: host,
      registry_name: 'private',
      registry_user: CREDS.username,
      registry_type: 'docker_v2',
      registry_verify: false,
      created_at: expect.stringMatching(ISO_UTC),
      last_updated: expect.stringMatching(ISO_UTC),
    }]);
    expect(Date.parse(res.json[0].created_at)).toBeGreaterThanOrEqual(before - 1000);
    expectNoPassword(res, CREDS.password);
  });

  it('encrypts the password at rest', async () => {
    const [row] = await storedRows();
    expect(row.registry).toBe(host);
    expect(row.registry_pass_encrypted).toEqual(expect.any(String));
    expect(row.registry_pass_encrypted).not.toBe(CREDS.password);
    const everything = JSON.stringify(row);
    expect(everything).not.toContain(CREDS.password);
    expect(everything).not.toContain(Buffer.from(CREDS.password).toString('base64'));
    expect(everything).not.toContain(Buffer.from(CREDS.password).toString('hex'));
    // It is sealed (recoverable with the service's key only), not hashed or encoded.
    expect(server.running.services.secretBox.open(row.registry_pass_encrypted)).toBe(CREDS.password);
    // The same password stored twice seals to different values (random IV).
    const second = await create(`${host}/sealed`, CREDS.password);
    expect(second.status, second.text).toBe(200);
    const rows = await storedRows();
    expect(rows.map((r) => r.registry)).toEqual([host, `${host}/sealed`]);
    expect(rows[0].registry_pass_encrypted).not.toBe(rows[1].registry_pass_encrypted);
    expect((await raw(url, 'DELETE', registryPath(`${host}/sealed`))).status).toBe(204);
  });

  it('answers 409 for a registry that is already configured, and keeps the stored one', async () => {
    const [before] = await storedRows();
    const dup = await create(host, WRONG, { registry_name: 'other' });
    expectError(dup, 409, 'conflict');
    expect(dup.json.message).toContain(host);
    expectNoPassword(dup, WRONG, CREDS.password);
    const dupValidated = await create(host, CREDS.password, {}, '?validate=true');
    expectError(dupValidated, 409, 'conflict');
    expect(await storedRows()).toEqual([before]);
  });

  it('lists and gets by registry name without the password', async () => {
    const list = await raw(url, 'GET', '/v2/registries');
    expect(list.status).toBe(200);
    expect(list.json).toEqual([expect.objectContaining({ registry: host, registry_name: 'private', registry_user: CREDS.username, registry_verify: false })]);
    expectNoPassword(list, CREDS.password);

    const one = await raw(url, 'GET', registryPath(host));
    expect(one.status).toBe(200);
    expect(one.json).toEqual(list.json);
    expectNoPassword(one, CREDS.password);

    // The typed client encodes the name the same way.
    const typed = await client(url).GET('/registries/{registry}', { params: { path: { registry: host } } });
    expect(typed.data).toEqual(one.json);
  });

  it('answers 404 for an unknown registry and 400 for a malformed name', async () => {
    for (const method of ['GET', 'DELETE']) {
      const unknown = await raw(url, method, registryPath('registry.example.com:5000'));
      expectError(unknown, 404, 'not_found');
      expect(unknown.json.message).toContain('registry.example.com:5000');
    }
    expectError(await json(url, 'PUT', registryPath('registry.example.com:5000'), body('registry.example.com:5000', WRONG)), 404, 'not_found');
    for (const bad of ['bad_host', 'host:port', 'host:123456', 'a b', 'host!']) {
      for (const method of ['GET', 'DELETE']) expectError(await raw(url, method, registryPath(bad)), 400, 'validation_error');
      expectError(await json(url, 'PUT', registryPath(bad), body('registry.example.com', WRONG)), 400, 'validation_error');
    }
  });

  it('updates a configuration; a password the registry rejects (?validate=true) changes nothing', async () => {
    const [before] = await storedRows();
    const refused = await json(url, 'PUT', registryPath(host, '?validate=true'), body(host, WRONG, { registry_name: 'renamed' }));
    expectError(refused, 422, 'registry_unauthorized');
    expectNoPassword(refused, WRONG, CREDS.password);
    expect(await storedRows()).toEqual([before]);

    const updated = await json(url, 'PUT', registryPath(host, '?validate=true'), body(host, CREDS.password, { registry_name: 'renamed', registry_verify: true }));
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toEqual([expect.objectContaining({ registry: host, registry_name: 'renamed', registry_user: CREDS.username, registry_verify: true, created_at: before.created_at })]);
    expect(Date.parse(updated.json[0].last_updated)).toBeGreaterThanOrEqual(Date.parse(before.last_updated));
    expectNoPassword(updated, CREDS.password);
    const [after] = await storedRows();
    expect(after.registry_pass_encrypted).not.toBe(CREDS.password);
    expect(server.running.services.secretBox.open(after.registry_pass_encrypted)).toBe(CREDS.password);
    expect((await raw(url, 'GET', registryPath(host))).json[0].registry_name).toBe('renamed');
  });

  it('refuses to rename a configuration onto another stored registry', async () => {
    const other = `${host}/team`;
    expect((await create(other, CREDS.password)).status).toBe(200);
    try {
      const before = await storedRows();
      const res = await json(url, 'PUT', registryPath(other), body(host, WRONG));
      expectError(res, 409, 'conflict');
      expect(res.json.message).toContain(host);
      expectNoPassword(res, WRONG, CREDS.password);
      expect(await storedRows()).toEqual(before);
    } finally {
      await server.running.services.db('registries').where({ account_name: 'admin', registry: other }).delete();
    }
  });

  it("keeps one account's registries from every other account", async () => {
    const account = await createAccount(url, 'reg-other');
    const user = await createUser(url, account, { roles: ['full-control'] });
    const theirs = await raw(url, 'GET', '/v2/registries', { auth: user.auth });
    expect(theirs.status).toBe(200);
    expect(theirs.json).toEqual([]);
    expectError(await raw(url, 'GET', registryPath(host), { auth: user.auth }), 404, 'not_found');
    expectError(await raw(url, 'DELETE', registryPath(host), { auth: user.auth }), 404, 'not_found');
    // The same name may be configured in another account independently.
    const own = await json(url, 'POST', '/v2/registries', body(host, WRONG), user.auth);
    expect(own.status, own.text).toBe(200);
    expectNoPassword(own, WRONG);
    const viaHeader = await raw(url, 'GET', '/v2/registries', { auth: adminAuth, headers: { [SA]: account } });
    expect(viaHeader.json.map((r: { registry: string }) => r.registry)).toEqual([host]);
    expect((await storedRows())[0].registry_name).toBe('renamed');
  });

  it('deletes a configuration by name', async () => {
    const del = await raw(url, 'DELETE', registryPath(host));
    expect(del.status, del.text).toBe(204);
    expect(del.text).toBe('');
    expectError(await raw(url, 'GET', registryPath(host)), 404, 'not_found');
    expectError(await raw(url, 'DELETE', registryPath(host)), 404, 'not_found');
    expect(await storedRows()).toEqual([]);
    expect((await client(url).GET('/registries')).data).toEqual([]);
  });
});

describe.skipIf(missingTools('docker-registry', 'htpasswd'))('pulling a private image', () => {
  let image: BuiltImage;
  let second: BuiltImage;
  let other: BuiltImage;

  beforeAll(async () => {
    [image, second, other] = await Promise.all([alpineImage('private-1'), alpineImage('private-2'), alpineImage('other-1')]);
    await pushImage(registry.url, 'team/private', '1', image, CREDS);
    await pushImage(registry.url, 'team/second', '1', second, CREDS);
    await pushImage(registry.url, 'other/private', '1', other, CREDS);
  });

  it('fails with a clear error without stored credentials, and records nothing but the failed lookup', async () => {
    await removeAll();
    const ref = `${host}/team/private:1`;
    const res = await addByTag(ref);
    expectError(res, 422, 'registry_unauthorized');
    expect(res.json.message).toMatch(/requires authentication/);
    expect(res.json.message).toMatch(/add credentials/);
    expect(res.json.detail).toMatchObject({ registry: host, repository: 'team/private' });
    const images = await client(url).GET('/images', { params: { query: { full_tag: ref } } });
    expect(images.data?.items).toEqual([]);
    const events = await client(url).GET('/events', { params: { query: { event_type: 'system.image_analysis.registry_lookup_failed', resource_id: ref } } });
    expect(events.data?.results).toHaveLength(1);
    expect(events.data?.results[0].event.level).toBe('ERROR');
  });

  it('analyzes it with stored credentials', async () => {
    expect((await create(host, CREDS.password)).status).toBe(200);
    const res = await addByTag(`${host}/team/private:1`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.image_digest).toBe(image.manifestDigest);
    expect(await waitForAnalysis(server, 'admin', image.manifestDigest)).toBe('analyzed');
    const os = await client(url).GET('/images/{image_digest}/content/{content_type}', {
      params: { path: { image_digest: image.manifestDigest, content_type: 'os' } },
    });
    expect(os.data?.content.map((p) => p.package).sort()).toEqual(['musl', 'zlib']);
  });

  it('fails with a clear error when the stored password is wrong', async () => {
    expect((await json(url, 'PUT', registryPath(host), body(host, WRONG))).status).toBe(200);
    const res = await addByTag(`${host}/team/private:1`);
    expectError(res, 422, 'registry_unauthorized');
    expect(res.json.message).toMatch(new RegExp(`rejected the credentials of user "${CREDS.username}"`));
    expectNoPassword(res, WRONG, CREDS.password);
    // Neither password leaks into the recorded event either.
    const events = await raw(url, 'GET', '/v2/events?event_type=system.image_analysis.registry_lookup_failed');
    expectNoPassword(events, WRONG, CREDS.password);
  });

  it('uses the longest matching prefix: host/team credentials win over host ones for host/team/*', async () => {
    // host: wrong password (from the previous test); host/team: the right one.
    const team = await create(`${host}/team`, CREDS.password, { registry_verify: true });
    expect(team.status, team.text).toBe(200);
    expect(team.json.map((r: { registry: string }) => r.registry)).toEqual([`${host}/team`]);
    const got = await raw(url, 'GET', registryPath(`${host}/team`));
    expect(got.json).toEqual([expect.objectContaining({ registry: `${host}/team`, registry_verify: true })]);

    // A fresh image under host/team is resolved and then analyzed (blobs pulled) with the host/team credentials.
    const res = await addByTag(`${host}/team/second:1`);
    expect(res.status, res.text).toBe(200);
    expect(await waitForAnalysis(server, 'admin', second.manifestDigest)).toBe('analyzed');
    // Outside host/team the host entry (wrong password) applies.
    expectError(await addByTag(`${host}/other/private:1`), 422, 'registry_unauthorized');
  });

  it('matches prefixes on path boundaries only: host/tea does not apply to host/team', async () => {
    expect((await raw(url, 'DELETE', registryPath(`${host}/team`))).status).toBe(204);
    expect((await create(`${host}/tea`, CREDS.password)).status).toBe(200);
    expectError(await addByTag(`${host}/team/private:1`), 422, 'registry_unauthorized');
    expect((await raw(url, 'DELETE', registryPath(`${host}/tea`))).status).toBe(204);
  });

  it('and the other way round: a wrong host/team entry shadows a right host entry', async () => {
    expect((await json(url, 'PUT', registryPath(host), body(host, CREDS.password))).status).toBe(200);
    expect((await create(`${host}/team`, WRONG)).status).toBe(200);
    const updated = await json(url, 'PUT', registryPath(`${host}/team`), body(`${host}/team`, WRONG, { registry_name: 'team' }));
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toEqual([expect.objectContaining({ registry: `${host}/team`, registry_name: 'team' })]);
    expectNoPassword(updated, WRONG);

    expectError(await addByTag(`${host}/team/private:1`), 422, 'registry_unauthorized');
    const res = await addByTag(`${host}/other/private:1`);
    expect(res.status, res.text).toBe(200);
    expect(await waitForAnalysis(server, 'admin', other.manifestDigest)).toBe('analyzed');

    const list = await raw(url, 'GET', '/v2/registries');
    expect(list.json.map((r: { registry: string }) => r.registry)).toEqual([host, `${host}/team`]);
    expectNoPassword(list, WRONG, CREDS.password);
  });
});

describe.skipIf(missingTools('docker-registry', 'htpasswd'))('bad requests', () => {
  it.each([
    ['no registry', {}, ['body.registry']],
    ['a numeric registry', { registry: 5 }, ['body.registry']],
    ['a null registry', { registry: null }, ['body.registry']],
    ['an array as registry', { registry: ['registry.example.com'] }, ['body.registry']],
    ['a string registry_verify', { registry: 'registry.example.com', registry_verify: 'yes' }, ['body.registry_verify']],
    ['an unknown registry_type', { registry: 'registry.example.com', registry_type: 'quay' }, ['body.registry_type']],
    ['a numeric user and a boolean password', { registry: 'registry.example.com', registry_user: 42, registry_pass: true }, ['body.registry_user', 'body.registry_pass']],
    ['a password over 16384 characters', { registry: 'registry.example.com', registry_pass: 'x'.repeat(16385) }, ['body.registry_pass']],
    ['a registry_name over 256 characters', { registry: 'registry.example.com', registry_name: 'n'.repeat(257) }, ['body.registry_name']],
    ['a registry with a space', { registry: 'bad host!' }, ['body.registry']],
    ['a six-digit port', { registry: 'registry.example.com:123456' }, ['body.registry']],
    ['a URL instead of a host', { registry: 'https://registry.example.com' }, ['body.registry']],
  ])('rejects %s, naming the field, and stores nothing', async (_what, bad, locations) => {
    const before = await storedRows();
    expectValidationError(await json(url, 'POST', '/v2/registries', bad), locations);
    expectValidationError(await json(url, 'PUT', registryPath(host), bad), locations);
    expect(await storedRows()).toEqual(before);
  });

  it('rejects a malformed validate flag', async () => {
    expectValidationError(await json(url, 'POST', '/v2/registries?validate=maybe', body('registry.example.com', WRONG)), ['query.validate']);
  });

  it('rejects malformed JSON, wrong content types, an oversize body, and a missing or non-object body', async () => {
    const before = await storedRows();
    await expectBodyRejections(url, 'POST', '/v2/registries', body('registry.example.com', WRONG));
    await expectBodyRejections(url, 'PUT', registryPath(host), body(host, WRONG));
    expect(await storedRows()).toEqual(before);
  });
});
