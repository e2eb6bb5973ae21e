/**
 * A user's effective roles: the roles granted to it directly plus those granted to the user groups it belongs to.
 * Every reader of "which roles does this user hold" (the authorization decision, the account scope, my-roles,
 * users-with-roles) goes through effectiveGrants, so a change to a group counts from the next request on.
 */
import type { Knex } from 'knex';
import type { Db } from '../db/index.js';

/** `sso_group_membership`: through a group a single sign-on provider put the user in (see sso/group-mappings.ts). */
export type GrantType = 'direct' | 'group_membership' | 'sso_group_membership';

/** One role a user holds in one account, and how: directly, or through the named group (joined by hand or by a sign-in). */
export interface RoleGrant {
  username: string;
  role_name: string;
  account_name: string;
  created_at: string;
  grant_type: GrantType;
  group_name: string | null;
}

export interface GrantFilter {
  username?: string;
  accountName?: string;
  roleName?: string;
}

function narrow(q: Knex.QueryBuilder, f: GrantFilter, columns: { username: string; account: string; role: string }): Knex.QueryBuilder {
  if (f.username !== undefined) q.where(columns.username, f.username);
  if (f.accountName !== undefined) q.where(columns.account, f.accountName);
  if (f.roleName !== undefined) q.where(columns.role, f.roleName);
  return q;
}

/** Every grant matching the filter, by account, role and user, a direct grant before group ones. One query. */
export async function effectiveGrants(db: Db, filter: GrantFilter): Promise<RoleGrant[]> {
  const direct = narrow(
    db('role_members').select('username', 'role_name', 'account_name', 'created_at', db.raw("'direct' as grant_type"), db.raw('null as group_name')),
    filter,
    { username: 'username', account: 'account_name', role: 'role_name' },
  );
  const viaGroups = narrow(
    db('user_group_roles as gr')
      .join('user_group_members as gm', 'gm.group_uuid', 'gr.group_uuid')
      .join('user_groups as g', 'g.group_uuid', 'gr.group_uuid')
      .select(
        'gm.username',
        'gr.role_name',
        'gr.account_name',
        'gr.created_at',
        // SQLite keeps the flag as 0/1, which CASE reads as false/true like PostgreSQL's boolean.
        db.raw("case when gm.sso_granted then 'sso_group_membership' else 'group_membership' end as grant_type"),
        'g.name as group_name',
      ),
    filter,
    { username: 'gm.username', account: 'gr.account_name', role: 'gr.role_name' },
  );
  const rows: RoleGrant[] = await direct.unionAll(viaGroups);
  const rank = (g: RoleGrant) => (g.grant_type === 'direct' ? 0 : 1);
  return rows.sort(
    (a, b) =>
      a.account_name.localeCompare(b.account_name) ||
      a.role_name.localeCompare(b.role_name) ||
      a.username.localeCompare(b.username) ||
      rank(a) - rank(b) ||
      (a.group_name ?? '').localeCompare(b.group_name ?? ''),
  );
}

/** The distinct role names the user holds in the account, directly or through groups. */
export async function effectiveRoleNames(db: Db, username: string, accountName: string): Promise<string[]> {
  return [...new Set((await effectiveGrants(db, { username, accountName })).map((g) => g.role_name))];
}

/** One entry per (account, role) the user holds, the direct grant preferred over a group's. */
export function distinctRoles(grants: readonly RoleGrant[]): RoleGrant[] {
  const seen = new Map<string, RoleGrant>();
  for (const g of grants) {
    const key = `${g.account_name}\u0000${g.role_name}`;
    if (!seen.has(key)) seen.set(key, g);
  }
  return [...seen.values()];
}
