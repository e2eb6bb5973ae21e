/**
 * SAML sign-in: the AuthnRequest redirect of an SP-initiated login, and the assertion consumer that turns a
 * validated assertion into a Vigil user and bearer token.
 *
 * node-saml checks the signature (response or assertion, against the configured certificates only; a document
 * whose signature covers another element than the one read, or with two assertions, is refused), the audience,
 * NotBefore/NotOnOrAfter with bounded skew and InResponseTo. Vigil adds what it leaves out: recipient and
 * destination, the issuer named in the metadata, a bounded validity, and one-time use of each assertion id.
 * Every refusal is an UnauthorizedError whose message says why, thrown before anything is written, or inside the
 * one transaction that writes, so nothing of a refused sign-in remains.
 */
import { SAML, ValidateInResponseTo, type Profile } from '@node-saml/node-saml';
import { parseDomFromString, xpath } from '@node-saml/node-saml/lib/xml.js';
import type { Db } from '../../db/index.js';
import { ConflictError, UnauthorizedError } from '../../errors.js';
import { nowIso } from '../../util/time.js';
import { provisionSsoUser, SSO_USERNAME, type SsoIdentity } from '../sso/provision.js';
import type { IssuedTokens, TokenService } from '../tokens.js';
import { DEFAULT_GROUPS_ATTRIBUTE, getIdp, resolveIdp, type ResolvedIdp, type SamlIdpRecord } from './idps.js';
import { REQUEST_LIFETIME_MS, SamlRequestStore } from './requests.js';

/** How far the identity provider's clock may be from ours. */
export const CLOCK_SKEW_MS = 60_000;

export class SamlRefusedError extends UnauthorizedError {
  constructor(
    readonly idpName: string,
    readonly reason: string,
  ) {
    super(`SAML sign-in through '${idpName}' refused: ${reason}`, { idp_name: idpName, reason });
  }
}

export interface SamlSignIn {
  username: string;
  accountName: string;
  /** The user's token generation, to issue a token later (a login of the web interface ends with a code). */
  generation: number;
  created: boolean;
  tokens: IssuedTokens;
}

/** The service provider's own key pair (VIGIL_SAML_SP_KEY_FILE, VIGIL_SAML_SP_CERT_FILE), when configured. */
export interface SpKeys {
  privateKeyPem: string;
  certificatePem: string;
}

function serviceProvider(db: Db, idp: ResolvedIdp, spKeys: SpKeys | null = null): SAML {
  const { record } = idp;
  return new SAML({
    // With a key, node-saml signs the AuthnRequest of the HTTP-Redirect binding (SigAlg and Signature parameters).
    ...(spKeys ? { privateKey: spKeys.privateKeyPem, publicCert: spKeys.certificatePem, signatureAlgorithm: 'sha256' as const } : {}),
    issuer: record.sp_entity_id,
    audience: record.sp_entity_id,
    callbackUrl: record.acs_url,
    entryPoint: idp.ssoUrl ?? undefined,
    idpCert: idp.certificates,
    wantAuthnResponseSigned: record.require_signed_response,
    wantAssertionsSigned: record.require_signed_assertions,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS,
    cacheProvider: new SamlRequestStore(db, record.name),
    // Vigil does not ask the identity provider how to authenticate the user; that is its policy.
    disableRequestedAuthnContext: true,
  });
}

async function enabledIdp(db: Db, name: string): Promise<ResolvedIdp> {
  const record = await getIdp(db, name);
  if (!record.enabled) throw new ConflictError(`identity provider '${name}' is disabled`, { name });
  return resolveIdp(record);
}

/** The identity provider URL, with an AuthnRequest (signed when `spKeys` are given), that starts an SP-initiated login. */
export async function loginRedirectUrl(db: Db, idpName: string, relayState: string | undefined, spKeys: SpKeys | null): Promise<string> {
  const idp = await enabledIdp(db, idpName);
  if (!idp.ssoUrl)
    throw new ConflictError(`identity provider '${idpName}' has no single sign-on URL: configure idp_sso_url or metadata with an HTTP-Redirect SingleSignOnService`, { name: idpName });
  return serviceProvider(db, idp, spKeys).getAuthorizeUrlAsync(relayState ?? '', undefined, {});
}

interface AssertionFacts {
  id: string;
  issuer: string | null;
  recipients: string[];
  notOnOrAfter: number[];
}

/** Reads, from the assertion node-saml verified (never from the unsigned rest), what Vigil checks itself. */
async function assertionFacts(xml: string): Promise<AssertionFacts> {
  const doc = await parseDomFromString(xml);
  const root = "/*[local-name()='Assertion']";
  const attr = (path: string) => xpath.selectAttributes(doc, path).map((a) => a.value);
  const confirmation = `${root}/*[local-name()='Subject']/*[local-name()='SubjectConfirmation']/*[local-name()='SubjectConfirmationData']`;
  return {
    id: attr(`${root}/@ID`)[0] ?? '',
    issuer: xpath.selectElements(doc, `${root}/*[local-name()='Issuer']`)[0]?.textContent?.trim() ?? null,
    recipients: attr(`${confirmation}/@Recipient`),
    notOnOrAfter: [...attr(`${root}/*[local-name()='Conditions']/@NotOnOrAfter`), ...attr(`${confirmation}/@NotOnOrAfter`)].map((t) => Date.parse(t)),
  };
}

async function responseDestination(xml: string): Promise<string | null> {
  const doc = await parseDomFromString(xml);
  return xpath.selectAttributes(doc, "/*[local-name()='Response']/@Destination")[0]?.value ?? null;
}

/** The non-empty string values of an assertion attribute, trimmed. */
function attributeValues(profile: Profile, name: string): string[] {
  const value = (profile.attributes as Record<string, unknown> | undefined)?.[name] ?? profile[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}

/** One string value of an assertion attribute; the first when it has several. */
function attribute(profile: Profile, name: string | null): string | undefined {
  return name ? attributeValues(profile, name)[0] : undefined;
}

async function validate(db: Db, idp: ResolvedIdp, samlResponse: string): Promise<{ profile: Profile; facts: AssertionFacts }> {
  const { record } = idp;
  const refuse = (reason: string) => new SamlRefusedError(record.name, reason);
  let profile: Profile | null;
  try {
    ({ profile } = await serviceProvider(db, idp).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    throw refuse((err as Error).message || 'the response is not valid');
  }
  if (!profile?.getAssertionXml) throw refuse('the response carries no assertion');
  const facts = await assertionFacts(profile.getAssertionXml());
  if (!facts.id) throw refuse('the assertion has no ID');
  if (idp.idpEntityId && facts.issuer !== idp.idpEntityId)
    throw refuse(`the assertion is issued by '${facts.issuer ?? ''}', not by '${idp.idpEntityId}'`);
  if (facts.recipients.length === 0 || facts.recipients.some((r) => r !== record.acs_url))
    throw refuse(`the assertion's recipient is not this service's ACS URL '${record.acs_url}'`);
  const destination = profile.getSamlResponseXml ? await responseDestination(profile.getSamlResponseXml()) : null;
  if (destination !== null && destination !== record.acs_url)
    throw refuse(`the response's destination '${destination}' is not this service's ACS URL '${record.acs_url}'`);
  // Replay protection keeps each id until the assertion expires, so an assertion valid forever is not accepted.
  if (facts.notOnOrAfter.length === 0 || facts.notOnOrAfter.some(Number.isNaN)) throw refuse('the assertion has no NotOnOrAfter');
  return { profile, facts };
}

function identityOf(idp: SamlIdpRecord, profile: Profile): SsoIdentity {
  const username = idp.idp_username_attribute ? attribute(profile, idp.idp_username_attribute) : profile.nameID;
  if (!username) throw new SamlRefusedError(idp.name, `the assertion names no user (${idp.idp_username_attribute ? `attribute '${idp.idp_username_attribute}'` : 'NameID'})`);
  if (!SSO_USERNAME.test(username)) throw new SamlRefusedError(idp.name, `'${username.slice(0, 128)}' is not a valid Vigil username`);
  return {
    username,
    account: attribute(profile, idp.idp_account_attribute) ?? undefined,
    role: attribute(profile, idp.idp_role_attribute) ?? undefined,
    // An assertion without the attribute names no group: the user leaves the groups earlier sign-ins put it in.
    groups: attributeValues(profile, idp.idp_groups_attribute ?? DEFAULT_GROUPS_ATTRIBUTE),
  };
}

/** Validates a posted SAML response and signs its user in. */
export async function signIn(db: Db, tokens: TokenService, idpName: string, samlResponse: string): Promise<SamlSignIn> {
  const record = await getIdp(db, idpName);
  if (!record.enabled) throw new SamlRefusedError(idpName, 'the identity provider is disabled');
  const idp = await resolveIdp(record);
  const { profile, facts } = await validate(db, idp, samlResponse);
  const who = identityOf(record, profile);
  const expiresAt = new Date(Math.max(...facts.notOnOrAfter) + CLOCK_SKEW_MS).toISOString();
  const result = await db.transaction(async (trx) => {
    await trx('saml_used_assertions').where('expires_at', '<', nowIso()).delete();
    const used = await trx('saml_used_assertions')
      .insert({ idp_name: idpName, assertion_id: facts.id, expires_at: expiresAt })
      .onConflict(['idp_name', 'assertion_id'])
      .ignore()
      .returning('assertion_id');
    if (used.length === 0) throw new SamlRefusedError(idpName, `assertion '${facts.id}' has already been used`);
    return provisionSsoUser(trx, { ...record, source: 'saml' }, who, (reason) => new SamlRefusedError(idpName, reason));
  });
  return { username: who.username, accountName: result.accountName, generation: result.generation, created: result.created, tokens: await tokens.issue(who.username, result.accountName, result.generation) };
}
