/**
 * Group mappings of single sign-on providers: the user groups an identity provider may put its users in. At each
 * sign-in the user's memberships in those groups follow the groups the provider names (matched by group name);
 * memberships a sign-in made are marked `sso_granted`, so an administrator's own memberships are never taken away.
 * Shared by every protocol: a provider is named by its source ('saml', 'oidc') and name.
 */
import type { Db } from '../../db/index.js';
import { InvalidError, NotFoundError } from '../../errors.js';
import { nowIso } from '../../util/time.js';
import { MAX_ITEMS_PER_REQUEST } from '../user-groups.js';

export interface SsoProviderRef {
  source: 'saml' | 'oidc';
  name: string;
}

export interface GroupMappingRecord {
  group_uuid: string;
  group_name: string;
  created_at: string;
}

/**
 * The users column tying a single sign-on user to its provider. users.idp_name is a foreign key to saml_idps (so
 * deleting a SAML identity provider deletes its users), and users.oidc_provider one to oidc_providers.
 */
export const PROVIDER_COLUMN = { saml: 'idp_name', oidc: 'oidc_provider' } as const;

const byProvider = (p: SsoProviderRef) => ({ provider_source: p.source, provider_name: p.name });

export async function listGroupMappings(db: Db, provider: SsoProviderRef): Promise<GroupMappingRecord[]> {
  return db('sso_group_mappings as m')
    .join('user_groups as g', 'g.group_uuid', 'm.group_uuid')
    .where({ 'm.provider_source': provider.source, 'm.provider_name': provider.name })
    .orderBy('g.name')
    .select('m.group_uuid', 'g.name as group_name', 'm.created_at');
}

/** Maps the groups to the provider; groups already mapped stay as they were. Every group must exist. */
export async function addGroupMappings(db: Db, provider: SsoProviderRef, groupUuids: readonly string[]): Promise<GroupMappingRecord[]> {
  if (groupUuids.length > MAX_ITEMS_PER_REQUEST)
    throw new InvalidError(`at most ${MAX_ITEMS_PER_REQUEST} user groups per request, got ${groupUuids.length}`, {
      errors: [{ location: 'body.user_group_uuids', message: 'too many items' }],
    });
  const wanted = [...new Set(groupUuids)];
  const known = new Set((await db('user_groups').whereIn('group_uuid', wanted).select('group_uuid')).map((r: { group_uuid: string }) => r.group_uuid));
  const unknown = wanted.find((g) => !known.has(g));
  if (unknown) throw new NotFoundError(`user group '${unknown}' does not exist`, { group_uuid: unknown });
  if (wanted.length) {
    const now = nowIso();
    await db('sso_group_mappings')
      .insert(wanted.map((group_uuid) => ({ ...byProvider(provider), group_uuid, created_at: now })))
      .onConflict(['provider_source', 'provider_name', 'group_uuid'])
      .ignore();
  }
  return listGroupMappings(db, provider);
}

/**
 * Unmaps the group, named by uuid or by name (upstream lists mapped groups by name). The memberships the provider's
 * sign-ins made in it end now (with the sessions opened while they were held), not at each user's next sign-in.
 */
export async function removeGroupMapping(db: Db, provider: SsoProviderRef, userGroup: string): Promise<void> {
  await db.transaction(async (trx) => {
    const mapped = await trx('sso_group_mappings as m')
      .join('user_groups as g', 'g.group_uuid', 'm.group_uuid')
      .where({ 'm.provider_source': provider.source, 'm.provider_name': provider.name })
      .andWhere((q) => q.where('m.group_uuid', userGroup).orWhere('g.name', userGroup))
      .first('m.group_uuid');
    if (!mapped)
      throw new NotFoundError(`user group '${userGroup}' is not mapped to identity provider '${provider.name}'`, { user_group: userGroup, name: provider.name });
    const groupUuid: string = mapped.group_uuid;
    await trx('sso_group_mappings').where({ ...byProvider(provider), group_uuid: groupUuid }).delete();
    const members = trx('user_group_members')
      .where({ group_uuid: groupUuid, sso_granted: true })
      .whereIn('username', trx('users').where({ source: provider.source, [PROVIDER_COLUMN[provider.source]]: provider.name }).select('username'));
    await trx('users').whereIn('username', members.clone().select('username')).increment('token_generation', 1);
    await members.delete();
  });
}

/** Forgets every mapping of a provider that is being deleted. */
export async function deleteProviderMappings(db: Db, provider: SsoProviderRef): Promise<void> {
  await db('sso_group_mappings').where(byProvider(provider)).delete();
}

/**
 * Brings the user's memberships in line with the groups the provider names: it joins the mapped groups named,
 * and leaves the groups it had joined through a sign-in that are no longer named (or no longer mapped).
 * Memberships an administrator made stay whatever the provider says.
 */
export async function syncSsoGroups(trx: Db, provider: SsoProviderRef, username: string, groupNames: readonly string[]): Promise<void> {
  const named = new Set(groupNames);
  const mapped: { group_uuid: string; name: string }[] = await trx('sso_group_mappings as m')
    .join('user_groups as g', 'g.group_uuid', 'm.group_uuid')
    .where({ 'm.provider_source': provider.source, 'm.provider_name': provider.name })
    .select('m.group_uuid', 'g.name');
  const wanted = new Set(mapped.filter((g) => named.has(g.name)).map((g) => g.group_uuid));
  const held: { group_uuid: string; sso_granted: boolean | number }[] = await trx('user_group_members').where({ username }).select('group_uuid', 'sso_granted');
  const heldGroups = new Set(held.map((m) => m.group_uuid));
  const leave = held.filter((m) => !!m.sso_granted && !wanted.has(m.group_uuid)).map((m) => m.group_uuid);
  const join = [...wanted].filter((g) => !heldGroups.has(g));
  if (leave.length) await trx('user_group_members').where({ username }).whereIn('group_uuid', leave).delete();
  if (join.length) {
    const now = nowIso();
    await trx('user_group_members')
      .insert(join.map((group_uuid) => ({ group_uuid, username, created_at: now, sso_granted: true })))
      .onConflict(['group_uuid', 'username'])
      .ignore();
  }
}
