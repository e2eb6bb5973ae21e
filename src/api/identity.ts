/** Handlers of the Identity tag: the caller's own account, user, password and API keys. */
import * as apiKeys from '../auth/api-keys.js';
import { listGroupsOfUser } from '../auth/user-groups.js';
import * as users from '../auth/users.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { accountShape, apiKeyShape, credentialShape, userShape } from './shapes.js';
import { userGroupListing } from './user-groups.js';

type IdentityOps =
  | 'get_users_account'
  | 'get_user'
  | 'list_my_user_groups'
  | 'get_credentials'
  | 'add_credential'
  | 'list_api_keys'
  | 'create_api_key'
  | 'get_api_key'
  | 'patch_api_key'
  | 'delete_api_key';

export const identityHandlers: HandlerGroup<IdentityOps> = {
  async get_users_account(ctx) {
    return { status: 200, body: accountShape(ctx.account) };
  },
  async get_user(ctx) {
    return { status: 200, body: userShape(await users.getUser(ctx.db, ctx.caller.accountName, ctx.caller.username)) };
  },
  async list_my_user_groups(ctx) {
    return { status: 200, body: await userGroupListing(ctx.db, await listGroupsOfUser(ctx.db, ctx.caller.username)) };
  },
  async get_credentials(ctx) {
    const list = await users.listCredentials(ctx.db, ctx.caller.accountName, ctx.caller.username);
    return { status: 200, body: list.map(credentialShape) };
  },
  async add_credential(ctx, { body }) {
    const { accountName, username } = ctx.caller;
    const stored = await users.setPassword(ctx.db, ctx.services.hasher, accountName, username, body.value);
    return { status: 200, body: credentialShape(stored) };
  },
  async list_api_keys(ctx) {
    const list = await apiKeys.listApiKeys(ctx.db, ctx.caller.accountName, ctx.caller.username);
    return { status: 200, body: { items: list.map((k) => apiKeyShape(k)) } };
  },
  async create_api_key(ctx, { body }) {
    const { record, value } = await apiKeys.createApiKey(ctx.db, ctx.caller.accountName, ctx.caller.username, body);
    return { status: 201, body: apiKeyShape(record, value) };
  },
  async get_api_key(ctx, { params }) {
    return { status: 200, body: apiKeyShape(await apiKeys.getApiKey(ctx.db, ctx.caller.accountName, ctx.caller.username, params.key_name)) };
  },
  async patch_api_key(ctx, { params, body }) {
    const key = await apiKeys.patchApiKey(ctx.db, ctx.caller.accountName, ctx.caller.username, params.key_name, body);
    return { status: 200, body: apiKeyShape(key) };
  },
  async delete_api_key(ctx, { params }) {
    await apiKeys.deleteApiKey(ctx.db, ctx.caller.accountName, ctx.caller.username, params.key_name);
    return { status: 204 };
  },
};
