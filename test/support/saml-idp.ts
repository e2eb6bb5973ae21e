/**
 * A SAML identity provider for tests, built on samlify: it signs login responses with its own test key (the
 * response, the assertion, or both) for a Vigil service provider. Responses are samlify's own template filled
 * with samlify's tag replacement; tests that need a bad response edit one value of a good one (`editResponse`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { postForm } from './auth-fixtures.js';
import type { RawResponse } from './http.js';

/**
 * samlify's type declarations pull in the DOM library, which changes the global fetch/Buffer types for the whole
 * project; the few parts used here are declared locally instead.
 */
interface SamlifyEntity {
  getMetadata(): string;
  parseLoginRequest(sp: SamlifyEntity, binding: 'redirect', request: { query: Record<string, string>; octetString: string }): Promise<{ extract: { request: { id: string } } }>;
  createLoginResponse(
    sp: SamlifyEntity,
    requestInfo: Record<string, unknown>,
    binding: 'post',
    user: Record<string, unknown>,
    replace: (template: string) => { id: string; context: string },
  ): Promise<{ id: string; context: string }>;
}
interface Samlify {
  setSchemaValidator(v: { validate(xml: string): Promise<string> }): void;
  IdentityProvider(options: Record<string, unknown>): SamlifyEntity;
  ServiceProvider(options: Record<string, unknown>): SamlifyEntity;
  SamlLib: {
    defaultLoginResponseTemplate: { context: string };
    replaceTagsByValue(xml: string, values: Record<string, string | undefined>): string;
    attributeStatementBuilder(attributes: Record<string, string>[]): string;
  };
  Constants: { namespace: { binding: { post: string; redirect: string } }; StatusCode: { Success: string } };
}
const samlify = createRequire(import.meta.url)('samlify') as Samlify;

// Vigil validates; the test IdP only produces, so samlify's own schema check of what it reads is not needed.
samlify.setSchemaValidator({ validate: async () => 'skipped' });

const { SamlLib, Constants } = samlify;
const POST = Constants.namespace.binding.post;
const REDIRECT = Constants.namespace.binding.redirect;

export interface KeyPair {
  privateKey: string;
  certificate: string;
}

/** A fresh RSA key and self-signed certificate (openssl). */
export function testKeyPair(cn = 'vigil-test-idp'): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-saml-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${cn}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { privateKey: readFileSync(join(dir, 'key.pem'), 'utf8'), certificate: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type Signing = 'response' | 'assertion' | 'both';

export interface LoginOptions {
  nameId: string;
  /** Assertion attributes; an array gives a multi-valued attribute (one AttributeValue per element). */
  attributes?: Record<string, string | string[]>;
  /** The AuthnRequest id this answers (SP-initiated login). */
  inResponseTo?: string;
  signing?: Signing;
  /** The audience (SP entity id) to address; default the configured SP's. */
  audience?: string;
  /** Validity window of the assertion, relative to now. */
  notBeforeMs?: number;
  notOnOrAfterMs?: number;
}

const ATTRIBUTE_NAME_FORMAT = 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';

export class TestIdp {
  readonly entityId: string;
  readonly ssoUrl: string;
  private readonly keys: KeyPair;

  constructor(options: { entityId?: string; ssoUrl?: string; keys?: KeyPair } = {}) {
    this.entityId = options.entityId ?? 'https://idp.test.invalid/metadata';
    this.ssoUrl = options.ssoUrl ?? 'https://idp.test.invalid/sso';
    this.keys = options.keys ?? testKeyPair();
  }

  get certificate(): string {
    return this.keys.certificate;
  }

  private idp(attributeNames: string[], wantAuthnRequestsSigned = false) {
    return samlify.IdentityProvider({
      wantAuthnRequestsSigned,
      entityID: this.entityId,
      privateKey: this.keys.privateKey,
      signingCert: this.keys.certificate,
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
      singleSignOnService: [{ Binding: REDIRECT, Location: this.ssoUrl }],
      singleLogoutService: [{ Binding: REDIRECT, Location: `${this.ssoUrl}/logout` }],
      loginResponseTemplate: {
        context: SamlLib.defaultLoginResponseTemplate.context,
        attributes: attributeNames.map((name) => ({ name, valueTag: name, nameFormat: ATTRIBUTE_NAME_FORMAT, valueXsiType: 'xs:string' })),
      },
    });
  }

  /** The IdP's metadata document, as an administrator would paste it into Vigil. */
  metadata(): string {
    return this.idp([]).getMetadata();
  }

  /**
   * Reads an SP-initiated login as the IdP would (HTTP-Redirect binding), checking the request's signature with
   * `spCertificate`; answers the request id.
   */
  async readSignedLoginRequest(location: URL, spEntityId: string, acsUrl: string, spCertificate: string): Promise<string> {
    const sp = samlify.ServiceProvider({
      entityID: spEntityId,
      assertionConsumerService: [{ Binding: POST, Location: acsUrl }],
      authnRequestsSigned: true,
      signingCert: spCertificate,
    });
    // The signature covers the query parameters as they were encoded, in order, without the signature itself.
    const octetString = location.search.slice(1).split('&').filter((p) => !p.startsWith('Signature=')).join('&');
    const query = Object.fromEntries(location.searchParams);
    const { extract } = await this.idp([], true).parseLoginRequest(sp, 'redirect', { query, octetString });
    return extract.request.id;
  }

  /** A base64 SAMLResponse for the service provider `spEntityId` with ACS URL `acsUrl`. */
  async loginResponse(spEntityId: string, acsUrl: string, options: LoginOptions): Promise<string> {
    const signing = options.signing ?? 'response';
    const attributes = options.attributes ?? {};
    const idp = this.idp(Object.keys(attributes));
    const sp = samlify.ServiceProvider({
      entityID: options.audience ?? spEntityId,
      assertionConsumerService: [{ Binding: POST, Location: acsUrl }],
      wantAssertionsSigned: signing !== 'response',
      wantMessageSigned: signing !== 'assertion',
    });
    const now = Date.now();
    const iso = (ms: number) => new Date(now + ms).toISOString();
    const attributeStatement = SamlLib.attributeStatementBuilder(
      Object.keys(attributes).map((name) => ({ name, valueTag: name, nameFormat: ATTRIBUTE_NAME_FORMAT, valueXsiType: 'xs:string' })),
    );
    const replace = (template: string) => {
      const values: Record<string, string | undefined> = {
        ID: `_${crypto.randomUUID()}`,
        AssertionID: `_${crypto.randomUUID()}`,
        Destination: acsUrl,
        Audience: options.audience ?? spEntityId,
        SubjectRecipient: acsUrl,
        Issuer: this.entityId,
        IssueInstant: iso(0),
        StatusCode: Constants.StatusCode.Success,
        ConditionsNotBefore: iso(options.notBeforeMs ?? -1000),
        ConditionsNotOnOrAfter: iso(options.notOnOrAfterMs ?? 5 * 60_000),
        SubjectConfirmationDataNotOnOrAfter: iso(options.notOnOrAfterMs ?? 5 * 60_000),
        NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
        NameID: options.nameId,
        InResponseTo: options.inResponseTo,
        AuthnStatement: '',
        AttributeStatement: '',
      };
      // The statement goes in first so its {attr...} placeholders are then filled like the others.
      let xml = SamlLib.replaceTagsByValue(template, { AttributeStatement: attributeStatement });
      for (const [name, value] of Object.entries(attributes)) {
        const tag = `attr${name.charAt(0).toUpperCase()}${name.slice(1)}`;
        if (Array.isArray(value)) xml = multiValued(xml, tag, value);
        else xml = SamlLib.replaceTagsByValue(xml, { [tag]: value });
      }
      xml = SamlLib.replaceTagsByValue(xml, values);
      return { id: values.ID!, context: xml };
    };
    const { context } = await idp.createLoginResponse(sp, {}, 'post', {}, replace);
    return context;
  }
}

/**
 * samlify's attribute template holds one AttributeValue per attribute: repeats the one carrying `{tag}` once per
 * value, each filled (and escaped) by samlify's tag replacement.
 */
function multiValued(xml: string, tag: string, values: readonly string[]): string {
  const element = new RegExp(`<saml:AttributeValue[^>]*>\\{${tag}\\}</saml:AttributeValue>`).exec(xml)?.[0];
  if (!element) throw new Error(`no AttributeValue for {${tag}} in the attribute statement`);
  const copies = values.map((_, i) => element.replace(`{${tag}}`, `{${tag}V${i}}`)).join('');
  return SamlLib.replaceTagsByValue(xml.replace(element, copies), Object.fromEntries(values.map((v, i) => [`${tag}V${i}`, v])));
}

/** Decodes a base64 SAMLResponse, lets `edit` change its XML, and encodes it again. */
export function editResponse(samlResponse: string, edit: (xml: string) => string): string {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const edited = edit(xml);
  if (edited === xml) throw new Error('the edit changed nothing');
  return Buffer.from(edited, 'utf8').toString('base64');
}

/** Posts a SAMLResponse to Vigil's assertion consumer for `idpName`, as the user's browser would (HTTP-POST binding). */
export async function postToAcs(baseUrl: string, idpName: string, samlResponse: string): Promise<RawResponse> {
  return postForm(baseUrl, `/v2/rbac-manager/saml/sso/${idpName}`, { SAMLResponse: samlResponse });
}
