/**
 * SAML group mappings and SSO-user management end to end: a samlify identity provider (test/support/saml-idp.ts)
 * signs responses whose groups attribute decides the user's memberships in the user groups mapped to it; users
 * pre-created as saml users sign in through an identity provider that admits only existing users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm } from '../support/auth-fixtures.js';
import { adminAuth, json, raw, type Auth } from '../support/http.js';
import { accountWithUser, createAccount, expectError, uniqueName } from '../support/fixtures.js';
import { TestIdp, postToAcs, type LoginOptions } from '../support/saml-idp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';
import { groupWithRole as groupWithRoleAt } from '../support/sso.js';

const SP_ENTITY = 'https://vigil.test/saml-groups';
const IDPS = '/v2/rbac-manager/saml/idps';
const GROUPS = '/v2/system/user-groups';
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

let server: TestServer;
let url: string;
let idp: TestIdp;
let home: string;
let target: string;

const acsUrl = (name: string) => `${url}/v2/rbac-manager/saml/sso/${name}`;
const mappingsPath = (name: string) => `${IDPS}/${name}/user-group-mappings`;

async function configure(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await json(url, 'POST', IDPS, {
    name,
    sp_entity_id: SP_ENTITY,
    acs_url: acsUrl(name),
    idp_metadata_xml: idp.metadata(),
    default_account: home,
    default_role: 'read-only',
    ...extra,
  });
  expect(res.status, res.text).toBe(200);
}

/** Signs `nameId` in through `idp_name`; answers the bearer auth of the token it gets. */
async function signIn(name: string, options: LoginOptions): Promise<Auth> {
  const res = await postToAcs(url, name, await idp.loginResponse(SP_ENTITY, acsUrl(name), options));
  expect(res.status, res.text).toBe(200);
  return { bearer: res.json.token };
}

/** A user group holding `role` in `account`; answers its uuid and name. */
const groupWithRole = (account: string, role: string) => groupWithRoleAt(url, account, role);

async function map(idpName: string, ...uuids: string[]) {
  const res = await json(url, 'POST', mappingsPath(idpName), { user_group_uuids: uuids });
  expect(res.status, res.text).toBe(200);
  return res.json as { user_group_uuid: string; user_group_name: string; mapped_on: string }[];
}

async function myRoles(auth: Auth): Promise<string[]> {
  const res = await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth });
  expect(res.status, res.text).toBe(200);
  return res.json.map((r: { domain_name: string; roles: { name: string } }) => `${r.domain_name}:${r.roles.name}`).sort();
}

async function members(groupUuid: string): Promise<string[]> {
  const res = await raw(url, 'GET', `${GROUPS}/${groupUuid}/users`);
  expect(res.status, res.text).toBe(200);
  return res.json.items.map((m: { username: string }) => m.username);
}

const listImagesIn = (auth: Auth, account: string) => raw(url, 'GET', '/v2/images', { auth, headers: { 'x-service-account': account } });

beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
  idp = new TestIdp();
  home = (await createAccount(url)).name;
  target = (await createAccount(url)).name;
});
afterAll(async () => {
  await server?.close();
});

describe.skipIf(missingTools('openssl'))('SAML group mappings', () => {
  it('maps, lists and unmaps user groups; unknown identity providers and groups are 404', async () => {
    const name = uniqueName('map');
    await configure(name);
    const a = await groupWithRole(target, 'read-only');
    const b = await groupWithRole(target, 'policy-editor');
    expect((await raw(url, 'GET', mappingsPath(name))).json).toEqual([]);

    const mapped = await map(name, a.uuid, b.uuid, a.uuid);
    expect(mapped.map((m) => m.user_group_uuid).sort()).toEqual([a.uuid, b.uuid].sort());
    expect(mapped.find((m) => m.user_group_uuid === a.uuid)).toMatchObject({ user_group_name: a.name, mapped_on: expect.any(String) });
    expect(await map(name)).toHaveLength(2); // mapping nothing more changes nothing
    const config = await raw(url, 'GET', `${IDPS}/${name}`);
    expect(config.json.user_groups.map((g: { user_group: string }) => g.user_group).sort()).toEqual([a.name, b.name].sort());

    // An unknown group maps nothing, even beside a known one.
    const c = await groupWithRole(target, 'read-only');
    expectError(await json(url, 'POST', mappingsPath(name), { user_group_uuids: [c.uuid, UNKNOWN_UUID] }), 404, 'not_found');
    expect((await raw(url, 'GET', mappingsPath(name))).json).toHaveLength(2);
    expectError(await json(url, 'POST', mappingsPath(name), { user_group_uuids: ['not-a-uuid'] }), 400, 'validation_error');
    expectError(await json(url, 'POST', mappingsPath(name), { user_group_uuid: a.uuid }), 400, 'validation_error');

    const missing = uniqueName('missing');
    expectError(await raw(url, 'GET', mappingsPath(missing)), 404, 'not_found');
    expectError(await json(url, 'POST', mappingsPath(missing), { user_group_uuids: [a.uuid] }), 404, 'not_found');
    expectError(await raw(url, 'DELETE', `${mappingsPath(missing)}?user_group=${a.uuid}`), 404, 'not_found');

    expect((await raw(url, 'DELETE', `${mappingsPath(name)}?user_group=${a.uuid}`)).status).toBe(204);
    expectError(await raw(url, 'DELETE', `${mappingsPath(name)}?user_group=${a.uuid}`), 404, 'not_found');
    // A group may also be named by its name, as get_idp lists them.
    await map(name, a.uuid);
    expect((await raw(url, 'DELETE', `${mappingsPath(name)}?user_group=${encodeURIComponent(a.name)}`)).status).toBe(204);
    expect((await raw(url, 'GET', mappingsPath(name))).json.map((m: { user_group_uuid: string }) => m.user_group_uuid)).toEqual([b.uuid]);
    expectError(await raw(url, 'DELETE', mappingsPath(name)), 400, 'validation_error');

    // Deleting a mapped group, or the identity provider, removes its mappings.
    expect((await raw(url, 'DELETE', `${GROUPS}/${b.uuid}`)).status).toBe(204);
    expect((await raw(url, 'GET', mappingsPath(name))).json).toEqual([]);
    await map(name, c.uuid);
    expect((await raw(url, 'DELETE', `${IDPS}/${name}`)).status).toBe(204);
    await configure(name);
    expect((await raw(url, 'GET', mappingsPath(name))).json).toEqual([]);
  });

  it('is for administrators only', async () => {
    const name = uniqueName('mapadmin');
    await configure(name);
    const group = await groupWithRole(target, 'read-only');
    const user = await accountWithUser(url, ['full-control']);
    expectError(await raw(url, 'GET', mappingsPath(name), { auth: user.auth }), 403, 'forbidden');
    expectError(await json(url, 'POST', mappingsPath(name), { user_group_uuids: [group.uuid] }, user.auth), 403, 'forbidden');
    expectError(await raw(url, 'DELETE', `${mappingsPath(name)}?user_group=${group.uuid}`, { auth: user.auth }), 403, 'forbidden');
    expect((await raw(url, 'GET', mappingsPath(name), { auth: adminAuth })).json).toEqual([]);
  });

  it("sign-ins put the user in the mapped groups the assertion names, update them, keep an administrator's memberships, and end sessions that lost a role", async () => {
    const name = uniqueName('sync');
    await configure(name, { idp_groups_attribute: 'groups' });
    const dev = await groupWithRole(target, 'policy-editor');
    const ops = await groupWithRole(target, 'read-only');
    const unmapped = await groupWithRole(target, 'image-analyzer');
    const manual = await groupWithRole(target, 'report-admin');
    await map(name, dev.uuid, ops.uuid, manual.uuid);
    const username = uniqueName('sso-member');

    const first = await signIn(name, { nameId: username, attributes: { groups: [dev.name, ops.name, unmapped.name] } });
    expect(await myRoles(first)).toEqual([`${home}:read-only`, `${target}:policy-editor`, `${target}:read-only`].sort());
    expect(await members(dev.uuid)).toEqual([username]);
    expect(await members(unmapped.uuid)).toEqual([]);
    expect((await listImagesIn(first, target)).status).toBe(200);
    const holders = await raw(url, 'GET', `/v2/accounts/${target}/users-with-roles`);
    const mine = holders.json.items.find((u: { username: string }) => u.username === username);
    expect(mine.unified_roles).toEqual(
      expect.arrayContaining([
        { role_name: 'policy-editor', domain_name: target, grant_type: 'sso_group_membership', granter: dev.name, group_name: dev.name, granted_at: expect.any(String) },
      ]),
    );

    // An administrator's own membership in a mapped group the assertion does not name stays.
    const added = await json(url, 'POST', `${GROUPS}/${manual.uuid}/users`, { usernames: [{ username }] });
    expect(added.status, added.text).toBe(201);

    const second = await signIn(name, { nameId: username, attributes: { groups: [ops.name] } });
    expect(await members(dev.uuid)).toEqual([]);
    expect(await members(manual.uuid)).toEqual([username]);
    expect(await myRoles(second)).toEqual([`${home}:read-only`, `${target}:read-only`, `${target}:report-admin`].sort());
    // policy-editor was lost: the session opened before ends; the new one works.
    expectError(await raw(url, 'GET', '/v2/user', { auth: first }), 401, 'unauthorized');
    expect((await raw(url, 'GET', '/v2/user', { auth: second })).status).toBe(200);
    const grants = (await raw(url, 'GET', `/v2/accounts/${target}/users-with-roles`)).json.items.find((u: { username: string }) => u.username === username).unified_roles;
    expect(grants.map((g: { role_name: string; grant_type: string }) => `${g.role_name}:${g.grant_type}`).sort()).toEqual(['read-only:sso_group_membership', 'report-admin:group_membership']);

    // Signing in with the same or more groups takes nothing away: earlier sessions go on.
    const third = await signIn(name, { nameId: username, attributes: { groups: [ops.name, dev.name] } });
    expect((await raw(url, 'GET', '/v2/user', { auth: second })).status).toBe(200);
    expect(await myRoles(third)).toContain(`${target}:policy-editor`);

    // An assertion without the attribute names no group: only the administrator's membership is left.
    const fourth = await signIn(name, { nameId: username });
    expect(await myRoles(fourth)).toEqual([`${home}:read-only`, `${target}:report-admin`].sort());
    expectError(await listImagesIn(third, target), 401, 'unauthorized');
  });

  it('reads the groups from memberOf by default; unmapping a group ends the memberships sign-ins made in it, and their sessions', async () => {
    const name = uniqueName('unmap');
    await configure(name);
    const group = await groupWithRole(target, 'read-only');
    await map(name, group.uuid);
    const username = uniqueName('unmap-user');
    const auth = await signIn(name, { nameId: username, attributes: { memberOf: [group.name] } });
    expect(await members(group.uuid)).toEqual([username]);
    expect((await listImagesIn(auth, target)).status).toBe(200);
    expect((await raw(url, 'DELETE', `${mappingsPath(name)}?user_group=${group.uuid}`)).status).toBe(204);
    expect(await members(group.uuid)).toEqual([]);
    expectError(await listImagesIn(auth, target), 401, 'unauthorized');
    const again = await signIn(name, { nameId: username, attributes: { memberOf: [group.name] } });
    expect(await members(group.uuid)).toEqual([]);
    expect(await myRoles(again)).toEqual([`${home}:read-only`]);
  });
});

describe.skipIf(missingTools('openssl'))('pre-created SAML users', () => {
  it('creates a saml user without a password, refusing a password, a missing or unknown identity provider', async () => {
    const name = uniqueName('precreate');
    await configure(name);
    const users = `/v2/accounts/${home}/users`;
    const username = uniqueName('saml-user');
    const created = await json(url, 'POST', users, { username, user_type: 'saml', idp_name: name });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ username, account_name: home, type: 'saml', idp_name: name });
    expect(created.json.password_last_updated).toBeUndefined();
    expect((await raw(url, 'GET', `${users}/${username}/credentials`)).json).toEqual([]);

    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await json(url, 'POST', users, { username: uniqueName('refused'), ...body });
      expectError(res, 400, 'validation_error');
      expect(res.json.detail.errors[0].location).toBe(`body.${field}`);
    };
    await refused({ user_type: 'saml', idp_name: name, password: 'a-long-password' }, 'password');
    await refused({ user_type: 'saml' }, 'idp_name');
    await refused({ user_type: 'saml', idp_name: uniqueName('nowhere') }, 'idp_name');
    await refused({}, 'password');
    await refused({ password: 'a-long-password', idp_name: name }, 'idp_name');
  });

  it('lets a pre-created saml user sign in through an identity provider that admits only existing users', async () => {
    const name = uniqueName('existing');
    await configure(name, { require_existing_users: true });
    const username = uniqueName('invited');
    const created = await json(url, 'POST', `/v2/accounts/${home}/users`, { username, user_type: 'saml', idp_name: name });
    expect(created.status, created.text).toBe(200);
    const auth = await signIn(name, { nameId: username });
    expect((await raw(url, 'GET', '/v2/user', { auth })).json).toMatchObject({ username, account_name: home, type: 'saml' });
    expect(await myRoles(auth)).toEqual([`${home}:read-only`]);

    // It has no password to sign in with; another identity provider cannot sign it in.
    expect((await postForm(url, '/v2/oauth/token', { grant_type: 'password', username, password: 'whatever-it-is' })).status).toBe(401);
    const other = uniqueName('other-idp');
    await configure(other);
    expectError(await postToAcs(url, other, await idp.loginResponse(SP_ENTITY, acsUrl(other), { nameId: username })), 401, 'unauthorized');
  });
});
