/**
 * Identity, accounts, users, credentials, API keys, OAuth tokens and role grants, through a life cycle: an account
 * and a user are created, used (by password, bearer token and API key), changed and finally deleted.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { uniqueName } from '../../support/fixtures.js';
import { as, defineArea, expectAnswer, ok } from '../harness.js';

const PASSWORD = 'contract-password-1';
const NEW_PASSWORD = 'contract-password-2';

interface State {
  account: string;
  username: string;
  adminKey: string;
  userKey: string;
  refreshToken: string;
  userToken: string;
  groupUuid: string;
  groupName: string;
}

export const identityArea = defineArea<State>({
  name: 'identity',
  async setup() {
    return { account: uniqueName('ct-acct'), username: uniqueName('ct-user'), adminKey: uniqueName('ct-key'), userKey: uniqueName('ct-ukey'), refreshToken: '', userToken: '', groupUuid: '', groupName: uniqueName('ct-group') };
  },
  calls: {
    get_user: async () => {
      await ok(sdk.getUser());
      await expectAnswer(401, sdk.getUser({ client: as({ basic: ['ct-nobody', 'not-the-password'] }) }));
    },
    get_users_account: () => ok(sdk.getUsersAccount()),
    get_credentials: () => ok(sdk.getCredentials()),
    list_api_keys: () => ok(sdk.listApiKeys()),
    create_api_key: (s) => ok(sdk.createApiKey({ body: { name: s.adminKey, description: 'contract test' } })),
    get_api_key: (s) => ok(sdk.getApiKey({ path: { key_name: s.adminKey } })),
    patch_api_key: (s) => ok(sdk.patchApiKey({ path: { key_name: s.adminKey }, body: { description: 'changed' } })),
    delete_api_key: (s) => ok(sdk.deleteApiKey({ path: { key_name: s.adminKey } })),

    create_account: async (s) => {
      await ok(sdk.createAccount({ body: { name: s.account, email: 'contract@example.com', type: 'user' } }));
      await expectAnswer(409, sdk.createAccount({ body: { name: s.account } }));
    },
    list_accounts: () => ok(sdk.listAccounts({ query: { state: 'enabled' } })),
    get_account: async (s) => {
      await ok(sdk.getAccount({ path: { account_name: s.account } }));
      await expectAnswer(404, sdk.getAccount({ path: { account_name: 'ct-no-such-account' } }));
    },
    update_account: (s) => ok(sdk.updateAccount({ path: { account_name: s.account }, body: { email: 'changed@example.com' } })),

    create_user: (s) => ok(sdk.createUser({ path: { account_name: s.account }, body: { username: s.username, password: PASSWORD } })),
    list_users: (s) => ok(sdk.listUsers({ path: { account_name: s.account } })),
    get_account_user: (s) => ok(sdk.getAccountUser({ path: { account_name: s.account, username: s.username } })),
    list_all_system_users: async (s) => {
      await ok(sdk.listAllSystemUsers());
      await expectAnswer(403, sdk.listAllSystemUsers({ client: as({ basic: [s.username, PASSWORD] }) }));
    },
    update_user_state: async (s) => {
      const path = { account_name: s.account, username: s.username };
      await ok(sdk.updateUserState({ path, body: { state: 'disabled' } }));
      await ok(sdk.updateUserState({ path, body: { state: 'enabled' } }));
    },
    list_user_credentials: (s) => ok(sdk.listUserCredentials({ path: { account_name: s.account, username: s.username } })),
    create_user_credential: (s) =>
      ok(sdk.createUserCredential({ path: { account_name: s.account, username: s.username }, body: { type: 'password', value: PASSWORD } })),
    create_user_api_key: (s) => ok(sdk.createUserApiKey({ path: { account_name: s.account, username: s.username }, body: { name: s.userKey } })),
    list_user_api_keys: (s) => ok(sdk.listUserApiKeys({ path: { account_name: s.account, username: s.username } })),
    get_user_api_key: (s) => ok(sdk.getUserApiKey({ path: { account_name: s.account, username: s.username, key_name: s.userKey } })),
    patch_user_api_key: (s) =>
      ok(sdk.patchUserApiKey({ path: { account_name: s.account, username: s.username, key_name: s.userKey }, body: { description: 'changed' } })),

    list_roles: () => ok(sdk.listRoles()),
    get_role: () => ok(sdk.getRole({ path: { role_name: 'read-write' } })),
    add_role_user: (s) => ok(sdk.addRoleUser({ path: { role_name: 'read-write' }, body: { username: s.username, domain_name: s.account } })),
    list_role_members: (s) => ok(sdk.listRoleMembers({ path: { role_name: 'read-write' }, query: { domain_name: s.account } })),
    list_user_roles: (s) => ok(sdk.listUserRoles({ path: { username: s.username } })),
    list_users_with_roles: async (s) => {
      const data = await ok(sdk.listUsersWithRoles({ path: { account_name: s.account } }));
      if (!data.items.some((u) => u.username === s.username && u.unified_roles?.length)) throw new Error('the role holder is not listed with its roles');
    },
    // A user group holding read-only in the account, with the user as its member.
    create_user_group: async (s) => {
      s.groupUuid = (await ok(sdk.createUserGroup({ body: { name: s.groupName, description: 'contract test' } }))).group_uuid;
      await expectAnswer(409, sdk.createUserGroup({ body: { name: s.groupName } }));
    },
    update_user_group: (s) => ok(sdk.updateUserGroup({ path: { group_uuid: s.groupUuid }, body: { description: 'changed' } })),
    add_user_group_users: (s) => ok(sdk.addUserGroupUsers({ path: { group_uuid: s.groupUuid }, body: { usernames: [{ username: s.username }] } })),
    list_user_group_users: (s) => ok(sdk.listUserGroupUsers({ path: { group_uuid: s.groupUuid } })),
    add_user_group_roles: (s) => ok(sdk.addUserGroupRoles({ path: { group_uuid: s.groupUuid }, body: { domain_name: s.account, roles: [{ role: 'read-only' }] } })),
    list_user_group_roles: (s) => ok(sdk.listUserGroupRoles({ path: { group_uuid: s.groupUuid } })),
    get_user_group: async (s) => {
      await ok(sdk.getUserGroup({ path: { group_uuid: s.groupUuid } }));
      await expectAnswer(404, sdk.getUserGroup({ path: { group_uuid: '00000000-0000-4000-8000-000000000000' } }));
    },
    list_user_groups: async (s) => {
      const groups = await ok(sdk.listUserGroups({ query: { contains_user: s.username, contains_account: s.account } }));
      if (!groups.some((g) => g.group_uuid === s.groupUuid)) throw new Error('the group is not listed under its member and account');
      await expectAnswer(403, sdk.listUserGroups({ client: as({ basic: [s.username, PASSWORD] }) }));
    },
    list_my_user_groups: async (s) => {
      const mine = await ok(sdk.listMyUserGroups({ client: as({ basic: [s.username, PASSWORD] }) }));
      if (!mine.some((g) => g.group_uuid === s.groupUuid)) throw new Error('the member does not see its group');
    },
    delete_user_group_role: (s) => ok(sdk.deleteUserGroupRole({ path: { group_uuid: s.groupUuid }, query: { all_roles_for_account: s.account } })),
    delete_user_group_users: (s) => ok(sdk.deleteUserGroupUsers({ path: { group_uuid: s.groupUuid }, query: { username: s.username } })),
    delete_user_group: (s) => ok(sdk.deleteUserGroup({ path: { group_uuid: s.groupUuid } })),

    get_oauth_token: async (s) => {
      const tokens = await ok(sdk.getOauthToken({ body: { grant_type: 'password', username: s.username, password: PASSWORD } }));
      s.userToken = tokens.access_token;
      s.refreshToken = tokens.refresh_token!;
      await ok(sdk.getOauthToken({ body: { grant_type: 'refresh_token', refresh_token: s.refreshToken } }));
    },
    // The user's own view, by bearer token.
    my_roles: (s) => ok(sdk.myRoles({ client: as({ bearer: s.userToken }) })),
    revoke_oauth_token: (s) => ok(sdk.revokeOauthToken({ body: { token: s.userToken, token_type_hint: 'access_token' } })),
    // The user changes its own password (it holds read-write in its account).
    add_credential: (s) => ok(sdk.addCredential({ client: as({ basic: [s.username, PASSWORD] }), body: { type: 'password', value: NEW_PASSWORD } })),

    delete_role_user: (s) => ok(sdk.deleteRoleUser({ path: { role_name: 'read-write' }, query: { username: s.username, domain_name: s.account } })),
    delete_user_api_key: (s) => ok(sdk.deleteUserApiKey({ path: { account_name: s.account, username: s.username, key_name: s.userKey } })),
    delete_user_credential: (s) =>
      ok(sdk.deleteUserCredential({ path: { account_name: s.account, username: s.username }, query: { credential_type: 'password' } })),
    delete_user: (s) => ok(sdk.deleteUser({ path: { account_name: s.account, username: s.username } })),
    update_account_state: (s) => ok(sdk.updateAccountState({ path: { account_name: s.account }, body: { state: 'disabled' } })),
    delete_account: (s) => ok(sdk.deleteAccount({ path: { account_name: s.account } })),
  },
});
