/** Record -> response shapes shared by several handler modules. */
import type { components } from '../../generated/openapi-types.js';
import type { AccountRecord } from '../auth/accounts.js';
import { apiKeyStatus, type ApiKeyRecord } from '../auth/api-keys.js';
import type { RoleMemberRecord } from '../auth/rbac.js';
import type { GroupMemberRecord, GroupRoleRecord, UserGroupRecord } from '../auth/user-groups.js';
import { MASKED_CREDENTIAL, type CredentialRecord, type UserRecord } from '../auth/users.js';
import { wholeSecondsIso } from '../util/time.js';

type Schemas = components['schemas'];

export function accountShape(a: AccountRecord): Schemas['Account'] {
  return {
    name: a.name,
    ...(a.email ? { email: a.email } : {}),
    state: a.state,
    type: a.type,
    created_at: a.created_at,
    last_updated: a.last_updated,
  };
}

export function userShape(u: UserRecord): Schemas['User'] {
  return {
    username: u.username,
    account_name: u.account_name,
    type: u.type,
    source: u.source,
    ...(u.idp_name || u.oidc_provider ? { idp_name: (u.idp_name || u.oidc_provider)! } : {}),
    state: u.state,
    created_at: u.created_at,
    last_updated: u.last_updated,
    ...(u.password_last_updated ? { password_last_updated: u.password_last_updated } : {}),
  };
}

export function credentialShape(c: Pick<CredentialRecord, 'type' | 'created_at'>): Schemas['AccessCredential'] {
  return { type: c.type, value: MASKED_CREDENTIAL, created_at: c.created_at };
}

export function apiKeyShape(k: ApiKeyRecord, value?: string): Schemas['UserApiKey'] {
  return {
    name: k.name,
    ...(k.description !== null ? { description: k.description } : {}),
    expires_at: wholeSecondsIso(k.expires_at),
    created_at: wholeSecondsIso(k.created_at),
    updated_at: wholeSecondsIso(k.updated_at),
    status: apiKeyStatus(k),
    ...(value ? { value } : {}),
  };
}

export function roleMemberShape(m: RoleMemberRecord): Schemas['RbacManagerRoleMember'] {
  // Exactly one of domain_name and for_account (the established API's oneOf): the current name, never the deprecated alias.
  return { username: m.username, domain_name: m.account_name, created_at: m.created_at };
}

/** A group's roles, one entry per account (records come ordered by account). */
export function userGroupRolesShape(roles: readonly GroupRoleRecord[]): Schemas['UserGroupRoles'] {
  const byAccount = new Map<string, Schemas['UserGroupRole']>();
  for (const r of roles) {
    let entry = byAccount.get(r.account_name);
    if (!entry) byAccount.set(r.account_name, (entry = { for_account: r.account_name, domain_name: r.account_name, roles: [] }));
    entry.roles.push({ role: r.role_name, created_at: r.created_at, membership_id: r.membership_id });
  }
  return { items: [...byAccount.values()] };
}

export function userGroupUsersShape(members: readonly GroupMemberRecord[]): Schemas['UserGroupUsers'] {
  return { items: members.map((m) => ({ username: m.username, added_on: m.created_at, account_name: m.account_name })) };
}

export function userGroupShape(g: UserGroupRecord, roles: readonly GroupRoleRecord[]): Schemas['UserGroup'] {
  return {
    name: g.name,
    group_uuid: g.group_uuid,
    ...(g.description !== null ? { description: g.description } : {}),
    created_at: g.created_at,
    last_updated: g.last_updated,
    account_roles: userGroupRolesShape(roles),
  };
}
