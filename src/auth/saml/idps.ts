/**
 * SAML identity provider configurations (upstream's RbacManagerSamlConfiguration). A configuration must give the
 * identity provider's signing certificate, through its metadata or directly: assertions are only ever checked
 * against it.
 */
import type { Db } from '../../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.js';
import { nowIso } from '../../util/time.js';
import { deleteProviderMappings } from '../sso/group-mappings.js';
import { checkProvisioningDefaults } from '../sso/provision.js';
import { normaliseCertificate, parseIdpMetadata, type IdpMetadata, type MetadataFetcher } from './metadata.js';

export interface SamlIdpInput {
  name: string;
  enabled?: boolean;
  sp_entity_id: string;
  acs_url: string;
  idp_metadata_url?: string;
  idp_metadata_xml?: string;
  idp_certificate?: string;
  idp_sso_url?: string;
  default_account?: string;
  default_role?: string;
  idp_username_attribute?: string;
  idp_account_attribute?: string;
  idp_role_attribute?: string;
  idp_groups_attribute?: string;
  require_signed_assertions?: boolean;
  require_signed_response?: boolean;
  require_existing_users?: boolean;
  allow_api_keys?: boolean;
}

export interface SamlIdpRecord {
  name: string;
  enabled: boolean;
  sp_entity_id: string;
  acs_url: string;
  idp_metadata_url: string | null;
  idp_metadata_xml: string | null;
  idp_certificate: string | null;
  idp_sso_url: string | null;
  default_account: string | null;
  default_role: string | null;
  idp_username_attribute: string | null;
  idp_account_attribute: string | null;
  idp_role_attribute: string | null;
  idp_groups_attribute: string | null;
  require_signed_assertions: boolean;
  require_signed_response: boolean;
  require_existing_users: boolean;
  allow_api_keys: boolean;
  created_at: string;
  last_updated: string;
}

/** A configuration with what its metadata and certificate give: the keys and URLs sign-in uses. */
export interface ResolvedIdp {
  record: SamlIdpRecord;
  certificates: string[];
  idpEntityId: string | null;
  ssoUrl: string | null;
}

/** The assertion attribute naming the user's groups when the configuration names none (upstream's default). */
export const DEFAULT_GROUPS_ATTRIBUTE = 'memberOf';

const BOOLEANS = ['enabled', 'require_signed_assertions', 'require_signed_response', 'require_existing_users', 'allow_api_keys'] as const;

function invalid(field: string, message: string): InvalidError {
  return new InvalidError(`${field}: ${message}`, { errors: [{ location: `body.${field}`, message }] });
}

function httpUrl(value: string, field: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(field, 'must be an http or https URL');
}

/** SQLite answers booleans as 0/1. */
function fromRow(row: Record<string, unknown>): SamlIdpRecord {
  const record = { ...row } as unknown as SamlIdpRecord;
  for (const key of BOOLEANS) record[key] = !!row[key];
  return record;
}

/** Checks the configuration and works out its certificates and URLs. */
export async function resolveIdp(record: SamlIdpRecord): Promise<ResolvedIdp> {
  let metadata: IdpMetadata | null = null;
  if (record.idp_metadata_xml) metadata = await parseIdpMetadata(record.idp_metadata_xml);
  const certificates = [...(metadata?.certificates ?? [])];
  if (record.idp_certificate) certificates.push(normaliseCertificate(record.idp_certificate, 'idp_certificate'));
  if (certificates.length === 0) throw invalid('idp_metadata_xml', 'idp_metadata_xml or idp_certificate is required (the identity provider signing certificate)');
  const ssoUrl = record.idp_sso_url ?? metadata?.ssoRedirectUrl ?? null;
  if (ssoUrl) httpUrl(ssoUrl, record.idp_sso_url ? 'idp_sso_url' : 'idp_metadata_xml');
  return { record, certificates, idpEntityId: metadata?.entityId ?? null, ssoUrl };
}

function toRecord(input: SamlIdpInput, created_at: string, last_updated: string): SamlIdpRecord {
  return {
    name: input.name,
    enabled: input.enabled ?? true,
    sp_entity_id: input.sp_entity_id,
    acs_url: input.acs_url,
    idp_metadata_url: input.idp_metadata_url ?? null,
    idp_metadata_xml: input.idp_metadata_xml ?? null,
    idp_certificate: input.idp_certificate ?? null,
    idp_sso_url: input.idp_sso_url ?? null,
    default_account: input.default_account ?? null,
    default_role: input.default_role ?? null,
    idp_username_attribute: input.idp_username_attribute ?? null,
    idp_account_attribute: input.idp_account_attribute ?? null,
    idp_role_attribute: input.idp_role_attribute ?? null,
    idp_groups_attribute: input.idp_groups_attribute ?? null,
    require_signed_assertions: input.require_signed_assertions ?? false,
    require_signed_response: input.require_signed_response ?? false,
    require_existing_users: input.require_existing_users ?? false,
    allow_api_keys: input.allow_api_keys ?? false,
    created_at,
    last_updated,
  };
}

/**
 * Checks a configuration; metadata named by URL is fetched now and kept, so sign-ins never wait on the identity
 * provider (replacing the configuration fetches it again).
 */
async function prepare(db: Db, input: SamlIdpInput, createdAt: string, fetchMetadata: MetadataFetcher): Promise<SamlIdpRecord> {
  httpUrl(input.acs_url, 'acs_url');
  if (input.idp_metadata_url !== undefined) {
    if (input.idp_metadata_xml !== undefined) throw invalid('idp_metadata_url', 'give idp_metadata_url or idp_metadata_xml, not both');
    httpUrl(input.idp_metadata_url, 'idp_metadata_url');
    input = { ...input, idp_metadata_xml: await fetchMetadata(input.idp_metadata_url) };
  }
  const record = toRecord(input, createdAt, nowIso());
  await resolveIdp(record);
  await checkProvisioningDefaults(db, input, invalid);
  return record;
}

export async function listIdpNames(db: Db): Promise<string[]> {
  return (await db('saml_idps').orderBy('name').select('name')).map((r) => r.name as string);
}

export async function findIdp(db: Db, name: string): Promise<SamlIdpRecord | undefined> {
  const row = await db('saml_idps').where({ name }).first();
  return row ? fromRow(row) : undefined;
}

export async function getIdp(db: Db, name: string): Promise<SamlIdpRecord> {
  const idp = await findIdp(db, name);
  if (!idp) throw new NotFoundError(`identity provider '${name}' does not exist`, { name });
  return idp;
}

export async function createIdp(db: Db, input: SamlIdpInput, fetchMetadata: MetadataFetcher): Promise<SamlIdpRecord> {
  const now = nowIso();
  // Users carry the name of their provider, SAML or OpenID Connect; one name names one provider.
  if (await db('oidc_providers').where({ name: input.name }).first('name'))
    throw new ConflictError(`'${input.name}' is the name of an OpenID Connect provider`, { name: input.name });
  const record = await prepare(db, input, now, fetchMetadata);
  const inserted = await db('saml_idps').insert(record).onConflict('name').ignore().returning('name');
  if (inserted.length === 0) throw new ConflictError(`identity provider '${input.name}' already exists`, { name: input.name });
  return record;
}

export async function updateIdp(db: Db, name: string, input: SamlIdpInput, fetchMetadata: MetadataFetcher): Promise<SamlIdpRecord> {
  if (input.name !== name) throw invalid('name', `must be '${name}', the name in the path (an identity provider cannot be renamed)`);
  const existing = await getIdp(db, name);
  const record = await prepare(db, input, existing.created_at, fetchMetadata);
  await db('saml_idps').where({ name }).update(record);
  return record;
}

/**
 * Deletes the configuration; its users, pending requests and used assertion ids go with it (foreign keys), its
 * group mappings (keyed by protocol and name, without a foreign key) here.
 */
export async function deleteIdp(db: Db, name: string): Promise<void> {
  await db.transaction(async (trx) => {
    const count = await trx('saml_idps').where({ name }).delete();
    if (count === 0) throw new NotFoundError(`identity provider '${name}' does not exist`, { name });
    await deleteProviderMappings(trx, { source: 'saml', name });
  });
}
