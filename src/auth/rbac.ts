/**
 * Role-based access control: roles (stored with their permissions), memberships of users in roles for an
 * account, and the one authorization decision the request pipeline asks for.
 */
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import { effectiveGrants, effectiveRoleNames, type RoleGrant } from './effective-roles.js';
import type { Principal } from './principal.js';
import { BUILTIN_ROLES, SYSTEM_ACTIONS, expandRole } from './roles.js';
import { revokeUserTokens, type UserRecord } from './users.js';

export interface RoleRecord {
  name: string;
  description: string;
  immutable: boolean;
  created_at: string;
  last_updated: string;
}

export interface RoleMemberRecord {
  role_name: string;
  username: string;
  account_name: string;
  created_at: string;
}

/** Writes the built-in roles and their permissions as the current spec defines them. Idempotent. */
export async function seedBuiltinRoles(db: Db, catalog: readonly string[]): Promise<void> {
  const now = nowIso();
  await db.transaction(async (trx) => {
    for (const role of BUILTIN_ROLES) {
      await trx('roles')
        .insert({ name: role.name, description: role.description, immutable: true, created_at: now, last_updated: now })
        .onConflict('name')
        .merge(['description', 'immutable']);
      const want = expandRole(role, catalog);
      const have = (await trx('role_permissions').where({ role_name: role.name }).select('action')).map((r: { action: string }) => r.action);
      if (want.join() === [...have].sort().join()) continue;
      await trx('role_permissions').where({ role_name: role.name }).delete();
      if (want.length) await trx('role_permissions').insert(want.map((action) => ({ role_name: role.name, action, target: '*' })));
      await trx('roles').where({ name: role.name }).update({ last_updated: now });
    }
  });
}

function toRole(row: any): RoleRecord {
  return { ...row, immutable: toBool(row.immutable) };
}

export async function listRoles(db: Db): Promise<RoleRecord[]> {
  return (await db('roles').orderBy('name')).map(toRole);
}

export async function getRole(db: Db, name: string): Promise<RoleRecord & { permissions: { action: string; target: string }[] }> {
  const row = await db('roles').where({ name }).first();
  if (!row) throw new NotFoundError(`role '${name}' does not exist`, { role_name: name });
  const permissions = await db('role_permissions').where({ role_name: name }).orderBy('action').select('action', 'target');
  return { ...toRole(row), permissions };
}

export async function listRoleMembers(db: Db, roleName: string, accountName: string): Promise<RoleMemberRecord[]> {
  await getRole(db, roleName);
  return db<RoleMemberRecord>('role_members').where({ role_name: roleName, account_name: accountName }).orderBy('username');
}

export async function addRoleMember(db: Db, roleName: string, username: string, accountName: string): Promise<RoleMemberRecord> {
  await getRole(db, roleName);
  const user = await db('users').where({ username }).first('username');
  if (!user) throw new NotFoundError(`user '${username}' does not exist`, { username });
  const record: RoleMemberRecord = { role_name: roleName, username, account_name: accountName, created_at: nowIso() };
  const inserted = await db('role_members').insert(record).onConflict(['role_name', 'username', 'account_name']).ignore().returning('username');
  if (inserted.length === 0)
    throw new ConflictError(`user '${username}' already has role '${roleName}' in account '${accountName}'`, { username, role_name: roleName, domain_name: accountName });
  return record;
}

export async function removeRoleMember(db: Db, roleName: string, username: string, accountName: string): Promise<void> {
  await getRole(db, roleName);
  await db.transaction(async (trx) => {
    const count = await trx('role_members').where({ role_name: roleName, username, account_name: accountName }).delete();
    if (count === 0)
      throw new NotFoundError(`user '${username}' does not have role '${roleName}' in account '${accountName}'`, { username, role_name: roleName, domain_name: accountName });
    // Permissions are read per request anyway; this also ends sessions opened while the role was held.
    await revokeUserTokens(trx, username);
  });
}

/** A user's memberships, optionally only in one account or of one role. */
export async function listUserMemberships(
  db: Db,
  username: string,
  filter: { accountName?: string; roleName?: string } = {},
): Promise<RoleMemberRecord[]> {
  const q = db<RoleMemberRecord>('role_members').where({ username }).orderBy(['account_name', 'role_name']);
  if (filter.accountName) q.where({ account_name: filter.accountName });
  if (filter.roleName) q.where({ role_name: filter.roleName });
  return q;
}

/** The users (of any account) holding at least one role in the account, directly or through groups, each with those grants. */
export async function listRoleHolders(db: Db, accountName: string): Promise<{ user: UserRecord; grants: RoleGrant[] }[]> {
  const grants = await effectiveGrants(db, { accountName });
  const byUser = new Map<string, RoleGrant[]>();
  for (const g of grants) byUser.set(g.username, [...(byUser.get(g.username) ?? []), g]);
  const names = [...byUser.keys()].sort();
  // One query per 500 users; grants cascade with their user, so every name has a row.
  const usersByName = new Map<string, UserRecord>();
  for (let i = 0; i < names.length; i += 500)
    for (const u of await db<UserRecord>('users').whereIn('username', names.slice(i, i + 500))) usersByName.set(u.username, u);
  return names.flatMap((name) => {
    const user = usersByName.get(name);
    return user ? [{ user, grants: byUser.get(name)! }] : [];
  });
}

/** True when the user holds any role in the account, directly or through a group. */
export async function hasAnyRole(db: Db, username: string, accountName: string): Promise<boolean> {
  return (await effectiveRoleNames(db, username, accountName)).length > 0;
}

/** The refusal for a caller without a suitable role; the same whether or not the account exists. */
export function denied(principal: Principal, action: string, accountName: string): ForbiddenError {
  const what = action === 'none' ? 'holds no role' : `has no role granting '${action}'`;
  return new ForbiddenError(`user '${principal.username}' ${what} in account '${accountName}'`, { action, account_name: accountName });
}

/**
 * A user who holds roles in accounts besides its own acts there too, so whoever sets its password, gives it an
 * API key or re-enables it hands over that access as well. Outside administrators, the caller needs `action` in
 * every account where the user holds a role, not only in the user's own. The refusal names no other account.
 */
export async function authorizeAccessGrant(
  db: Db,
  catalog: PermissionCatalog,
  principal: Principal,
  action: string,
  user: { username: string; accountName: string },
): Promise<void> {
  if (principal.isAdmin) return;
  const elsewhere = new Set((await effectiveGrants(db, { username: user.username })).map((g) => g.account_name));
  elsewhere.delete(user.accountName);
  for (const account_name of elsewhere) {
    try {
      await authorize(db, catalog, principal, action, account_name);
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
      throw new ForbiddenError(
        `user '${user.username}' also holds roles in accounts where you may not perform '${action}'; ask an administrator, or someone with that right in each of them`,
        { action, username: user.username },
      );
    }
  }
}

/**
 * Role permissions held in memory: built-in roles are immutable and written only at start-up, so the
 * per-request check needs just the caller's role names in the target account.
 */
export class PermissionCatalog {
  private constructor(private readonly actionsByRole: Map<string, Set<string>>) {}

  static async load(db: Db): Promise<PermissionCatalog> {
    const rows: { role_name: string; action: string }[] = await db('role_permissions').select('role_name', 'action');
    const map = new Map<string, Set<string>>();
    for (const r of rows) map.set(r.role_name, (map.get(r.role_name) ?? new Set()).add(r.action));
    return new PermissionCatalog(map);
  }

  grants(roleNames: readonly string[], action: string): boolean {
    return roleNames.some((r) => {
      const actions = this.actionsByRole.get(r);
      return !!actions && (actions.has(action) || actions.has('*'));
    });
  }
}

/**
 * The authorization decision: may this caller perform `action` in `accountName`?
 * Admin-account users may do everything; system actions are theirs alone; everyone else needs a role in the
 * target account that grants the action, held directly or through a user group.
 */
export async function authorize(db: Db, catalog: PermissionCatalog, principal: Principal, action: string, accountName: string): Promise<void> {
  if (action === 'none' || principal.isAdmin) return;
  if (SYSTEM_ACTIONS.has(action))
    throw new ForbiddenError(`only administrators may perform '${action}'`, { action, account_name: accountName });
  // Read on every request (no cache), so a role granted or withdrawn, directly or through a group, counts at once.
  const roles = await effectiveRoleNames(db, principal.username, accountName);
  if (!catalog.grants(roles, action)) throw denied(principal, action, accountName);
}
