/** How an OpenID Connect ID token's claims name a Vigil user: the configured claims, nested ones, lists and bounds. */
import { describe, expect, it } from 'vitest';
import type { OidcProviderRecord } from '../../src/auth/oidc/providers.js';
import { identityOf, OidcRefusedError } from '../../src/auth/oidc/sign-in.js';

const record = (claims: Partial<OidcProviderRecord>) =>
  ({ name: 'corp', username_claim: 'preferred_username', account_claim: 'acct', role_claim: 'role', groups_claim: 'groups', ...claims }) as OidcProviderRecord;

describe('identityOf', () => {
  it('reads the configured claims, the first of a list for the role', () => {
    expect(identityOf(record({}), { preferred_username: 'alice', acct: 'team', role: ['read-write', 'read-only'], groups: ['dev', 'ops', 'dev'] })).toEqual({
      username: 'alice',
      account: 'team',
      role: 'read-write',
      groups: ['dev', 'ops'],
    });
  });

  it('reaches into nested claims with a dotted name, and takes a single group as a list of one', () => {
    const who = identityOf(record({ role_claim: 'realm_access.roles', groups_claim: 'team' }), { preferred_username: 'bob', realm_access: { roles: ['read-only'] }, team: 'dev' });
    expect(who).toMatchObject({ username: 'bob', role: 'read-only', groups: ['dev'] });
  });

  it('leaves out what the token does not say, and bounds the groups', () => {
    const many = Array.from({ length: 300 }, (_, i) => `g${i}`);
    const who = identityOf(record({}), { preferred_username: 'carol', groups: [...many, 42, '', 'x'.repeat(300)] });
    expect(who.account).toBeUndefined();
    expect(who.role).toBeUndefined();
    expect(who.groups).toHaveLength(256);
    expect(identityOf(record({ groups_claim: null }), { preferred_username: 'dan' }).groups).toBeUndefined();
  });

  it('refuses a token without a usable username', () => {
    expect(() => identityOf(record({}), { sub: 'x' })).toThrow(OidcRefusedError);
    expect(() => identityOf(record({}), { preferred_username: 'not a name!' })).toThrow(/not a valid Vigil username/);
    expect(() => identityOf(record({ username_claim: 'email' }), { email: 'eve@example.com' })).not.toThrow();
  });
});
