/**
 * What Vigil needs from an identity provider's SAML metadata: its entity id, signing certificates and
 * HTTP-Redirect single sign-on URL. Parsed with node-saml's own XML reader (@xmldom/xmldom), which never resolves
 * entities or fetches DTDs, so a metadata document cannot make the server read files or URLs.
 */
import { X509Certificate } from 'node:crypto';
import { parseDomFromString, xpath } from '@node-saml/node-saml/lib/xml.js';
import { InvalidError } from '../../errors.js';
import { OutboundError } from '../../outbound/errors.js';
import { getCapped } from '../../outbound/post-json.js';
import type { OutboundPolicy } from '../../outbound/policy.js';
import { packageVersion } from '../../util/project.js';

export interface IdpMetadata {
  entityId: string | null;
  certificates: string[];
  ssoRedirectUrl: string | null;
}

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const MAX_CERTIFICATES = 16;
/** Metadata documents of one identity provider are a few KiB; federation aggregates (megabytes) are not accepted. */
export const MAX_METADATA_BYTES = 256 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/** Fetches a metadata document, answering its text. */
export type MetadataFetcher = (url: string) => Promise<string>;

function invalid(field: string, message: string): InvalidError {
  return new InvalidError(`${field}: ${message}`, { errors: [{ location: `body.${field}`, message }] });
}

/** A certificate given as PEM or bare base64 (as metadata holds it), checked and answered as PEM. */
export function normaliseCertificate(text: string, field: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) throw invalid(field, 'not a PEM or base64 X.509 certificate');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw invalid(field, 'not a valid X.509 certificate');
  }
  return pem;
}

export async function parseIdpMetadata(xml: string, field = 'idp_metadata_xml'): Promise<IdpMetadata> {
  let doc: Awaited<ReturnType<typeof parseDomFromString>>;
  try {
    doc = await parseDomFromString(xml);
  } catch (err) {
    throw invalid(field, `not well-formed XML (${(err as Error).message.split('\n')[0]})`);
  }
  const root = doc.documentElement;
  if (!root || root.localName !== 'EntityDescriptor') throw invalid(field, 'not a SAML metadata EntityDescriptor');
  const idp = "/*[local-name()='EntityDescriptor']/*[local-name()='IDPSSODescriptor']";
  if (xpath.selectElements(doc, idp).length === 0) throw invalid(field, 'has no IDPSSODescriptor');
  const certNodes = xpath.selectElements(
    doc,
    `${idp}/*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']`,
  );
  if (certNodes.length === 0) throw invalid(field, 'names no signing certificate');
  if (certNodes.length > MAX_CERTIFICATES) throw invalid(field, `names more than ${MAX_CERTIFICATES} certificates`);
  const certificates = [...new Set(certNodes.map((n) => normaliseCertificate(n.textContent ?? '', field)))];
  const sso = xpath.selectAttributes(doc, `${idp}/*[local-name()='SingleSignOnService'][@Binding='${REDIRECT_BINDING}']/@Location`);
  const entity = root.getAttribute('entityID');
  return { entityId: entity || null, certificates, ssoRedirectUrl: sso[0]?.value || null };
}

/** Fetches metadata through the guarded outbound client, under `policy` (which internal addresses it may reach). */
export function metadataFetcher(policy: OutboundPolicy): MetadataFetcher {
  return async (url) => {
    let answer;
    try {
      answer = await getCapped(url, { Accept: 'application/samlmetadata+xml, application/xml, text/xml' }, {
        policy,
        timeoutMs: FETCH_TIMEOUT_MS,
        verifyTls: true,
        maxResponseBytes: MAX_METADATA_BYTES,
        userAgent: `Vigil/${packageVersion}`,
      });
    } catch (err) {
      if (err instanceof OutboundError) throw invalid('idp_metadata_url', `the metadata could not be fetched: ${err.message}`);
      throw err;
    }
    if (answer.status !== 200) throw invalid('idp_metadata_url', `the metadata URL answered HTTP ${answer.status}`);
    if (answer.truncated) throw invalid('idp_metadata_url', `the metadata is larger than ${MAX_METADATA_BYTES} bytes`);
    return answer.body;
  };
}
