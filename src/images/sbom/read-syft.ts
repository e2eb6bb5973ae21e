/**
 * syft JSON (and Vigil's native export, which has its shape) -> packages. Reads both the current schema (objects
 * for locations, licenses and cpes) and older ones (plain strings), and the distro block.
 */
import { sourceRpmName } from '../../ecosystems/rpm/cataloger.js';
import type { CatalogedPackage, DistroInfo, PackageType } from '../../ecosystems/model.js';
import { linkOwner } from '../ownership.js';
import { OWNERSHIP_RELATIONSHIP } from './ownership-links.js';
import { typeFromSyftType } from './package-types.js';
import { child, FieldReader, isObject, type JsonObject } from './read-fields.js';
import { toCatalogedPackage, type PackageFacts } from './read-package.js';

const fields = new FieldReader('syft');

/** Items that are strings, or objects holding the string under `key` (syft moved from the one to the other). */
function stringsOrObjects(artifact: JsonObject, list: string, keys: string[], path: string): string[] {
  return (fields.optionalArray(artifact, list, path) ?? []).flatMap((value, i) => {
    if (typeof value === 'string') return [value];
    const item = fields.object(value, child(child(path, list), i));
    for (const key of keys) {
      const found = fields.optionalString(item, key, child(child(path, list), i));
      if (found) return [found];
    }
    return [];
  });
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** Where syft's metadata records the source package (dpkg, apk, rpm) or group (Java) of an artifact. */
function metadataOrigin(type: PackageType | undefined, metadata: JsonObject): { origin?: string; sourceVersion?: string } {
  const pom = metadata['pomProperties'];
  switch (type) {
    case 'dpkg':
      return { origin: text(metadata['source']), sourceVersion: text(metadata['sourceVersion']) };
    case 'apk':
      return { origin: text(metadata['originPackage']) };
    case 'rpm':
      return { origin: sourceRpmName(text(metadata['sourceRpm'])) };
    case 'java':
      return { origin: isObject(pom) ? text(pom['groupId']) : undefined };
    default:
      return {};
  }
}

function artifactFacts(artifact: JsonObject, path: string): PackageFacts {
  const type = fields.requiredString(artifact, 'type', path);
  const vigilType = typeFromSyftType(type);
  const metadata = fields.optionalObject(artifact, 'metadata', path) ?? {};
  const fromMetadata = metadataOrigin(vigilType, metadata);
  const size = artifact['size'];
  return {
    where: path,
    name: fields.requiredString(artifact, 'name', path),
    version: fields.optionalString(artifact, 'version', path) ?? '',
    typeHints: [vigilType],
    declaredType: type,
    purl: fields.optionalString(artifact, 'purl', path),
    cpes: stringsOrObjects(artifact, 'cpes', ['cpe'], path),
    // spdxExpression when syft could make one, else the license as declared.
    licenses: stringsOrObjects(artifact, 'licenses', ['spdxExpression', 'value'], path),
    locations: stringsOrObjects(artifact, 'locations', ['path'], path),
    origin: fields.optionalString(artifact, 'origin', path) ?? fromMetadata.origin,
    sourceVersion: fields.optionalString(artifact, 'sourceVersion', path) ?? fromMetadata.sourceVersion,
    ...(typeof size === 'number' && Number.isFinite(size) ? { size } : {}),
    metadata,
  };
}

/** syft names the distro by os-release ID in `id` (its `name` is the pretty NAME); Vigil's native uses `name`. */
function readDistro(doc: JsonObject): DistroInfo | undefined {
  const block = fields.optionalObject(doc, 'distro', '');
  if (!block) return undefined;
  const name = fields.optionalString(block, 'id', 'distro') || fields.optionalString(block, 'name', 'distro');
  if (!name) return undefined;
  const idLike = block['idLike'];
  const like = Array.isArray(idLike) ? fields.strings(block, 'idLike', 'distro') : (fields.optionalString(block, 'idLike', 'distro') ?? '').split(/\s+/).filter(Boolean);
  const prettyName = fields.optionalString(block, 'prettyName', 'distro');
  return {
    name: name.toLowerCase(),
    version: fields.optionalString(block, 'versionID', 'distro') || (fields.optionalString(block, 'version', 'distro') ?? ''),
    like,
    ...(prettyName ? { prettyName } : {}),
  };
}

/**
 * syft's `ownership-by-file-overlap` relationships (parent: the OS package whose file list holds the child's
 * files): the child, when a language package, gets the parent as its owner, as an analysis would have found
 * (images/ownership.ts). Relationships naming artifacts that were not read, or of other types, are ignored.
 */
function applyOwnership(doc: JsonObject, byId: Map<string, CatalogedPackage>): void {
  const relationships = doc['artifactRelationships'];
  if (!Array.isArray(relationships)) return;
  for (const relationship of relationships) {
    if (!isObject(relationship) || relationship['type'] !== OWNERSHIP_RELATIONSHIP) continue;
    const parent = typeof relationship['parent'] === 'string' ? byId.get(relationship['parent']) : undefined;
    const owned = typeof relationship['child'] === 'string' ? byId.get(relationship['child']) : undefined;
    linkOwner(parent, owned);
  }
}

export function readSyft(doc: JsonObject): { packages: CatalogedPackage[]; distro?: DistroInfo; warnings: string[] } {
  const warnings: string[] = [];
  if (fields.optionalArray(doc, 'artifacts', '') === undefined) fields.fail('artifacts', 'is required and must be an array');
  const distro = readDistro(doc);
  const packages: CatalogedPackage[] = [];
  const byId = new Map<string, CatalogedPackage>();
  for (const { item, path } of fields.objects(doc, 'artifacts', '')) {
    const pkg = toCatalogedPackage(artifactFacts(item, path), distro, warnings);
    if (!pkg) continue;
    packages.push(pkg);
    if (typeof item['id'] === 'string') byId.set(item['id'], pkg);
  }
  applyOwnership(doc, byId);
  return { packages, ...(distro ? { distro } : {}), warnings };
}
