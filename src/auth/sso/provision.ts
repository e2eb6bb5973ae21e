/**
 * Just-in-time provisioning shared by every single sign-on protocol (SAML, OpenID Connect): turns an identity the
 * protocol has already verified into a Vigil user with the account and role the identity provider names.
 *
 * The identity provider is the authority for its users: the account and role it names replace the user's
 * memberships at every sign-in, and the groups it names decide the user's memberships in its mapped user groups. Every refusal is thrown inside the caller's transaction, so nothing of a refused
 * sign-in remains.
 */
import type { Db } from '../../db/index.js';
import { nowIso } from '../../util/time.js';
import { effectiveGrants } from '../effective-roles.js';
import { PROVIDER_COLUMN, syncSsoGroups } from './group-mappings.js';

/** Vigil usernames an identity provider may name. */
export const SSO_USERNAME = /^[A-Za-z0-9][A-Za-z0-9@._+-]{0,127}$/;


/** What a protocol read from a verified assertion or ID token. */
export interface SsoIdentity {
  username: string;
  account: string | undefined;
  role: string | undefined;
  /**
   * The groups the identity provider says the user belongs to; memberships in the provider's mapped user groups
   * follow them. Undefined when the protocol carries no groups: memberships are then left as they are.
   */
  groups?: readonly string[];
}

/** The provisioning policy of one configured identity provider. */
export interface SsoProvider {
  /** The protocol; stored as the user's `source`. */
  source: 'saml' | 'oidc';
  name: string;
  default_account: string | null;
  default_role: string | null;
  require_existing_users: boolean;
}

export interface ProvisionedUser {
  accountName: string;
  created: boolean;
  /** The user's token generation after the sign-in, for the bearer token. */
  generation: number;
}

const roleKeys = (grants: readonly { account_name: string; role_name: string }[]) => new Set(grants.map((g) => `${g.account_name}\u0000${g.role_name}`));

/** Checks, when a provider is configured, that the account and role it gives new users exist. */
export async function checkProvisioningDefaults(
  db: Db,
  input: { default_account?: string; default_role?: string },
  invalid: (field: string, message: string) => Error,
): Promise<void> {
  if (input.default_account && !(await db('accounts').where({ name: input.default_account }).first('name')))
    throw invalid('default_account', `account '${input.default_account}' does not exist`);
  if (input.default_role && !(await db('roles').where({ name: input.default_role }).first('name')))
    throw invalid('default_role', `role '${input.default_role}' does not exist`);
}

/**
 * Creates the user on first sign-in, or brings a known user's account and role in line with the identity.
 * `refuse` builds the protocol's own error for a reason.
 */
export async function provisionSsoUser(trx: Db, provider: SsoProvider, who: SsoIdentity, refuse: (reason: string) => Error): Promise<ProvisionedUser> {
  const existing = await trx('users').where({ username: who.username }).first();
  if (existing) {
    if (existing.type === 'native' || existing.source !== provider.source || existing[PROVIDER_COLUMN[provider.source]] !== provider.name)
      throw refuse(`user '${who.username}' exists and does not sign in through identity provider '${provider.name}'`);
    if (existing.state !== 'enabled') throw refuse(`user '${who.username}' is disabled`);
  } else if (provider.require_existing_users) {
    throw refuse(`user '${who.username}' does not exist, and the identity provider admits only existing users`);
  }
  const accountName = who.account ?? existing?.account_name ?? provider.default_account;
  if (!accountName) throw refuse('the identity provider names no account and has no default_account');
  const account = await trx('accounts').where({ name: accountName }).first('state');
  if (!account) throw refuse(`account '${accountName}' does not exist`);
  if (account.state !== 'enabled') throw refuse(`account '${accountName}' is ${account.state}`);
  const role = who.role ?? provider.default_role ?? undefined;
  if (role !== undefined && !(await trx('roles').where({ name: role }).first('name'))) throw refuse(`role '${role}' does not exist`);
  const moved = existing && existing.account_name !== accountName;
  if (role === undefined && (!existing || moved))
    throw refuse(`the identity provider names no role for account '${accountName}' and has no default_role`);

  const now = nowIso();
  const rolesBefore = existing ? roleKeys(await effectiveGrants(trx, { username: who.username })) : new Set<string>();
  if (!existing) {
    // Two first sign-ins of one user at once: the second finds the name taken and is refused (nothing of it stays,
    // and its assertion or code is not spent, so signing in again works).
    const inserted = await trx('users')
      .insert({
        username: who.username,
        account_name: accountName,
        // Upstream's user type knows only native and saml; every single sign-on user is the latter, `source` says which protocol.
        type: 'saml',
        source: provider.source,
        [PROVIDER_COLUMN[provider.source]]: provider.name,
        state: 'enabled',
        created_at: now,
        last_updated: now,
        password_last_updated: null,
      })
      .onConflict('username')
      .ignore()
      .returning('username');
    if (inserted.length === 0) throw refuse(`user '${who.username}' was created by a concurrent sign-in; sign in again`);
  } else if (moved) {
    await trx('users').where({ username: who.username }).update({ account_name: accountName, last_updated: now });
    await trx('api_keys').where({ username: who.username }).update({ account_name: accountName });
  }
  let changed = !!moved;
  if (role !== undefined) {
    const held = await trx('role_members').where({ username: who.username }).select('role_name', 'account_name');
    const same = held.length === 1 && held[0].role_name === role && held[0].account_name === accountName;
    if (!same) {
      await trx('role_members').where({ username: who.username }).delete();
      await trx('role_members')
        .insert({ role_name: role, username: who.username, account_name: accountName, created_at: now })
        .onConflict(['role_name', 'username', 'account_name'])
        .ignore();
      changed ||= held.length > 0;
    }
  }
  if (who.groups !== undefined) await syncSsoGroups(trx, provider, who.username, who.groups);
  if (!changed && existing) {
    const rolesAfter = roleKeys(await effectiveGrants(trx, { username: who.username }));
    changed = [...rolesBefore].some((k) => !rolesAfter.has(k));
  }
  // Sessions opened under the earlier account or roles end, as when an administrator changes them.
  if (changed) await trx('users').where({ username: who.username }).increment('token_generation', 1);
  const { token_generation } = await trx('users').where({ username: who.username }).first('token_generation');
  return { accountName, created: !existing, generation: Number(token_generation) };
}
