/**
 * API keys, through both the caller's own routes (Identity: /v2/user/api-keys) and the administrative routes
 * (User Management: /v2/accounts/{account_name}/users/{username}/api-keys). The shared behaviour runs once per
 * route family; what differs (404 for unknown users, who may call) is tested separately.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, client, json, raw, type Auth } from '../support/http.js';
import {
  DAY_MS,
  ISO_UTC_SECONDS,
  accountWithUser,
  createAccount,
  createUser,
  expectAuthenticates,
  expectBodyRejections,
  expectError,
  expectRecent,
  expectRejected,
  expectValidationError,
  fromNow,
  grantRole,
  uniqueName,
  wholeSeconds,
  type TestUser,
} from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let url: string;
beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
});
afterAll(async () => {
  await server?.close();
});

const KEY_VALUE = /^vk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/;

/** `years` calendar years from now, plus `ms`. */
function yearsAhead(years: number, ms = 0): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return new Date(d.getTime() + ms).toISOString();
}

interface Family {
  label: string;
  /** A fresh owner, the collection path for its keys, and the credentials that manage them there. */
  setup(): Promise<{ owner: TestUser; base: string; auth: Auth }>;
}

const families: Family[] = [
  {
    label: 'self: /v2/user/api-keys',
    async setup() {
      // The self-service actions come with any role; a new user holds none.
      const owner = await accountWithUser(url, ['read-only']);
      return { owner, base: '/v2/user/api-keys', auth: owner.auth };
    },
  },
  {
    label: 'admin: /v2/accounts/{account_name}/users/{username}/api-keys',
    async setup() {
      const owner = await accountWithUser(url);
      return { owner, base: `/v2/accounts/${owner.account}/users/${owner.username}/api-keys`, auth: adminAuth };
    },
  },
];

describe.each(families)('$label', (family) => {
  let owner: TestUser;
  let base: string;
  let auth: Auth;
  beforeAll(async () => {
    ({ owner, base, auth } = await family.setup());
  });

  async function create(body: Record<string, unknown>) {
    const res = await json(url, 'POST', base, body, auth);
    expect(res.status, res.text).toBe(201);
    return res.json;
  }

  describe('create', () => {
    it('answers 201 with the value once; the key expires in 365 days by default and authenticates as its owner', async () => {
      const name = uniqueName('ci');
      const before = Date.now();
      const res = await json(url, 'POST', base, { name, description: 'CI pipeline' }, auth);
      const after = Date.now();
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({ name, description: 'CI pipeline', status: 'active' });
      expect(res.json.value).toMatch(KEY_VALUE);
      expectRecent(res.json.created_at, before, ISO_UTC_SECONDS);
      expect(res.json.updated_at).toBe(res.json.created_at);
      const expires = Date.parse(res.json.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 365 * DAY_MS - 1000);
      expect(expires).toBeLessThanOrEqual(after + 365 * DAY_MS + 1000);

      await expectAuthenticates(url, { apiKey: res.json.value }, owner.username);
      const account = await raw(url, 'GET', '/v2/user', { auth: { apiKey: res.json.value } });
      expect(account.json.account_name).toBe(owner.account);

      // Stored as a hash only.
      const row = await server.running.services.db('api_keys').where({ username: owner.username, name }).first();
      const secret = res.json.value.split('.')[1];
      expect(JSON.stringify(row)).not.toContain(secret);
    });

    it('creates a key without a description', async () => {
      const key = await create({ name: uniqueName('bare') });
      expect(key).not.toHaveProperty('description');
      expect(key.status).toBe('active');
    });

    it('keeps an explicit expiry within 3 years', async () => {
      const in30 = fromNow(30 * DAY_MS);
      const key = await create({ name: uniqueName('exp'), expires_at: in30 });
      expect(key.expires_at).toBe(wholeSeconds(in30));
      const almost3y = yearsAhead(3, -60_000);
      const far = await create({ name: uniqueName('far'), expires_at: almost3y });
      expect(far.expires_at).toBe(wholeSeconds(almost3y));
      const soon = await create({ name: uniqueName('soon'), expires_at: fromNow(60_000) });
      expect(soon.status).toBe('active');
      await expectAuthenticates(url, { apiKey: soon.value }, owner.username);
    });

    it('accepts an expiry with a time zone offset and answers it in UTC', async () => {
      const target = new Date(Date.now() + 10 * DAY_MS);
      target.setUTCMilliseconds(0);
      const withOffset = new Date(target.getTime() + 2 * 3600_000).toISOString().replace(/\.000Z$/, '+02:00');
      const key = await create({ name: uniqueName('tz'), expires_at: withOffset });
      expect(key.expires_at).toBe(wholeSeconds(target.toISOString()));
    });

    // The established API's UserApiKey allows no fraction of a second (pattern ...:ssZ); clients generated from it
    // refuse `.123Z`. Input may have one or not.
    it('answers expires_at, created_at and updated_at in whole seconds, whether the expiry was sent with a fraction or not', async () => {
      const exact = new Date(Date.now() + 7 * DAY_MS);
      exact.setUTCMilliseconds(0);
      const withFraction = new Date(exact.getTime() + 678).toISOString();
      const withoutFraction = exact.toISOString().replace('.000Z', 'Z');
      const a = await create({ name: uniqueName('frac'), expires_at: withFraction });
      const b = await create({ name: uniqueName('whole'), expires_at: withoutFraction });
      expect(a.expires_at).toBe(withoutFraction);
      expect(b.expires_at).toBe(withoutFraction);
      const patched = await json(url, 'PATCH', `${base}/${a.name}`, { description: 'touched' }, auth);
      expect(patched.status, patched.text).toBe(200);
      const got = await raw(url, 'GET', `${base}/${b.name}`, { auth });
      const list = await raw(url, 'GET', base, { auth });
      for (const key of [a, b, patched.json, got.json, ...list.json.items])
        for (const field of ['expires_at', 'created_at', 'updated_at']) expect(key[field], `${key.name}.${field}`).toMatch(ISO_UTC_SECONDS);
      // The key stops at the second its answer names, not a fraction later.
      const row = await server.running.services.db('api_keys').where({ username: owner.username, name: a.name }).first();
      expect(Date.parse(row.expires_at)).toBe(exact.getTime());
    });

    it('refuses an expiry in the past', async () => {
      for (const expires_at of [fromNow(-60_000), '2000-01-01T00:00:00Z']) {
        const name = uniqueName('past');
        expectValidationError(await json(url, 'POST', base, { name, expires_at }, auth), ['body.expires_at']);
        expectError(await raw(url, 'GET', `${base}/${name}`, { auth }), 404, 'not_found');
      }
    });

    it('refuses an expiry well beyond 3 years ahead', async () => {
      for (const expires_at of [yearsAhead(3, 7 * DAY_MS), yearsAhead(4), yearsAhead(100)]) {
        const res = await json(url, 'POST', base, { name: uniqueName('far'), expires_at }, auth);
        expectValidationError(res, ['body.expires_at']);
      }
    });

    it('refuses an expiry just over 3 years ahead (3 calendar years and a day)', async () => {
      const name = uniqueName('far');
      const res = await json(url, 'POST', base, { name, expires_at: yearsAhead(3, DAY_MS) }, auth);
      expectValidationError(res, ['body.expires_at']);
      expectError(await raw(url, 'GET', `${base}/${name}`, { auth }), 404, 'not_found');
    });

    it('refuses an expiry that is not a date-time', async () => {
      for (const expires_at of ['tomorrow', '2030-01-01', '2030-13-01T00:00:00Z', 1893456000, true]) {
        expectValidationError(await json(url, 'POST', base, { name: uniqueName('bad'), expires_at }, auth), ['body.expires_at']);
      }
    });

    it('refuses a missing, wrong-typed or pattern-violating name', async () => {
      expectValidationError(await json(url, 'POST', base, { description: 'no name' }, auth), ['body.name']);
      expectValidationError(await json(url, 'POST', base, {}, auth), ['body.name']);
      expectValidationError(await json(url, 'POST', base, { name: 42 }, auth), ['body.name']);
      for (const name of ['', '-dash', '.dot', 'has space', 'at@sign', 'plus+sign', 'slash/x', `k${'e'.repeat(64)}`]) {
        expectValidationError(await json(url, 'POST', base, { name }, auth), ['body.name']);
      }
    });

    it('accepts a name of 64 characters', async () => {
      const name = `K${uniqueName('x')}`.padEnd(64, 'y');
      expect(name).toHaveLength(64);
      const key = await create({ name });
      expect(key.name).toBe(name);
    });

    it('refuses an oversize or wrong-typed description', async () => {
      expectValidationError(await json(url, 'POST', base, { name: uniqueName('d'), description: 'd'.repeat(1025) }, auth), ['body.description']);
      expectValidationError(await json(url, 'POST', base, { name: uniqueName('d'), description: { text: 'x' } }, auth), ['body.description']);
      const ok = await create({ name: uniqueName('d'), description: 'd'.repeat(1024) });
      expect(ok.description).toHaveLength(1024);
    });

    it('answers 409 for a name the user already has', async () => {
      const name = uniqueName('dup');
      const first = await create({ name, description: 'first' });
      const again = await json(url, 'POST', base, { name, description: 'second' }, auth);
      expectError(again, 409, 'conflict');
      expect(again.json.message).toContain(name);
      const got = await raw(url, 'GET', `${base}/${name}`, { auth });
      expect(got.json.description).toBe('first');
      await expectAuthenticates(url, { apiKey: first.value }, owner.username);
    });

    it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
      await expectBodyRejections(url, 'POST', base, { name: uniqueName('never') }, auth);
    });
  });

  describe('list and get', () => {
    it('lists the keys without their values', async () => {
      const a = await create({ name: uniqueName('la'), description: 'a' });
      const b = await create({ name: uniqueName('lb') });
      const res = await raw(url, 'GET', base, { auth });
      expect(res.status).toBe(200);
      const byName = new Map<string, Record<string, unknown>>(res.json.items.map((k: { name: string }) => [k.name, k]));
      for (const created of [a, b]) {
        const { value, ...rest } = created;
        expect(byName.get(created.name)).toEqual(rest);
        expect(res.text).not.toContain(value);
      }
      for (const k of res.json.items) expect(k).not.toHaveProperty('value');
    });

    it('gets a key without its value', async () => {
      const created = await create({ name: uniqueName('g'), description: 'get me', expires_at: fromNow(5 * DAY_MS) });
      const res = await raw(url, 'GET', `${base}/${created.name}`, { auth });
      expect(res.status).toBe(200);
      const { value, ...rest } = created;
      expect(res.json).toEqual(rest);
      expect(res.text).not.toContain(value.split('.')[1]);
    });

    it('answers 404 for an unknown key and 400 for a bad key name', async () => {
      const name = uniqueName('nokey');
      const res = await raw(url, 'GET', `${base}/${name}`, { auth });
      expectError(res, 404, 'not_found');
      expect(res.json.message).toContain(name);
      expectValidationError(await raw(url, 'GET', `${base}/-dash`, { auth }), ['path.key_name']);
      expectValidationError(await raw(url, 'GET', `${base}/${'k'.repeat(65)}`, { auth }), ['path.key_name']);
      expectValidationError(await raw(url, 'GET', `${base}/a@b`, { auth }), ['path.key_name']);
    });

    it('reports an expired key as expired, and it no longer authenticates', async () => {
      const key = await create({ name: uniqueName('old') });
      await server.running.services.db('api_keys')
        .where({ username: owner.username, name: key.name })
        .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
      const got = await raw(url, 'GET', `${base}/${key.name}`, { auth });
      expect(got.json.status).toBe('expired');
      const list = await raw(url, 'GET', base, { auth });
      expect(list.json.items.find((k: { name: string }) => k.name === key.name).status).toBe('expired');
      const res = await raw(url, 'GET', '/v2/user', { auth: { apiKey: key.value } });
      expectError(res, 401, 'unauthorized');
      expect(res.json.message).toMatch(/expired/);
    });
  });

  describe('patch', () => {
    it('renames a key; it keeps working under the new name', async () => {
      const key = await create({ name: uniqueName('old'), description: 'keep' });
      const newName = uniqueName('new');
      const res = await json(url, 'PATCH', `${base}/${key.name}`, { name: newName }, auth);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ name: newName, description: 'keep', status: 'active', created_at: key.created_at, expires_at: key.expires_at });
      expect(res.json).not.toHaveProperty('value');
      expect(Date.parse(res.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(key.updated_at));
      expectError(await raw(url, 'GET', `${base}/${key.name}`, { auth }), 404, 'not_found');
      expect((await raw(url, 'GET', `${base}/${newName}`, { auth })).json).toEqual(res.json);
      await expectAuthenticates(url, { apiKey: key.value }, owner.username);
    });

    it('renaming a key to its own name is not a conflict', async () => {
      const key = await create({ name: uniqueName('same') });
      const res = await json(url, 'PATCH', `${base}/${key.name}`, { name: key.name }, auth);
      expect(res.status).toBe(200);
      expect(res.json.name).toBe(key.name);
    });

    it('changes the description only', async () => {
      const key = await create({ name: uniqueName('desc'), description: 'before' });
      const res = await json(url, 'PATCH', `${base}/${key.name}`, { description: 'after' }, auth);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ name: key.name, description: 'after', status: 'active' });
      expect((await raw(url, 'GET', `${base}/${key.name}`, { auth })).json.description).toBe('after');
    });

    it('revokes a key: it stops authenticating, and revoking again is harmless', async () => {
      const key = await create({ name: uniqueName('rev') });
      await expectAuthenticates(url, { apiKey: key.value }, owner.username);
      const res = await json(url, 'PATCH', `${base}/${key.name}`, { status: 'revoked' }, auth);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ name: key.name, status: 'revoked' });
      const rejected = await raw(url, 'GET', '/v2/user', { auth: { apiKey: key.value } });
      expectError(rejected, 401, 'unauthorized');
      expect(rejected.json.message).toMatch(/revoked/);
      expect((await raw(url, 'GET', `${base}/${key.name}`, { auth })).json.status).toBe('revoked');

      const again = await json(url, 'PATCH', `${base}/${key.name}`, { status: 'revoked', description: 'leaked' }, auth);
      expect(again.status).toBe(200);
      expect(again.json).toMatchObject({ status: 'revoked', description: 'leaked' });
      await expectRejected(url, { apiKey: key.value });
    });

    it('cannot re-activate a key, and refuses unknown properties, an empty body and bad values', async () => {
      const key = await create({ name: uniqueName('strict'), description: 'unchanged' });
      const path = `${base}/${key.name}`;
      expectValidationError(await json(url, 'PATCH', path, { status: 'active' }, auth), ['body.status']);
      expectValidationError(await json(url, 'PATCH', path, { status: 'expired' }, auth), ['body.status']);
      expectValidationError(await json(url, 'PATCH', path, { expires_at: fromNow(DAY_MS) }, auth), ['body.expires_at']);
      expectValidationError(await json(url, 'PATCH', path, { description: 'x', value: 'vk_0000000000000000.x' }, auth), ['body.value']);
      expectValidationError(await json(url, 'PATCH', path, {}, auth), ['body']);
      expectValidationError(await json(url, 'PATCH', path, { name: 'bad name' }, auth), ['body.name']);
      expectValidationError(await json(url, 'PATCH', path, { name: 7 }, auth), ['body.name']);
      expectValidationError(await json(url, 'PATCH', path, { description: 'd'.repeat(1025) }, auth), ['body.description']);
      const got = await raw(url, 'GET', path, { auth });
      expect(got.json).toMatchObject({ name: key.name, description: 'unchanged', status: 'active', updated_at: key.updated_at });
    });

    it('answers 409 when renaming to a name the user already has', async () => {
      const a = await create({ name: uniqueName('ka') });
      const b = await create({ name: uniqueName('kb') });
      const res = await json(url, 'PATCH', `${base}/${a.name}`, { name: b.name }, auth);
      expectError(res, 409, 'conflict');
      expect((await raw(url, 'GET', `${base}/${a.name}`, { auth })).status).toBe(200);
      expect((await raw(url, 'GET', `${base}/${b.name}`, { auth })).status).toBe(200);
      await expectAuthenticates(url, { apiKey: a.value }, owner.username);
      await expectAuthenticates(url, { apiKey: b.value }, owner.username);
    });

    it('answers 404 for an unknown key and 400 for a bad key name', async () => {
      expectError(await json(url, 'PATCH', `${base}/${uniqueName('nokey')}`, { description: 'x' }, auth), 404, 'not_found');
      expectValidationError(await json(url, 'PATCH', `${base}/.dot`, { description: 'x' }, auth), ['path.key_name']);
    });

    it('rejects malformed JSON, wrong content types, oversize and absent bodies', async () => {
      const key = await create({ name: uniqueName('body') });
      await expectBodyRejections(url, 'PATCH', `${base}/${key.name}`, { status: 'revoked' }, auth);
      expect((await raw(url, 'GET', `${base}/${key.name}`, { auth })).json.status).toBe('active');
    });
  });

  describe('delete', () => {
    it('deletes a key: 204, then 404; the key stops authenticating', async () => {
      const key = await create({ name: uniqueName('del') });
      const keep = await create({ name: uniqueName('keep') });
      const res = await raw(url, 'DELETE', `${base}/${key.name}`, { auth });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await raw(url, 'GET', `${base}/${key.name}`, { auth }), 404, 'not_found');
      expectError(await raw(url, 'DELETE', `${base}/${key.name}`, { auth }), 404, 'not_found');
      const list = await raw(url, 'GET', base, { auth });
      const names = list.json.items.map((k: { name: string }) => k.name);
      expect(names).not.toContain(key.name);
      expect(names).toContain(keep.name);
      await expectRejected(url, { apiKey: key.value });
      await expectAuthenticates(url, { apiKey: keep.value }, owner.username);
      // The name is free again, with a new value.
      const reborn = await create({ name: key.name });
      expect(reborn.value).not.toBe(key.value);
      await expectRejected(url, { apiKey: key.value });
      await expectAuthenticates(url, { apiKey: reborn.value }, owner.username);
    });

    it('answers 404 for an unknown key and 400 for a bad key name', async () => {
      expectError(await raw(url, 'DELETE', `${base}/${uniqueName('nokey')}`, { auth }), 404, 'not_found');
      expectValidationError(await raw(url, 'DELETE', `${base}/bad%20name`, { auth }), ['path.key_name']);
    });
  });
});

describe('API key authentication', () => {
  it('answers 401 for a wrong secret, a malformed key, or an empty one', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const res = await json(url, 'POST', '/v2/user/api-keys', { name: 'auth' }, user.auth);
    const value: string = res.json.value;
    const [id, secret] = value.split('.');
    const flipped = secret[0] === 'A' ? `B${secret.slice(1)}` : `A${secret.slice(1)}`;
    for (const bad of [`${id}.${flipped}`, `vk_ffffffffffffffff.${secret}`, 'not-a-key', '']) await expectRejected(url, { apiKey: bad });
    await expectAuthenticates(url, { apiKey: value }, user.username);
    // The key is a password for `_api_key` only; as a user's password it is nothing.
    await expectRejected(url, { basic: [user.username, value] });
  });

  it('lets a key-authenticated caller manage its own keys', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const first = await json(url, 'POST', '/v2/user/api-keys', { name: 'first' }, user.auth);
    const keyAuth: Auth = { apiKey: first.json.value };
    const second = await json(url, 'POST', '/v2/user/api-keys', { name: 'second' }, keyAuth);
    expect(second.status).toBe(201);
    const list = await raw(url, 'GET', '/v2/user/api-keys', { auth: keyAuth });
    expect(list.json.items.map((k: { name: string }) => k.name).sort()).toEqual(['first', 'second']);
  });
});

describe('self routes (/v2/user/api-keys)', () => {
  it('work through the typed client', async () => {
    const user = await accountWithUser(url, ['read-only']);
    const c = client(url, user.auth);
    const created = await c.POST('/user/api-keys', { body: { name: 'typed', description: 'via client' } });
    expect(created.response.status).toBe(201);
    expect(created.data?.value).toMatch(KEY_VALUE);
    const list = await c.GET('/user/api-keys');
    expect(list.data?.items.map((k) => k.name)).toEqual(['typed']);
    const one = await c.GET('/user/api-keys/{key_name}', { params: { path: { key_name: 'typed' } } });
    expect(one.data).toMatchObject({ name: 'typed', description: 'via client', status: 'active' });
    expect(one.data).not.toHaveProperty('value');
    const patched = await c.PATCH('/user/api-keys/{key_name}', { params: { path: { key_name: 'typed' } }, body: { status: 'revoked' } });
    expect(patched.data?.status).toBe('revoked');
    const deleted = await c.DELETE('/user/api-keys/{key_name}', { params: { path: { key_name: 'typed' } } });
    expect(deleted.response.status).toBe(204);
    expect((await c.GET('/user/api-keys')).data?.items).toEqual([]);
  });

  it("see and change only the caller's keys, even when another user has a key of the same name", async () => {
    const a = await accountWithUser(url, ['read-only']);
    const b = await createUser(url, a.account, { roles: ['read-only'] });
    const ka = await json(url, 'POST', '/v2/user/api-keys', { name: 'shared', description: 'a' }, a.auth);
    const kb = await json(url, 'POST', '/v2/user/api-keys', { name: 'shared', description: 'b' }, b.auth);
    expect(ka.status).toBe(201);
    expect(kb.status).toBe(201);
    const onlyB = await json(url, 'POST', '/v2/user/api-keys', { name: 'only-b' }, b.auth);
    expect(onlyB.status).toBe(201);

    const listA = await raw(url, 'GET', '/v2/user/api-keys', { auth: a.auth });
    expect(listA.json.items).toHaveLength(1);
    expect(listA.json.items[0]).toMatchObject({ name: 'shared', description: 'a' });
    expectError(await raw(url, 'GET', '/v2/user/api-keys/only-b', { auth: a.auth }), 404, 'not_found');
    expectError(await json(url, 'PATCH', '/v2/user/api-keys/only-b', { status: 'revoked' }, a.auth), 404, 'not_found');
    expectError(await raw(url, 'DELETE', '/v2/user/api-keys/only-b', { auth: a.auth }), 404, 'not_found');

    expect((await raw(url, 'DELETE', '/v2/user/api-keys/shared', { auth: a.auth })).status).toBe(204);
    await expectRejected(url, { apiKey: ka.json.value });
    await expectAuthenticates(url, { apiKey: kb.json.value }, b.username);
    await expectAuthenticates(url, { apiKey: onlyB.json.value }, b.username);
    expect((await raw(url, 'GET', '/v2/user/api-keys/shared', { auth: b.auth })).json.description).toBe('b');
  });

  it('need authentication', async () => {
    expectError(await raw(url, 'GET', '/v2/user/api-keys', { auth: null }), 401, 'unauthorized');
    expectError(await json(url, 'POST', '/v2/user/api-keys', { name: 'x' }, null), 401, 'unauthorized');
    expectError(await raw(url, 'GET', '/v2/user/api-keys/x', { auth: null }), 401, 'unauthorized');
    expectError(await json(url, 'PATCH', '/v2/user/api-keys/x', { status: 'revoked' }, null), 401, 'unauthorized');
    expectError(await raw(url, 'DELETE', '/v2/user/api-keys/x', { auth: null }), 401, 'unauthorized');
  });
});

describe('admin routes (/v2/accounts/{account_name}/users/{username}/api-keys)', () => {
  it("share the user's keys with the self routes", async () => {
    const user = await accountWithUser(url, ['read-only']);
    const adminBase = `/v2/accounts/${user.account}/users/${user.username}/api-keys`;
    const byAdmin = await json(url, 'POST', adminBase, { name: 'by-admin' });
    const bySelf = await json(url, 'POST', '/v2/user/api-keys', { name: 'by-self' }, user.auth);
    expect(byAdmin.status).toBe(201);
    expect(bySelf.status).toBe(201);
    const selfList = await raw(url, 'GET', '/v2/user/api-keys', { auth: user.auth });
    const adminList = await raw(url, 'GET', adminBase);
    expect(selfList.json).toEqual(adminList.json);
    expect(adminList.json.items.map((k: { name: string }) => k.name).sort()).toEqual(['by-admin', 'by-self']);
    await expectAuthenticates(url, { apiKey: byAdmin.json.value }, user.username);

    // The administrator revokes the user's own key.
    const revoked = await json(url, 'PATCH', `${adminBase}/by-self`, { status: 'revoked' });
    expect(revoked.json.status).toBe('revoked');
    await expectRejected(url, { apiKey: bySelf.json.value });
    expect((await raw(url, 'GET', '/v2/user/api-keys/by-self', { auth: user.auth })).json.status).toBe('revoked');
  });

  it('answer 404 for an unknown user, a user of another account, or an unknown account', async () => {
    const user = await accountWithUser(url);
    const other = await createAccount(url);
    await json(url, 'POST', `/v2/accounts/${user.account}/users/${user.username}/api-keys`, { name: 'k' });
    const bases = [
      `/v2/accounts/${user.account}/users/${uniqueName('nobody')}/api-keys`,
      `/v2/accounts/${other.name}/users/${user.username}/api-keys`,
      `/v2/accounts/${uniqueName('noacct')}/users/${user.username}/api-keys`,
    ];
    for (const b of bases) {
      expectError(await raw(url, 'GET', b), 404, 'not_found');
      expectError(await json(url, 'POST', b, { name: uniqueName('k') }), 404, 'not_found');
      expectError(await raw(url, 'GET', `${b}/k`), 404, 'not_found');
      expectError(await json(url, 'PATCH', `${b}/k`, { status: 'revoked' }), 404, 'not_found');
      expectError(await raw(url, 'DELETE', `${b}/k`), 404, 'not_found');
    }
    const still = await raw(url, 'GET', `/v2/accounts/${user.account}/users/${user.username}/api-keys/k`);
    expect(still.json.status).toBe('active');
  });

  it('answer 400 for a bad account name or username', async () => {
    const user = await accountWithUser(url);
    expectValidationError(await raw(url, 'GET', `/v2/accounts/${user.account}/users/-x/api-keys`), ['path.username']);
    expectValidationError(await json(url, 'POST', `/v2/accounts/${user.account}/users/a%20b/api-keys`, { name: 'k' }), ['path.username']);
    expectValidationError(await raw(url, 'GET', `/v2/accounts/bad!/users/${user.username}/api-keys/k`), ['path.account_name']);
  });

  it("let an account-user-admin manage keys of its account's users, and nobody else", async () => {
    const manager = await accountWithUser(url, ['account-user-admin']);
    const user = await createUser(url, manager.account);
    const b = `/v2/accounts/${manager.account}/users/${user.username}/api-keys`;
    const created = await json(url, 'POST', b, { name: 'managed' }, manager.auth);
    expect(created.status).toBe(201);
    await expectAuthenticates(url, { apiKey: created.json.value }, user.username);
    expect((await raw(url, 'GET', b, { auth: manager.auth })).json.items).toHaveLength(1);

    const writer = await createUser(url, manager.account, { roles: ['read-write'] });
    expectError(await raw(url, 'GET', b, { auth: writer.auth }), 403, 'forbidden');
    expectError(await json(url, 'POST', b, { name: 'sneaky' }, writer.auth), 403, 'forbidden');
    expectError(await json(url, 'PATCH', `${b}/managed`, { status: 'revoked' }, writer.auth), 403, 'forbidden');
    expectError(await raw(url, 'DELETE', `${b}/managed`, { auth: writer.auth }), 403, 'forbidden');

    const outsider = await accountWithUser(url, ['account-user-admin']);
    expectError(await raw(url, 'GET', b, { auth: outsider.auth }), 403, 'forbidden');
    await grantRole(url, 'read-only', outsider.username, manager.account);
    expectError(await raw(url, 'DELETE', `${b}/managed`, { auth: outsider.auth }), 403, 'forbidden');
    await expectAuthenticates(url, { apiKey: created.json.value }, user.username);
  });

  it('work through the typed client', async () => {
    const user = await accountWithUser(url);
    const c = client(url);
    const path = { account_name: user.account, username: user.username };
    const created = await c.POST('/accounts/{account_name}/users/{username}/api-keys', { params: { path }, body: { name: 'typed' } });
    expect(created.response.status).toBe(201);
    expect(created.data?.value).toMatch(KEY_VALUE);
    const list = await c.GET('/accounts/{account_name}/users/{username}/api-keys', { params: { path } });
    expect(list.data?.items.map((k) => k.name)).toEqual(['typed']);
    const keyPath = { ...path, key_name: 'typed' };
    const one = await c.GET('/accounts/{account_name}/users/{username}/api-keys/{key_name}', { params: { path: keyPath } });
    expect(one.data).not.toHaveProperty('value');
    const patched = await c.PATCH('/accounts/{account_name}/users/{username}/api-keys/{key_name}', {
      params: { path: keyPath },
      body: { name: 'renamed', description: 'typed patch' },
    });
    expect(patched.data).toMatchObject({ name: 'renamed', description: 'typed patch', status: 'active' });
    const deleted = await c.DELETE('/accounts/{account_name}/users/{username}/api-keys/{key_name}', {
      params: { path: { ...path, key_name: 'renamed' } },
    });
    expect(deleted.response.status).toBe(204);
  });
});
