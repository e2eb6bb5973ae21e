/**
 * SPDX 2.2/2.3 JSON -> packages. The package types come from PACKAGE-MANAGER purls; the package the document
 * DESCRIBES (the image) and purpose CONTAINER/OPERATING-SYSTEM/FILE packages are not packages of the image, the
 * operating system giving the distro. syft's ownership relationships (`OTHER`, comment `ownership-by-file-overlap...`)
 * make the OS package the owner of the language package (sbom/ownership-links.ts).
 */
import type { CatalogedPackage, DistroInfo } from '../../ecosystems/model.js';
import { linkOwner } from '../ownership.js';
import { isValidSpdxExpression } from './licenses.js';
import { isSpdxOwnershipComment } from './ownership-links.js';
import { FieldReader, type JsonObject } from './read-fields.js';
import { distroFromPackages, toCatalogedPackage, type PackageFacts } from './read-package.js';

const fields = new FieldReader('spdx');

const NOT_PACKAGE_PURPOSES = new Set(['CONTAINER', 'OPERATING-SYSTEM', 'FILE']);
const NO_VALUE = new Set(['NOASSERTION', 'NONE', '']);

/** Ids of the elements the document describes (2.3 relationships, or 2.2's documentDescribes list). */
function describedIds(doc: JsonObject): Set<string> {
  const ids = new Set(fields.strings(doc, 'documentDescribes', ''));
  for (const { item, path } of fields.objects(doc, 'relationships', '')) {
    const type = fields.optionalString(item, 'relationshipType', path);
    const from = fields.optionalString(item, 'spdxElementId', path);
    const to = fields.optionalString(item, 'relatedSpdxElement', path);
    if (type === 'DESCRIBES' && from === 'SPDXRef-DOCUMENT' && to) ids.add(to);
    if (type === 'DESCRIBED_BY' && to === 'SPDXRef-DOCUMENT' && from) ids.add(from);
  }
  return ids;
}

/** LicenseRef id -> the license's name, so a ref Vigil (or another tool) made for a free-form name reads back as it. */
function extractedNames(doc: JsonObject): Map<string, string> {
  const names = new Map<string, string>();
  for (const { item, path } of fields.objects(doc, 'hasExtractedLicensingInfos', '')) {
    const id = fields.optionalString(item, 'licenseId', path);
    const name = fields.optionalString(item, 'name', path);
    if (id && name && !NO_VALUE.has(name)) names.set(id, name);
  }
  return names;
}

function declaredLicenses(pkg: JsonObject, path: string, refs: Map<string, string>): string[] {
  for (const key of ['licenseDeclared', 'licenseConcluded']) {
    const value = fields.optionalString(pkg, key, path)?.trim();
    if (value === undefined || NO_VALUE.has(value)) continue;
    if (refs.has(value)) return [refs.get(value)!];
    // Writers joining several licenses with AND (Vigil, syft) get them back one by one when each stands alone.
    const parts = value.split(' AND ');
    if (parts.length > 1 && parts.every((p) => !/[()\s]/.test(p) && isValidSpdxExpression(p))) return parts.map((p) => refs.get(p) ?? p);
    return [value];
  }
  return [];
}

/** `acquired package info from <what>: <path>, <path>` is how syft and Vigil record where a package was found. */
function sourceInfoLocations(sourceInfo: string | undefined): string[] {
  const match = /^acquired package info from [^:]*:\s*(.+)$/s.exec(sourceInfo ?? '');
  return match ? match[1]!.split(/,\s+/).filter((p) => p.startsWith('/')) : [];
}

function packageFacts(pkg: JsonObject, path: string, refs: Map<string, string>): PackageFacts {
  let purl: string | undefined;
  const cpes: string[] = [];
  for (const { item, path: p } of fields.objects(pkg, 'externalRefs', path)) {
    const type = fields.optionalString(item, 'referenceType', p);
    const locator = fields.optionalString(item, 'referenceLocator', p);
    if (!locator) continue;
    if (type === 'purl') purl ??= locator;
    else if (type === 'cpe23Type' || type === 'cpe22Type') cpes.push(locator);
  }
  const supplier = fields.optionalString(pkg, 'supplier', path);
  return {
    where: path,
    name: fields.requiredString(pkg, 'name', path),
    version: fields.optionalString(pkg, 'versionInfo', path) ?? '',
    typeHints: [],
    purl,
    cpes,
    licenses: declaredLicenses(pkg, path, refs),
    locations: sourceInfoLocations(fields.optionalString(pkg, 'sourceInfo', path)),
    metadata: supplier && !NO_VALUE.has(supplier) ? { supplier } : {},
  };
}

function operatingSystem(pkg: JsonObject, path: string): DistroInfo {
  const description = fields.optionalString(pkg, 'description', path);
  return {
    name: fields.requiredString(pkg, 'name', path).toLowerCase(),
    version: fields.optionalString(pkg, 'versionInfo', path) ?? '',
    like: [],
    ...(description ? { prettyName: description } : {}),
  };
}

/** Applies the document's ownership relationships (spdxElementId: the OS package, relatedSpdxElement: the owned one). */
function applyOwnership(doc: JsonObject, byId: Map<string, CatalogedPackage>): void {
  for (const { item, path } of fields.objects(doc, 'relationships', '')) {
    if (fields.optionalString(item, 'relationshipType', path) !== 'OTHER' || !isSpdxOwnershipComment(item['comment'])) continue;
    const parent = fields.optionalString(item, 'spdxElementId', path);
    const child = fields.optionalString(item, 'relatedSpdxElement', path);
    linkOwner(parent === undefined ? undefined : byId.get(parent), child === undefined ? undefined : byId.get(child));
  }
}

export function readSpdx(doc: JsonObject): { packages: CatalogedPackage[]; distro?: DistroInfo; warnings: string[] } {
  const warnings: string[] = [];
  const described = describedIds(doc);
  const refs = extractedNames(doc);
  const found: { id: string; facts: PackageFacts }[] = [];
  let distro: DistroInfo | undefined;

  for (const { item, path } of fields.objects(doc, 'packages', '')) {
    const id = fields.requiredString(item, 'SPDXID', path);
    const purpose = fields.optionalString(item, 'primaryPackagePurpose', path);
    if (purpose === 'OPERATING-SYSTEM') {
      distro ??= operatingSystem(item, path);
      continue;
    }
    if (purpose && NOT_PACKAGE_PURPOSES.has(purpose)) continue;
    const facts = packageFacts(item, path, refs);
    // The described root is the image (or whatever was scanned) unless it is itself a typed package.
    if (described.has(id) && (!facts.purl || /^pkg:(oci|docker)\//.test(facts.purl))) continue;
    found.push({ id, facts });
  }

  const packages: CatalogedPackage[] = [];
  const byId = new Map<string, CatalogedPackage>();
  for (const { id, facts } of found) {
    const pkg = toCatalogedPackage(facts, distro, warnings);
    if (!pkg) continue;
    packages.push(pkg);
    byId.set(id, pkg);
  }
  applyOwnership(doc, byId);
  distro ??= distroFromPackages(packages);
  return { packages, ...(distro ? { distro } : {}), warnings };
}
