/** Handlers of the User Management tag: accounts, their users, credentials, API keys, and OAuth tokens. */
import * as accounts from '../auth/accounts.js';
import * as apiKeys from '../auth/api-keys.js';
import { operationTable } from '../../generated/operations.js';
import { authorizeAccessGrant, listRoleHolders } from '../auth/rbac.js';
import * as users from '../auth/users.js';
import { ConflictError, InvalidError } from '../errors.js';
import type { HandlerGroup } from '../server/handler-types.js';
import type { RequestContext } from '../server/context.js';
import { accountShape, apiKeyShape, credentialShape, userShape } from './shapes.js';

type UserManagementOps =
  | 'get_oauth_token'
  | 'revoke_oauth_token'
  | 'list_accounts'
  | 'create_account'
  | 'list_all_system_users'
  | 'get_account'
  | 'update_account'
  | 'delete_account'
  | 'update_account_state'
  | 'list_users'
  | 'list_users_with_roles'
  | 'create_user'
  | 'get_account_user'
  | 'delete_user'
  | 'update_user_state'
  | 'list_user_credentials'
  | 'create_user_credential'
  | 'delete_user_credential'
  | 'list_user_api_keys'
  | 'create_user_api_key'
  | 'get_user_api_key'
  | 'patch_user_api_key'
  | 'delete_user_api_key';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function refuseSelf(ctx: RequestContext, username: string, what: string): void {
  if (ctx.caller.username === username && ctx.caller.accountName === ctx.account.name)
    throw new ConflictError(`a user cannot ${what} itself`, { username });
}

/** Guards operations that hand a user's access to whoever performs them (see authorizeAccessGrant). */
async function grantsAccess(ctx: RequestContext, username: string, action: string): Promise<void> {
  await users.getUser(ctx.db, ctx.account.name, username);
  await authorizeAccessGrant(ctx.db, ctx.services.permissions, ctx.caller, action, { username, accountName: ctx.account.name });
}

function missing(field: string, grant: string): InvalidError {
  return new InvalidError(`${field} is required for grant_type=${grant}`, { errors: [{ location: `body.${field}`, message: 'is required' }] });
}

export const userManagementHandlers: HandlerGroup<UserManagementOps> = {
  async get_oauth_token(ctx, { body }) {
    const { authenticator, tokens } = ctx.services;
    let principal;
    if (body.grant_type === 'refresh_token') {
      if (!body.refresh_token) throw missing('refresh_token', 'refresh_token');
      principal = await authenticator.redeemRefreshToken(body.refresh_token);
    } else {
      if (!body.username) throw missing('username', 'password');
      if (body.password === undefined) throw missing('password', 'password');
      principal = await authenticator.byPassword(body.username, body.password, ctx.client);
    }
    return { status: 200, body: await tokens.issue(principal.username, principal.accountName, principal.tokenGeneration), headers: NO_STORE };
  },
  async revoke_oauth_token(ctx, { body }) {
    await ctx.services.tokens.revokeToken(body.token);
    return { status: 200, headers: NO_STORE };
  },

  async list_accounts(ctx, { query }) {
    return { status: 200, body: (await accounts.listAccounts(ctx.db, { state: query.state })).map(accountShape) };
  },
  async create_account(ctx, { body }) {
    return { status: 200, body: accountShape(await accounts.createAccount(ctx.db, body)) };
  },
  async list_all_system_users(ctx) {
    const all = await users.listUsers(ctx.db);
    return { status: 200, body: { items: all.map(userShape), total_rows: all.length } };
  },
  async get_account(ctx) {
    return { status: 200, body: accountShape(ctx.account) };
  },
  async update_account(ctx, { body }) {
    return { status: 200, body: accountShape(await accounts.updateAccountEmail(ctx.db, ctx.account.name, body.email)) };
  },
  async delete_account(ctx) {
    await accounts.deleteAccount(ctx.db, ctx.account.name);
    return { status: 204 };
  },
  async update_account_state(ctx, { body }) {
    const account = await accounts.setAccountState(ctx.db, ctx.account.name, body.state);
    return { status: 200, body: { state: account.state as 'enabled' | 'disabled' } };
  },

  async list_users(ctx) {
    return { status: 200, body: (await users.listUsers(ctx.db, ctx.account.name)).map(userShape) };
  },
  async list_users_with_roles(ctx) {
    const holders = await listRoleHolders(ctx.db, ctx.account.name);
    const items = holders.map(({ user, grants }) => ({
      ...userShape(user),
      unified_roles: grants.map((g) => ({
        role_name: g.role_name,
        domain_name: g.account_name,
        grant_type: g.grant_type,
        // Upstream names the granting user group in `granter`; `group_name` is Vigil's earlier name for it.
        ...(g.group_name !== null ? { granter: g.group_name, group_name: g.group_name } : {}),
        granted_at: g.created_at,
      })),
    }));
    return { status: 200, body: { items, total_rows: items.length } };
  },
  async create_user(ctx, { body }) {
    const user = await users.createUser(ctx.db, ctx.services.hasher, ctx.account.name, body);
    return { status: 200, body: userShape(user) };
  },
  async get_account_user(ctx, { params }) {
    return { status: 200, body: userShape(await users.getUser(ctx.db, ctx.account.name, params.username)) };
  },
  async delete_user(ctx, { params }) {
    refuseSelf(ctx, params.username, 'delete');
    await users.deleteUser(ctx.db, ctx.account.name, params.username);
    return { status: 204 };
  },
  async update_user_state(ctx, { params, body }) {
    if (body.state === 'disabled') refuseSelf(ctx, params.username, 'disable');
    else await grantsAccess(ctx, params.username, operationTable.update_user_state.authzAction);
    return { status: 200, body: userShape(await users.setUserState(ctx.db, ctx.account.name, params.username, body.state)) };
  },

  async list_user_credentials(ctx, { params }) {
    const list = await users.listCredentials(ctx.db, ctx.account.name, params.username);
    return { status: 200, body: list.map(credentialShape) };
  },
  async create_user_credential(ctx, { params, body }) {
    await grantsAccess(ctx, params.username, operationTable.create_user_credential.authzAction);
    const stored = await users.setPassword(ctx.db, ctx.services.hasher, ctx.account.name, params.username, body.value);
    return { status: 200, body: credentialShape(stored) };
  },
  async delete_user_credential(ctx, { params, query }) {
    await users.deleteCredential(ctx.db, ctx.account.name, params.username, query.credential_type);
    return { status: 204 };
  },

  async list_user_api_keys(ctx, { params }) {
    await users.getUser(ctx.db, ctx.account.name, params.username);
    const list = await apiKeys.listApiKeys(ctx.db, ctx.account.name, params.username);
    return { status: 200, body: { items: list.map((k) => apiKeyShape(k)) } };
  },
  async create_user_api_key(ctx, { params, body }) {
    await grantsAccess(ctx, params.username, operationTable.create_user_api_key.authzAction);
    const { record, value } = await apiKeys.createApiKey(ctx.db, ctx.account.name, params.username, body);
    return { status: 201, body: apiKeyShape(record, value) };
  },
  async get_user_api_key(ctx, { params }) {
    return { status: 200, body: apiKeyShape(await apiKeys.getApiKey(ctx.db, ctx.account.name, params.username, params.key_name)) };
  },
  async patch_user_api_key(ctx, { params, body }) {
    return { status: 200, body: apiKeyShape(await apiKeys.patchApiKey(ctx.db, ctx.account.name, params.username, params.key_name, body)) };
  },
  async delete_user_api_key(ctx, { params }) {
    await apiKeys.deleteApiKey(ctx.db, ctx.account.name, params.username, params.key_name);
    return { status: 204 };
  },
};
