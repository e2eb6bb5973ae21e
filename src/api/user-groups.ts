/** Handlers of the user-group operations (User Management tag). Administrators only, enforced by the pipeline. */
import * as groups from '../auth/user-groups.js';
import type { Db } from '../db/index.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { userGroupRolesShape, userGroupShape, userGroupUsersShape } from './shapes.js';

type UserGroupOps =
  | 'list_user_groups'
  | 'create_user_group'
  | 'get_user_group'
  | 'update_user_group'
  | 'delete_user_group'
  | 'list_user_group_roles'
  | 'add_user_group_roles'
  | 'delete_user_group_role'
  | 'list_user_group_users'
  | 'add_user_group_users'
  | 'delete_user_group_users';

/** Groups with their account roles, as listings answer them (also GET /my-user-groups). */
export async function userGroupListing(db: Db, list: readonly groups.UserGroupRecord[]) {
  const roles = await groups.rolesOfGroups(db, list.map((g) => g.group_uuid));
  return list.map((g) => userGroupShape(g, roles.get(g.group_uuid) ?? []));
}

async function withRoles(db: Db, group: groups.UserGroupRecord) {
  return userGroupShape(group, await groups.listGroupRoles(db, group.group_uuid));
}

export const userGroupHandlers: HandlerGroup<UserGroupOps> = {
  async list_user_groups(ctx, { query }) {
    const list = await groups.listGroups(ctx.db, { containsUser: query.contains_user, name: query.user_group_name, containsAccount: query.contains_account });
    return { status: 200, body: await userGroupListing(ctx.db, list) };
  },
  async create_user_group(ctx, { body }) {
    return { status: 201, body: userGroupShape(await groups.createGroup(ctx.db, body), []) };
  },
  async get_user_group(ctx, { params }) {
    return { status: 200, body: await withRoles(ctx.db, await groups.getGroup(ctx.db, params.group_uuid)) };
  },
  async update_user_group(ctx, { params, body }) {
    return { status: 200, body: await withRoles(ctx.db, await groups.updateGroup(ctx.db, params.group_uuid, body)) };
  },
  async delete_user_group(ctx, { params }) {
    await groups.deleteGroup(ctx.db, params.group_uuid);
    return { status: 204 };
  },
  async list_user_group_roles(ctx, { params }) {
    return { status: 200, body: userGroupRolesShape(await groups.listGroupRoles(ctx.db, params.group_uuid)) };
  },
  async add_user_group_roles(ctx, { params, body }) {
    const grants = [{ accountName: body.domain_name ?? body.for_account ?? ctx.account.name, roles: body.roles.map((r) => r.role) }];
    return { status: 201, body: userGroupRolesShape(await groups.addGroupRoles(ctx.db, params.group_uuid, grants)) };
  },
  async delete_user_group_role(ctx, { params, query }) {
    await groups.removeGroupRoles(ctx.db, params.group_uuid, { membershipId: query.membership_id, allRolesForAccount: query.all_roles_for_account });
    return { status: 204 };
  },
  async list_user_group_users(ctx, { params }) {
    return { status: 200, body: userGroupUsersShape(await groups.listGroupMembers(ctx.db, params.group_uuid)) };
  },
  async add_user_group_users(ctx, { params, body }) {
    return { status: 201, body: userGroupUsersShape(await groups.addGroupMembers(ctx.db, params.group_uuid, body.usernames.map((u) => u.username))) };
  },
  async delete_user_group_users(ctx, { params, query }) {
    await groups.removeGroupMember(ctx.db, params.group_uuid, query.username);
    return { status: 204 };
  },
};
