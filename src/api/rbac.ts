/** Handlers of the RBAC tag. Authorization itself happens in the pipeline, never here. */
import { findAccount, type AccountRecord } from '../auth/accounts.js';
import { distinctRoles, effectiveGrants } from '../auth/effective-roles.js';
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
    // One entry per (account, role), its `roles` being the one role with its permissions: the established API's
    // RbacManagerAccountRole holds a single role object there, so clients generated from it cannot read an array.
    // Effective roles: held directly or through a user group, each (account, role) once.
    const memberships = distinctRoles(await effectiveGrants(ctx.db, { username: ctx.caller.username }));
    const roles = new Map<string, Awaited<ReturnType<typeof rbac.getRole>>>();
    const accounts = new Map<string, AccountRecord | undefined>();
    const listing = [];
    for (const m of memberships) {
      if (!roles.has(m.role_name)) roles.set(m.role_name, await rbac.getRole(ctx.db, m.role_name));
      if (!accounts.has(m.account_name)) accounts.set(m.account_name, await findAccount(ctx.db, m.account_name));
      const account = accounts.get(m.account_name);
      listing.push({
        domain_name: m.account_name,
        for_account: m.account_name,
        roles: roles.get(m.role_name)!,
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
