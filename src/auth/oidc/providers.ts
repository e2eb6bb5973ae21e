/**
 * OpenID Connect provider configurations (a Vigil extension beside upstream's SAML identity providers). The
 * provider's discovery document is fetched when the configuration is stored or replaced, and kept, so sign-ins do
 * not depend on it; its keys (JWKS) are fetched at sign-in, so key rotation needs no reconfiguration. The client
 * secret is sealed at rest (SecretBox) and never answered.
 */
import type { ServerMetadata } from 'openid-client';
import { deleteProviderMappings } from '../sso/group-mappings.js';
import type { Db } from '../../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.js';
import type { SecretBox } from '../../util/secret-box.js';
import { nowIso } from '../../util/time.js';
import { checkProvisioningDefaults } from '../sso/provision.js';
import { failureReason, isLoopbackHttp, type ClientSettings, type OidcRelyingParty } from './relying-party.js';

export interface OidcProviderInput {
  name: string;
  enabled?: boolean;
  issuer: string;
  client_id: string;
  /** Write-only; on replace, an absent secret keeps the stored one. */
  client_secret?: string;
  redirect_uri: string;
  scopes?: string[];
  username_claim?: string;
  account_claim?: string;
  role_claim?: string;
  groups_claim?: string;
  default_account?: string;
  default_role?: string;
  require_existing_users?: boolean;
  allow_api_keys?: boolean;
}

/** A stored configuration as rows hold it (booleans normalised; the secret still sealed). */
export interface OidcProviderRecord {
  name: string;
  enabled: boolean;
  issuer: string;
  discovery: string;
  client_id: string;
  client_secret_sealed: string | null;
  redirect_uri: string;
  scopes: string;
  username_claim: string;
  account_claim: string | null;
  role_claim: string | null;
  groups_claim: string | null;
  default_account: string | null;
  default_role: string | null;
  require_existing_users: boolean;
  allow_api_keys: boolean;
  created_at: string;
  last_updated: string;
}

export const DEFAULT_SCOPES = ['openid', 'profile', 'email'];
export const DEFAULT_USERNAME_CLAIM = 'preferred_username';
const BOOLEANS = ['enabled', 'require_existing_users', 'allow_api_keys'] as const;

function invalid(field: string, message: string): InvalidError {
  return new InvalidError(`${field}: ${message}`, { errors: [{ location: `body.${field}`, message }] });
}

function checkUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHttp(value)))
    throw invalid(field, 'must be an https URL (http only on localhost, 127.0.0.1 or [::1])');
  return url;
}

function fromRow(row: Record<string, unknown>): OidcProviderRecord {
  const record = { ...row } as unknown as OidcProviderRecord;
  for (const key of BOOLEANS) record[key] = !!row[key];
  return record;
}

/** The settings the relying party works with, the secret unsealed. */
export function clientSettings(record: OidcProviderRecord, box: SecretBox): ClientSettings {
  return {
    issuer: record.issuer,
    discovery: JSON.parse(record.discovery) as ServerMetadata,
    clientId: record.client_id,
    clientSecret: record.client_secret_sealed ? box.open(record.client_secret_sealed) : null,
  };
}

async function discover(rp: OidcRelyingParty, input: OidcProviderInput): Promise<ServerMetadata> {
  try {
    return await rp.discover(input.issuer, input.client_id);
  } catch (err) {
    throw invalid('issuer', `the provider's discovery document could not be read: ${failureReason(err)}`);
  }
}

async function prepare(db: Db, rp: OidcRelyingParty, box: SecretBox, input: OidcProviderInput, existing: OidcProviderRecord | undefined): Promise<OidcProviderRecord> {
  checkUrl(input.issuer, 'issuer');
  const redirect = checkUrl(input.redirect_uri, 'redirect_uri');
  // The code exchange names the redirect URI as the callback's URL without its query (openid-client).
  if (redirect.search || redirect.hash) throw invalid('redirect_uri', 'must have no query or fragment');
  const scopes = input.scopes ?? DEFAULT_SCOPES;
  if (!scopes.includes('openid')) throw invalid('scopes', "must include 'openid'");
  await checkProvisioningDefaults(db, input, invalid);
  // Users carry the name of their provider, SAML or OpenID Connect; one name names one provider.
  if (await db('saml_idps').where({ name: input.name }).first('name'))
    throw new ConflictError(`'${input.name}' is the name of a SAML identity provider`, { name: input.name });
  const discovery = await discover(rp, input);
  if (!discovery.authorization_endpoint || !discovery.token_endpoint || !discovery.jwks_uri)
    throw invalid('issuer', 'the discovery document lacks an authorization_endpoint, token_endpoint or jwks_uri');
  const now = nowIso();
  return {
    name: input.name,
    enabled: input.enabled ?? true,
    issuer: input.issuer,
    discovery: JSON.stringify(discovery),
    client_id: input.client_id,
    client_secret_sealed: input.client_secret !== undefined ? box.seal(input.client_secret) : (existing?.client_secret_sealed ?? null),
    redirect_uri: input.redirect_uri,
    scopes: [...new Set(scopes)].join(' '),
    username_claim: input.username_claim ?? DEFAULT_USERNAME_CLAIM,
    account_claim: input.account_claim ?? null,
    role_claim: input.role_claim ?? null,
    groups_claim: input.groups_claim ?? null,
    default_account: input.default_account ?? null,
    default_role: input.default_role ?? null,
    require_existing_users: input.require_existing_users ?? false,
    allow_api_keys: input.allow_api_keys ?? false,
    created_at: existing?.created_at ?? now,
    last_updated: now,
  };
}

export async function listProviderNames(db: Db): Promise<string[]> {
  return (await db('oidc_providers').orderBy('name').select('name')).map((r) => r.name as string);
}

export async function findProvider(db: Db, name: string): Promise<OidcProviderRecord | undefined> {
  const row = await db('oidc_providers').where({ name }).first();
  return row ? fromRow(row) : undefined;
}

export async function getProvider(db: Db, name: string): Promise<OidcProviderRecord> {
  const provider = await findProvider(db, name);
  if (!provider) throw new NotFoundError(`OpenID Connect provider '${name}' does not exist`, { name });
  return provider;
}

export async function createProvider(db: Db, rp: OidcRelyingParty, box: SecretBox, input: OidcProviderInput): Promise<OidcProviderRecord> {
  if (await findProvider(db, input.name)) throw new ConflictError(`OpenID Connect provider '${input.name}' already exists`, { name: input.name });
  const record = await prepare(db, rp, box, input, undefined);
  const inserted = await db('oidc_providers').insert(record).onConflict('name').ignore().returning('name');
  if (inserted.length === 0) throw new ConflictError(`OpenID Connect provider '${input.name}' already exists`, { name: input.name });
  return record;
}

export async function updateProvider(db: Db, rp: OidcRelyingParty, box: SecretBox, name: string, input: OidcProviderInput): Promise<OidcProviderRecord> {
  if (input.name !== name) throw invalid('name', `must be '${name}', the name in the path (a provider cannot be renamed)`);
  const existing = await getProvider(db, name);
  const record = await prepare(db, rp, box, input, existing);
  await db('oidc_providers').where({ name }).update(record);
  return record;
}

/**
 * Deletes the configuration; its users, pending logins and device grants go with it (foreign keys), its group
 * mappings (keyed by protocol and name, without a foreign key) here.
 */
export async function deleteProvider(db: Db, name: string): Promise<void> {
  await db.transaction(async (trx) => {
    const count = await trx('oidc_providers').where({ name }).delete();
    if (count === 0) throw new NotFoundError(`OpenID Connect provider '${name}' does not exist`, { name });
    await deleteProviderMappings(trx, { source: 'oidc', name });
  });
}
