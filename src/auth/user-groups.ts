/**
 * User groups: named sets of users that hold account roles together (administrators manage them). The group's
 * roles count for each member through effectiveGrants; this module owns the groups' own tables.
 */
import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Db } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';

export interface UserGroupRecord {
  group_uuid: string;
  name: string;
  description: string | null;
  created_at: string;
  last_updated: string;
}

export interface GroupRoleRecord {
  membership_id: string;
  group_uuid: string;
  account_name: string;
  role_name: string;
  created_at: string;
}

export interface GroupMemberRecord {
  username: string;
  account_name: string;
  created_at: string;
}

export interface GroupFilter {
  containsUser?: string;
  name?: string;
  containsAccount?: string;
}

/** Bounds one request's additions, so a single body cannot turn into an unbounded run of statements. */
export const MAX_ITEMS_PER_REQUEST = 500;

export async function getGroup(db: Db, groupUuid: string): Promise<UserGroupRecord> {
  const row = await db<UserGroupRecord>('user_groups').where({ group_uuid: groupUuid }).first();
  if (!row) throw new NotFoundError(`user group '${groupUuid}' does not exist`, { group_uuid: groupUuid });
  return row;
}

export async function listGroups(db: Db, filter: GroupFilter = {}): Promise<UserGroupRecord[]> {
  const q = db<UserGroupRecord>('user_groups').orderBy('name');
  if (filter.name !== undefined) q.where({ name: filter.name });
  if (filter.containsUser !== undefined)
    q.whereIn('group_uuid', db('user_group_members').where({ username: filter.containsUser }).select('group_uuid'));
  if (filter.containsAccount !== undefined)
    q.whereIn('group_uuid', db('user_group_roles').where({ account_name: filter.containsAccount }).select('group_uuid'));
  return q;
}

/** The groups a user belongs to. */
export async function listGroupsOfUser(db: Db, username: string): Promise<UserGroupRecord[]> {
  return listGroups(db, { containsUser: username });
}

export async function createGroup(db: Db, input: { name: string; description?: string }): Promise<UserGroupRecord> {
  const now = nowIso();
  const record: UserGroupRecord = { group_uuid: randomUUID(), name: input.name, description: input.description ?? null, created_at: now, last_updated: now };
  try {
    await db('user_groups').insert(record);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a user group named '${input.name}' already exists`, { name: input.name });
    throw err;
  }
  return record;
}

export async function updateGroup(db: Db, groupUuid: string, patch: { name?: string; description?: string }): Promise<UserGroupRecord> {
  await getGroup(db, groupUuid);
  const changes: Partial<UserGroupRecord> = { last_updated: nowIso() };
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.description !== undefined) changes.description = patch.description;
  try {
    await db('user_groups').where({ group_uuid: groupUuid }).update(changes);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a user group named '${patch.name}' already exists`, { name: patch.name });
    throw err;
  }
  return getGroup(db, groupUuid);
}

/** Ends the sessions of the group's members: they were opened while the group's roles were held. */
async function revokeMemberTokens(db: Db, groupUuid: string, usernames?: readonly string[]): Promise<void> {
  const q = db('users').whereIn('username', db('user_group_members').where({ group_uuid: groupUuid }).select('username'));
  if (usernames) q.whereIn('username', usernames);
  await q.increment('token_generation', 1);
}

export async function deleteGroup(db: Db, groupUuid: string): Promise<void> {
  await getGroup(db, groupUuid);
  await db.transaction(async (trx) => {
    await revokeMemberTokens(trx, groupUuid);
    await trx('user_groups').where({ group_uuid: groupUuid }).delete();
  });
}

export async function listGroupRoles(db: Db, groupUuid: string): Promise<GroupRoleRecord[]> {
  await getGroup(db, groupUuid);
  return db<GroupRoleRecord>('user_group_roles').where({ group_uuid: groupUuid }).orderBy(['account_name', 'role_name']);
}

/** The roles of many groups at once, for listings. */
export async function rolesOfGroups(db: Db, groupUuids: readonly string[]): Promise<Map<string, GroupRoleRecord[]>> {
  const byGroup = new Map<string, GroupRoleRecord[]>(groupUuids.map((g) => [g, []]));
  for (let i = 0; i < groupUuids.length; i += 500) {
    const rows = await db<GroupRoleRecord>('user_group_roles')
      .whereIn('group_uuid', groupUuids.slice(i, i + 500))
      .orderBy(['account_name', 'role_name']);
    for (const r of rows) byGroup.get(r.group_uuid)!.push(r);
  }
  return byGroup;
}

function tooMany(what: string, count: number): InvalidError {
  return new InvalidError(`at most ${MAX_ITEMS_PER_REQUEST} ${what} per request, got ${count}`, { errors: [{ location: 'body', message: 'too many items' }] });
}

/** Grants roles in accounts to the group. Roles it already holds stay as they were. */
export async function addGroupRoles(db: Db, groupUuid: string, grants: readonly { accountName: string; roles: readonly string[] }[]): Promise<GroupRoleRecord[]> {
  await getGroup(db, groupUuid);
  const pairs = grants.flatMap((g) => g.roles.map((role) => ({ accountName: g.accountName, role })));
  if (pairs.length > MAX_ITEMS_PER_REQUEST) throw tooMany('roles', pairs.length);
  const accounts = [...new Set(pairs.map((p) => p.accountName))];
  const roles = [...new Set(pairs.map((p) => p.role))];
  const knownAccounts = new Set((await db('accounts').whereIn('name', accounts).select('name')).map((r: { name: string }) => r.name));
  const knownRoles = new Set((await db('roles').whereIn('name', roles).select('name')).map((r: { name: string }) => r.name));
  const badAccount = accounts.find((a) => !knownAccounts.has(a));
  if (badAccount) throw new InvalidError(`account '${badAccount}' does not exist`, { errors: [{ location: 'body.domain_name', message: `unknown account '${badAccount}'` }] });
  const badRole = roles.find((r) => !knownRoles.has(r));
  if (badRole) throw new InvalidError(`role '${badRole}' does not exist`, { errors: [{ location: 'body.roles', message: `unknown role '${badRole}'` }] });
  const now = nowIso();
  await db.transaction(async (trx) => {
    for (const p of pairs)
      await trx('user_group_roles')
        .insert({ membership_id: randomUUID(), group_uuid: groupUuid, account_name: p.accountName, role_name: p.role, created_at: now })
        .onConflict(['group_uuid', 'account_name', 'role_name'])
        .ignore();
    await trx('user_groups').where({ group_uuid: groupUuid }).update({ last_updated: now });
  });
  return listGroupRoles(db, groupUuid);
}

/** Withdraws one role (by membership id) or every role in one account from the group. */
export async function removeGroupRoles(db: Db, groupUuid: string, which: { membershipId?: string; allRolesForAccount?: string }): Promise<void> {
  await getGroup(db, groupUuid);
  if ((which.membershipId === undefined) === (which.allRolesForAccount === undefined))
    throw new InvalidError('name exactly one of membership_id and all_roles_for_account', {
      errors: [{ location: 'query', message: 'membership_id or all_roles_for_account is required, not both' }],
    });
  await db.transaction(async (trx) => {
    const q = trx('user_group_roles').where({ group_uuid: groupUuid });
    if (which.membershipId !== undefined) q.where({ membership_id: which.membershipId });
    else q.where({ account_name: which.allRolesForAccount });
    const count = await q.delete();
    if (count === 0)
      throw new NotFoundError(
        which.membershipId !== undefined
          ? `user group '${groupUuid}' has no role membership '${which.membershipId}'`
          : `user group '${groupUuid}' holds no role in account '${which.allRolesForAccount}'`,
        { group_uuid: groupUuid, ...(which.membershipId !== undefined ? { membership_id: which.membershipId } : { account_name: which.allRolesForAccount }) },
      );
    await trx('user_groups').where({ group_uuid: groupUuid }).update({ last_updated: nowIso() });
    await revokeMemberTokens(trx, groupUuid);
  });
}

export async function listGroupMembers(db: Db, groupUuid: string): Promise<GroupMemberRecord[]> {
  await getGroup(db, groupUuid);
  return db('user_group_members as gm')
    .join('users as u', 'u.username', 'gm.username')
    .where('gm.group_uuid', groupUuid)
    .orderBy('gm.username')
    .select('gm.username', 'u.account_name', 'gm.created_at');
}

/** Adds users to the group; members already in it stay, as members an administrator made. */
export async function addGroupMembers(db: Db, groupUuid: string, usernames: readonly string[]): Promise<GroupMemberRecord[]> {
  await getGroup(db, groupUuid);
  if (usernames.length > MAX_ITEMS_PER_REQUEST) throw tooMany('users', usernames.length);
  const wanted = [...new Set(usernames)];
  const known = new Set((await db('users').whereIn('username', wanted).select('username')).map((r: { username: string }) => r.username));
  const unknown = wanted.find((u) => !known.has(u));
  if (unknown) throw new InvalidError(`user '${unknown}' does not exist`, { errors: [{ location: 'body.usernames', message: `unknown user '${unknown}'` }] });
  const now = nowIso();
  await db.transaction(async (trx) => {
    if (wanted.length)
      await trx('user_group_members')
        .insert(wanted.map((username) => ({ group_uuid: groupUuid, username, created_at: now, sso_granted: false })))
        .onConflict(['group_uuid', 'username'])
        // An administrator adding a member a sign-in had added makes it theirs: later sign-ins leave it alone.
        .merge(['sso_granted']);
    await trx('user_groups').where({ group_uuid: groupUuid }).update({ last_updated: now });
  });
  return listGroupMembers(db, groupUuid);
}

export async function removeGroupMember(db: Db, groupUuid: string, username: string): Promise<void> {
  await getGroup(db, groupUuid);
  await db.transaction(async (trx) => {
    await revokeMemberTokens(trx, groupUuid, [username]);
    const count = await trx('user_group_members').where({ group_uuid: groupUuid, username }).delete();
    if (count === 0) throw new NotFoundError(`user '${username}' is not a member of user group '${groupUuid}'`, { group_uuid: groupUuid, username });
    await trx('user_groups').where({ group_uuid: groupUuid }).update({ last_updated: nowIso() });
  });
}
