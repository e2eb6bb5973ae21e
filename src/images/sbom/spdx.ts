/**
 * SPDX 2.3 JSON for an image: one package for the image (purpose CONTAINER), one for its distro (OPERATING-SYSTEM)
 * when known, one per package, the document DESCRIBES the image and the image CONTAINS the rest; an OS package has
 * an OTHER relationship (syft's ownership-by-file-overlap) to each language package it owns. Files are left
 * out: SPDX 2.3 requires a SHA-1 for every file and Vigil records SHA-256 only.
 */
import type { DistroInfo } from '../../ecosystems/model.js';
import { imageDisplayName, imagePurl } from './image-name.js';
import { documentTime, type SbomImage, type SbomInput, type SbomPackage } from './input.js';
import { classifyLicense, conjoin, licenseRefsIn, type LicenseChoice } from './licenses.js';
import { ownerLinks, SPDX_OWNERSHIP_COMMENT } from './ownership-links.js';
import { compareStrings, identifyPackages } from './package-ids.js';
import { typeNames } from './package-types.js';
import { contentId, nameBasedUuid } from './stable-ids.js';

export interface SpdxExternalRef {
  referenceCategory: 'PACKAGE-MANAGER' | 'SECURITY';
  referenceType: 'purl' | 'cpe23Type' | 'cpe22Type';
  referenceLocator: string;
}

export interface SpdxPackage {
  name: string;
  SPDXID: string;
  versionInfo?: string;
  supplier: string;
  downloadLocation: 'NOASSERTION';
  filesAnalyzed: false;
  sourceInfo?: string;
  licenseConcluded: 'NOASSERTION';
  licenseDeclared: string;
  copyrightText: 'NOASSERTION';
  description?: string;
  externalRefs?: SpdxExternalRef[];
  primaryPackagePurpose?: 'CONTAINER' | 'OPERATING-SYSTEM';
}

export interface SpdxRelationship {
  spdxElementId: string;
  relationshipType: 'DESCRIBES' | 'CONTAINS' | 'OTHER';
  relatedSpdxElement: string;
  /** OTHER only: what the relationship is (ownership: sbom/ownership-links.ts). */
  comment?: string;
}

export interface SpdxExtractedLicense {
  licenseId: string;
  extractedText: string;
  name: string;
}

export interface SpdxDocument {
  spdxVersion: 'SPDX-2.3';
  dataLicense: 'CC0-1.0';
  SPDXID: 'SPDXRef-DOCUMENT';
  name: string;
  documentNamespace: string;
  creationInfo: { created: string; creators: string[] };
  packages: SpdxPackage[];
  relationships: SpdxRelationship[];
  hasExtractedLicensingInfos?: SpdxExtractedLicense[];
}

export interface SpdxOptions {
  /** Where document namespaces live; `.invalid` by default because nothing is served there. */
  namespaceBase?: string;
  /** The `Organization:` creator. */
  organization?: string;
}

const DEFAULT_NAMESPACE_BASE = 'https://vigil.invalid/spdx/image';
const NOASSERTION = 'NOASSERTION';

/** SPDX ids and LicenseRefs admit only `[A-Za-z0-9.-]`. */
export function spdxIdPart(value: string): string {
  return value.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}

/** Stable for an image (the brief: re-exports are identical), unique between images through the digest. */
export function spdxDocumentNamespace(image: SbomImage, base = DEFAULT_NAMESPACE_BASE): string {
  return `${base.replace(/\/+$/, '')}/${spdxIdPart(imageDisplayName(image))}-${nameBasedUuid(`spdx:${image.digest}`)}`;
}

interface DeclaredLicense {
  declared: string;
  choice: LicenseChoice;
}

function classifyAll(declared: readonly string[]): DeclaredLicense[] {
  return declared.flatMap((d) => {
    const choice = classifyLicense(d);
    return choice ? [{ declared: d, choice }] : [];
  });
}

/**
 * Gives each free-form license name a LicenseRef, defined once in hasExtractedLicensingInfos. Refs are assigned over
 * the sorted set of all names, so a package's ref does not depend on which other packages came before it; names
 * that sanitise alike ("GPL v2" / "GPL/v2") are told apart by a hash of the name.
 */
class LicenseRefs {
  private readonly byName = new Map<string, string>();
  private readonly extracted = new Map<string, SpdxExtractedLicense>();

  constructor(licenses: DeclaredLicense[]) {
    const taken = new Set<string>();
    // Refs already inside declared expressions need definitions too; the declared text is all we know of them.
    for (const { declared, choice } of licenses) {
      if (choice.kind !== 'expression') continue;
      for (const ref of licenseRefsIn(choice.expression)) {
        taken.add(ref);
        if (!this.extracted.has(ref)) this.extracted.set(ref, { licenseId: ref, extractedText: declared, name: ref });
      }
    }
    const names = [...new Set(licenses.flatMap(({ choice: c }) => (c.kind === 'name' ? [c.name] : [])))].sort(compareStrings);
    for (const name of names) {
      let ref = `LicenseRef-${spdxIdPart(name)}`;
      if (taken.has(ref)) ref = `${ref}-${contentId([name]).slice(0, 8)}`;
      taken.add(ref);
      this.byName.set(name, ref);
      this.extracted.set(ref, { licenseId: ref, extractedText: name, name });
    }
  }

  refFor(name: string): string {
    return this.byName.get(name)!;
  }

  definitions(): SpdxExtractedLicense[] {
    return [...this.extracted.values()].sort((a, b) => compareStrings(a.licenseId, b.licenseId));
  }
}

function declaredLicense(licenses: DeclaredLicense[], refs: LicenseRefs): string {
  if (licenses.length === 0) return NOASSERTION;
  return conjoin(licenses.map(({ choice: c }) => (c.kind === 'id' ? c.id : c.kind === 'expression' ? c.expression : refs.refFor(c.name))));
}

/** SPDX text fields are single-line `Organization: name`; rpm's vendor is the one supplier a database records. */
function supplier(p: SbomPackage): string {
  const vendor = p.metadata['vendor'];
  return p.type === 'rpm' && typeof vendor === 'string' && vendor.trim() ? `Organization: ${vendor.replace(/\s+/g, ' ').trim()}` : NOASSERTION;
}

function externalRefs(purl: string | undefined, cpes: readonly string[]): SpdxExternalRef[] {
  const refs: SpdxExternalRef[] = [];
  if (purl) refs.push({ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl });
  for (const cpe of cpes) {
    if (cpe.startsWith('cpe:2.3:')) refs.push({ referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: cpe });
    else if (cpe.startsWith('cpe:/')) refs.push({ referenceCategory: 'SECURITY', referenceType: 'cpe22Type', referenceLocator: cpe });
  }
  return refs;
}

function packageElement(id: string, p: SbomPackage, licenses: DeclaredLicense[], refs: LicenseRefs): SpdxPackage {
  const names = typeNames(p.type);
  const external = externalRefs(p.purl, p.cpes);
  return {
    name: p.name,
    SPDXID: `SPDXRef-Package-${spdxIdPart(names.syft)}-${spdxIdPart(p.name)}-${id}`,
    ...(p.version ? { versionInfo: p.version } : {}),
    supplier: supplier(p),
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    ...(p.locations.length ? { sourceInfo: `acquired package info from the ${names.foundBy} cataloger: ${p.locations.join(', ')}` } : {}),
    licenseConcluded: NOASSERTION,
    licenseDeclared: declaredLicense(licenses, refs),
    copyrightText: NOASSERTION,
    ...(external.length ? { externalRefs: external } : {}),
  };
}

function imageElement(image: SbomImage): SpdxPackage {
  const purl = imagePurl(image);
  return {
    name: imageDisplayName(image),
    SPDXID: `SPDXRef-DocumentRoot-Image-${spdxIdPart(imageDisplayName(image))}`,
    versionInfo: image.digest,
    supplier: NOASSERTION,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    licenseConcluded: NOASSERTION,
    licenseDeclared: NOASSERTION,
    copyrightText: NOASSERTION,
    ...(purl ? { externalRefs: externalRefs(purl, []) } : {}),
    primaryPackagePurpose: 'CONTAINER',
  };
}

function operatingSystemElement(distro: DistroInfo): SpdxPackage {
  return {
    name: distro.name,
    SPDXID: `SPDXRef-OperatingSystem-${spdxIdPart(distro.name)}-${spdxIdPart(distro.version)}`,
    ...(distro.version ? { versionInfo: distro.version } : {}),
    supplier: NOASSERTION,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    licenseConcluded: NOASSERTION,
    licenseDeclared: NOASSERTION,
    copyrightText: NOASSERTION,
    ...(distro.prettyName ? { description: distro.prettyName } : {}),
    primaryPackagePurpose: 'OPERATING-SYSTEM',
  };
}

export function toSpdx(input: SbomInput, options: SpdxOptions = {}): SpdxDocument {
  const identified = identifyPackages(input.packages);
  const licenses = identified.map(({ pkg }) => classifyAll(pkg.licenses));
  const refs = new LicenseRefs(licenses.flat());

  const image = imageElement(input.image);
  const contained = identified.map(({ id, pkg }, i) => packageElement(id, pkg, licenses[i]!, refs));
  const spdxIds = new Map(identified.map(({ id }, i) => [id, contained[i]!.SPDXID]));
  if (input.image.distro) contained.push(operatingSystemElement(input.image.distro));
  const extracted = refs.definitions();

  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: imageDisplayName(input.image),
    documentNamespace: spdxDocumentNamespace(input.image, options.namespaceBase),
    creationInfo: {
      created: documentTime(input),
      creators: [`Tool: vigil-${input.toolVersion}`, `Organization: ${options.organization ?? 'Vigil'}`],
    },
    packages: [image, ...contained],
    relationships: [
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: image.SPDXID },
      ...contained.map((p) => ({ spdxElementId: image.SPDXID, relationshipType: 'CONTAINS' as const, relatedSpdxElement: p.SPDXID })),
      ...ownerLinks(identified).map(({ ownerId, child }) => ({
        spdxElementId: spdxIds.get(ownerId)!,
        relationshipType: 'OTHER' as const,
        relatedSpdxElement: spdxIds.get(child.id)!,
        comment: SPDX_OWNERSHIP_COMMENT,
      })),
    ],
    ...(extracted.length ? { hasExtractedLicensingInfos: extracted } : {}),
  };
}
