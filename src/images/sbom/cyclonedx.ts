/**
 * CycloneDX 1.5/1.6 JSON for an image, built with the CycloneDX project's own library so spec-version differences
 * (what 1.5 may not carry) are handled by the people who write the spec. Follows syft's choices: the image is the
 * `container` metadata component, every package a `library`, the distro an `operating-system` component. A language
 * package an OS package owns is nested in that package's component (sbom/ownership-links.ts).
 */
import { Enums, Models, Types, type Serialize } from '@cyclonedx/cyclonedx-library';
import { cycloneDxJson, type CycloneDxSpecVersion } from './cyclonedx-serialize.js';
import type { DistroInfo } from '../../ecosystems/model.js';
import { imageDisplayName, imagePurl } from './image-name.js';
import { documentTime, type SbomImage, type SbomInput, type SbomPackage } from './input.js';
import { classifyLicense, conjoin, type LicenseChoice } from './licenses.js';
import { ownerLinks } from './ownership-links.js';
import { identifyPackages } from './package-ids.js';
import { typeNames } from './package-types.js';
import { nameBasedUuid } from './stable-ids.js';

export type { CycloneDxSpecVersion };
export type CycloneDxDocument = Serialize.JSON.Types.Normalized.Bom;

export interface CycloneDxOptions {
  /** Defaults to 1.6. */
  specVersion?: CycloneDxSpecVersion;
}

/** Property names Vigil writes (and its reader understands, alongside syft's `syft:` equivalents). */
export const CDX_PROPERTY = {
  type: 'vigil:package:type',
  foundBy: 'vigil:package:foundBy',
  language: 'vigil:package:language',
  origin: 'vigil:package:origin',
  sourceVersion: 'vigil:package:sourceVersion',
  /** CPEs after the first, which has the `cpe` field to itself. */
  cpe: 'vigil:cpe23',
  location: (index: number) => `vigil:location:${index}:path`,
  imageId: 'vigil:image:id',
  imageArch: 'vigil:image:architecture',
  imageTag: 'vigil:image:tag',
  distroIdLike: 'vigil:distro:idLike',
} as const;

/** The same serial number for every export of one image (CycloneDX wants a UUID URN; v5 keeps it stable). */
export function cycloneDxSerialNumber(imageDigest: string): string {
  return `urn:uuid:${nameBasedUuid(`cyclonedx:${imageDigest}`)}`;
}

/**
 * CycloneDX allows either license objects or exactly one expression. Identifiers and expressions alone become one
 * ANDed expression (syft's reading of several declared licenses); once a free-form name is among them no
 * expression can hold it, so expressions are demoted to names rather than anything being dropped.
 */
function cycloneDxLicenses(declared: readonly string[]): Models.License[] {
  const ack = Enums.LicenseAcknowledgement.Declared;
  const choices = declared.map(classifyLicense).filter((c): c is LicenseChoice => c !== undefined);
  const hasName = choices.some((c) => c.kind === 'name');
  const hasExpression = choices.some((c) => c.kind === 'expression');
  if (hasExpression && !hasName) {
    const parts = choices.map((c) => (c.kind === 'id' ? c.id : c.kind === 'expression' ? c.expression : ''));
    const expression = new Models.LicenseExpression(conjoin(parts));
    expression.acknowledgement = ack;
    return [expression];
  }
  const seen = new Set<string>();
  const licenses: Models.License[] = [];
  for (const c of choices) {
    const key = `${c.kind}:${c.kind === 'id' ? c.id : c.kind === 'expression' ? c.expression : c.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (c.kind === 'id') licenses.push(new Models.SpdxLicense(c.id, { acknowledgement: ack }));
    else licenses.push(new Models.NamedLicense(c.kind === 'name' ? c.name : c.expression, { acknowledgement: ack }));
  }
  return licenses;
}

function packageComponent(id: string, p: SbomPackage): Models.Component {
  const names = typeNames(p.type);
  // Imported SBOMs may carry CPEs other tools wrote unescaped (e.g. `~` in Debian versions); the schema refuses them.
  const cpes = p.cpes.filter((c) => Types.isCPE(c));
  const maintainer = p.metadata['maintainer'];
  const component = new Models.Component(Enums.ComponentType.Library, p.name, {
    bomRef: `pkg-${id}`,
    version: p.version,
    // syft's group is the Maven groupId; other ecosystems keep their full name in `name`.
    ...(p.type === 'java' && p.origin ? { group: p.origin } : {}),
    ...(p.purl ? { purl: p.purl } : {}),
    ...(cpes[0] ? { cpe: cpes[0] } : {}),
    ...(typeof maintainer === 'string' && maintainer ? { publisher: maintainer } : {}),
  });
  for (const license of cycloneDxLicenses(p.licenses)) component.licenses.add(license);
  const property = (name: string, value: string) => component.properties.add(new Models.Property(name, value));
  property(CDX_PROPERTY.type, p.type);
  property(CDX_PROPERTY.foundBy, names.foundBy);
  if (names.language) property(CDX_PROPERTY.language, names.language);
  if (p.origin) property(CDX_PROPERTY.origin, p.origin);
  if (p.sourceVersion) property(CDX_PROPERTY.sourceVersion, p.sourceVersion);
  for (const cpe of cpes.slice(1)) property(CDX_PROPERTY.cpe, cpe);
  p.locations.forEach((path, i) => property(CDX_PROPERTY.location(i), path));
  return component;
}

function imageComponent(image: SbomImage): Models.Component {
  const purl = imagePurl(image);
  const component = new Models.Component(Enums.ComponentType.Container, imageDisplayName(image), {
    bomRef: `image-${image.digest}`,
    version: image.digest,
    ...(purl ? { purl } : {}),
  });
  if (image.imageId) component.properties.add(new Models.Property(CDX_PROPERTY.imageId, image.imageId));
  if (image.arch) component.properties.add(new Models.Property(CDX_PROPERTY.imageArch, image.arch));
  for (const tag of image.tags) component.properties.add(new Models.Property(CDX_PROPERTY.imageTag, tag));
  return component;
}

function operatingSystemComponent(distro: DistroInfo): Models.Component {
  const component = new Models.Component(Enums.ComponentType.OperatingSystem, distro.name, {
    bomRef: `os-${distro.name}-${distro.version}`,
    version: distro.version,
    ...(distro.prettyName ? { description: distro.prettyName } : {}),
  });
  for (const like of distro.like) component.properties.add(new Models.Property(CDX_PROPERTY.distroIdLike, like));
  return component;
}

export function toCycloneDx(input: SbomInput, options: CycloneDxOptions = {}): CycloneDxDocument {
  const image = imageComponent(input.image);
  const tool = new Models.Component(Enums.ComponentType.Application, 'vigil', { version: input.toolVersion });
  const bom = new Models.Bom({
    serialNumber: cycloneDxSerialNumber(input.image.digest),
    metadata: new Models.Metadata({
      timestamp: new Date(documentTime(input)),
      tools: new Models.Tools({ components: new Models.ComponentRepository([tool]) }),
      component: image,
    }),
  });
  const identified = identifyPackages(input.packages);
  const packages = new Map(identified.map(({ id, pkg }) => [id, packageComponent(id, pkg)]));
  // An owned package is nested in its owner's component (sbom/ownership-links.ts) instead of listed at the top.
  const owned = ownerLinks(identified);
  for (const { ownerId, child } of owned) packages.get(ownerId)!.components.add(packages.get(child.id)!);
  const nested = new Set(owned.map(({ child }) => child.id));
  const os = input.image.distro ? [operatingSystemComponent(input.image.distro)] : [];
  for (const [id, component] of packages) if (!nested.has(id)) bom.components.add(component);
  for (const component of os) bom.components.add(component);
  // The image depends on every package, nested or not.
  for (const component of [...packages.values(), ...os]) image.dependencies.add(component.bomRef);
  // The insertion order above is already canonical (the library's own sorting depends on the machine's locale).
  return cycloneDxJson(bom, options.specVersion ?? '1.6');
}
