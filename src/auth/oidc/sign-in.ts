/**
 * OpenID Connect sign-in, shared by the browser's authorization-code login and the CLI's device grant: the
 * refusal error, the identity read from a verified ID token, and the just-in-time user plus Vigil bearer token.
 *
 * Every refusal is an OidcRefusedError (401) whose message says why; it is thrown before anything is written, or
 * inside the one transaction that writes, so nothing of a refused sign-in remains.
 */
import * as client from 'openid-client';
import type { JWTPayload } from 'jose';
import type { Db } from '../../db/index.js';
import { UnauthorizedError } from '../../errors.js';
import type { SecretBox } from '../../util/secret-box.js';
import { provisionSsoUser, SSO_USERNAME, type SsoIdentity } from '../sso/provision.js';
import type { IssuedTokens, TokenService } from '../tokens.js';
import { clientSettings, getProvider, type OidcProviderRecord } from './providers.js';
import { failureReason, type ClientSettings, type OidcRelyingParty } from './relying-party.js';

export class OidcRefusedError extends UnauthorizedError {
  constructor(
    readonly providerName: string,
    readonly reason: string,
  ) {
    super(`OpenID Connect sign-in through '${providerName}' refused: ${reason}`, { provider: providerName, reason });
  }
}

/** What sign-in needs: the database, the relying party, the secret box (client secrets) and the token service. */
export interface OidcContext {
  db: Db;
  rp: OidcRelyingParty;
  box: SecretBox;
  tokens: TokenService;
}

export interface OidcSignIn {
  username: string;
  accountName: string;
  /** The user's token generation, to issue a token later (a login of the web interface ends with a code). */
  generation: number;
  created: boolean;
  tokens: IssuedTokens;
}

/** A provider with its client settings, for a sign-in; a disabled provider refuses. */
export interface ActiveProvider {
  record: OidcProviderRecord;
  settings: ClientSettings;
  config: client.Configuration;
}

const MAX_GROUPS = 256;
const MAX_CLAIM_LENGTH = 256;

export async function activeProvider(ctx: OidcContext, name: string): Promise<ActiveProvider> {
  const record = await getProvider(ctx.db, name);
  if (!record.enabled) throw new OidcRefusedError(name, 'the provider is disabled');
  const settings = clientSettings(record, ctx.box);
  return { record, settings, config: ctx.rp.configuration(settings) };
}

/** A claim by name; a dotted name reaches into objects (`realm_access.roles`) when no claim has the whole name. */
function claim(claims: JWTPayload, name: string | null): unknown {
  if (!name) return undefined;
  if (name in claims) return claims[name];
  return name.split('.').reduce<unknown>((value, part) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined), claims);
}

/** One string value of a claim; the first when it is a list. */
function stringClaim(claims: JWTPayload, name: string | null): string | undefined {
  const value = claim(claims, name);
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() ? first.trim().slice(0, MAX_CLAIM_LENGTH) : undefined;
}

function groupsClaim(claims: JWTPayload, name: string | null): string[] | undefined {
  const value = claim(claims, name);
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return [...new Set(list.filter((g): g is string => typeof g === 'string' && g.length > 0 && g.length <= MAX_CLAIM_LENGTH))].slice(0, MAX_GROUPS);
}

/** The identity an ID token names; its groups drive the memberships of the provider's mapped user groups. */
export function identityOf(record: OidcProviderRecord, claims: JWTPayload): SsoIdentity {
  const username = stringClaim(claims, record.username_claim);
  if (!username) throw new OidcRefusedError(record.name, `the ID token has no '${record.username_claim}' claim naming the user`);
  if (!SSO_USERNAME.test(username)) throw new OidcRefusedError(record.name, `'${username}' is not a valid Vigil username`);
  return {
    username,
    account: stringClaim(claims, record.account_claim),
    role: stringClaim(claims, record.role_claim),
    groups: groupsClaim(claims, record.groups_claim),
  };
}

/**
 * Verifies the ID token a token endpoint answered (signature against the provider's JWKS, issuer, audience,
 * expiry and age) and, when `expectedNonce` is given, its nonce.
 */
export async function verifiedClaims(ctx: OidcContext, provider: ActiveProvider, idToken: string | undefined, expectedNonce: string | null): Promise<JWTPayload> {
  const refuse = (reason: string) => new OidcRefusedError(provider.record.name, reason);
  if (!idToken) throw refuse('the provider answered no ID token');
  let claims: JWTPayload;
  try {
    claims = await ctx.rp.verifyIdToken(provider.settings, idToken);
  } catch (err) {
    throw refuse(`the ID token is not valid: ${failureReason(err)}`);
  }
  if (expectedNonce !== null && claims.nonce !== expectedNonce) throw refuse('the ID token does not carry the nonce of this login');
  return claims;
}

/** Provisions the user the verified claims name and issues its Vigil bearer token. */
export async function signInWithClaims(ctx: OidcContext, provider: ActiveProvider, claims: JWTPayload): Promise<OidcSignIn> {
  const { record } = provider;
  const who = identityOf(record, claims);
  const result = await ctx.db.transaction((trx) =>
    provisionSsoUser(trx, { ...record, source: 'oidc' }, who, (reason) => new OidcRefusedError(record.name, reason)),
  );
  return { username: who.username, accountName: result.accountName, generation: result.generation, created: result.created, tokens: await ctx.tokens.issue(who.username, result.accountName, result.generation) };
}
