/** Handlers of the RBAC tag. Authorization itself happens in the pipeline, never here. */
import { findAccount } from '../auth/accounts.js';
import * as rbac from '../auth/rbac.js';
import { findUserAnyAccount } from '../auth/users.js';
import { NotFoundError } from '../errors.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { accountShape, roleMemberShape } from './shapes.js';

type RbacOps = 'list_roles' | 'get_role' | 'list_role_members' | 'add_role_user' | 'delete_role_user' | 'my_roles' | 'list_user_roles';

const summary = (r: rbac.RoleRecord) => ({ name: r.name, description: r.description, created_at: r.created_at });

export const rbacHandlers: HandlerGroup<RbacOps> = {
  async list_roles(ctx) {
    return { status: 200, body: (await rbac.listRoles(ctx.db)).map(summary) };
  },
  async get_role(ctx, { params }) {
    return { status: 200, body: await rbac.getRole(ctx.db, params.role_name) };
  },
  async list_role_members(ctx, { params }) {
    const members = await rbac.listRoleMembers(ctx.db, params.role_name, ctx.account.name);
    return { status: 200, body: members.map(roleMemberShape) };
  },
  async add_role_user(ctx, { params, body }) {
    return { status: 200, body: roleMemberShape(await rbac.addRoleMember(ctx.db, params.role_name, body.username, ctx.account.name)) };
  },
  async delete_role_user(ctx, { params, query }) {
    await rbac.removeRoleMember(ctx.db, params.role_name, query.username, ctx.account.name);
    return { status: 204 };
  },
  async my_roles(ctx) {
    const memberships = await rbac.listUserMemberships(ctx.db, ctx.caller.username);
    const roles = new Map((await rbac.listRoles(ctx.db)).map((r) => [r.name, r]));
    const byAccount = new Map<string, rbac.RoleMemberRecord[]>();
    for (const m of memberships) byAccount.set(m.account_name, [...(byAccount.get(m.account_name) ?? []), m]);
    const listing = [];
    for (const [accountName, list] of byAccount) {
      const account = await findAccount(ctx.db, accountName);
      listing.push({
        domain_name: accountName,
        for_account: accountName,
        roles: list.map((m) => summary(roles.get(m.role_name)!)),
        ...(account ? { account: accountShape(account) } : {}),
      });
    }
    return { status: 200, body: listing };
  },
  async list_user_roles(ctx, { params, query }) {
    if (!(await findUserAnyAccount(ctx.db, params.username)))
      throw new NotFoundError(`user '${params.username}' does not exist`, { username: params.username });
    const list = await rbac.listUserMemberships(ctx.db, params.username, { accountName: ctx.account.name, roleName: query.role });
    return {
      status: 200,
      body: list.map((m) => ({ role: m.role_name, domain_name: m.account_name, for_account: m.account_name, created_at: m.created_at })),
    };
  },
};
