/**
 * What both VEX writers share: how the image, its packages and the document are named, the input checks, and the
 * text helpers. Everything here is a pure function of its arguments.
 */
import { PackageURL } from 'packageurl-js';
import { purl } from '../../ecosystems/shared/identifiers.js';
import { splitTag } from '../../images/sbom/image-name.js';
import { nameBasedUuid } from '../../images/sbom/stable-ids.js';
import type { VexDocumentInput, VexJustification, VexProduct, VexStatement, VexStatus } from './types.js';

export const VEX_STATUSES: readonly VexStatus[] = ['not_affected', 'affected', 'fixed', 'under_investigation'];
export const VEX_JUSTIFICATIONS: readonly VexJustification[] = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
  'fix_not_planned',
];

/** Code-unit order: unlike localeCompare, the same on every machine whatever its locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Deduplicated and sorted in code-unit order. */
export function uniqueSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareStrings);
}

/** The optional text, trimmed; undefined when absent or blank (a blank note says nothing). */
export function text(value: string | undefined | null): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Non-blank parts, one per line; undefined when there is none. */
export function joinLines(parts: ReadonlyArray<string | undefined>): string | undefined {
  const kept = parts.filter((p): p is string => p !== undefined && p !== '');
  return kept.length ? kept.join('\n') : undefined;
}

/** A justification label as notes quote it; `fix_not_planned` is no VEX label, so it carries its meaning along. */
export function justificationText(justification: VexJustification): string {
  return justification === 'fix_not_planned' ? 'fix_not_planned (no fix is planned)' : justification;
}

// ---------------------------------------------------------------------------------------------------------------
// Input checks: the types say what a statement is, but rows from a database can still be wrong at run time, and a
// document built from them would be silently invalid. Problems are programming or data errors, so RangeError.

/** OCI digest grammar (`algorithm:encoded`), as image-spec descriptor.md defines it. */
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** RFC 3339 date-time (the profile both formats' schemas check). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

function checkTime(value: string, what: string): void {
  if (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) throw new RangeError(`${what} is not an RFC 3339 date-time: ${JSON.stringify(value)}`);
}

/** Statements as the checks see them: a vulnerability report's may have no status (not assessed). */
type CheckedStatement = Omit<VexStatement, 'status'> & { status?: VexStatus };

export function checkInput(input: Omit<VexDocumentInput, 'statements'> & { statements: CheckedStatement[] }, options: { statusOptional?: boolean } = {}): void {
  if (!DIGEST.test(input.imageDigest)) throw new RangeError(`not an image digest: ${JSON.stringify(input.imageDigest)}`);
  if (!text(input.author)) throw new RangeError('the document has no author');
  checkTime(input.timestamp, 'the document timestamp');
  input.statements.forEach((s, i) => checkStatement(s, i, options.statusOptional ?? false));
}

function checkStatement(s: CheckedStatement, index: number, statusOptional: boolean): void {
  const where = `statement ${index}`;
  if (!text(s.vulnerabilityId)) throw new RangeError(`${where} has no vulnerability id`);
  if (!(statusOptional && s.status === undefined) && !VEX_STATUSES.includes(s.status!)) throw new RangeError(`${where} has an unknown status ${JSON.stringify(s.status)}`);
  if (s.justification !== undefined && !VEX_JUSTIFICATIONS.includes(s.justification))
    throw new RangeError(`${where} has an unknown justification ${JSON.stringify(s.justification)}`);
  if (!givenPurl(s.product) && !text(s.product.name)) throw new RangeError(`${where} names its package by neither purl nor name`);
  checkTime(s.timestamp, `${where}'s timestamp`);
}

// ---------------------------------------------------------------------------------------------------------------
// Identifiers.

/** The purl the product was stored with, when it is one: blank, blank-containing or unparsable values are not. */
export function givenPurl(product: VexProduct): string | undefined {
  const value = product.purl.trim();
  if (!value || /\s/.test(value)) return undefined;
  try {
    PackageURL.fromString(value);
    return value;
  } catch {
    return undefined;
  }
}

/**
 * The package's purl: the stored one, else `pkg:generic/<name>@<version>` (purl-spec's type for software with no
 * ecosystem of its own; Vigil's package type is no purl type, and guessing a namespace, as deb or rpm purls need,
 * would assert more than is known). The name and version are percent-encoded by packageurl-js.
 */
export function productPurl(product: VexProduct): string {
  return givenPurl(product) ?? purl('generic', undefined, product.name, text(product.version) ? product.version : undefined);
}

/** `registry/repo`, dropping a `:tag` or `@digest` a caller may have left on the name. */
function repositoryOf(imageName: string): string {
  const withoutDigest = imageName.trim().split('@')[0]!;
  return splitTag(withoutDigest).repository;
}

/**
 * The image as an OCI package URL (purl-spec's `oci` type): `pkg:oci/<last path segment>@<digest>?repository_url=
 * <registry/repository>`. Without a name there is no repository to point to, so the name is the digest's hex part:
 * `pkg:oci/<hex>@sha256:<hex>`, still unique and still the digest as version. packageurl-js writes the canonical
 * form, in which the digest's colon is left unencoded (`@sha256:...`); `@sha256%3A...` in purl-spec's examples is
 * the same purl, and every purl parser reads both alike. Neither arch nor tag are qualifiers: a digest already pins
 * one manifest, and statements outlive tags.
 */
export function imagePurl(imageDigest: string, imageName?: string): string {
  const repository = text(imageName) ? repositoryOf(imageName!) : '';
  const name = repository.slice(repository.lastIndexOf('/') + 1).toLowerCase();
  if (name) {
    try {
      return purl('oci', undefined, name, imageDigest, { repository_url: repository });
    } catch {
      // a repository purl cannot hold: fall through to the digest alone
    }
  }
  const hex = imageDigest.slice(imageDigest.indexOf(':') + 1).toLowerCase();
  return purl('oci', undefined, hex, imageDigest);
}

const UUID = /^(?:urn:uuid:)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The document's UUID: the caller's own when `documentId` is a `urn:uuid:` (or a bare UUID), lower-cased as
 * CycloneDX's pattern wants; otherwise a name-based (v5) UUID of the id, so the same id always gives the same UUID.
 */
export function documentUuid(documentId: string): string {
  const match = UUID.exec(documentId.trim());
  return match ? match[1]!.toLowerCase() : nameBasedUuid(`vex-document:${documentId}`);
}

/** An absolute IRI: a scheme, then no blanks or characters RFC 3987 excludes. */
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]+$/;

export function isIri(value: string): boolean {
  return IRI.test(value);
}

/** The document's IRI: the caller's id when it is one (a bare UUID becomes its `urn:uuid:`), else `urn:uuid:` of {@link documentUuid}. */
export function documentIri(documentId: string): string {
  const id = documentId.trim();
  return isIri(id) && !UUID.test(id) ? id : `urn:uuid:${documentUuid(id)}`;
}
