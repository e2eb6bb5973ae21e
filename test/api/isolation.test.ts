/**
 * Account isolation: users of account A, even with full-control or account-user-admin in A, can neither read
 * nor change anything of account B — by naming B in the path, the query, the body or x-service-account, or by
 * reaching B's users through A's own paths. B is verified unchanged (as the administrator) after every attempt
 * to change it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, json, raw, type Auth, type RawResponse } from '../support/http.js';
import {
  PASSWORD,
  createAccount,
  createApiKey,
  createUser,
  expectForbidden,
  expectNotFound,
  snapshotAccount,
  uniqueName,
  type TestUser,
} from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SA = 'x-service-account';

let server: TestServer;
let url: string;
let A: string;
let B: string;
let aFull: TestUser;
let aUserAdmin: TestUser;
let bAdmin: TestUser;
let bUser: TestUser;
let bKeyValue: string;
let snapshotB: unknown;

beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
  A = await createAccount(url, 'iso-a');
  B = await createAccount(url, 'iso-b');
  aFull = await createUser(url, A, { prefix: 'a-full', roles: ['full-control'] });
  aUserAdmin = await createUser(url, A, { prefix: 'a-uadmin', roles: ['account-user-admin'] });
  bAdmin = await createUser(url, B, { prefix: 'b-full', roles: ['full-control'] });
  bUser = await createUser(url, B, { prefix: 'b-user', roles: ['read-only', 'image-analyzer'] });
  await createUser(url, B, { prefix: 'b-idle' });
  bKeyValue = await createApiKey(url, B, bUser.username, 'bkey');
  snapshotB = await snapshotAccount(url, B);
});
afterAll(async () => {
  await server?.close();
});

async function send(method: string, path: string, body: unknown, auth: Auth, headers: Record<string, string> = {}): Promise<RawResponse> {
  return body === undefined ? raw(url, method, path, { auth, headers }) : json(url, method, path, body, auth, headers);
}

/** An error body with the account's name and the request id taken out, to compare two refusals. */
function anonymised(res: RawResponse, account: string): unknown {
  const { request_id: _ignored, ...detail } = res.json.detail;
  return JSON.parse(JSON.stringify({ ...res.json, detail }).replaceAll(account, '<account>'));
}

async function expectBUnchanged(): Promise<void> {
  expect(await snapshotAccount(url, B)).toEqual(snapshotB);
}

interface Op {
  name: string;
  method: string;
  path: () => string;
  body?: (caller: TestUser) => unknown;
}

/** Every operation that names B in its path, query or body. */
const OPS_NAMING_B: Op[] = [
  { name: 'GET account', method: 'GET', path: () => `/v2/accounts/${B}` },
  { name: 'PUT account', method: 'PUT', path: () => `/v2/accounts/${B}`, body: () => ({ email: 'owned@example.com' }) },
  { name: 'DELETE account', method: 'DELETE', path: () => `/v2/accounts/${B}` },
  { name: 'PUT account state', method: 'PUT', path: () => `/v2/accounts/${B}/state`, body: () => ({ state: 'disabled' }) },
  { name: 'list users', method: 'GET', path: () => `/v2/accounts/${B}/users` },
  { name: 'create user', method: 'POST', path: () => `/v2/accounts/${B}/users`, body: () => ({ username: uniqueName('intruder'), password: PASSWORD }) },
  { name: 'get user', method: 'GET', path: () => `/v2/accounts/${B}/users/${bUser.username}` },
  { name: 'delete user', method: 'DELETE', path: () => `/v2/accounts/${B}/users/${bUser.username}` },
  { name: 'disable user', method: 'PUT', path: () => `/v2/accounts/${B}/users/${bUser.username}/state`, body: () => ({ state: 'disabled' }) },
  { name: 'list credentials', method: 'GET', path: () => `/v2/accounts/${B}/users/${bUser.username}/credentials` },
  {
    name: 'set password',
    method: 'POST',
    path: () => `/v2/accounts/${B}/users/${bUser.username}/credentials`,
    body: () => ({ type: 'password', value: 'taken-over-password' }),
  },
  { name: 'delete password', method: 'DELETE', path: () => `/v2/accounts/${B}/users/${bUser.username}/credentials?credential_type=password` },
  { name: 'list API keys', method: 'GET', path: () => `/v2/accounts/${B}/users/${bUser.username}/api-keys` },
  { name: 'create API key', method: 'POST', path: () => `/v2/accounts/${B}/users/${bUser.username}/api-keys`, body: () => ({ name: uniqueName('evil') }) },
  { name: 'get API key', method: 'GET', path: () => `/v2/accounts/${B}/users/${bUser.username}/api-keys/bkey` },
  { name: 'revoke API key', method: 'PATCH', path: () => `/v2/accounts/${B}/users/${bUser.username}/api-keys/bkey`, body: () => ({ status: 'revoked' }) },
  { name: 'rename API key', method: 'PATCH', path: () => `/v2/accounts/${B}/users/${bUser.username}/api-keys/bkey`, body: () => ({ name: 'stolen' }) },
  { name: 'delete API key', method: 'DELETE', path: () => `/v2/accounts/${B}/users/${bUser.username}/api-keys/bkey` },
  { name: 'list role members (domain_name)', method: 'GET', path: () => `/v2/rbac-manager/roles/read-only/members?domain_name=${B}` },
  { name: 'list role members (for_account)', method: 'GET', path: () => `/v2/rbac-manager/roles/read-only/members?for_account=${B}` },
  {
    name: 'grant itself full-control in B',
    method: 'POST',
    path: () => '/v2/rbac-manager/roles/full-control/members',
    body: (caller) => ({ username: caller.username, domain_name: B }),
  },
  {
    name: 'grant itself full-control in B (for_account)',
    method: 'POST',
    path: () => '/v2/rbac-manager/roles/full-control/members',
    body: (caller) => ({ username: caller.username, for_account: B }),
  },
  {
    name: "grant B's user a role in B",
    method: 'POST',
    path: () => '/v2/rbac-manager/roles/full-control/members',
    body: () => ({ username: bUser.username, domain_name: B }),
  },
  { name: 'remove a role member of B', method: 'DELETE', path: () => `/v2/rbac-manager/roles/read-only/members?username=${bUser.username}&domain_name=${B}` },
  { name: "list a B user's roles in B", method: 'GET', path: () => `/v2/rbac-manager/users/${bUser.username}/roles?domain_name=${B}` },
];

/** Operations that act on the target account: only x-service-account can point them at B. */
const OPS_VIA_HEADER: Op[] = [
  { name: 'GET /account', method: 'GET', path: () => '/v2/account' },
  { name: 'list roles', method: 'GET', path: () => '/v2/rbac-manager/roles' },
  { name: 'get role', method: 'GET', path: () => '/v2/rbac-manager/roles/read-only' },
  { name: 'list role members', method: 'GET', path: () => '/v2/rbac-manager/roles/read-only/members' },
  { name: 'grant itself a role', method: 'POST', path: () => '/v2/rbac-manager/roles/full-control/members', body: (caller) => ({ username: caller.username }) },
  { name: 'remove a role member', method: 'DELETE', path: () => `/v2/rbac-manager/roles/read-only/members?username=${bUser.username}` },
  { name: "list a user's roles", method: 'GET', path: () => `/v2/rbac-manager/users/${bUser.username}/roles` },
];

const callers = () => [
  ['full-control in A', aFull],
  ['account-user-admin in A', aUserAdmin],
] as const;

describe.each(['full-control', 'account-user-admin'] as const)('a user with %s in A', (role) => {
  const caller = () => (role === 'full-control' ? aFull : aUserAdmin);

  it.each(OPS_NAMING_B)('is refused $name of B, with or without x-service-account', async (op) => {
    const me = caller();
    for (const headers of [{}, { [SA]: B }, { [SA]: A }] as Record<string, string>[]) {
      const res = await send(op.method, op.path(), op.body?.(me), me.auth, headers);
      expectForbidden(res);
      expect(res.json.detail.account_name ?? B).toBe(B);
    }
    if (op.method !== 'GET') await expectBUnchanged();
  });

  it.each(OPS_VIA_HEADER)('is refused $name with x-service-account: B', async (op) => {
    const me = caller();
    const res = await send(op.method, op.path(), op.body?.(me), me.auth, { [SA]: B });
    expectForbidden(res);
    expect(res.text).not.toContain(`"name":"${B}"`);
    if (op.method !== 'GET') await expectBUnchanged();
  });

  it("cannot reach B's users through A's own paths (404)", async () => {
    const me = caller();
    const u = `/v2/accounts/${A}/users/${bUser.username}`;
    const attempts: [string, string, unknown?][] = [
      ['GET', u],
      ['DELETE', u],
      ['PUT', `${u}/state`, { state: 'disabled' }],
      ['GET', `${u}/credentials`],
      ['POST', `${u}/credentials`, { type: 'password', value: 'taken-over-password' }],
      ['DELETE', `${u}/credentials?credential_type=password`],
      ['GET', `${u}/api-keys`],
      ['POST', `${u}/api-keys`, { name: 'evil' }],
      ['GET', `${u}/api-keys/bkey`],
      ['PATCH', `${u}/api-keys/bkey`, { status: 'revoked' }],
      ['DELETE', `${u}/api-keys/bkey`],
      // The caller's own key namespace does not hold B's keys either.
      ['GET', '/v2/user/api-keys/bkey'],
      ['PATCH', '/v2/user/api-keys/bkey', { status: 'revoked' }],
      ['DELETE', '/v2/user/api-keys/bkey'],
    ];
    for (const [method, path, body] of attempts) {
      const res = await send(method, path, body, me.auth);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      expectNotFound(res);
    }
    await expectBUnchanged();
  });

  it("sees none of B's users or memberships in A's listings", async () => {
    const me = caller();
    const users = await raw(url, 'GET', `/v2/accounts/${A}/users`, { auth: me.auth });
    expect(users.status, users.text).toBe(200);
    for (const u of users.json) expect(u.account_name).toBe(A);
    expect(users.json.map((u: { username: string }) => u.username)).not.toContain(bUser.username);

    for (const role of ['read-only', 'full-control', 'image-analyzer']) {
      const m = await raw(url, 'GET', `/v2/rbac-manager/roles/${role}/members`, { auth: me.auth });
      expect(m.status, m.text).toBe(200);
      for (const item of m.json) expect(item.domain_name).toBe(A);
      expect(m.json.map((i: { username: string }) => i.username)).not.toContain(bUser.username);
    }

    const roles = await raw(url, 'GET', `/v2/rbac-manager/users/${bUser.username}/roles`, { auth: me.auth });
    expect(roles.status, roles.text).toBe(200);
    expect(roles.json).toEqual([]);

    const mine = await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth: me.auth });
    expect(mine.json.map((i: { domain_name: string }) => i.domain_name)).toEqual([A]);
  });

  it('cannot tell B, or a disabled account, from an account that does not exist', async () => {
    const me = caller();
    const ghost = uniqueName('ghost');
    const disabled = await createAccount(url, 'iso-off');
    expect((await json(url, 'PUT', `/v2/accounts/${disabled}/state`, { state: 'disabled' })).status).toBe(200);
    for (const [method, pathOf] of [
      ['GET', (acct: string) => `/v2/accounts/${acct}`],
      ['GET', (acct: string) => `/v2/accounts/${acct}/users`],
      ['GET', (acct: string) => `/v2/rbac-manager/roles/read-only/members?domain_name=${acct}`],
    ] as const) {
      const fake = await raw(url, method, pathOf(ghost), { auth: me.auth });
      expectForbidden(fake);
      for (const existing of [B, disabled]) {
        const real = await raw(url, method, pathOf(existing), { auth: me.auth });
        expectForbidden(real);
        expect(anonymised(real, existing), `${method} ${pathOf('<account>')}`).toEqual(anonymised(fake, ghost));
      }
    }
    const real = await raw(url, 'GET', '/v2/account', { auth: me.auth, headers: { [SA]: B } });
    const fake = await raw(url, 'GET', '/v2/account', { auth: me.auth, headers: { [SA]: ghost } });
    expectForbidden(real);
    expectForbidden(fake);
    expect(anonymised(real, B)).toEqual(anonymised(fake, ghost));
  });
});

describe('granting a user of B a role in A', () => {
  it('is allowed by A, gives A nothing over B and changes nothing of B', async () => {
    const grant = await json(url, 'POST', '/v2/rbac-manager/roles/read-only/members', { username: bUser.username }, aUserAdmin.auth);
    expect(grant.status, grant.text).toBe(200);
    expect(grant.json.domain_name).toBe(A);
    await expectBUnchanged();

    // B's user now reads A with the header, and still nothing more of A.
    const readA = await raw(url, 'GET', '/v2/account', { auth: bUser.auth, headers: { [SA]: A } });
    expect(readA.status, readA.text).toBe(200);
    expect(readA.json.name).toBe(A);
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${A}/users`, { auth: bUser.auth }), 'listUsers');

    // A's managers still cannot act on B, even on that user.
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${B}/users/${bUser.username}`, { auth: aUserAdmin.auth }), 'getUser');

    const removed = await raw(url, 'DELETE', `/v2/rbac-manager/roles/read-only/members?username=${bUser.username}`, { auth: aUserAdmin.auth });
    expect(removed.status, removed.text).toBe(204);
    expectForbidden(await raw(url, 'GET', '/v2/account', { auth: bUser.auth, headers: { [SA]: A } }));
    await expectBUnchanged();
  });
});

describe('the other direction', () => {
  it('a user with full-control in B cannot read or change A', async () => {
    const before = await snapshotAccount(url, A);
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${A}`, { auth: bAdmin.auth }), 'getAccount');
    expectForbidden(await raw(url, 'GET', `/v2/accounts/${A}/users`, { auth: bAdmin.auth }), 'listUsers');
    expectForbidden(await raw(url, 'DELETE', `/v2/accounts/${A}/users/${aFull.username}`, { auth: bAdmin.auth }), 'deleteUser');
    expectForbidden(await json(url, 'POST', `/v2/accounts/${A}/users/${aFull.username}/api-keys`, { name: 'evil' }, bAdmin.auth), 'createApiKey');
    expectForbidden(await raw(url, 'GET', '/v2/account', { auth: bAdmin.auth, headers: { [SA]: A } }));
    expectForbidden(
      await json(url, 'POST', '/v2/rbac-manager/roles/full-control/members', { username: bAdmin.username, domain_name: A }, bAdmin.auth),
      'createRoleMember',
    );
    expect(await snapshotAccount(url, A)).toEqual(before);
  });
});

describe('after every attempt', () => {
  it('B is unchanged and its users and keys still work', async () => {
    await expectBUnchanged();
    const acct = await raw(url, 'GET', `/v2/accounts/${B}`);
    expect(acct.json).toMatchObject({ name: B, state: 'enabled' });
    expect(acct.json.email).toBeUndefined();

    const byPassword = await raw(url, 'GET', '/v2/user', { auth: bUser.auth });
    expect(byPassword.status, byPassword.text).toBe(200);
    expect(byPassword.json).toMatchObject({ username: bUser.username, account_name: B, state: 'enabled' });
    const byKey = await raw(url, 'GET', '/v2/user', { auth: { apiKey: bKeyValue } });
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.json.username).toBe(bUser.username);
    const own = await raw(url, 'GET', '/v2/account', { auth: bUser.auth });
    expect(own.json.name).toBe(B);

    const usersOfB = await raw(url, 'GET', `/v2/accounts/${B}/users`, { auth: adminAuth });
    expect(usersOfB.json.map((u: { username: string }) => u.username)).not.toContain(aFull.username);
    for (const caller of callers()) {
      const roles = await raw(url, 'GET', `/v2/rbac-manager/users/${caller[1].username}/roles?domain_name=${B}`);
      expect(roles.json, caller[0]).toEqual([]);
    }
  });
});
